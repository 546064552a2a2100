/* Processes: the table, the scheduler, sleep and wakeup, exit and wait.
 *
 * There is no fork. A new process is made by spawn(path, argv, fdmap): the
 * kernel builds its address space straight from the ELF file. fork would
 * copy an address space only for exec to throw it away; spawn also makes
 * the shell's redirections explicit (the fd map) and keeps the process
 * limit check in one place.
 *
 * The kernel is not preemptible: a clock tick in kernel mode never
 * switches. A process in a system call keeps the processor until it
 * sleeps, returns, or reaches a preemption point (proc_preempt) in a long
 * loop. That is what keeps the file table, tmpfs, the devices and the
 * profilers' state consistent without locks: only an interrupt handler
 * can run in between, and the few places it touches are under splhi().
 * A preemptible kernel (xv6 yields on any tick with interrupts on) would
 * need a lock on each of them, and a missed one is a rare corruption that
 * no test finds; a missed preemption point is a stall that the fuzzer's
 * timing finds. */
#include "clock.h"
#include "proc.h"
#include "abi/errno.h"
#include "abi/qemu_exit.h"
#include "abi/syscall.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "prof/prof.h"
#include "uaccess.h"

struct proc procs[NPROC];
static uint8_t kstacks[NPROC][KSTACK_SIZE] __attribute__((aligned(16)));
struct proc *current_proc;
static struct context *sched_ctx;
static int nextpid = 1;


int proc_count(void)
{
	int n = 0;
	for (int i = 0; i < NPROC; i++)
		if (procs[i].state != P_UNUSED)
			n++;
	return n;
}

const char *procstate_name(const struct proc *p)
{
	switch (p->state) {
	case P_EMBRYO: return "embryo";
	case P_READY:  return "ready";
	case P_RUN:    return "run";
	case P_SLEEP:  return p->waiting ? "wait" : "sleep";
	case P_ZOMBIE: return "zombie";
	default:       return "unused";
	}
}

/* A free slot, made EMBRYO, with its kernel stack laid out so that the
 * first switch to it returns through trapret into user mode. */
struct proc *allocproc(void)
{
	uint32_t s = splhi();
	struct proc *p = NULL;
	uint8_t *sp;

	for (int i = 0; i < NPROC; i++)
		if (procs[i].state == P_UNUSED) {
			p = &procs[i];
			break;
		}
	if (!p) {
		splx(s);
		return NULL;
	}
	/* a word at a time: a struct proc is some kilobytes (its signal
	 * actions, its FPU state), and a byte loop with interrupts off would
	 * outlast a clock period at 100 kHz (a tick lost) */
	_Static_assert(sizeof *p % 4 == 0 && _Alignof(struct proc) >= 4, "struct proc in words");
	for (uint32_t *w = (uint32_t *)p; w < (uint32_t *)(p + 1); w++)
		*w = 0;
	p->state = P_EMBRYO;
	p->pid = nextpid++;
	splx(s);

	sp = kstacks[p - procs] + KSTACK_SIZE;
	sp -= sizeof *p->tf;
	p->tf = (struct trapframe *)sp;
	sp -= sizeof *p->ctx;
	p->ctx = (struct context *)sp;
	arch_context_init(p->ctx);
	return p;
}

void freeproc(struct proc *p)
{
	p->state = P_UNUSED;
	p->pid = 0;
}

void proc_init(void)
{
	memset(procs, 0, sizeof procs);
}

/* Frees the process's memory and files; it stays a zombie until reaped. */
static void release(struct proc *p)
{
	for (int fd = 0; fd < NOFILE; fd++)
		if (p->ofile[fd]) {
			file_close(p->ofile[fd]);
			p->ofile[fd] = NULL;
		}
	if (p->pgdir) {
		if (p == current_proc)
			arch_pgdir_switch(NULL);
		arch_pgdir_free(p->pgdir);
		p->pgdir = NULL;
	}
}

void proc_exit(int status)
{
	struct proc *p = current_proc;


	if (!p)
		panic("exit with no process");
	prof_exit(p);           /* while its memory and files are still there */
	release(p);
	splhi();        /* for good: this process never runs again */
	p->status = status & 0xFF;
	for (int i = 0; i < NPROC; i++) {
		struct proc *c = &procs[i];
		if (c->state != P_UNUSED && c->ppid == p->pid) {
			c->ppid = 0;               /* orphaned: nobody will wait */
			if (c->state == P_ZOMBIE)
				freeproc(c);
		}
	}
	if (p->pid == 1) {
		kprintf("init (pid 1, %s) exited with status %d; halting\n", p->name, p->status);
		arch_poweroff(p->status == 0 ? KEXIT_OK : KEXIT_FAIL);
	}
	p->state = P_ZOMBIE;    /* an orphan's is freed by the scheduler */
	for (int i = 0; i < NPROC; i++)
		if (procs[i].state == P_SLEEP && procs[i].pid == p->ppid && procs[i].chan == &procs[i]) {
			procs[i].state = P_READY;
			procs[i].chan = NULL;
		}
	swtch(&p->ctx, sched_ctx);
	panic("zombie ran");
}

