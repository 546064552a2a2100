/* What the files of kernel/arch/i386/ call in one another: portable code
 * uses arch.h instead. */
#ifndef I386_H
#define I386_H

#include <stdbool.h>
#include <stdint.h>
#include "machdep.h"

void idt_init(void);            /* idt.c */
void pic_init(void);            /* pic.c: IRQ 0..15 to vectors 32..47, masked */
void pic_enable(int irq);
void pic_eoi(int irq);
bool pic_irq_pending(int irq);   /* raised, not yet taken */
void uart_intr(void);           /* uart.c: COM1 input */
struct trapframe;
void trap(struct trapframe *tf);        /* trap.c: vectors.asm calls it for every trap */
/* trap.c: vectors.asm's #DB entry calls it */
void debug_intr(struct trapframe *tf) ARCH_FASTCALL;
void trapret(void);             /* vectors.asm: restores a trap frame and irets */

/* the 8254 PIT's I/O ports: channel 0 is the clock (pit.c), channel 2
 * times the TSC calibration (tsc.c) */
#define PIT_CH0  0x40
#define PIT_CH2  0x42
#define PIT_MODE 0x43

#endif
