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

static inline uint32_t arch_frame_pc(const struct trapframe *tf) { return tf->eip; }
static inline bool arch_frame_user(const struct trapframe *tf) { return tf->cs & 3; }
static inline uint32_t arch_frame_fp(const struct trapframe *tf) { return tf->ebp; }

#endif
