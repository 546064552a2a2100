/* The GDT (flat kernel and user segments plus the TSS), and arch_init,
 * which sets up the processor at boot. The kernel loads its own GDT rather
 * than trusting the one GRUB left behind. */
#include <asm/ldt.h>          /* Linux's struct user_desc (set_thread_area) */
#include "arch.h"
#include "abi/errno.h"
#include "i386.h"
#include "lib.h"
#include "x86.h"

struct tss {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap;
} __attribute__((packed));

/* SEG_* (x86.h), then the running process's TLS entries (ARCH_TLS_MIN..) */
static uint64_t gdt[ARCH_TLS_MIN + ARCH_NTLS];
static struct tss tss;

static uint64_t segdesc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	uint64_t d = limit & 0xFFFF;
	d |= (uint64_t)(base & 0xFFFFFF) << 16;
	d |= (uint64_t)access << 40;
	d |= (uint64_t)((limit >> 16) & 0xF) << 48;
	d |= (uint64_t)(flags & 0xF) << 52;
	d |= (uint64_t)(base >> 24) << 56;
	return d;
}

void arch_set_kernel_stack(uint32_t top)
{
	tss.esp0 = top;
}

void arch_tls_load(const struct arch_tls *t)
{
	for (int i = 0; i < ARCH_NTLS; i++)
		gdt[ARCH_TLS_MIN + i] = t ? t->desc[i] : 0;
}

/* Linux's rules (arch/x86/kernel/tls.c): an all-zero or "empty" entry
 * clears the slot; otherwise only a present 32-bit data segment. The
 * descriptor's privilege is always 3, and its base and limit reach no
 * further than paging lets a user access: the kernel's pages stay
 * supervisor-only. */
int arch_tls_set(struct arch_tls *t, struct user_desc *u)
{
	int idx = (int)u->entry_number;
	bool empty = (u->base_addr == 0 && u->limit == 0 && u->contents == 0 &&
		      u->read_exec_only == 1 && u->seg_32bit == 0 && u->limit_in_pages == 0 &&
		      u->seg_not_present == 1 && u->useable == 0) ||
		     (u->base_addr == 0 && u->limit == 0 && u->contents == 0 &&
		      u->read_exec_only == 0 && u->seg_32bit == 0 && u->limit_in_pages == 0 &&
		      u->seg_not_present == 0 && u->useable == 0);
	uint8_t access;

	if (idx == -1) {
		for (idx = 0; idx < ARCH_NTLS && t->desc[idx]; idx++)
			;
		if (idx == ARCH_NTLS)
			return -ESRCH;
		idx += ARCH_TLS_MIN;
		u->entry_number = idx;
	}
	if (idx < ARCH_TLS_MIN || idx >= ARCH_TLS_MIN + ARCH_NTLS)
		return -EINVAL;
	if (empty) {
		t->desc[idx - ARCH_TLS_MIN] = 0;
	} else {
		if (!u->seg_32bit || u->contents > 1 || u->seg_not_present)
			return -EINVAL;
		/* present, DPL 3, code/data, data type: writable unless
		 * read_exec_only, expand-down if contents is 1 */
		access = 0x80 | 0x60 | 0x10 | (u->contents << 2) | ((u->read_exec_only ^ 1) << 1);
		t->desc[idx - ARCH_TLS_MIN] = segdesc(u->base_addr, u->limit, access,
			(u->limit_in_pages << 3) | (1 << 2) | u->useable);
	}
	return 0;
}

void arch_init(void)
{
	struct { uint16_t limit; uint32_t base; } __attribute__((packed)) desc;

	gdt[0] = 0;
	gdt[SEG_KCODE] = segdesc(0, 0xFFFFF, 0x9A, 0xC);
	gdt[SEG_KDATA] = segdesc(0, 0xFFFFF, 0x92, 0xC);
	gdt[SEG_UCODE] = segdesc(0, 0xFFFFF, 0xFA, 0xC);
	gdt[SEG_UDATA] = segdesc(0, 0xFFFFF, 0xF2, 0xC);
	tss.ss0 = KDATA_SEL;
	tss.iomap = sizeof tss;   /* no I/O bitmap: user port access faults */
	gdt[SEG_TSS] = segdesc((uint32_t)&tss, sizeof tss - 1, 0x89, 0x0);

	desc.limit = sizeof gdt - 1;
	desc.base = (uint32_t)gdt;
	__asm__ volatile(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t"
		"movw %%ax, %%ss\n\t"
		: : "m"(desc), "i"(KCODE_SEL), "r"(KDATA_SEL) : "eax", "memory");
	__asm__ volatile("ltr %w0" : : "r"(TSS_SEL));

	idt_init();
	pic_init();
	arch_fpu_init();
}
