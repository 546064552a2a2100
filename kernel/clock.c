/* The clock interrupt: counts ticks, charges the running process, hands the
 * sample to the profiler, wakes sleepers and preempts at the end of a time
 * slice. The time slice is set in ms and converted at the current rate, so
 * it does not change when the sampling rate does. */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch.h"
#include "clock.h"
#include "lib.h"
#include "proc.h"
#include "prof/prof.h"

volatile uint64_t ticks;
volatile bool need_resched;
volatile uint32_t lost_ticks;   /* ticks the TSC says were merged into a later one */
struct prof_sample clock_sample;
_Static_assert(__builtin_offsetof(struct prof_sample, tf) == CLOCK_SAMPLE_TF,
	       "vectors.asm stores the frame at clock_sample + CLOCK_SAMPLE_TF");

void clock_running(struct proc *p)
{
	clock_sample.p = p;
}

static uint32_t hz_mhz;         /* achieved rate, millihertz */
static uint32_t quantum_ms, quantum_ticks, slice_used;
/* idle ticks with no sleeper to wake since the last rate change: the
 * machine waited for the outside (a key; under -icount a host's
 * keystroke, whose arrival is host time); and the time not so spent, in
 * us, up to the last rate change */
static uint64_t waited_ticks, unwaited_us;
static uint64_t tick_cycles;
static uint32_t two_ticks;      /* TSC cycles in two periods (see merged_ticks) */
static uint64_t last_edge;      /* TSC of the PIT edge the last tick belonged to */
static uint64_t base_us, base_ticks;    /* uptime folded in at each rate change */
static uint32_t max_hz = CLOCK_MAX_HZ;    /* lowered by clock_init outside -icount */

/* a * b / c, rounded down or up, without forming a * b: with a = q*c + r it
 * is q*b + r*b/c, and r*b < c*b fits in 64 bits. A tick count times a rate
 * in mHz does not: 2^41 ticks (a long sleep at a high rate) times 2^29 mHz.
 * The result saturates at ~0, a time that never comes. */
uint64_t clock_muldiv(uint64_t a, uint32_t b, uint32_t c, bool up)
{
	uint64_t q = a / c, r = a % c, lo;

	if (b && q > ~0ull / b)
		return ~0ull;
	lo = (r * b + (up ? c - 1 : 0)) / c;
	return q * b > ~0ull - lo ? ~0ull : q * b + lo;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > ~0ull - b ? ~0ull : a + b;
}

/* The fast path's bound. A jittered PIT sets it to 0, so that every tick
 * takes merged_slow(), which gives the PIT its next count: the plain
 * clock pays nothing for the jitter's being possible. */
static void set_two_ticks(void)
{
	two_ticks = arch_timer_jittering() ? 0 : (uint32_t)MIN(2 * tick_cycles, 0xFFFFFFFFu);
}

/* Jitters the PIT by +-k/2 clocks a tick (0: off); returns the k in force. */
uint32_t clock_set_jitter(uint32_t k)
{
	uint32_t s = splhi();

	k = arch_timer_jitter(k);
	set_two_ticks();
	last_edge = 0;
	splx(s);
	return k;
}

/* Changes the rate. Time so far is folded into base_us, and pending sleep
 * deadlines are rescaled, so uptime and sleep(ms) stay in milliseconds. */
uint32_t clock_set_hz(uint32_t hz)
{
	uint32_t s = splhi();
	uint32_t old = hz_mhz;

	if (old) {
		base_us += clock_muldiv(ticks - base_ticks, 1000000000u, old, false);
		unwaited_us += clock_muldiv(ticks - base_ticks - waited_ticks, 1000000000u, old, false);
	}
	base_ticks = ticks;
	waited_ticks = 0;
	hz_mhz = arch_timer_set_hz(hz);
	quantum_ticks = (uint32_t)MAX(1, ((uint64_t)quantum_ms * hz_mhz + 500000) / 1000000);
	tick_cycles = (uint64_t)arch_tsc_khz() * 1000000 / hz_mhz;
	set_two_ticks();
	last_edge = arch_read_tsc();    /* the new count starts now */
	if (old && old != hz_mhz) {
		next_wake = ~0ull;
		for (int i = 0; i < NPROC; i++) {
			struct proc *q = &procs[i];
			if (q->state != P_SLEEP || !q->wake_tick)
				continue;
			uint64_t left = q->wake_tick > ticks ? q->wake_tick - ticks : 0;
			q->wake_tick = add_sat(ticks, MAX(1, clock_muldiv(left, hz_mhz, old, true)));
			if (q->wake_tick < next_wake)
				next_wake = q->wake_tick;
		}
		signal_alarms(ticks);   /* their deadlines are ticks, kept */
	}
	splx(s);
	return hz_mhz;
}

/* The PIT's count starts again: the next tick is a whole period away. The
 * edge the lost-tick count measures from is now, not unknown: a tick held
 * back by interrupts off from here on is counted with the ticks it merged,
 * as after any other tick. */
void clock_restart_phase(void)
{
	arch_timer_restart();           /* takes a tick pending before it */
	last_edge = arch_read_tsc();    /* a whole period from the next one */
}

uint64_t clock_uptime_us(void)
{
	uint32_t s = splhi();
	uint64_t us = base_us + clock_muldiv(ticks - base_ticks, 1000000000u, hz_mhz, false);
	splx(s);
	return us;
}

