/* accwork: workloads for the accuracy check of sampled profiles against
 * the exact heat. With a control file as the last argument (/dev/heatctl
 * or /dev/usamplectl) the program writes "pid <itself>" to it when the
 * measured part starts and "stop" when it ends, so both profiles cover the
 * same loops and nothing of the start, the calibration or the exit. CTL
 * "dosprof" starts and stops instead the DosProfile session that
 * `dosprof -c` set up on this process; CTL "mc" continues and pauses the
 * Monte Carlo session that `prof on -P` started paused. Built
 * for profiling (accwork.pg), it keeps profil(2) off outside that part by
 * moncontrol, for the same reason.
 *   accwork mix ROUNDS [CTL]  six functions in a fixed ratio of instructions
 *                         (about 40/25/6/15/10/4) every round
 *   accwork lock TICKS M [CTL]  two functions taking turns, each for half of
 *                         1/M of the PIT period, for TICKS periods (rounded
 *                         up to 8 rounds). The
 *                         period is measured first (in TSC ticks), so a
 *                         sampler driven by the same PIT sees the same
 *                         phase of the round at every tick: strictly
 *                         periodic sampling puts every sample in one of
 *                         the two, whose true split is even.
 *   accwork lock3 TICKS M [CTL]  the same with three functions, each a third
 *                         of 1/M of the period: a round that a jittered
 *                         clock's spacing does not divide evenly. */
#include <stdbool.h>
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"
#include "abi/dosprof.h"

__attribute__((noinline)) static unsigned mix_a(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i;
	return x;
}

__attribute__((noinline)) static unsigned mix_b(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x ^= i;
	return x;
}

__attribute__((noinline)) static unsigned mix_c(unsigned n)
{
	volatile unsigned x = 1;
	for (unsigned i = 0; i < n; i++)
		x += x >> 1;
	return x;
}

__attribute__((noinline)) static unsigned mix_d(unsigned n)
{
	volatile unsigned x = 7;
	for (unsigned i = 0; i < n; i++)
		x -= i * 3;
	return x;
}

__attribute__((noinline)) static unsigned mix_e(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x |= i << 2;
	return x;
}

__attribute__((noinline)) static unsigned mix_f(unsigned n)
{
	volatile unsigned x = 5;
	for (unsigned i = 0; i < n; i++)
		x ^= x << 3;
	return x;
}

/* The two halves of a lock round: each spins until its deadline and moves
 * it on by half a round. Both do the same instructions at the same speed,
 * so the exact heat splits evenly between them, traced or not; the loop in
 * main that calls them is unrolled, so it weighs next to nothing. Neither
 * calls mcount in accwork.pg: a call's fixed instructions beside a spin
 * that time cuts short would weigh more traced than untraced. */
static volatile uint64_t deadline, half;

__attribute__((noinline, no_instrument_function)) static void lock_f(void)
{
	while (rdtsc() < deadline)
		;
	deadline += half;
}

__attribute__((noinline, no_instrument_function)) static void lock_g(void)
{
	while (rdtsc() <= deadline)     /* not lock_f's code, or the two fold into one */
		;
	deadline += half;
}

__attribute__((noinline, no_instrument_function)) static void lock_h(void)
{
	while ((int64_t)(rdtsc() - deadline) < 0)       /* a third way to say it: its own code */
		;
	deadline += half;
}

/* TSC ticks per PIT period: the span of 200 periods, edge to edge */
static uint64_t period(void)
{
	unsigned u = uptime();
	uint64_t t0;

	while (uptime() == u)
		;
	t0 = rdtsc();
	u = uptime();
	while (uptime() - u < 200)
		;
	return (rdtsc() - t0) / 200;
}

static const char *ctlfile;

/* gmon.c's, linked only into accwork.pg: NULL in the plain build */
void moncontrol(int on) __attribute__((weak));

static void profiling(int on)
{
	if (moncontrol)
		moncontrol(on);
}

