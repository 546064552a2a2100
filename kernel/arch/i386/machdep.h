/* What portable code may know of an i386 trap frame, inline: the kernel
 * finds this file through the include path of the selected architecture
 * (kernel/kernel.mk), so arch.h never names i386. */
#ifndef MACHDEP_H
#define MACHDEP_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/clock.h"
#include "abi/memlayout.h"
#include "trapframe.h"

/* The clock's limits, for the portable clock (clock.h's CLOCK_*_HZ): the
 * 8254 PIT's, from include/abi/clock.h (which the tests read too). */
#define ARCH_CLOCK_MIN_HZ PIT_MIN_HZ
#define ARCH_CLOCK_MAX_HZ PIT_MAX_HZ
#define ARCH_CLOCK_MAX_HZ_UNTIMED PIT_MAX_HZ_UNTIMED

/* The ELF machine this kernel runs programs of (EM_386) */
#define ARCH_ELF_MACHINE 3

/* A process's x87/SSE state, as fxsave stores it (fpu.c) */
struct arch_fpu {
	uint8_t fx[512];
} __attribute__((aligned(16)));

/* A process's thread-local-storage segments (set_thread_area): GDT
 * entries ARCH_TLS_MIN .. ARCH_TLS_MIN + ARCH_NTLS - 1, the ones Linux
 * i386 gives them, so a program's %gs selector reads the same here */
#define ARCH_TLS_MIN 6
#define ARCH_NTLS    3
struct arch_tls {
	uint64_t desc[ARCH_NTLS];       /* 0: an empty entry */
};

/* arguments in registers: for the per-tick calls of the profiler */
#define ARCH_FASTCALL __attribute__((regparm(3)))

static inline uint64_t arch_read_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The rare cases of the asm below are out of line in .text.fixup, a
 * section of their own: were they pushed into .text.unlikely, and the
 * caller itself landed there (a function gcc deems cold), the "out of
 * line" code would follow the add and its jump back would loop forever. */

/* *c += w, stopping at 0xFFFFFFFF instead of wrapping; what did not fit
 * is added to *lost. The usual case is one add and a branch not taken.
 * The rare case is out of line and borrows w's register through two
 * exchanges, so the caller keeps no register free for it. A w known to
 * be 1 is an immediate and needs no register at all. */
static inline void arch_add_sat(uint32_t *c, uint32_t w, uint32_t *lost)
{
	if (__builtin_constant_p(w) && w == 1) {
		__asm__("addl $1, %0\n\t"
			"jc 2f\n"
			"1:\n\t"
			".pushsection .text.fixup, \"ax\"\n"
			"2:\tmovl $-1, %0\n\t"   /* it was full: the 1 did not fit */
			"incl %1\n\t"
			"jmp 1b\n\t"
			".popsection"
			: "+m"(*c), "+m"(*lost) : : "cc");
		return;
	}
	__asm__("addl %2, %0\n\t"
		"jc 2f\n"
		"1:\n\t"
		".pushsection .text.fixup, \"ax\"\n"
		"2:\txchgl %2, %0\n\t"      /* w's register = the wrapped v */
		"incl %2\n\t"                /* v + 1 did not fit */
		"addl %2, %1\n\t"
		"xchgl %2, %0\n\t"           /* w is back */
		"movl $-1, %0\n\t"
		"jmp 1b\n\t"
		".popsection"
		: "+m"(*c), "+m"(*lost) : "r"(w) : "cc");
}

/* Adds 1 to a 16-bit counter at a user address b, from interrupt time,
 * in the running process's address space. A counter at 0xFFFF stays
 * there, and the sample is counted in *lost (which stops at 0xFFFFFFFF).
 * So is a sample whose page is not mapped: the add faults, the page-fault
 * handler finds it in the fixup table (.extable, trap.c) and goes on at
 * the count, so the tick never walks the page table or checks the break.
 * The usual case is one add and a branch not taken. */
