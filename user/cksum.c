/* cksum: the POSIX CRC-32 and size of each file, printed "CRC SIZE NAME"
 * exactly as GNU cksum does, so the tests can compare with the host. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

static uint32_t table[256];

/* POSIX's CRC is the big-endian one: polynomial 0x04C11DB7, no reflection. */
static void maketable(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;
		for (int k = 0; k < 8; k++)
			c = c & 0x80000000 ? (c << 1) ^ 0x04C11DB7 : c << 1;
		table[i] = c;
	}
}

static uint32_t update(uint32_t crc, const unsigned char *p, unsigned n)
{
	while (n--)
		crc = (crc << 8) ^ table[(crc >> 24) ^ *p++];
	return crc;
}

static int sum(int fd, const char *name)
{
	static unsigned char buf[4096];
	uint32_t crc = 0, size = 0, len;
	int n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		crc = update(crc, buf, n);
		size += n;
	}
	if (n < 0) {
		fprintf(2, "cksum: %s: %s\n", name ? name : "-", strerror(errno));
		return -1;
	}
	/* Then the length, least significant byte first, only as many bytes
	 * as it needs; then the complement. */
	for (len = size; len; len >>= 8) {
		unsigned char b = len & 0xff;
		crc = update(crc, &b, 1);
	}
	crc = ~crc;
	if (name)
		printf("%u %u %s\n", crc, size, name);
	else
		printf("%u %u\n", crc, size);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	maketable();
	if (argc < 2)
		return sum(0, 0) < 0;
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			fprintf(2, "cksum: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		status |= sum(fd, argv[i]) < 0;
		close(fd);
	}
	return status;
}
