/* heat: runs a program traced by the kernel's heat engine, which counts
 * every user instruction it executes (/dev/heat then holds the counts):
 *   heat PROG [ARG...]
 * The old heat is thrown away first; PROG without a '/' is looked up in
 * /bin. Exits with PROG's status and prints heatinfo's summary to fd 2.
 *   heat -s PROG [ARG...]
 * runs it under the clock-tick sampler instead (/dev/usample), for the
 * accuracy check of samples against heat. */
#include "ulib.h"
#include "abi/heat.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

static const char *ctlfile = "/dev/heatctl";

static int ctl(const char *msg)
{
	int fd = open(ctlfile, O_WRONLY), r;

	if (fd < 0)
		return -1;
	r = write(fd, msg, strlen(msg));
	close(fd);
	return r < 0 ? -1 : 0;
}

/* the number after "key " in /dev/heatinfo, or 0 */
static unsigned info(const char *key)
{
	static char text[1024];
	int fd = open("/dev/heatinfo", O_RDONLY), n = 0, r;
	size_t k = strlen(key);

	if (fd < 0)
		return 0;
	while (n < (int)sizeof text - 1 && (r = read(fd, text + n, sizeof text - 1 - n)) > 0)
		n += r;
	close(fd);
	text[n] = 0;
	for (char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : 0)
		if (strncmp(p, key, k) == 0 && p[k] == ' ')
			return strtoul(p + k + 1, 0, 10);
	return 0;
}

int main(int argc, char **argv)
{
	char path[128];
	int pid, status;

	int sample = argc > 1 && strcmp(argv[1], "-s") == 0;

	if (sample) {
		ctlfile = "/dev/usamplectl";
		argc--, argv++;
	}
	if (argc < 2) {
		fprintf(2, "usage: heat [-s] PROG [ARG...]\n");
		return 1;
	}
	if (strchr(argv[1], '/'))
		snprintf(path, sizeof path, "%s", argv[1]);
	else
		snprintf(path, sizeof path, "/bin/%s", argv[1]);
	if (ctl(HEATCTL_CHILD) < 0) {
		fprintf(2, "heat: %s: %s\n", ctlfile, strerror(errno));
		return 1;
	}
	if ((pid = spawn(path, argv + 1, NULL)) < 0) {
		fprintf(2, "heat: %s: %s\n", path, strerror(errno));
		ctl(HEATCTL_STOP);      /* the sampler's stop has the same name */
		return 1;
	}
	if (wait(pid, &status, 0) < 0) {
		fprintf(2, "heat: wait: %s\n", strerror(errno));
		return 1;
	}
	if (sample) {
		fprintf(2, "heat: pid %d exited with status %d (sampled)\n", pid, status);
		return status;
	}
	fprintf(2, "heat: pid %d exited with status %d: %u instructions at %u addresses, "
		"%u pages of memory\n", pid, status, info(HEATINFO_STEPS), info(HEATINFO_ADDRS),
		info(HEATINFO_PAGES));
	return status;
}
