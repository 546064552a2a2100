/* cat: copies each named file (or stdin, or "-") to stdout. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

static int copy(int fd, const char *name)
{
	static char buf[4096];
	int n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (writeall(1, buf, n) < 0) {
			fprintf(2, "cat: write error: %s\n", strerror(errno));
			return -1;
		}
	}
	if (n < 0) {
		fprintf(2, "cat: %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2)
		return copy(0, "stdin") < 0;
	for (int i = 1; i < argc; i++) {
		int fd;

		if (strcmp(argv[i], "-") == 0) {
			status |= copy(0, "stdin") < 0;
			continue;
		}
		if ((fd = open(argv[i], O_RDONLY)) < 0) {
			fprintf(2, "cat: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		status |= copy(fd, argv[i]) < 0;
		close(fd);
	}
	return status;
}
