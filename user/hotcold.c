/* hotcold: three functions with the same loop run 6N, 3N and N times, so
 * their shares of the instructions, and of the profile, are 60/30/10.
 * usage: hotcold N (default 1000000). */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"

volatile unsigned x;

/* the same body in each, so equal iterations are equal instructions */
#define LOOP(n) for (unsigned i = 0; i < (n); i++) x = x * 1103515245u + 12345u

__attribute__((noipa)) static void hot(unsigned n) { LOOP(6 * n); }
__attribute__((noipa)) static void warm(unsigned n) { LOOP(3 * n); }
__attribute__((noipa)) static void cold(unsigned n) { LOOP(n); }

int main(int argc, char **argv)
{
	unsigned n = 1000000;

	if (argc > 1 && parse_uint(argv[1], &n) < 0) {
		fprintf(2, "usage: hotcold [N]\n");
		return 1;
	}
	hot(n);
	warm(n);
	cold(n);
	printf("hotcold: done\n");
	return 0;
}
