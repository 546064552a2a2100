/* Signals and interval timers (signal.c), by Linux's numbers and rules.
 * A Linux program has the whole interface (sigaction, masks, handlers,
 * sigreturn, setitimer, alarm); the project's own programs get the
 * default actions only: ^C's SIGINT, a fault's signal. The frame a
 * handler runs on is Linux i386's, built by the arch code (sigframe.c). */
#ifndef SIGNAL_H
#define SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#define NSIGNAL 64              /* Linux's _NSIG: signals 1..64 (not in the UAPI) */
#define SIGBIT(s) (1ull << ((s) - 1))
/* Linux's kernel-internal "restart the call unless a handler without
 * SA_RESTART runs" (include/linux/errno.h, not UAPI): a sleeping call
 * returns it when a signal interrupts it, and it never reaches user space */
#define ERESTARTSYS 512

/* one signal's action, as rt_sigaction takes it */
struct sigact {
	uint32_t handler, flags, restorer;
	uint64_t mask;
};

/* sigstate.work: what the clock and the return to user mode look at,
 * one word, so a process with nothing to do costs them a load and a test */
#define SIGWORK_CHECK  1        /* a signal may be deliverable, or a call restarted */
#define SIGWORK_TIMERS 2        /* ITIMER_VIRTUAL or ITIMER_PROF is armed */

struct sigstate {
	uint32_t work;          /* SIGWORK_* */
	uint64_t pending, blocked;
	uint64_t saved;         /* the mask sigsuspend replaced */
	bool restore_saved;     /* saved goes back when the handler returns */
	bool restart;           /* the call returned -ERESTARTSYS */
	uint32_t sysnum;        /* the call being made, for a restart */
	struct sigact act[NSIGNAL + 1];         /* [0] unused */
	uint32_t ss_sp, ss_size, ss_flags;      /* sigaltstack */
	/* interval timers, in clock ticks: ITIMER_REAL's deadline
	 * (absolute) and the other two's ticks left (0: off) */
	uint64_t real_at;
	uint32_t virt_left, prof_left;
	uint32_t real_every, virt_every, prof_every;
};

struct proc;
struct trapframe;

/* posts sig to p (any context, interrupts on or off): SIGKILL kills, an
 * ignored signal is dropped, any other is made pending and wakes p if it
 * sleeps and the signal is not blocked */
void signal_post(struct proc *p, int sig);
/* p has a signal it must act on before it runs on: a call it sleeps in
 * gives up (-ERESTARTSYS or -EINTR) */
bool signal_interrupted(const struct proc *p);
/* a fault's signal, sent to the faulting process as Linux forces it:
 * blocked or ignored, it kills (128 + sig); else its handler runs */
void signal_fault(int sig);
/* On every return to user mode: acts on the pending signals (a handler's
 * frame is built, a default action taken). syscall: tf is a system
 * call's, whose -ERESTARTSYS is turned into a restart or -EINTR. */
void signal_userret_slow(struct trapframe *tf, bool syscall);
/* signal_userret(p, tf, syscall), the usual case inline, is in proc.h */
/* the clock's part: the running process's virtual and profiling timers
 * (user: the tick was in user mode), and every ITIMER_REAL due by now */
void signal_tick(struct proc *p, bool user, uint32_t n);
/* fires every ITIMER_REAL due by now and lowers next_wake to the next
 * one: the clock calls it when next_wake comes */
void signal_alarms(uint64_t now);
/* the mask or the pending set changed: the next return to user mode looks */
void signal_recheck(struct proc *p);
/* the process's ITIMER_VIRTUAL/ITIMER_PROF changed */
void signal_timers_changed(struct proc *p);

/* the arch's: a handler's frame on the user stack, Linux i386's sigframe
 * (rt: rt_sigframe) with the registers of tf and the mask to restore;
 * tf then enters the handler. 0, or -EFAULT if the frame cannot be
 * written. */
int arch_signal_frame(struct trapframe *tf, int sig, const struct sigact *a,
		      uint64_t mask, uint32_t sp, bool rt);
/* sigreturn: tf's registers and *mask from the frame below tf's esp;
 * false for a bad frame (the caller kills the process) */
bool arch_signal_return(struct trapframe *tf, uint64_t *mask, bool rt);
/* the signal a user-mode trap raises (SIGSEGV for anything unknown) */
int arch_fault_signal(const struct trapframe *tf);

#endif
