/* mcwork: the Monte Carlo profiler's workload, with routines of known
 * names and costs.
 *
 *   mcwork run A B C     alpha() for A ms of work, beta() for B, gamma() for C
 *   mcwork pause A B C   the same inside a session started paused (prof on
 *                        -P): continue before beta, pause after it, so only
 *                        beta is profiled
 * run and pause print beta's user ticks and the program's, from the clock.
 *   mcwork sys N M       N getpid() calls and M uptime() calls, for -s; prints
 *                        the TSC cycles they took
 *
 * A "ms of work" is a fixed number of loop rounds, calibrated to about a
 * millisecond, so a run is the same run under -icount. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

/* about six instructions a round: under -icount, a millisecond */
#define ROUNDS_PER_MS 166000

static volatile unsigned sink;

/* the three routines: the same loop, told apart by name (noipa: or the
 * compiler folds the three into one) */
__attribute__((noipa)) static void alpha(unsigned ms)
{
	for (unsigned i = 0; i < ms * ROUNDS_PER_MS; i++)
		sink += i;
}

__attribute__((noipa)) static void beta(unsigned ms)
{
	for (unsigned i = 0; i < ms * ROUNDS_PER_MS; i++)
		sink += i;
}

__attribute__((noipa)) static void gamma_(unsigned ms)
{
	for (unsigned i = 0; i < ms * ROUNDS_PER_MS; i++)
		sink += i;
}

static void usage(void)
{
	fprintf(2, "usage: mcwork run|pause A B C | mcwork sys N M\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned u0, u1, all, k;        /* user ticks; kernel ticks unused */

	if (argc != 5 && !(argc == 4 && !strcmp(argv[1], "sys")))
		usage();
	if (!strcmp(argv[1], "sys")) {
		unsigned long long c0 = rdtsc(), c1;
		for (unsigned i = atoi(argv[2]); i > 0; i--)
			getpid();
		for (unsigned i = atoi(argv[3]); i > 0; i--)
			uptime();
		c1 = rdtsc();
		printf("mcwork: %d getpid, %d uptime in %llu cycles\n", atoi(argv[2]), atoi(argv[3]),
		       c1 - c0);
		return 0;
	}
	if (strcmp(argv[1], "run") && strcmp(argv[1], "pause"))
		usage();
	alpha(atoi(argv[2]));
	if (!strcmp(argv[1], "pause") && ProfileStart(0, PROFILE_CONTINUE, NULL) < 0) {
		fprintf(2, "mcwork: continue: %s\n", strerror(errno));
		return 1;
	}
	sysstat_proc(getpid(), &u0, &k);
	beta(atoi(argv[3]));
	sysstat_proc(getpid(), &u1, &k);
	if (!strcmp(argv[1], "pause") && ProfileStart(0, PROFILE_PAUSE, NULL) < 0) {
		fprintf(2, "mcwork: pause: %s\n", strerror(errno));
		return 1;
	}
	gamma_(atoi(argv[4]));
	sysstat_proc(getpid(), &all, &k);
	printf("mcwork: beta user ticks %u, all %u\n", u1 - u0, all);
	return 0;
}
