/* flood: makes one write() of KB kilobytes to FILE and reports what it
 * returned, so a test can check that one huge write to a slow device
 * neither stops other processes nor outlives a kill. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"

int main(int argc, char **argv)
{
	unsigned kb;
	char *buf;
	int fd, n;

	if (argc != 3 || parse_uint(argv[2], &kb) < 0 || kb == 0 || kb > (64u << 10)) {
		fprintf(2, "usage: flood FILE KB (1..65536)\n");
		return 1;
	}
	if ((buf = sbrk(kb << 10)) == (char *)-1) {
		fprintf(2, "flood: sbrk: %s\n", strerror(errno));
		return 1;
	}
	for (unsigned i = 0; i < kb << 10; i++)
		buf[i] = 'a' + i % 26;
	if ((fd = open(argv[1], O_WRONLY)) < 0) {
		fprintf(2, "flood: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = write(fd, buf, kb << 10);
	printf("flood: write returned %d\n", n < 0 ? -errno : n);
	return n == (int)(kb << 10) ? 0 : 1;
}
