/* The two 8259 PICs, remapped so IRQ 0..15 arrive at vectors 32..47,
 * clear of the processor's exceptions. */
#include "arch.h"
#include "i386.h"
#include "x86.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1
#define T_IRQ0    32

static uint16_t irqmask = 0xFFFF & ~(1 << 2);   /* cascade always on */

static void setmask(void)
{
	outb(PIC1_DATA, irqmask & 0xFF);
	outb(PIC2_DATA, irqmask >> 8);
}

void pic_init(void)
{
	outb(PIC1_CMD, 0x11);       /* ICW1: edge, cascade, ICW4 */
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, T_IRQ0);    /* ICW2: vector base */
	outb(PIC2_DATA, T_IRQ0 + 8);
	outb(PIC1_DATA, 1 << 2);    /* ICW3: slave on IRQ2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, 0x01);      /* ICW4: 8086 mode */
	outb(PIC2_DATA, 0x01);
	setmask();
}

void pic_enable(int irq)
{
	irqmask &= ~(1 << irq);
	setmask();
}

void pic_eoi(int irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, 0x20);
	outb(PIC1_CMD, 0x20);
}

void arch_irq_enable(int irq)
{
	pic_enable(irq);
}

/* Whether irq has been raised but not yet taken (its bit in the IRR). */
bool pic_irq_pending(int irq)
{
	uint16_t port = irq >= 8 ? PIC2_CMD : PIC1_CMD;

	outb(port, 0x0A);           /* OCW3: the next read of the command port gives the IRR */
	return inb(port) & (1 << (irq & 7));
}
