/* The stack engine: every clock tick's whole call stack, from the
 * interrupted code down through the kernel and on into the user code it
 * was working for, counted in the kernel by distinct stack.
 *
 *   /dev/stackctl  start, stop, clear, depth N, table KIB, pid N (a
 *                  process and its children), kernel | user | both,
 *                  unwind on | off (off: frame pointers only, even for a
 *                  program with an unwind table; on, the default: each
 *                  program's table from its .eh_frame, where it has one)
 *   /dev/stacks    the dump: a common dump (abi/dump.h, engine
 *                  DUMP_ENGINE_STACKS) whose modules are the kernel
 *                  (module 0, path "kernel") and each program a stack
 *                  came from (/bin/NAME, with its build-id), then a struct
 *                  stk_dump and nrecs records, each a struct stk_rec and
 *                  its nk + nu frame addresses: the kernel's frames, leaf
 *                  first, then the user's, leaf first.
 * All numbers little-endian. */
#ifndef ABI_STACKS_H
#define ABI_STACKS_H

#include <stdint.h>

#define STK_DEPTH_DEFAULT  64
#define STK_DEPTH_MAX      127          /* Linux's perf_event_max_stack default */
#define STK_TABLE_KIB_DEFAULT 1024
#define STK_TABLE_KIB_MAX  65536
#define STK_CTL_MAXLEN     64

/* a record's flags */
#define STK_USER_LEAF  0x01     /* the tick interrupted user mode */
#define STK_IDLE       0x02     /* the idle loop: no frames, one "idle" */
#define STK_KTRUNC     0x04     /* the kernel's walk ended on a bad or cut chain */
#define STK_UTRUNC     0x08     /* the user's walk did */
#define STK_UNWOUND    0x10     /* the user's frames came through the program's
                                 * unwind table (its .eh_frame): exact at every
                                 * instruction, so the host repairs nothing */

struct stk_dump {               /* 32 bytes */
	uint32_t nrecs;
	uint32_t depth;         /* frames a stack may have */
	uint32_t samples;       /* ticks counted (with their weights) */
	uint32_t dropped;       /* ticks whose new stack found the table full */
	uint32_t truncated;     /* ticks whose stack was cut or broken */
	uint32_t reserved[3];
};

struct stk_rec {                /* 24 bytes, then nk + nu uint32 frames */
	uint32_t count;         /* ticks with this stack */
	uint32_t pid;           /* 0: the idle loop */
	uint16_t umod;          /* the user frames' module in the dump's table */
	uint8_t nk, nu;         /* kernel frames, user frames */
	uint32_t flags;         /* STK_* */
	uint32_t ret;           /* the word at the leaf's stack pointer: a
	                         * return address if the tick fell at a
	                         * function's first instruction or its ret */
	uint32_t ret1;          /* and the word above it: the return address
	                         * after the prologue's push of the frame
	                         * pointer (the host repairs with either) */
};

#endif
