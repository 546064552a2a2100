/* The GDT (flat kernel and user segments plus the TSS), and arch_init,
 * which sets up the processor at boot. The kernel loads its own GDT rather
 * than trusting the one GRUB left behind. */
#include "arch.h"
#include "i386.h"
#include "lib.h"
#include "x86.h"

struct tss {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap;
} __attribute__((packed));

static uint64_t gdt[6];
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
}
