/* The processor interface. Portable kernel code reaches everything
 * processor-specific through these arch_* functions; the i386 versions live
 * in kernel/arch/i386/. */
#ifndef ARCH_H
#define ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include "machdep.h"       /* the selected architecture's trap frame */
#include "abi/memlayout.h"

/* boot-time setup: GDT, TSS, IDT, PIC */
void arch_init(void);

/* interrupts. splhi() turns them off and returns the old state; splx()
 * restores it. splhi() remembers its caller's PC (splpc) so that a clock
 * sample that was held back by the cli is charged to the code that turned
 * interrupts off, not to the instruction after the sti. */
uint32_t splhi(void);
void splx(uint32_t s);
extern volatile uint32_t splpc;
void arch_enable_interrupts(void);
void arch_idle(void);                  /* sti; hlt: wait for an interrupt */

uint32_t arch_tsc_khz(void);           /* calibrated against the PIT at boot */
void arch_tsc_calibrate(void);         /* at boot: measures the TSC rate */
bool arch_time_exact(void);            /* time counts instructions (QEMU -icount) */
void arch_poweroff(int code) __attribute__((noreturn));

/* unmasks an interrupt line (0: the clock) */
void arch_irq_enable(int irq);

/* The periodic timer (on i386, the 8254 PIT's channel 0): its rate, set
 * as near hz as its input clock allows; the achieved rate in millihertz. */
uint32_t arch_timer_set_hz(uint32_t hz);
uint32_t arch_timer_mhz(uint32_t hz);   /* what set_hz would achieve, unset */
uint32_t arch_timer_divisor(uint32_t hz);       /* its input clocks per tick */
/* the boot's line about the timer: the rate asked for (hz) and had (mhz),
 * the jitter if on, the scheduler's quantum */
void arch_timer_report(uint32_t hz, uint32_t mhz, uint32_t quantum_ms);
/* Starts the timer's count again: the next tick is one period from now. */
void arch_timer_restart(void);
/* Jitters each tick within +-k/2 input clocks of its place on the strict
 * period, so the divisor varies within +-k and the mean rate is unchanged;
 * 0 turns it off. k is capped at half the divisor; returns the k in force.
 * arch_timer_tick() (machdep.h) must then run on every tick, and
 * arch_timer_jittering() says whether the jitter is on. */
uint32_t arch_timer_jitter(uint32_t k);
uint32_t arch_timer_jitter_k(void);     /* the k in force, 0: off */

/* 16550 UARTs: port 0 is COM1 (the console), port 1 is COM2 (raw export) */
void arch_uart_init(void);
void arch_uart_enable_rx(void);     /* after arch_init() */
void arch_uart_putc(int port, char c);

/* QEMU fw_cfg: copies the named file into buf (NUL-terminated); returns
 * its length, or -1 if there is no fw_cfg or no such file. */
int arch_fwcfg_read(const char *name, char *buf, int size);

/* where a clock tick held back by splhi() lands, right after splx's sti */
extern char splx_landing[];

/* paging (kernel/arch/i386/mmu.c) */
void arch_paging_init(uint32_t ram_top);
uint32_t *arch_pgdir_new(void);        /* kernel part shared, user part empty */
void arch_pgdir_free(uint32_t *pgdir); /* frees user pages and page tables */
void arch_pgdir_switch(uint32_t *pgdir);
/* maps one user page at va to the page kalloc gave (writable); false on no
 * memory, or if va is not user space or already mapped */
bool arch_map_user(uint32_t *pgdir, uint32_t va, void *page);
void arch_unmap_user(uint32_t *pgdir, uint32_t va);   /* frees the page */
/* physical address of the user page at va, or 0 if not mapped user */
uint32_t arch_user_page(uint32_t *pgdir, uint32_t va);
/* A kernel pointer to the byte at user address va of pgdir, or NULL if its
 * page is not mapped user (the page through the kernel's map of RAM at
 * KERNBASE); good up to the page's end. */
void *arch_user_kptr(uint32_t *pgdir, uint32_t va);