/* The division's operand is the unwaited ticks themselves, not the
 * uptime's less the wait's: a 64-bit division's instructions depend on its
 * operands, and a profile of the program that asks must not move with the
 * host either. */
uint64_t clock_unwaited_us(void)
{
	uint32_t s = splhi();
	uint64_t us = unwaited_us + clock_muldiv(ticks - base_ticks - waited_ticks, 1000000000u, hz_mhz, false);
	splx(s);
	return us;
}

/* The top rate (divisor 2) is exact under QEMU's -icount, but without it
 * QEMU's PIT falls behind: with the host busy, 5 ms of kernel work took
 * 84 s and QEMU's monitor stopped answering. So outside icount the rate
 * has a ceiling, and a request above it is refused, with the reason. */
int clock_check_hz(uint32_t hz)
{
	if (hz <= max_hz)
		return 0;
	kprintf("clock: %u Hz refused: without QEMU's -icount its PIT loses most ticks "
		"above %u Hz\n", hz, max_hz);
	return -ERANGE;
}

uint32_t clock_max_hz(void)
{
	return max_hz;
}

void clock_init(uint32_t hz, uint32_t quantum)
{
	max_hz = arch_time_exact() ? CLOCK_MAX_HZ : CLOCK_MAX_HZ_UNTIMED;
	if (clock_check_hz(hz) < 0)
		hz = max_hz;
	quantum_ms = quantum;
	clock_set_hz(hz);
	arch_irq_enable(0);
}

uint32_t clock_hz_mhz(void)
{
	return hz_mhz;
}

uint32_t clock_achieved_mhz(uint32_t hz)
{
	return arch_timer_mhz(hz);
}

uint64_t clock_ms_to_ticks(uint32_t ms)
{
	/* round up: sleeping at least ms */
	return ((uint64_t)ms * hz_mhz + 999999) / 1000000;
}

/* the earliest wake_tick of a sleeping process: the clock scans the
 * process table only when it has come, not on every tick */
volatile uint64_t next_wake = ~0ull;

static void wake_sleepers(void)
{
	next_wake = ~0ull;
	for (int i = 0; i < NPROC; i++) {
		struct proc *q = &procs[i];
		if (q->state != P_SLEEP || !q->wake_tick)
			continue;
		if (q->wake_tick <= ticks) {
			q->wake_tick = 0;
			q->state = P_READY;
		} else if (q->wake_tick < next_wake) {
			next_wake = q->wake_tick;
		}
	}
}

/* Ticks merged into this one while interrupts were off. n whole periods
 * since the edge the last tick belonged to means n - 1 edges found this
 * tick still pending and were lost as interrupts. A tick only held back
 * (by less than a period) is not one. The usual case, a tick within two
 * periods of the last, costs a compare: the division runs only when ticks
 * were really merged. */
__attribute__((noinline)) static uint32_t merged_slow(uint64_t now)
{
	uint64_t n;

	arch_timer_tick();        /* the jittered PIT's next count, if on */
	if (!last_edge || !tick_cycles || now - last_edge < 2 * tick_cycles) {
		last_edge = now;        /* resynchronise on a tick that came on time */
		return 0;
	}
	n = (now - last_edge) / tick_cycles;
	last_edge += n * tick_cycles;
	lost_ticks += (uint32_t)(n - 1);
	return (uint32_t)(n - 1);
}

/* The test on every tick is on the low 32 bits of the TSC: the gap since
 * the last edge is below two periods (at most a few hundred million
 * cycles) unless ticks were merged, and only a gap of 2^32 cycles, seconds
 * with interrupts off, could pass for a short one. */
static inline uint32_t merged_ticks(void)
{
	uint64_t now = arch_read_tsc();

	if (__builtin_expect((uint32_t)now - (uint32_t)last_edge < two_ticks, 1)) {
		last_edge = now;
		return 0;
	}
	return merged_slow(now);
}

/* The lost ticks still count as time, and the profiler gets them as the
 * weight of this tick's sample, charged where this one landed (for a cli
 * section, through splpc, to the code that turned interrupts off), so that
 * section is weighed by its length. */
__attribute__((optimize("omit-frame-pointer")))      /* every tick: ebp is one more register */
void clock_intr(void)
{
	struct trapframe *tf = clock_sample.tf;         /* ours: read it once */
	struct proc *p = curproc();
	uint32_t n = 1 + merged_ticks();
	bool user = arch_frame_user(tf);
	uint64_t now;

	arch_clock_eoi();       /* before this tick may switch processes */
	prof_clock_tick(&clock_sample, tf, user, n);
	now = ticks + n;                /* ticks is volatile: one load, one store */
	ticks = now;
	if (p) {
		if (user)
			p->uticks += n;
		else
			p->kticks += n;
		if (__builtin_expect(p->sig.work & SIGWORK_TIMERS, 0))
			signal_tick(p, user, n);
		slice_used += n;
		if (slice_used >= quantum_ticks)
			need_resched = true;
	} else if (next_wake == ~0ull) {
		waited_ticks += n;
	}
	if (now >= next_wake) {         /* a sleeper's deadline, or an alarm's */
		wake_sleepers();
		signal_alarms(now);
	}
	if (p && user) {
		if (need_resched)
			yield();
		if (p->killed)
			proc_exit(WSTATUS_KILLED);
		signal_userret(p, p->tf, false);
		prof_userret(p, p->tf);         /* tf: a user tick's frame is p's */
	}
}

/* the scheduler starts a fresh slice on every switch */
void clock_new_slice(void)
{
	slice_used = 0;
	need_resched = false;
}
