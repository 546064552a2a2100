/* omitfp's leaves: the loop every path ends in, and qsort's comparator
 * (omitfp.c says what they are for) */
#include "omitfp.h"

volatile unsigned omitfp_sink;

/* n turns of a loop the compiler keeps */
NOINLINE void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		omitfp_sink += i;
}

/* glibc's qsort calls it: a little work, then the comparison */
NOINLINE int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	spin(8);
	return x < y ? -1 : x > y;
}
