/* put: makes exactly one write() of TEXT (which may be empty, and gets no
 * newline) to FILE and reports the result. For control files such as
 * /dev/kpctl, where what one write carries matters. */
#include "ulib.h"
#include "stdio.h"
#include "string.h"

int main(int argc, char **argv)
{
	const char *text = argc == 3 ? argv[2] : "";
	int fd, n;

	if (argc != 2 && argc != 3) {
		fprintf(2, "usage: put FILE [TEXT]\n");
		return 1;
	}
	if ((fd = open(argv[1], O_WRONLY)) < 0) {
		fprintf(2, "put: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = write(fd, text, strlen(text));
	if (n < 0) {
		printf("put: write: %s\n", strerror(errno));
		return 1;
	}
	printf("put: wrote %d bytes\n", n);
	return 0;
}
