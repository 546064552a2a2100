/* Paging. Every address space maps all of RAM at KERNBASE (include/abi/
 * memlayout.h) with 4 MiB pages, supervisor-only, from the same page
 * directory entries; below KERNBASE it has the process's own 4 KiB-page
 * user mappings in [USER_BASE, USER_TOP), and nothing else: a NULL
 * pointer faults. boot/boot.asm ran the kernel until now on a directory
 * that also mapped low memory where it is; this one has no such map. */
#include "arch.h"
#include "abi/memlayout.h"
#include "kalloc.h"
#include "lib.h"
#include "x86.h"

#define PTE_P   0x001
#define PTE_W   0x002
#define PTE_U   0x004
#define PTE_PS  0x080
#define PDX(va) ((va) >> 22)
#define PTX(va) (((va) >> 12) & 0x3FF)
#define PTE_ADDR(e) ((e) & ~0xFFFu)

static uint32_t kpgdir[1024] __attribute__((aligned(PGSIZE)));

void arch_paging_init(uint32_t ram_top)
{
	uint32_t cr4, cr0;

	if (ram_top > KERN_TOP - KERNBASE)
		ram_top = KERN_TOP - KERNBASE;
	for (uint32_t pa = 0; pa < ram_top; pa += 4u << 20)
		kpgdir[PDX(pa + KERNBASE)] = pa | PTE_P | PTE_W | PTE_PS;

	__asm__ volatile("movl %%cr4, %0" : "=r"(cr4));
	cr4 |= 0x10;    /* PSE: 4 MiB pages */
	__asm__ volatile("movl %0, %%cr4" : : "r"(cr4));
	write_cr3(V2P(kpgdir));
	__asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
	cr0 |= 0x80010000;   /* PG, and WP so the kernel honours read-only pages too */
	__asm__ volatile("movl %0, %%cr0" : : "r"(cr0));
}

uint32_t *arch_pgdir_new(void)
{
	uint32_t *pd = kalloc();
	if (!pd)
		return NULL;
	memset(pd, 0, PGSIZE);
	for (uint32_t i = PDX(KERNBASE); i < 1024; i++)
		pd[i] = kpgdir[i];
	return pd;
}

static uint32_t *walk(uint32_t *pgdir, uint32_t va, bool create)
{
	uint32_t *pde = &pgdir[PDX(va)];
	uint32_t *pt;

	if (*pde & PTE_P) {
		pt = P2V(PTE_ADDR(*pde));
	} else {
		if (!create || !(pt = kalloc()))
			return NULL;
		*pde = V2P(pt) | PTE_P | PTE_W | PTE_U;
	}
	return &pt[PTX(va)];
}

bool arch_map_user(uint32_t *pgdir, uint32_t va, void *page)
{
	uint32_t *pte;

	if (va < USER_BASE || va >= USER_TOP)
		return false;
	pte = walk(pgdir, va, true);
	if (!pte || (*pte & PTE_P))     /* never drop a page already mapped there */
		return false;
	*pte = V2P(page) | PTE_P | PTE_W | PTE_U;
	return true;
}

static void invlpg(uint32_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

void arch_unmap_user(uint32_t *pgdir, uint32_t va)
{
	uint32_t *pte = walk(pgdir, va, false);

	/* the mapping goes before the page: a clock tick that looks the
	 * address up meanwhile (profil's) never reaches a page on the free list */
	if (pte && (*pte & PTE_P)) {
		uint32_t pa = PTE_ADDR(*pte);
		*pte = 0;
		if (read_cr3() == V2P(pgdir))
			invlpg(va);
		kfree(P2V(pa));
	}
}

uint32_t arch_user_page(uint32_t *pgdir, uint32_t va)
{
	uint32_t *pte;

	if (va < USER_BASE || va >= USER_TOP)
		return 0;
	pte = walk(pgdir, va, false);
	if (!pte || (*pte & (PTE_P | PTE_U)) != (PTE_P | PTE_U))
		return 0;
	return PTE_ADDR(*pte);
}

void *arch_user_kptr(uint32_t *pgdir, uint32_t va)
{
	uint32_t pa = arch_user_page(pgdir, ROUNDDOWN(va, PGSIZE));

	return pa ? (char *)P2V(pa) + va % PGSIZE : NULL;
}

void arch_pgdir_free(uint32_t *pgdir)
{
	for (uint32_t i = PDX(USER_BASE); i < PDX(USER_TOP); i++) {
		uint32_t *pt;
		if (!(pgdir[i] & PTE_P))
			continue;
		pt = P2V(PTE_ADDR(pgdir[i]));
		for (int j = 0; j < 1024; j++)
			if (pt[j] & PTE_P)
				kfree(P2V(PTE_ADDR(pt[j])));
		kfree(pt);
	}
	kfree(pgdir);
}

void arch_pgdir_switch(uint32_t *pgdir)
{
	write_cr3(V2P(pgdir ? pgdir : kpgdir));
}
