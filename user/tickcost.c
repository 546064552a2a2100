/* tickcost: a fixed CPU-bound workload for the benchmarks. It runs N rounds
 * of a user-mode loop and prints the TSC cycles and clock ticks that took.
 * Under QEMU's -icount shift=0 a TSC cycle is one guest instruction, so
 * the difference between two runs, divided by the ticks, is the cost of a
 * tick in instructions. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"

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
	unsigned n, t0, t1;
	unsigned long long c0, c1;

	if (argc != 2 || parse_uint(argv[1], &n) < 0) {
		fprintf(2, "usage: tickcost ROUNDS\n");
		return 1;
	}
	t0 = uptime();
	c0 = rdtsc();
	for (unsigned i = 0; i < n; i++)
		work(1000);
	c1 = rdtsc();
	t1 = uptime();
	printf("tickcost: rounds %u cycles %llu ticks %u\n", n, c1 - c0, t1 - t0);
	return 0;
}
