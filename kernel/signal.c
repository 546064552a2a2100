/* Signals and interval timers, by Linux's numbers (asm/signal.h) and
 * rules, for both ABIs. A Linux program may catch, block and ignore them
 * (the calls are in linux.c); the project's programs have no calls for
 * that, and get each signal's default action: ^C's SIGINT ends them with
 * 130 as it ends a Linux program without a handler.
 *
 * A signal is a bit in the process's pending set until the process next
 * returns to user mode (signal_userret), where it is acted on: ignored,
 * the process ended (status 128 + the signal, as a shell shows it; a
 * core dump's signal too, and a stop is ignored: no job control), or a
 * handler's frame built on the user stack (the arch's sigframe.c, Linux
 * i386's layout, so that glibc's handlers and unwinders read it). One of
 * each is pending at a time, as Linux keeps its non-real-time signals. A
 * call sleeping when a signal comes gives up, -ERESTARTSYS: restarted on
 * the way out unless a handler without SA_RESTART runs, when it is
 * -EINTR, Linux's rule.
 *
 * The interval timers count clock ticks, so that under QEMU's -icount
 * they fire at the same instruction every run: ITIMER_VIRTUAL the
 * process's user ticks, ITIMER_PROF its user and kernel ticks (what
 * glibc's profil asks for), ITIMER_REAL the clock's, for every process,
 * checked by the clock only when the earliest is due (it is among
 * next_wake's deadlines; an armed alarm is a timer the machine waits for,
 * so its idle time counts in the Linux clock: clock.c's waited_ticks). */
#include <linux/signal.h>

#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch.h"
#include "clock.h"
#include "lib.h"
#include "proc.h"
#include "signal.h"
#include "syscall.h"

#define UNCATCHABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* the signals whose default action is to do nothing: stops too, as
 * there is no job control */
static bool default_ignored(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		return true;
	default:
		return false;
	}
}

static bool ignored(const struct proc *p, int sig)
{
	uint32_t h = p->sig.act[sig].handler;

	return h == (uint32_t)SIG_IGN || (h == (uint32_t)SIG_DFL && default_ignored(sig));
}

bool signal_interrupted(const struct proc *p)
{
	return p->killed || signal_deliverable(p);
}

void signal_post(struct proc *p, int sig)
{
	uint32_t s;

	if (sig <= 0 || sig > NSIGNAL)
		return;
	if (sig == SIGKILL) {
		proc_kill(p->pid);
		return;
	}
	s = splhi();
	/* Linux drops an ignored signal at once, unless it is blocked:
	 * the action may change before it is unblocked */
	if (!(ignored(p, sig) && !(p->sig.blocked & SIGBIT(sig)))) {
		p->sig.pending |= SIGBIT(sig);
		p->sig.work |= SIGWORK_CHECK;
		/* the sleeper's loop sees signal_interrupted() and gives up;
		 * every sleep tolerates a wakeup that is not its own */
		if (p->state == P_SLEEP && signal_deliverable(p)) {
			p->state = P_READY;
			p->chan = NULL;
		}
	}
	splx(s);
}

/* the signals a fault forces: blocked or ignored, the process could
 * not go on past the fault, so it ends, as Linux's force_sig resets
 * such a signal to its default */
void signal_fault(int sig)
{
	struct proc *p = curproc();

	if ((p->sig.blocked & SIGBIT(sig)) || p->sig.act[sig].handler == (uint32_t)SIG_IGN ||
	    p->sig.act[sig].handler == (uint32_t)SIG_DFL)
		proc_exit(128 + sig);
	p->sig.pending |= SIGBIT(sig);
	p->sig.work |= SIGWORK_CHECK;
}

void signal_recheck(struct proc *p)
{
	p->sig.work |= SIGWORK_CHECK;
}

void signal_timers_changed(struct proc *p)
{
	if (p->sig.virt_left || p->sig.prof_left)
		p->sig.work |= SIGWORK_TIMERS;
	else
		p->sig.work &= ~SIGWORK_TIMERS;
}

/* the lowest pending unblocked signal, taken off the pending set; the
 * faults' (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE) first, as Linux
 * takes the synchronous ones first */
static int dequeue(struct proc *p)
{
	static const uint64_t sync = SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) |
		SIGBIT(SIGTRAP) | SIGBIT(SIGFPE);
	uint64_t d = p->sig.pending & ~p->sig.blocked;
	int sig;

	if (!d)
		return 0;
	if (d & sync)
		d &= sync;
	sig = __builtin_ctzll(d) + 1;
	p->sig.pending &= ~SIGBIT(sig);
	return sig;
}

