/* The IDT: a gate for each exception and IRQ stub in vectors.asm, and the
 * system-call gate that user mode may call. */
#include "arch.h"
#include "abi/syscall.h"
#include "i386.h"
#include "x86.h"

struct gatedesc {
	uint16_t off_lo, sel;
	uint8_t zero, type;
	uint16_t off_hi;
} __attribute__((packed));

static struct gatedesc idt[256];
extern uint32_t vectors[];      /* vectors.asm: one stub per vector 0..47 */
extern uint32_t vector_syscall; /* vectors.asm: the int 0x80 stub */

static void setgate(int n, uint32_t handler, bool user, bool trap)
{
	idt[n].off_lo = handler & 0xFFFF;
	idt[n].off_hi = handler >> 16;
	idt[n].sel = KCODE_SEL;
	idt[n].zero = 0;
	/* present, DPL, 32-bit interrupt gate (0xE) or trap gate (0xF) */
	idt[n].type = 0x80 | (user ? 0x60 : 0) | (trap ? 0xF : 0xE);
}

void idt_init(void)
{
	struct { uint16_t limit; uint32_t base; } __attribute__((packed)) desc;

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
}
