/* hog: takes MB megabytes with sbrk and touches every page, holds them for
 * MS milliseconds (default 0), then exits, so memory pressure and the
 * kernel's page accounting can be watched with /dev/sysstat. "hog -free
 * PAGES" takes all memory but PAGES pages, to see what fails when it runs
 * out. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

/* everything sbrk gives, a megabyte and then a page at a time (up to the
 * heap limit: a second hog takes the rest); then gives back enough that
 * keep pages are free. Returns the pages held. */
static unsigned take_all(unsigned keep)
{
	unsigned pages = 0;
	char *p;

	for (unsigned step = 1 << 20; step >= PGSIZE; step = step == PGSIZE ? 0 : PGSIZE)
		while ((p = sbrk(step)) != (char *)-1) {
			for (unsigned off = 0; off < step; off += PGSIZE)
				p[off] = 1;
			pages += step / PGSIZE;
		}
	unsigned free = sysstat_get("freepages", 0), back = free < keep ? keep - free : 0;
	back = back < pages ? back : pages;
	sbrk(-(int)(back * PGSIZE));
	return pages - back;
}

int main(int argc, char **argv)
{
	unsigned mb, ms = 0, got = 0, keep;

	if (argc >= 3 && strcmp(argv[1], "-free") == 0 && argc <= 4 &&
	    parse_uint(argv[2], &keep) == 0 && (argc == 3 || parse_uint(argv[3], &ms) == 0)) {
		got = take_all(keep);
		printf("hog: %u pages, freepages %u\n", got, sysstat_get("freepages", 0));
		if (ms)
			sleep(ms);
		return 0;
	}
	if (argc < 2 || argc > 3 || parse_uint(argv[1], &mb) < 0 ||
	    (argc == 3 && parse_uint(argv[2], &ms) < 0)) {
		fprintf(2, "usage: hog MB [MS] | hog -free PAGES [MS]\n");
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
