/* echo: prints its arguments joined by spaces; -n leaves off the newline. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

int main(int argc, char **argv)
{
	int i = 1, newline = 1;
	char buf[1024];
	int n = 0;

	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = 0;
		i = 2;
	}
	/* One write for the whole line, so a device like /dev/kpctl sees one
	 * command, not one word per write. */
	for (; i < argc; i++) {
		int r = snprintf(buf + n, sizeof(buf) - n, "%s%s", argv[i], i + 1 < argc ? " " : "");
		if (r >= (int)sizeof(buf) - n) {
			fprintf(2, "echo: line too long\n");
			return 1;
		}
		n += r;
	}
	if (newline) {
		if (n + 1 >= (int)sizeof(buf)) {
			fprintf(2, "echo: line too long\n");
			return 1;
		}
		buf[n++] = '\n';
	}
	if (n > 0 && writeall(1, buf, n) < 0) {
		fprintf(2, "echo: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
