/* The trap frame the assembly stubs (vectors.asm) build on the kernel
 * stack, and the saved registers of a context switch. */
#ifndef TRAPFRAME_H
#define TRAPFRAME_H

#include <stdint.h>

struct trapframe {
	uint32_t edi, esi, ebp, oesp, ebx, edx, ecx, eax;   /* pusha */
	uint32_t gs, fs, es, ds;
	uint32_t trapno, err;
	uint32_t eip, cs, eflags;     /* pushed by the processor */
	uint32_t esp, ss;             /* only on a trap from user mode */
};

/* callee-saved registers, saved by swtch() */
struct context {
	uint32_t edi, esi, ebx, ebp, eip;
};

/* EFLAGS bits the kernel sets in a frame */
#define FL_IF 0x200
#define FL_TF 0x100     /* trap flag: a #DB after every instruction */

void swtch(struct context **old, struct context *new);

#endif
