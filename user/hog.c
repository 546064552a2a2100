/* hog: takes MB megabytes with sbrk and touches every page, holds them for
 * MS milliseconds (default 0), then exits, so memory pressure and the
 * kernel's page accounting can be watched with /dev/sysstat. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"

int main(int argc, char **argv)
{
	unsigned mb, ms = 0, got = 0;

	if (argc < 2 || argc > 3 || parse_uint(argv[1], &mb) < 0 ||
	    (argc == 3 && parse_uint(argv[2], &ms) < 0)) {
		fprintf(2, "usage: hog MB [MS]\n");
		return 1;
	}
	for (; got < mb; got++) {
		char *p = sbrk(1 << 20);
		if (p == (char *)-1) {
			fprintf(2, "hog: stopped at %u MB: %s\n", got, strerror(errno));
			break;
		}
		for (unsigned off = 0; off < (1 << 20); off += PGSIZE)
			p[off] = 1;
	}
	printf("hog: %u MB, freepages %u\n", got, sysstat_get("freepages", 0));
	if (ms)
		sleep(ms);
	return got == mb ? 0 : 1;
}
