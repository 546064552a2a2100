/* prof: Windows CE's `prof on`/`prof off` over ProfileStart/ProfileStop,
 * and a live view of the tables, `prof top`.
 *
 *   prof on [-m|-s|-k] [-b|-u] [-z KIB] [-n N] [-p] [-P] [-i USEC]
 *       -m Monte Carlo (samples, the default), -s system-call hits,
 *       -k kernel-call timing; -b buffered (the default), -u unbuffered;
 *       -z the buffer in KiB; -n routines in the report (0: all);
 *       -p a module per process; -P start paused; -i the sampling period
 *       in microseconds (default: the clock's rate as it is)
 *   prof off          stop, print the report, say where its file is
 *   prof pause | prof continue   for a session started with -P
 *   prof top [-d SECONDS] [-c COUNT] [-n N]
 *       the tables of an unbuffered session, redrawn every SECONDS
 *       (default 1) until a key is pressed, or COUNT times; with no session
 *       on it runs one of its own, and stops it at the end */
#include <stdbool.h>
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

static void usage(void)
{
	fprintf(2, "usage: prof on [-m|-s|-k] [-b|-u] [-z KIB] [-n N] [-p] [-P] [-i USEC]\n"
		   "       prof off | prof pause | prof continue\n"
		   "       prof top [-d SECONDS] [-c COUNT] [-n N]\n");
	exit(2);
}

static unsigned number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!s || end == s || *end)
		usage();
	return v;
}

static int fail(const char *what)
{
	const char *why = strerror(errno);

	switch (errno) {
	case EALREADY: why = "a session is on already (prof off ends it)"; break;
	case ESRCH:    why = "no session is on (prof on starts one)"; break;
	case EPERM:    why = "pause and continue need a session started with -P"; break;
	case EBUSY:    why = "another profiler holds the clock rate"; break;
	}
	fprintf(2, "prof: %s: %s\n", what, why);
	return 1;
}

static int on(int argc, char **argv)
{
	struct profile_params pp = { 0, MC_TOP_DEFAULT };
	unsigned options = PROFILE_BUFFER, usec = 0;
	int types = 0, storage = 0;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-m"))
			types++;
		else if (!strcmp(a, "-s"))
			types++, options |= PROFILE_OBJCALL;
		else if (!strcmp(a, "-k"))
			types++, options |= PROFILE_KCALL;
		else if (!strcmp(a, "-b"))
			storage++;
		else if (!strcmp(a, "-u"))
			storage++, options &= ~PROFILE_BUFFER;
		else if (!strcmp(a, "-p"))
			options |= PROFILE_PERPID;
		else if (!strcmp(a, "-P"))
			options |= PROFILE_STARTPAUSED;
		else if (!strcmp(a, "-z") && i + 1 < argc)
			pp.buf_kib = number(argv[++i]);
		else if (!strcmp(a, "-n") && i + 1 < argc)
			pp.top = number(argv[++i]);
		else if (!strcmp(a, "-i") && i + 1 < argc)
			usec = number(argv[++i]);
		else
			usage();
	}
	if (types > 1 || storage > 1) {
		fprintf(2, "prof: one data type (-m, -s, -k) and one storage (-b, -u) at a time\n");
		return 2;
	}
	if (ProfileStart(usec, options, &pp) < 0)
		return fail("on");
	return 0;
}

static int off(void)
{
	char path[32], dump[40];
	struct stat st;

	if (ProfileStop(path, sizeof path) < 0)
		return fail("off");
	snprintf(dump, sizeof dump, "%s.dump", path);
	if (stat(dump, &st) == 0)       /* -k times, and has no samples */
		printf("prof: report in %s, samples in %s (export them for kprof)\n", path, dump);
	else
		printf("prof: report in %s\n", path);
	return 0;
}

/* the tables as they are now */
static int show(bool clear)
{
	char buf[512];
	int fd = open("/dev/mcprof", O_RDONLY), n;

	if (fd < 0)
		return -1;
	if (clear)
		printf("\033[H\033[2J");
	while ((n = read(fd, buf, sizeof buf)) > 0)
		writeall(1, buf, n);
	close(fd);
	return 0;
}

/* A child waits for a key; the view ends when it does. */
static int keywatcher(void)
{
	char *argv[] = { "prof", "-key", NULL };
	return spawn("/bin/prof", argv, NULL);
}

static int top(int argc, char **argv)
{
	struct profile_params pp = { 0, 20 };
	unsigned secs = 1, count = 0;
	bool own = false;
	int kid, st;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			secs = number(argv[++i]);
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			count = number(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			pp.top = number(argv[++i]);
		else
			usage();
	}
	if (ProfileStart(0, 0, &pp) == 0)
		own = true;             /* no session was on: this one is ours */
	else if (errno != EALREADY)
		return fail("top");
	kid = count ? -1 : keywatcher();
	for (unsigned k = 0; !count || k < count; k++) {
		sleep(secs ? secs * 1000 : 100);
		if (show(true) < 0)
			break;
		if (kid > 0 && wait(kid, &st, WNOHANG) == kid) {
			kid = -1;
			break;
		}
	}
	if (kid > 0) {
		kill(kid);
		wait(kid, &st, 0);
	}
	if (own) {
		char path[32];
		if (ProfileStop(path, sizeof path) < 0)
			return fail("top");
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned opt;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "on"))
		return on(argc, argv);
	if (!strcmp(argv[1], "off") && argc == 2)
		return off();
	if ((!strcmp(argv[1], "pause") || !strcmp(argv[1], "continue")) && argc == 2) {
		opt = argv[1][0] == 'p' ? PROFILE_PAUSE : PROFILE_CONTINUE;
		return ProfileStart(0, opt, NULL) < 0 ? fail(argv[1]) : 0;
	}
	if (!strcmp(argv[1], "top"))
		return top(argc, argv);
	if (!strcmp(argv[1], "-key")) {         /* prof top's key watcher */
		char c;
		read(0, &c, 1);
		return 0;
	}
	usage();
	return 2;
}
