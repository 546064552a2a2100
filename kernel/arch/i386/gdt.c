/* The GDT (flat kernel and user segments plus the TSS) and the IDT. The
 * kernel loads its own GDT rather than trusting the one GRUB left behind. */
#include "arch.h"
#include "abi/syscall.h"
#include "lib.h"
#include "x86.h"

struct tss {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap;
} __attribute__((packed));

struct gatedesc {
	uint16_t off_lo, sel;
	uint8_t zero, type;
	uint16_t off_hi;
} __attribute__((packed));

static uint64_t gdt[6];
static struct tss tss;
static struct gatedesc idt[256];
extern uint32_t vectors[];      /* vectors.asm: one stub per vector 0..47 */
extern uint32_t vector_syscall; /* vectors.asm: the int 0x80 stub */

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

static void setgate(int n, uint32_t handler, bool user, bool trap)
{
	idt[n].off_lo = handler & 0xFFFF;
	idt[n].off_hi = handler >> 16;
	idt[n].sel = KCODE_SEL;
	idt[n].zero = 0;
	/* present, DPL, 32-bit interrupt gate (0xE) or trap gate (0xF) */
	idt[n].type = 0x80 | (user ? 0x60 : 0) | (trap ? 0xF : 0xE);
}

void arch_set_kernel_stack(uint32_t top)
{
	tss.esp0 = top;
}

void pic_init(void);

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

	/* Exceptions and IRQs use interrupt gates (IF cleared on entry); the
	 * system call uses a trap gate so the clock keeps ticking, and the
	 * profiler keeps sampling, while the kernel works for a process. */
	for (int i = 0; i < 48; i++)
		setgate(i, vectors[i], false, false);
	setgate(3, vectors[3], true, false);       /* int3 from user mode */
	setgate(T_SYSCALL, (uint32_t)&vector_syscall, true, true);
	desc.limit = sizeof idt - 1;
	desc.base = (uint32_t)idt;
	__asm__ volatile("lidt %0" : : "m"(desc));

	pic_init();
}