static inline void arch_user_inc16(uint16_t *b, uint32_t *lost)
{
	__asm__ volatile("1:\taddw $1, %0\n\t"
		"jc 3f\n"
		"2:\n\t"
		".pushsection .text.fixup, \"ax\"\n"
		"3:\tmovw $0xFFFF, %0\n"   /* full: it stays full */
		"4:\taddl $1, %1\n\t"      /* lost, stopping at 0xFFFFFFFF */
		"sbbl $0, %1\n\t"
		"jmp 2b\n\t"
		".popsection\n\t"
		".pushsection .extable, \"a\"\n\t"
		".long 1b, 4b\n\t"
		".popsection"
		: "+m"(*b), "+m"(*lost) : : "cc");
}

/* Reads a word of user memory in the running process's address space,
 * from any context, without walking the page table: an unmapped page
 * faults, and the page-fault handler resumes at the fixup (.extable),
 * which makes the answer false. The caller has checked that p is a user
 * address. */
static inline bool arch_user_load32(const uint32_t *p, uint32_t *v)
{
	uint32_t x;

	/* asm goto: the fixup resumes at the C label, so the usual case
	 * is the one load and nothing else */
	__asm__ goto("1:\tmovl %1, %0\n\t"
		".pushsection .extable, \"a\"\n\t"
		".long 1b, %l2\n\t"
		".popsection"
		: "=r"(x) : "m"(*p) : : fault);
	*v = x;
	return true;
fault:
	return false;
}

/* a[0 .. n) == b[0 .. n), n >= 1: the string compare, a word an
 * iteration */
static inline bool arch_words_equal(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	bool eq;

	__asm__("repe cmpsl" : "=@ccz"(eq), "+S"(a), "+D"(b), "+c"(n) : : "memory");
	return eq;
}

/* The frame chain of the running process's user stack from fp: the
 * return addresses into out, from out up to end, and their sum added to
 * *sum (the caller's hash is made from it). Every word is read with a
 * fixup, so an unmapped page ends the walk. The chain must climb
 * strictly and stay below USER_TOP - 8: the kernel is mapped above
 * USER_TOP, and a chain that climbed there would read it. The caller has
 * checked USER_BASE <= fp <= USER_TOP - 8, so the chain never reaches
 * below user space either. The low bits of every frame pointer are ORed into *bits:
 * alignment is the caller's to check, once. *whole: the chain ended at a
 * null frame pointer (crt0's outermost frame).
 *
 * The loop takes two frames a turn, with the frame pointer in one
 * register and then the other, so a frame is 10.5 instructions: its two
 * loads, the store, the sum, the climb's compare and branch, the top's
 * compare and branch, the OR, and half of the turn's step and depth
 * test. The depth is tested once a
 * turn, so one return address may be read past it and written at end
 * (out must have room for it): it is taken back here, from the sum too,
 * and the chain counts as cut. Returns the end of the frames, at most
 * end. */
static inline __attribute__((always_inline)) uint32_t *
arch_user_chain(uint32_t fp, uint32_t *out, uint32_t *end, uint32_t *sum, uint32_t *bits, bool *whole)
{
	uint32_t n = 1, r, s = *sum, b = fp;

	__asm__("cmpl %[end], %[o]\n\t"
		"jae 3f\n"
		"1:\tmovl (%[f]), %[n]\n"
		"2:\tmovl 4(%[f]), %[r]\n\t"
		"movl %[r], (%[o])\n\t"
		"addl %[r], %[s]\n\t"
		"cmpl %[f], %[n]\n\t"
		"jbe 5f\n\t"
		"cmpl %[lim], %[n]\n\t"
		"ja 5f\n\t"
		"orl %[n], %[b]\n"
		"6:\tmovl (%[n]), %[f]\n"
		"7:\tmovl 4(%[n]), %[r]\n\t"
		"movl %[r], 4(%[o])\n\t"
		"addl %[r], %[s]\n\t"
		"addl $8, %[o]\n\t"
		"cmpl %[n], %[f]\n\t"
		"jbe 8f\n\t"
		"cmpl %[lim], %[f]\n\t"
		"ja 8f\n\t"
		"orl %[f], %[b]\n\t"
		"cmpl %[end], %[o]\n\t"
		"jb 1b\n"
		"3:\n\t"
		".pushsection .text.fixup, \"ax\"\n"
		"4:\tmovl $1, %[n]\n\t"         /* a fault: cut, not whole */
		"jmp 3b\n"
		"5:\taddl $4, %[o]\n\t"         /* the first frame of a turn ended it (n: its
						 * caller's fp, 0 for crt0's) */
		"jmp 3b\n"
		"9:\taddl $4, %[o]\n\t"         /* a fault in the second: the first is kept */
		"movl $1, %[n]\n\t"
		"jmp 3b\n"
		"8:\tmovl %[f], %[n]\n\t"       /* the second ended it: its caller's fp */
		"jmp 3b\n\t"
		".popsection\n\t"
		".pushsection .extable, \"a\"\n\t"
		".long 1b, 4b\n\t"
		".long 2b, 4b\n\t"
		".long 6b, 9b\n\t"
		".long 7b, 9b\n\t"
		".popsection"
		: [o] "+r"(out), [f] "+r"(fp), [n] "+r"(n), [r] "=&r"(r), [s] "+r"(s), [b] "+r"(b)
		: [end] "m"(end), [lim] "i"(USER_TOP - 8)
		: "cc", "memory");
	*whole = n == 0;
	if (out > end) {                /* the one read past the depth */
		s -= *end;
		out = end;
		*whole = false;
	}
	*sum = s;
	*bits = b;
	return out;
}

