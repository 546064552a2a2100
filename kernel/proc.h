/* Processes and the scheduler. */
#ifndef PROC_H
#define PROC_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/fcntl.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "clock.h"
#include "elf.h"
#include "linux.h"
#include "prof/prof.h"
#include "signal.h"

enum procstate { P_UNUSED, P_EMBRYO, P_READY, P_RUN, P_SLEEP, P_ZOMBIE };

#define KSTACK_SIZE 8192

struct file;

struct proc {
	int pid, ppid;          /* ppid 0: orphan, reaped by the kernel */
	enum procstate state;
	char name[16];
	uint32_t *pgdir;
	uint32_t heap_start, brk;
	struct trapframe *tf;
	struct context *ctx;
	void *chan;             /* what a sleeping process waits for */
	uint64_t wake_tick;     /* for sleep(ms); 0 if none */
	bool killed;
	bool waiting;           /* asleep in wait(): ps shows "wait" */
	int status;             /* exit status, for the parent's wait() */
	uint32_t uticks, kticks;        /* clock ticks charged to it */
	struct file *ofile[NOFILE];
	char cwd[PATH_MAX];
	struct prof_proc prof;  /* the profilers' state (kernel/prof/) */
	struct symtab *syms;    /* its function symbols, while a profiler wants them */
	enum abi abi;           /* its system calls: the project's or Linux's */
	struct arch_tls tls;    /* its TLS segments (set_thread_area) */
	struct linux_proc lx;   /* a Linux program's state (linux.c) */
	struct arch_fpu fpu;    /* its x87/SSE registers while switched out */
	struct sigstate sig;    /* its signals and interval timers (signal.c) */
};

extern struct proc procs[NPROC];

/* a signal not blocked is pending */
static inline bool signal_deliverable(const struct proc *p)
{
	return (p->sig.pending & ~p->sig.blocked) != 0;
}
/* on every return to user mode: the usual case is a load and a test */
static inline void signal_userret(struct proc *p, struct trapframe *tf, bool syscall)
{
	if (__builtin_expect(p->sig.work & SIGWORK_CHECK, 0))
		signal_userret_slow(tf, syscall);
}

void proc_init(void);
struct proc *allocproc(void);
void freeproc(struct proc *p);
extern struct proc *current_proc;
/* the running process; NULL in the scheduler/idle loop */
static inline struct proc *curproc(void) { return current_proc; }
/* the running process has been killed */
static inline bool proc_killed(void) { return current_proc && current_proc->killed; }
void proc_exit(int status) __attribute__((noreturn));
void scheduler(void) __attribute__((noreturn));
void yield(void);
int proc_preempt_slow(void);
/* A preemption point, for a kernel loop that may outlast a time slice:
 * -EINTR if the process has been killed, else 0, after yielding if its
 * slice is used up. The kernel is not preemptible (proc.c says why), so
 * such loops call this between steps; the usual case is two loads. */
static inline int proc_preempt(void)
{
	if (__builtin_expect(!need_resched && !proc_killed(), 1))
		return 0;
	return proc_preempt_slow();
}
void sleep_on(void *chan);      /* call with interrupts off (splhi) */
void wakeup(void *chan);        /* safe with interrupts on or off */
int proc_sleep_ms(uint32_t ms);
int proc_wait(int pid, uint32_t ustatus, int options);
int proc_kill(int pid);
/* Pids run from 1 to PID_MAX; 0 is the idle loop's, and a value from
 * user space above PID_MAX (a negative int) is nobody's. */
#define PID_MAX 0x7FFFFFFFu
/* the live process (not a zombie) with this pid, or NULL: any 32-bit
 * value may be passed, as it came from a control message or a call */
struct proc *proc_lookup(uint32_t pid);
/* every process that has been spawned and not yet reaped (zombies too):
 * for (each) { ... } with p the process */
static inline bool proc_spawned(const struct proc *p)
{
	return p->state != P_UNUSED && p->state != P_EMBRYO;
}
#define for_each_proc(p) \
	for (struct proc *p = procs; p < procs + NPROC; p++) \
		if (proc_spawned(p))
/* spawn from kernel-space arguments: an absolute path, argv, and the
 * files that become the child's fds 0, 1, 2 (each may be NULL). */
int proc_spawn(const char *path, int argc, char *const argv[], struct file *const files[3]);
const char *procstate_name(const struct proc *p);
int proc_count(void);

#endif
