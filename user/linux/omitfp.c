/* omitfp: a call tree whose every path and its share are known, for the
 * stack engine's unwind tables (docs/stacks.md). The build makes it three
 * ways (user/user.mk): omitfp without frame pointers in any function,
 * omitfp-mix with them in this file's functions and not in the leaves'
 * (omitfp_leaf.c), omitfp-fp with them everywhere (glibc's own code has
 * none in any of them).
 *
 *   omitfp tree N    N rounds of: alpha -> spin(U), beta -> spin(2U),
 *                    rec -> rec -> rec -> rec -> spin(U) (recursion), and
 *                    gamma -> spin(2U) called through a pointer; spin's
 *                    time splits 1:2:1:2 between its four callers
 *   omitfp qsort N   N times glibc's qsort of 256 numbers: the comparator's
 *                    time, under qsort's own frames
 *   omitfp sys N     N getppid calls, each a few instructions of user code
 *                    around the kernel's entry and exit
 *   omitfp signal N  N times main -> sigchain -> raise(SIGUSR1), whose
 *                    handler spins (spin(U)), and as often raise(SIGUSR2)
 *                    with a SA_SIGINFO handler (glibc's rt frame): ticks
 *                    in a handler, under the signal's frame, above the
 *                    code it interrupted
 *   omitfp deep D N  D calls down (deep), then a loop of N turns; prints
 *                    the TSC cycles the whole took (make bench: a stack
 *                    sample's cost D + 4 frames deep, under QEMU's icount
 *                    the TSC counts instructions)
 *
 * The callers do something after each call, so the compiler cannot make
 * it a jump (a tail call leaves no frame, in any unwinder). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "omitfp.h"

#define U 4000

NOINLINE static void alpha(unsigned n)
{
	spin(n);
	omitfp_sink++;
}

NOINLINE static void beta(unsigned n)
{
	spin(2 * n);
	omitfp_sink++;
}

NOINLINE static void rec(int depth, unsigned n)
{
	if (depth == 0)
		spin(n);
	else
		rec(depth - 1, n);
	omitfp_sink++;
}

NOINLINE static void gamma_(unsigned n)
{
	spin(2 * n);
	omitfp_sink += 2;       /* not beta's code: the compiler would fold them */
}

static void (*volatile through)(unsigned) = gamma_;

/* d frames of its own, then the loop, in the deepest */
NOINLINE static void deep(unsigned d, unsigned long n)
{
	if (d > 1) {
		deep(d - 1, n);
	} else {
		for (unsigned long i = 0; i < n; i++)
			omitfp_sink += i;
	}
	omitfp_sink++;
}

static inline unsigned long long rdtsc(void)
{
	unsigned lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

static void on_usr1(int sig)
{
	(void)sig;
	spin(U);
}

static void on_usr2(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	spin(U);
}

NOINLINE static void sigchain(void)
{
	raise(SIGUSR1);
	raise(SIGUSR2);
	omitfp_sink++;
}

static int usage(void)
{
	fprintf(stderr, "usage: omitfp tree|qsort|signal|sys N | omitfp deep D N\n");
	return 2;
}

int main(int argc, char **argv)
{
	static unsigned a[256];
	unsigned long n;
	unsigned seed = 1;

	if (argc == 4 && !strcmp(argv[1], "deep")) {
		unsigned long d = strtoul(argv[2], NULL, 10);
		unsigned long long c0;

		n = strtoul(argv[3], NULL, 10);
		if (d == 0 || d > 1000 || n == 0)
			return usage();
		c0 = rdtsc();
		deep(d, n);
		printf("omitfp: deep %lu %lu: %llu cycles\n", d, n, rdtsc() - c0);
		return 0;
	}
	if (argc != 3 || (n = strtoul(argv[2], NULL, 10)) == 0)
		return usage();
	if (!strcmp(argv[1], "tree")) {
		for (unsigned long i = 0; i < n; i++) {
			alpha(U);
			beta(U);
			rec(3, U);
			through(U);
		}
	} else if (!strcmp(argv[1], "qsort")) {
		for (unsigned long i = 0; i < n; i++) {
			for (unsigned k = 0; k < 256; k++)
				a[k] = seed = seed * 1103515245 + 12345;
			qsort(a, 256, sizeof a[0], cmp);
		}
	} else if (!strcmp(argv[1], "signal")) {
		struct sigaction a = { .sa_handler = on_usr1 }, b = { .sa_sigaction = on_usr2,
								     .sa_flags = SA_SIGINFO };

		sigaction(SIGUSR1, &a, NULL);
		sigaction(SIGUSR2, &b, NULL);
		for (unsigned long i = 0; i < n; i++)
			sigchain();
	} else if (!strcmp(argv[1], "sys")) {
		for (unsigned long i = 0; i < n; i++)
			omitfp_sink += getppid();
	} else {
		return usage();
	}
	printf("omitfp: %s %lu done\n", argv[1], n);
	return 0;
}
