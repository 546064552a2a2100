/* gprofwork: glibc's gprof (gcc -pg: mcount's call counts, profil's
 * SIGPROF samples) on a known answer. hot, warm and cold run the same
 * loop per call and are called 6K, 3K and K times, so their calls are
 * exact and their shares of the time 60/30/10 %.
 * usage: gprofwork K [ITERS] (defaults 1000, 2000) */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned x;

#define LOOP(n) for (unsigned i = 0; i < (n); i++) x = x * 1103515245u + 12345u

__attribute__((noinline, noipa)) void hot(unsigned n) { LOOP(n); }
__attribute__((noinline, noipa)) void warm(unsigned n) { LOOP(n); }
__attribute__((noinline, noipa)) void cold(unsigned n) { LOOP(n); }

int main(int argc, char **argv)
{
	unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 2000;

	for (unsigned i = 0; i < k; i++) {
		for (int j = 0; j < 6; j++)
			hot(n);
		for (int j = 0; j < 3; j++)
			warm(n);
		cold(n);
	}
	printf("gprofwork: done\n");
	return 0;
}
