/* ps: the proc lines of /dev/sysstat as a table. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

#define MAXTEXT 8192

int main(int argc, char **argv)
{
	static char text[MAXTEXT];
	char *p, *next;
	int fd, n = 0, r;

	(void)argv;
	if (argc != 1) {
		fprintf(2, "usage: ps\n");
		return 1;
	}
	if ((fd = open("/dev/sysstat", O_RDONLY)) < 0) {
		fprintf(2, "ps: /dev/sysstat: %s\n", strerror(errno));
		return 1;
	}
	while (n < MAXTEXT - 1 && (r = read(fd, text + n, MAXTEXT - 1 - n)) > 0)
		n += r;
	close(fd);
	text[n] = 0;

	/* The header is one plain line that scripts can match; the columns
	 * take the header words' widths, and a wider value just pushes on. */
	printf("PID PPID STATE UTICKS KTICKS ABI   NAME\n");
	for (p = text; *p; p = next) {
		/* proc PID PPID STATE UTICKS KTICKS ABI NAME: ABI is the system
		 * calls it makes, the project's (kprof) or Linux's (linux) */
		char *f[8];
		int nf = 0;

		next = strchr(p, '\n');
		if (next)
			*next++ = 0;
		else
			next = p + strlen(p);
		while (nf < 8) {
			while (*p == ' ')
				p++;
			if (*p == 0)
				break;
			f[nf++] = p;
			/* The name is the rest of the line. */
			if (nf == 8)
				break;
			while (*p && *p != ' ')
				p++;
			if (*p)
				*p++ = 0;
		}
		if (nf == 8 && strcmp(f[0], "proc") == 0)
			printf("%3s %4s %-5s %6s %6s %-5s %s\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
	}
	return 0;
}
