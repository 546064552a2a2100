/* tickcost: a fixed CPU-bound workload for the benchmarks. It runs N rounds
 * of a user-mode loop (with -k: of the kernel's kwork_loop) and prints the TSC cycles and clock ticks that took.
 * Under QEMU's -icount shift=0 a TSC cycle is one guest instruction, so
 * the difference between two runs, divided by the ticks, is the cost of a
 * tick in instructions. lost is how many ticks the kernel saw go missing
 * (from /dev/sysstat's lost_ticks) meanwhile. */
#include "ulib.h"
#include "abi/kprof.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

static inline unsigned long long rdtsc(void)
{
	unsigned lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
}

__attribute__((noinline)) static unsigned work(unsigned n)
{
	volatile unsigned x = 0;

	for (unsigned i = 0; i < n; i++)
		x += i * 7 + 3;
	return x;
}

int main(int argc, char **argv)
{
	unsigned n, t0, t1, lost0, lost1;
	unsigned long long c0, c1;
	int kernel = argc == 3 && strcmp(argv[1], "-k") == 0;

	if (argc != 2 + kernel || parse_uint(argv[1 + kernel], &n) < 0) {
		fprintf(2, "usage: tickcost [-k] ROUNDS\n");
		return 1;
	}
	lost0 = sysstat_get(KPINFO_LOST, 0);
	t0 = uptime();
	c0 = rdtsc();
	for (unsigned i = 0; i < n; i++) {
		if (kernel)
			kwork(KWORK_LOOP, 1000);
		else
			work(1000);
	}
	c1 = rdtsc();
	t1 = uptime();
	lost1 = sysstat_get(KPINFO_LOST, 0);
	printf("tickcost: rounds %u cycles %llu ticks %u lost %u\n", n, c1 - c0, t1 - t0, lost1 - lost0);
	return 0;
}