/* the page directory the MMU is using now */
static inline uint32_t *arch_loaded_pgdir(void)
{
	uint32_t cr3;

	__asm__ volatile("movl %%cr3, %0" : "=r"(cr3));
	return (uint32_t *)(cr3 + KERNBASE);
}

/* ends the clock's interrupt at the PIC, so the next tick can come */
static inline void arch_clock_eoi(void)
{
	__asm__ volatile("outb %0, %1" : : "a"((uint8_t)0x20), "Nd"((uint16_t)0x20));
}

/* The clock calls this on every tick: with the PIT jittered (pit.c), it
 * sets the time to the next tick; otherwise it costs a load and a branch. */
extern uint32_t pit_jitter_k;
void pit_jitter_next(void);
static inline bool arch_timer_jittering(void)
{
	return pit_jitter_k != 0;
}

static inline void arch_timer_tick(void)
{
	if (__builtin_expect(pit_jitter_k != 0, 0))
		pit_jitter_next();
}

static inline uint32_t arch_frame_pc(const struct trapframe *tf) { return tf->eip; }
static inline void arch_frame_set_pc(struct trapframe *tf, uint32_t pc) { tf->eip = pc; }
static inline bool arch_frame_user(const struct trapframe *tf) { return tf->cs & 3; }
static inline uint32_t arch_frame_fp(const struct trapframe *tf) { return tf->ebp; }
/* the interrupted stack pointer: a trap from the kernel pushes none, and
 * the stack went on where the frame ends */
static inline uint32_t arch_frame_sp(const struct trapframe *tf)
{
	return arch_frame_user(tf) ? tf->esp : (uint32_t)&tf->esp;
}
/* The system-call gate keeps interrupts on, so a tick may land in its
 * entry stub before pusha saved the user's registers into the frame, or
 * in trapret after popa restored them (and the tick's own frame, pushed
 * below, overwrote their slots): there the user's ebp is live in the
 * register, and the frame's is stale. ktf is the tick's frame (a trap from
 * the kernel), utf the frame the user's trap is building or leaving, at
 * the top of the kernel stack; the interrupted stack pointer above utf
 * tells that outermost frame from a nested one. (vectors.asm) */
extern const uint32_t trap_live[4];     /* [0, 1) and [2, 3): the two stubs */
static inline bool arch_user_regs_live(const struct trapframe *ktf, const struct trapframe *utf)
{
	uint32_t pc = ktf->eip;

	return (pc - trap_live[0] < trap_live[1] - trap_live[0] ||
		pc - trap_live[2] < trap_live[3] - trap_live[2]) &&
	       arch_frame_sp(ktf) > (uint32_t)utf;
}

/* for tests: the clock's interrupt, raised in software at this point, goes
 * through the same entry and frame as the timer's */
static inline void arch_raise_clock(void) { __asm__ volatile("int $32" ::: "memory"); }

/* single-stepping from the frame's return on: a #DB after every user
 * instruction. Inline: a traced process sets it on every step. */
static inline void arch_single_step(struct trapframe *tf, bool on)
{
	if (on)
		tf->eflags |= FL_TF;
	else
		tf->eflags &= ~FL_TF;
}

#endif