/* the handler's stack: the alternate one if asked for and not on it
 * already, else where the interrupted code was */
static uint32_t handler_sp(struct proc *p, const struct sigact *a, uint32_t sp)
{
	struct sigstate *s = &p->sig;

	if ((a->flags & SA_ONSTACK) && s->ss_size && !(s->ss_flags & SS_DISABLE) &&
	    !(sp - s->ss_sp < s->ss_size))
		return s->ss_sp + s->ss_size;
	return sp;
}

/* runs sig's handler: its frame, then the mask it runs under. A frame
 * that cannot be written ends the process, as Linux's force_sigsegv. */
static void run_handler(struct proc *p, struct trapframe *tf, int sig)
{
	struct sigact *a = &p->sig.act[sig];
	uint64_t old = p->sig.restore_saved ? p->sig.saved : p->sig.blocked;
	uint32_t sp = handler_sp(p, a, arch_frame_sp(tf));

	/* a handler address in the kernel is refused here, not jumped to */
	if (a->handler >= USER_TOP ||
	    arch_signal_frame(tf, sig, a, old, sp, (a->flags & SA_SIGINFO) != 0) < 0)
		proc_exit(128 + SIGSEGV);
	p->sig.restore_saved = false;
	p->sig.blocked = old | a->mask;
	if (!(a->flags & SA_NODEFER))
		p->sig.blocked |= SIGBIT(sig);
	p->sig.blocked &= ~UNCATCHABLE;
	if (a->flags & SA_RESETHAND) {
		a->handler = (uint32_t)SIG_DFL;
		a->flags &= ~SA_SIGINFO;
	}
}

void signal_userret_slow(struct trapframe *tf, bool syscall)
{
	struct proc *p = curproc();
	bool restart = syscall && p->sig.restart;
	int sig;

	p->sig.restart = false;
	while ((sig = dequeue(p)) != 0) {
		struct sigact *a = &p->sig.act[sig];
		if (a->handler == (uint32_t)SIG_IGN ||
		    (a->handler == (uint32_t)SIG_DFL && default_ignored(sig)))
			continue;
		if (a->handler == (uint32_t)SIG_DFL)
			proc_exit(128 + sig);
		/* the interrupted call: again after the handler, or EINTR */
		if (restart && !(a->flags & SA_RESTART))
			arch_syscall_return(tf, -EINTR);
		else if (restart)
			arch_syscall_restart(tf, p->sig.sysnum);
		restart = false;
		run_handler(p, tf, sig);
		signal_recheck(p);      /* another may be waiting, unblocked by sigreturn */
		return;
	}
	if (restart)            /* nothing ran: the call goes on */
		arch_syscall_restart(tf, p->sig.sysnum);
	if (p->sig.restore_saved) {
		p->sig.blocked = p->sig.saved;
		p->sig.restore_saved = false;
	}
	if (!signal_deliverable(p))
		p->sig.work &= ~SIGWORK_CHECK;
}

/* ---- the interval timers ---- */

void signal_tick(struct proc *p, bool user, uint32_t n)
{
	struct sigstate *s = &p->sig;

	if (user && s->virt_left) {
		/* a one-shot timer that fired is off: the flag goes with it */
		if (s->virt_left > n) {
			s->virt_left -= n;
		} else {
			s->virt_left = s->virt_every;
			signal_post(p, SIGVTALRM);
		}
	}
	if (s->prof_left) {
		if (s->prof_left > n) {
			s->prof_left -= n;
		} else {
			s->prof_left = s->prof_every;
			signal_post(p, SIGPROF);
		}
	}
	signal_timers_changed(p);
}

/* every ITIMER_REAL due by now fires; the next deadline lowers the
 * clock's next_wake (which wake_sleepers has just set from the sleepers),
 * so that the clock's one test covers both */
void signal_alarms(uint64_t now)
{
	for (int i = 0; i < NPROC; i++) {
		struct proc *q = &procs[i];
		if (q->state == P_UNUSED || q->state == P_ZOMBIE || !q->sig.real_at)
			continue;
		if (q->sig.real_at <= now) {
			q->sig.real_at = q->sig.real_every ? now + q->sig.real_every : 0;
			signal_post(q, SIGALRM);
		}
		if (q->sig.real_at && q->sig.real_at < next_wake)
			next_wake = q->sig.real_at;
	}
}
