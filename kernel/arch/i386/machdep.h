/* What portable code may know of an i386 trap frame, inline: the kernel
 * finds this file through the include path of the selected architecture
 * (kernel/kernel.mk), so arch.h never names i386. */
#ifndef MACHDEP_H
#define MACHDEP_H

#include <stdbool.h>
#include <stdint.h>
#include "trapframe.h"

/* arguments in registers: for the per-tick calls of the profiler */
#define ARCH_FASTCALL __attribute__((regparm(3)))

static inline uint64_t arch_read_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* *c += w; true if it carried out of 32 bits. One add to memory, the
 * carry left in the flags for the caller's branch. */
static inline bool arch_add_carry(uint32_t *c, uint32_t w)
{
	bool carry;

	__asm__("addl %2, %0" : "+m"(*c), "=@ccc"(carry) : "r"(w));
	return carry;
}

static inline uint32_t arch_frame_pc(const struct trapframe *tf) { return tf->eip; }
static inline bool arch_frame_user(const struct trapframe *tf) { return tf->cs & 3; }
static inline uint32_t arch_frame_fp(const struct trapframe *tf) { return tf->ebp; }

#endif