/* START or STOP of this process's DosProfile session. The session is set
 * up by the dosprof that spawned this process, which may not have done it
 * yet: START waits for it (PRF_NOT_INITIALIZED), a second at most. */
static void dosprof_ctl(bool start)
{
	unsigned r, tries = 0;

	while ((r = DosProfile(start ? PRF_CM_START : PRF_CM_STOP, getpid(), NULL, NULL)) ==
	       PRF_NOT_INITIALIZED && start && tries++ < 1000)
		sleep(1);
	if (r != NO_ERROR) {
		fprintf(2, "accwork: DosProfile %s: %u%s\n", start ? "start" : "stop", r,
			r == PRF_NOT_INITIALIZED ? " (no session: run it under dosprof -c)" : "");
		exit(1);
	}
}

/* "pid <me>" or "stop" to the control file, if there is one */
static void ctl(const char *what)
{
	char msg[32];
	int fd, n;

	if (!ctlfile)
		return;
	if (strcmp(ctlfile, "dosprof") == 0) {
		dosprof_ctl(strcmp(what, "pid") == 0);
		return;
	}
	if (strcmp(ctlfile, "mc") == 0) {
		if (ProfileStart(0, strcmp(what, "pid") == 0 ? PROFILE_CONTINUE : PROFILE_PAUSE,
				 NULL) < 0) {
			fprintf(2, "accwork: ProfileStart: %s (run it after prof on -P)\n",
				strerror(errno));
			exit(1);
		}
		return;
	}
	n = strcmp(what, "pid") == 0 ? snprintf(msg, sizeof msg, "pid %d", getpid()) :
		snprintf(msg, sizeof msg, "%s", what);
	if ((fd = open(ctlfile, O_WRONLY)) < 0 || write(fd, msg, n) != n) {
		fprintf(2, "accwork: %s: %s\n", ctlfile, strerror(errno));
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned n, m = 1;

	profiling(0);
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "mix") == 0 && parse_uint(argv[2], &n) == 0) {
		ctlfile = argc == 4 ? argv[3] : NULL;
		ctl("pid");
		profiling(1);
		for (unsigned i = 0; i < n; i++) {
			mix_a(97);
			mix_b(61);
			mix_c(13);
			mix_d(37);
			mix_e(23);
			mix_f(7);
		}
		profiling(0);
		ctl("stop");
		return 0;
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "lock") == 0 && parse_uint(argv[2], &n) == 0 &&
	    parse_uint(argv[3], &m) == 0 && m > 0) {
		half = period() / m / 2;
		ctlfile = argc == 5 ? argv[4] : NULL;
		ctl("pid");
		profiling(1);
		deadline = rdtsc() + half;
		for (uint64_t r = 0; r < (uint64_t)n * m; r += 8) {
			lock_f(), lock_g(), lock_f(), lock_g();
			lock_f(), lock_g(), lock_f(), lock_g();
			lock_f(), lock_g(), lock_f(), lock_g();
			lock_f(), lock_g(), lock_f(), lock_g();
		}
		profiling(0);
		ctl("stop");
		return 0;
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "lock3") == 0 && parse_uint(argv[2], &n) == 0 &&
	    parse_uint(argv[3], &m) == 0 && m > 0) {
		half = period() / m / 3;        /* here a third of the round */
		ctlfile = argc == 5 ? argv[4] : NULL;
		ctl("pid");
		profiling(1);
		deadline = rdtsc() + half;
		for (uint64_t r = 0; r < (uint64_t)n * m; r += 4) {
			lock_f(), lock_g(), lock_h(), lock_f(), lock_g(), lock_h();
			lock_f(), lock_g(), lock_h(), lock_f(), lock_g(), lock_h();
		}
		profiling(0);
		ctl("stop");
		return 0;
	}
	fprintf(2, "usage: accwork mix ROUNDS [CTL] | accwork lock|lock3 TICKS M [CTL]\n");
	return 1;
}