/* The x87/SSE unit (fpu.c): turned on at boot by arch_init; a process's
 * state is reset at spawn, saved when it is switched out and restored
 * when it is switched in. */
void arch_fpu_init(void);
void arch_fpu_reset(struct arch_fpu *f);
void arch_fpu_save(struct arch_fpu *f);
void arch_fpu_restore(const struct arch_fpu *f);
uint32_t arch_hwcap(void);             /* cpuid 1's edx: Linux's AT_HWCAP */

/* Thread-local storage segments (gdt.c): the running process's are put
 * in the GDT when it is switched in (NULL: none); arch_tls_set sets one
 * from Linux's struct user_desc (asm/ldt.h), as set_thread_area does: an
 * entry_number of -1 picks the first free one and writes it back. 0, or
 * -EINVAL, -ESRCH (none free). The caller loads the set again. */
struct user_desc;
void arch_tls_load(const struct arch_tls *t);
int arch_tls_set(struct arch_tls *t, struct user_desc *u);

/* the kernel stack used on a trap from user mode */
void arch_set_kernel_stack(uint32_t top);
/* builds the first frame of a new process on its kernel stack */
void arch_user_entry_frame(struct trapframe *tf, uint32_t eip, uint32_t esp);
/* the first context of a new process: switching to it goes to user mode
 * through the trap frame just above it */
void arch_context_init(struct context *ctx);

/* Single-stepping, for the per-instruction profiler: arch_single_step(tf,
 * on) (machdep.h) sets or clears the trap flag in a frame; the #DB entry
 * tells a step in user mode from other debug exceptions and hands it to
 * prof_step() (prof/prof.h). */
/* the length of the instruction at b[0..n) (0: cut short or unknown) and
 * whether it is a call (near or far, direct or indirect) */
uint32_t arch_insn_decode(const uint8_t *b, uint32_t n, bool *is_call);

/* Frame-pointer stack walks. They store at most max return addresses in
 * pcs and return how many; a null, misaligned, cyclic or unmapped frame
 * pointer, or one that leaves the stack's address range, ends the walk
 * instead of faulting. The kernel walk takes frames in kernel memory; the
 * user walk reads the user stack of the address space pgdir: with single
 * loads when pgdir is the one loaded (a fault ends the walk), through
 * its page table otherwise. */
int arch_stack_walk_kernel(uint32_t fp, uint32_t *pcs, int max);
int arch_stack_walk_user(uint32_t *pgdir, uint32_t fp, uint32_t *pcs, int max);
/* the same, saying in *whole whether the chain ended as chains end (a
 * null frame pointer; for the kernel's, also one into user memory, where
 * the kernel was entered), not at a bad frame or at max */
int arch_stack_walk_kernel_end(uint32_t fp, uint32_t *pcs, int max, bool *whole);
int arch_stack_walk_user_end(uint32_t *pgdir, uint32_t fp, uint32_t *pcs, int max, bool *whole);
/* A stack walk's step through a signal frame, in the running process:
 * pc is a return address a walk reached with the stack pointer sp (just
 * above it); if the code at pc is a sigreturn trampoline (glibc's
 * __restore_rt or __restore, or the frame's own retcode, as Linux's
 * unwinders and gdb recognise them by their bytes), the frame below sp is
 * a signal frame, and *npc, *nsp, *nfp become the interrupted code's eip,
 * esp and ebp from its sigcontext. Every load through the fault fixup;
 * false when pc is no trampoline or the frame is not readable. */
bool arch_signal_unwind(uint32_t pc, uint32_t sp, uint32_t *npc, uint32_t *nsp, uint32_t *nfp);
/* one aligned word of user memory in pgdir's address space, the same way;
 * false if there is none */
static inline bool arch_user_word(uint32_t *pgdir, uint32_t va, uint32_t *w)
{
	uint32_t *k;

	if (va - USER_BASE > USER_TOP - 4 - USER_BASE || va % 4)
		return false;
	if (pgdir == arch_loaded_pgdir())
		return arch_user_load32((const uint32_t *)va, w);
	if (!(k = arch_user_kptr(pgdir, va)))
		return false;
	*w = *k;
	return true;
}

#endif
