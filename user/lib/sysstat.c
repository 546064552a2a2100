/* Reading numbers from /dev/sysstat, and turning milliseconds into PIT
 * ticks at the rate the kernel actually achieved (hz is not exactly 1000). */
#include "ulib.h"
#include "string.h"
#include "stdlib.h"

static char text[4096];

/* Reads the whole file; returns its length or -1. */
static int load(void)
{
	int fd = open("/dev/sysstat", O_RDONLY);
	int n = 0, r;

	if (fd < 0)
		return -1;
	while (n < (int)sizeof(text) - 1 && (r = read(fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += r;
	close(fd);
	text[n] = 0;
	return n;
}

/* Finds "key " at the start of a line; returns what follows, or 0. */
static const char *find(const char *key)
{
	size_t k = strlen(key);
	const char *p = text;

	while (*p) {
		if (strncmp(p, key, k) == 0 && p[k] == ' ')
			return p + k + 1;
		p = strchr(p, '\n');
		if (p == 0)
			break;
		p++;
	}
	return 0;
}

unsigned sysstat_get(const char *key, unsigned dflt)
{
	const char *v;

	if (load() < 0 || (v = find(key)) == 0)
		return dflt;
	return strtoul(v, 0, 10);
}

unsigned sysstat_hz_milli(void)
{
	const char *v;
	char *end;
	unsigned hz, frac = 0, scale = 100;

	if (load() < 0 || (v = find("hz")) == 0)
		return 1000 * 1000;     /* the documented default rate */
	hz = strtoul(v, &end, 10);
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9' && scale > 0; end++, scale /= 10)
			frac += (*end - '0') * scale;
	}
	if (hz == 0)
		return 1000 * 1000;
	return hz * 1000 + frac;
}

unsigned ms_to_ticks(unsigned ms)
{
	/* 64 bits: ms * hz * 1000 overflows 32 bits above a few ticks' worth. */
	unsigned long long t = (unsigned long long)ms * sysstat_hz_milli();

	return (unsigned)((t + 999999) / 1000000);
}

int sysstat_proc(int pid, unsigned *uticks, unsigned *kticks)
{
	const char *p;

	if (load() < 0)
		return -1;
	/* proc PID PPID STATE UTICKS KTICKS NAME */
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : 0) {
		char *q;
		const char *state;

		if (strncmp(p, "proc ", 5) != 0 || (int)strtoul(p + 5, &q, 10) != pid)
			continue;
		strtoul(q, &q, 10);             /* PPID */
		while (*q == ' ')
			q++;
		state = q;
		while (*q && *q != ' ')
			q++;
		if (q == state)
			return -1;
		*uticks = strtoul(q, &q, 10);
		*kticks = strtoul(q, &q, 10);
		return 0;
	}
	return -1;
}
