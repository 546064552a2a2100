/* The kpr builtin's half outside the shell proper: the devkprof control
 * writes around the profiled command and the one-line summary after it.
 * sh.c runs the command itself, so that ^C kills the command and not the
 * profiling. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "abi/kprof.h"
#include "sh.h"

#define KPCTL  "/dev/kpctl"
#define KPINFO "/dev/kpinfo"

/* One write of cmd to /dev/kpctl. Returns 0, or -1 after a message. */
int kpr_ctl(const char *cmd)
{
	int fd = open(KPCTL, O_WRONLY), r = -1;

	if (fd >= 0) {
		r = write(fd, cmd, strlen(cmd));
		close(fd);
	}
	if (r < 0) {
		fprintf(2, "kpr: %s %s: %s\n", KPCTL, cmd, strerror(errno));
		return -1;
	}
	return 0;
}

/* The value of "key value" in text, copied into val; 0 if found. */
static int lookup(const char *text, const char *key, char *val, int size)
{
	int klen = strlen(key);

	for (const char *p = text; *p; ) {
		const char *eol = strchr(p, '\n');
		int len = eol ? eol - p : (int)strlen(p);

		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			int vlen = len - klen - 1;
			if (vlen >= size)
				vlen = size - 1;
			memcpy(val, p + klen + 1, vlen);
			val[vlen] = 0;
			return 0;
		}
		p += len + (eol != 0);
	}
	return -1;
}

/* "kpr: N ticks, K in the kernel, at HZ Hz; export /dev/kpdata /dev/kpinfo" */
void kpr_summary(void)
{
	static char info[1024];
	char ticks[24], kticks[24], hz[24];
	int fd, n = 0, r;

	if ((fd = open(KPINFO, O_RDONLY)) < 0)
		return;
	while (n < (int)sizeof(info) - 1 && (r = read(fd, info + n, sizeof(info) - 1 - n)) > 0)
		n += r;
	close(fd);
	info[n] = 0;
	if (lookup(info, KPINFO_TICKS, ticks, sizeof ticks) < 0 ||
	    lookup(info, KPINFO_KTICKS, kticks, sizeof kticks) < 0 ||
	    lookup(info, KPINFO_HZ, hz, sizeof hz) < 0)
		return;
	fprintf(2, "kpr: %s ticks, %s in the kernel, at %s Hz; "
		"export /dev/kpdata /dev/kpinfo to take the profile out\n", ticks, kticks, hz);
}
