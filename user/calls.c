/* calls: a call graph with counts known in advance, for the gprof test:
 * main calls a() 1000 times and a() calls b() 3 times a call (3000);
 * main calls rec(10) once, which calls itself 10 times, down to rec(0);
 * c() is never called. "calls fault" ends with a write to address 0 after
 * the same calls, for the test of a profiled program that faults; "calls -t"
 * prints the TSC cycles the calls took, for calls.pg's slowdown. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

#define NA 1000
#define DEPTH 10

volatile unsigned sink;         /* keeps the compiler from folding calls away */

/* noipa: gcc may neither inline these nor merge or specialise them */
__attribute__((noipa)) static void b(void)
{
	sink++;
}

__attribute__((noipa)) static void a(void)
{
	b();
	b();
	b();
}

__attribute__((noipa)) static unsigned rec(unsigned n)
{
	unsigned r;

	if (n == 0)
		return 0;
	r = rec(n - 1);
	sink += r;              /* work after the call: no tail call to turn into a loop */
	return r + 1;
}

__attribute__((noipa)) static void c(void)
{
	sink += 7;
}

int main(int argc, char **argv)
{
	unsigned long long c0 = rdtsc(), c1;
	unsigned r;

	for (int i = 0; i < NA; i++)
		a();
	r = rec(DEPTH);
	c1 = rdtsc();
	printf("calls: rec(%d) = %u\n", DEPTH, r);
	if (argc > 1 && strcmp(argv[1], "-t") == 0)
		printf("calls: cycles %llu\n", c1 - c0);
	if (argc > 1 && strcmp(argv[1], "never") == 0)
		c();
	if (argc > 1 && strcmp(argv[1], "fault") == 0)
		*(volatile unsigned *)0 = sink;
	return 0;
}
