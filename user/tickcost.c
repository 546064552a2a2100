/* tickcost: a fixed CPU-bound workload for the benchmarks. It runs N rounds
 * of a user-mode loop (with -k: of the kernel's kwork_loop; with -c: N
 * calls of a function that is instrumented in tickcost.pg, for the cost of
 * mcount) and prints the TSC cycles and clock ticks that took. With -d D
 * the loop runs D calls deep (for what a stack sample costs per frame).
 * Under QEMU's -icount shift=0 a TSC cycle is one guest instruction, so
 * the difference between two runs, divided by the ticks, is the cost of a
 * tick in instructions. lost is how many ticks the kernel saw go missing
 * (from /dev/sysstat's lost_ticks) meanwhile. */
#include "ulib.h"
#include "abi/kprof.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

volatile unsigned sink;

/* Not instrumented even in tickcost.pg, so that build differs from the
 * plain one only by profil's sampling: its marginal cost per sample. */
__attribute__((noinline, no_instrument_function)) static unsigned work(unsigned n)
{
	volatile unsigned x = 0;

	for (unsigned i = 0; i < n; i++)
		x += i * 7 + 3;
	return x;
}

/* instrumented in tickcost.pg: one mcount call per call */
__attribute__((noipa)) static void leaf(unsigned i)
{
	sink = i;
}

static void loop(unsigned n, int kernel, int calls)
{
	for (unsigned i = 0; i < n; i++) {
		if (calls)
			leaf(i);
		else if (kernel)
			kwork(KWORK_LOOP, 1000);
		else
			work(1000);
	}
}

/* the loop, d frames down: each call one frame of the sampled stack */
__attribute__((noipa, no_instrument_function)) static void deep(unsigned d, unsigned n, int kernel, int calls)
{
	if (d)
		deep(d - 1, n, kernel, calls);
	else
		loop(n, kernel, calls);
	sink++;                 /* not a tail call: this frame stays */
}

static void usage(void)
{
	fprintf(2, "usage: tickcost [-k | -c] [-d DEPTH] ROUNDS\n");
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned n, t0, t1, lost0, lost1, depth = 0;
	unsigned long long c0, c1;
	int kernel = 0, calls = 0, i;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "-k"))
			kernel = 1;
		else if (!strcmp(argv[i], "-c"))
			calls = 1;
		else if (!strcmp(argv[i], "-d") && i + 1 < argc - 1 && parse_uint(argv[i + 1], &depth) == 0 &&
			 depth <= 200)
			i++;
		else
			usage();
	}
	if (i != argc - 1 || (kernel && calls) || parse_uint(argv[argc - 1], &n) < 0)
		usage();
	lost0 = sysstat_get(KPINFO_LOST, 0);
	t0 = uptime();
	c0 = rdtsc();
	if (depth)
		deep(depth - 1, n, kernel, calls);
	else
		loop(n, kernel, calls);
	c1 = rdtsc();
	t1 = uptime();
	lost1 = sysstat_get(KPINFO_LOST, 0);
	printf("tickcost: %s %u cycles %llu ticks %u lost %u\n", calls ? "calls" : "rounds", n, c1 - c0, t1 - t0, lost1 - lost0);
	return 0;
}