/* Switches to the scheduler; interrupts must be off. */
static void sched(void)
{
	struct proc *p = current_proc;
	/* a tick held off across the switch is the switch's time, not the
	 * time of whatever splhi() ran last (see spl.asm) */
	splpc = (uint32_t)swtch;
	swtch(&p->ctx, sched_ctx);
}

void yield(void)
{
	uint32_t s = splhi();
	current_proc->state = P_READY;
	sched();
	splx(s);
}

int proc_preempt_slow(void)
{
	if (proc_killed())
		return -EINTR;
	if (need_resched)
		yield();
	return proc_killed() ? -EINTR : 0;
}

void sleep_on(void *chan)
{
	struct proc *p = current_proc;
	if (!p)
		panic("sleep_on with no process");
	p->chan = chan;
	p->state = P_SLEEP;
	sched();
	p->chan = NULL;
}

void wakeup(void *chan)
{
	uint32_t s = splhi();
	for (int i = 0; i < NPROC; i++)
		if (procs[i].state == P_SLEEP && procs[i].chan == chan) {
			procs[i].state = P_READY;
			procs[i].chan = NULL;
		}
	splx(s);
}

int proc_sleep_ms(uint32_t ms)
{
	uint32_t s = splhi();
	struct proc *p = current_proc;

	p->wake_tick = ticks + MAX(1, clock_ms_to_ticks(ms));
	if (p->wake_tick < next_wake)
		next_wake = p->wake_tick;
	while (p->wake_tick && !signal_interrupted(p)) {
		p->state = P_SLEEP;
		p->chan = NULL;
		sched();
	}
	/* a signal's wakeup leaves the deadline: the sleep was cut short */
	bool cut = p->wake_tick != 0;
	p->wake_tick = 0;
	splx(s);
	return cut || p->killed ? -EINTR : 0;
}

/* Runs ready processes round robin; halts the processor when none is. */
void scheduler(void)
{
	int last = 0;

	for (;;) {
		struct proc *p = NULL;
		splhi();
		prof_kcall(PROF_KC_PICK, 0);
		for (int k = 1; k <= NPROC; k++) {
			int i = (last + k) % NPROC;
			if (procs[i].state == P_READY) {
				p = &procs[i];
				last = i;
				break;
			}
			/* an orphan's zombie has nobody to reap it */
			if (procs[i].state == P_ZOMBIE && procs[i].ppid == 0)
				freeproc(&procs[i]);
		}
		if (!p) {
			prof_kcall(PROF_KC_IDLE, 0);
			arch_idle();
			continue;
		}
		p->state = P_RUN;
		current_proc = p;
		clock_running(p);
		arch_set_kernel_stack((uint32_t)(kstacks[p - procs] + KSTACK_SIZE));
		arch_pgdir_switch(p->pgdir);
		arch_tls_load(&p->tls);
		arch_fpu_restore(&p->fpu);
		clock_new_slice();
		prof_kcall(PROF_KC_SWITCH, p->pid);
		splpc = (uint32_t)swtch;
		swtch(&sched_ctx, p->ctx);
		/* the kernel uses no FPU register (-mgeneral-regs-only), so
		 * they are still the process's here */
		arch_fpu_save(&p->fpu);
		current_proc = NULL;
		clock_running(NULL);
		arch_pgdir_switch(NULL);
	}
}

int proc_wait(int pid, uint32_t ustatus, int options)
{
	struct proc *me = current_proc;
	uint32_t s = splhi();

	for (;;) {
		bool have = false;
		for (int i = 0; i < NPROC; i++) {
			struct proc *c = &procs[i];
			if (c->state == P_UNUSED || c->ppid != me->pid || (pid != -1 && c->pid != pid))
				continue;
			have = true;
			if (c->state == P_ZOMBIE) {
				int cpid = c->pid, st = c->status;
				freeproc(c);
				splx(s);
				if (ustatus && copyout(ustatus, &st, sizeof st) < 0)
					return -EFAULT;
				return cpid;
			}
		}
		if (!have) {
			splx(s);
			return -ECHILD;
		}
		if (options & WNOHANG) {
			splx(s);
			return 0;
		}
		if (signal_interrupted(me)) {
			splx(s);
			return me->killed ? -EINTR : -ERESTARTSYS;
		}
		me->waiting = true;
		sleep_on(me);
		me->waiting = false;
	}
}

struct proc *proc_lookup(uint32_t pid)
{
	if (pid == 0 || pid > PID_MAX)
		return NULL;
	for (int i = 0; i < NPROC; i++)
		if (procs[i].pid == (int)pid && procs[i].state != P_UNUSED &&
		    procs[i].state != P_ZOMBIE)
			return &procs[i];
	return NULL;
}

int proc_kill(int pid)
{
	uint32_t s = splhi();
	struct proc *p = proc_lookup((uint32_t)pid);

	if (p) {
		p->killed = true;
		if (p->state == P_SLEEP) {
			p->state = P_READY;
			p->chan = NULL;
			p->wake_tick = 0;
		}
	}
	splx(s);
	return p ? 0 : -ESRCH;
}
