/* sysfuzz: a system-call fuzzer in the spirit of trinity. Batches of random
 * calls run in child processes, so a fault ends only a batch; the parent
 * checks that no page leaked. "sysfuzz -replay SEED" runs one batch here,
 * printing each call before it is made, to find the one that did harm.
 *
 *   sysfuzz [-s SEED] [-n CALLS] [-b BATCH]    fuzz (default 1, 50000, 500)
 *   sysfuzz -replay SEED [-b BATCH]            one batch, call by call
 */
#include <stdbool.h>
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

#define CALLS_DEFAULT 50000
#define BATCH_DEFAULT 500
#define BATCH_TIMEOUT_MS 30000  /* a batch that takes longer has hung */
#define BUFPAGES 4              /* the valid buffer, pages */
#define SLEEP_MAX 4             /* ms: longer sleeps only slow the run */
#define LOOP_MAX 100000         /* kwork steps: long ones are tested elsewhere */
#define COPY_MAX 100
#define CLI_MAX 1000000
#define KILL_SELF 16            /* one kill of itself in this many ends a batch */
#define EXIT_NOMEM 3            /* a batch's status: no memory to start */

/* ---- randomness: xorshift32, so a seed replays ---- */
static uint32_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint32_t below(uint32_t n)
{
	return rnd() % n;
}

/* the seed of batch i of a run: distinct, never 0 (xorshift's fixed point) */
static uint32_t batch_seed(uint32_t run, uint32_t i)
{
	uint32_t s = (run * 2654435761u) ^ (i * 40503u + 0x9E3779B9u);
	return s ? s : 1;
}

/* ---- the pools of interesting arguments ---- */
static char *buf;               /* BUFPAGES valid pages */
static char *edge;              /* the heap's last page: the next is unmapped */
static uint32_t base_brk;
static int mypid, logfd = -1;
static struct stat cons;        /* the console's identity: never read it */

static const uint32_t values[] = {
	0, 1, 2, 3, 7, 0xFFFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x10000,
	PGSIZE - 1, PGSIZE, PGSIZE + 1, 16 * PGSIZE, NOFILE - 1, NOFILE, NPROC, 256, 255,
};

static const char *const paths[] = {
	"/dev/cons", "/dev/null", "/dev/eia1", "/dev/kpctl", "/dev/kpdata", "/dev/kpinfo",
	"/dev/sysstat", "/dev/proftest", "/dev", "/dev/", "/tmp", "/tmp/fz0", "/tmp/fz1",
	"/tmp/fzd", "/tmp/fzd/f", "fz1", "/bin/echo", "/bin", "/bin/nonexistent", "/",
	"", ".", "..", "/tmp/../tmp/./fz0", "//tmp//fz1", "/tmp/fz0/x", "/dev/null/x",
};


static const char *const ctlmsgs[] = {
	"start", "stop", "startclr", "clear", "hz", "res", "start stop", "hz 5000 1",
	"", "\n", "stop\n", "STOP", "res -1", "hz 0x3e8",
};
static const uint32_t ctlnums[] = {
	0, 1, 8, 9, 18, 19, 100, 1000, 4999, 20000, 596592, 0xFFFFFFFF,
};

static uint32_t pointer(void)
{
	const uint32_t heap_end = (uint32_t)edge + PGSIZE;

	switch (below(16)) {
	case 0: return 0;
	case 1: return below(2) ? 0x100000 : 0xB8000;           /* kernel memory */
	case 2: return USER_BASE - 1 - below(8);                 /* just below user space */
	case 3: return USER_TOP - below(8);                      /* the top edge */
	case 4: return USER_TOP - USER_STACK_SIZE - 1 - below(8); /* under the stack */
	case 5: return heap_end - below(8);                      /* the heap's end */
	case 6: return heap_end + below(8) * PGSIZE;             /* past it, unmapped */
	case 7: return 0xFFFFFFFF - below(PGSIZE);               /* wraps around */
	case 8: return (uint32_t)edge + below(PGSIZE);
	case 9: return rnd();
	default: return (uint32_t)buf + below(BUFPAGES * PGSIZE);
	}
}

static uint32_t value(void)
{
	switch (below(4)) {
	case 0: return rnd();
	case 1: return below(64);
	default: return values[below(NELEM(values))];
	}
}

static uint32_t length(void)
{
	return below(4) ? below(BUFPAGES * PGSIZE + 1) : value();
}

/* A path: a good one, one unterminated at the heap's end, or any pointer. */
static uint32_t path(void)
{
	char *s;

	switch (below(8)) {
	case 0:
		/* "/tmp/fz0" with its NUL where the unmapped page begins */
		memcpy(edge + PGSIZE - 8, "/tmp/fz0", 8);
		return (uint32_t)edge + PGSIZE - 8;
	case 1:
		return pointer();
	case 2:                 /* longer than PATH_MAX */
		s = buf + PGSIZE;
		memset(s, 'a', PATH_MAX + 8);
		s[0] = '/';
		s[PATH_MAX + 8] = 0;
		return (uint32_t)s;
	default:
		s = buf + below(BUFPAGES - 1) * PGSIZE + 2048;
		strcpy(s, paths[below(NELEM(paths))]);
		return (uint32_t)s;
	}
}

/* descriptors the batch opened, so that most fd arguments name a file */
static int fds[NOFILE], nfds;

static int fd(void)
{
	if (nfds && below(2))
		return fds[below(nfds)];
	return below(8) ? (int)below(NOFILE + 2) : (int)value();
}

static void opened(int f)
{
	if (f >= 0 && nfds < NOFILE)
		fds[nfds++] = f;
	else if (f >= 0)
		fds[below(NOFILE)] = f;
}

/* itself, a child (they have the next pids), or any value */
static uint32_t pid(void)
{
	return below(2) ? (uint32_t)(mypid + below(8)) : value();
}

/* an argv: a good one, unterminated at the heap's end, or any pointer */
static uint32_t argv_ptr(void)
{
	uint32_t *a = (uint32_t *)(buf + 3 * PGSIZE);

	switch (below(4)) {
	case 0:
		a = (uint32_t *)(edge + PGSIZE) - 2;
		a[0] = a[1] = (uint32_t)"echo";
		return (uint32_t)a;
	case 1:
		return pointer();
	default:
		a[0] = (uint32_t)"echo";
		a[1] = below(2) ? path() : (uint32_t)"fz";
		a[2] = 0;
		return (uint32_t)a;
	}
}

static uint32_t fdmap_ptr(void)
{
	int *m = (int *)(buf + 3 * PGSIZE + 64);

	if (below(4) == 0)
		return below(2) ? 0 : pointer();
	for (int i = 0; i < 3; i++)
		m[i] = below(2) ? -1 : fd();
	return (uint32_t)m;
}

/* ---- making the calls ---- */
struct call {
	uint32_t num, a[5];
};

static const char *callname(uint32_t num)
{
	static const char *const names[NSYSCALL] = {
		[SYS_exit] = "exit", [SYS_spawn] = "spawn", [SYS_wait] = "wait",
		[SYS_getpid] = "getpid", [SYS_sleep] = "sleep", [SYS_sbrk] = "sbrk",
		[SYS_kill] = "kill", [SYS_open] = "open", [SYS_read] = "read",
		[SYS_write] = "write", [SYS_close] = "close", [SYS_lseek] = "lseek",
		[SYS_fstat] = "fstat", [SYS_stat] = "stat", [SYS_dup2] = "dup2",
		[SYS_chdir] = "chdir", [SYS_getcwd] = "getcwd", [SYS_mkdir] = "mkdir",
		[SYS_unlink] = "unlink", [SYS_halt] = "halt", [SYS_uptime] = "uptime",
		[SYS_kwork] = "kwork",
	};
	return num < NSYSCALL && names[num] ? names[num] : "nosys";
}

/* Arguments that fit the call, most of the time; any words otherwise. */
static void shape(struct call *c)
{
	uint32_t *a = c->a;

	for (int i = 0; i < 5; i++)
		a[i] = value();
	if (below(8) == 0)
		return;
	switch (c->num) {
	case SYS_spawn: a[0] = path(); a[1] = argv_ptr(); a[2] = fdmap_ptr(); break;
	case SYS_wait: a[0] = below(2) ? (uint32_t)-1 : pid(); a[1] = pointer(); a[2] = below(3); break;
	case SYS_kill: a[0] = pid(); break;
	case SYS_sleep: a[0] = below(SLEEP_MAX); break;
	case SYS_sbrk: a[0] = below(2) ? value() : (below(2) ? 1 : -1) * below(4) * PGSIZE; break;
	case SYS_open: a[0] = path(); a[1] = below(2) ? below(4) | (below(2) ? O_CREAT : 0) |
			(below(2) ? O_TRUNC : 0) | (below(2) ? O_APPEND : 0) : value(); break;
	case SYS_read:
	case SYS_write: a[0] = fd(); a[1] = pointer(); a[2] = length(); break;
	case SYS_close: a[0] = fd(); break;
	case SYS_lseek: a[0] = fd(); a[1] = value(); a[2] = below(4); break;
	case SYS_fstat: a[0] = fd(); a[1] = pointer(); break;
	case SYS_stat: a[0] = path(); a[1] = pointer(); break;
	case SYS_dup2: a[0] = fd(); a[1] = fd(); break;
	case SYS_chdir: case SYS_mkdir: case SYS_unlink: a[0] = path(); break;
	case SYS_getcwd: a[0] = pointer(); a[1] = length(); break;
	case SYS_kwork: a[0] = below(4); a[1] = value(); break;
	}
}

static bool is_console(int f)
{
	struct stat st;

	if (f == logfd)
		return true;
	return usyscall(SYS_fstat, f, (uint32_t)&st, 0, 0, 0) == 0 &&
	       st.dev == cons.dev && st.ino == cons.ino;
}

/* What the fuzzer must not do to itself or the machine: power off, exit
 * early, kill its parents, sleep or loop for long, wait for typed input,
 * shrink the heap under its own buffers, lose the replay's log. */
static void tame(struct call *c)
{
	uint32_t *a = c->a;
	int brk = (int)sbrk(0);

	switch (c->num) {
	case SYS_exit: case SYS_halt: c->num = SYS_getpid; break;
	case SYS_sleep: a[0] %= SLEEP_MAX; break;
	case SYS_kill:
		if ((int)a[0] > 0 && (int)a[0] < mypid)
			a[0] += 100000;
		if ((int)a[0] == mypid && below(KILL_SELF))
			a[0] = 0;
		break;
	case SYS_kwork:
		a[1] %= a[0] == KWORK_CLI ? CLI_MAX : a[0] == KWORK_COPY ? COPY_MAX : LOOP_MAX;
		break;
	case SYS_sbrk:
		if ((int)a[0] < 0 && brk + (int)a[0] < (int)base_brk)
			a[0] = base_brk - brk;
		break;
	case SYS_read:
		if (is_console(a[0]))
			c->num = SYS_write;
		break;
	case SYS_close: if ((int)a[0] == logfd) a[0] = NOFILE; break;
	case SYS_dup2: if ((int)a[1] == logfd) a[1] = NOFILE; break;
	}
}

/* a random message to /dev/kpctl, one write */
static void ctl_write(bool verbose)
{
	char msg[80];
	int f = open("/dev/kpctl", O_WRONLY), r = -1;
	const char *m = ctlmsgs[below(NELEM(ctlmsgs))];

	if (f < 0)
		return;
	if ((strcmp(m, "hz") == 0 || strcmp(m, "res") == 0) && below(4))
		snprintf(msg, sizeof msg, "%s %u", m, ctlnums[below(NELEM(ctlnums))]);
	else
		snprintf(msg, sizeof msg, "%s", m);
	r = usyscall(SYS_write, f, (uint32_t)msg, below(8) ? strlen(msg) : below(sizeof msg), 0, 0);
	if (verbose)
		fprintf(logfd, "  kpctl '%s' = %d\n", msg, r);
	close(f);
}

/* Bursts that fill the process table, a file table and memory. */
static void burst(bool verbose)
{
	char *argv[] = { "sleep", "30", 0 };
	int held[NOFILE], n = 0, kind = below(3);

	if (kind == 0) {
		while (n < NPROC + 2 && spawn("/bin/sleep", argv, 0) > 0)
			n++;
	} else if (kind == 1) {
		while (n < NOFILE && (held[n] = open("/dev/null", O_RDONLY)) >= 0)
			n++;
		for (int i = 0; i < n; i++)
			close(held[i]);
	} else {
		while (n < 64 && sbrk(1 << 20) != (char *)-1)
			n++;
		sbrk(-(n << 20));
	}
	if (verbose)
		fprintf(logfd, "  burst %s: %d\n", kind == 0 ? "procs" : kind == 1 ? "files" : "MB", n);
}

static void setup(void)
{
	uint32_t brk = (uint32_t)sbrk(0);

	if (brk % PGSIZE)
		sbrk(PGSIZE - brk % PGSIZE);
	buf = sbrk(BUFPAGES * PGSIZE);
	edge = sbrk(PGSIZE);
	base_brk = (uint32_t)sbrk(0);
	if (buf == (char *)-1 || edge == (char *)-1) {
		fprintf(2, "sysfuzz: no memory for buffers\n");
		exit(EXIT_NOMEM);
	}
	memset(edge, 'A', PGSIZE);      /* a string unterminated at the page end */
	mypid = getpid();
	stat("/dev/cons", &cons);
	/* one of each kind of file open from the start */
	opened(open("/tmp/fz0", O_RDWR | O_CREAT));
	opened(open("/tmp", O_RDONLY));
	opened(open("/dev/kpdata", O_RDONLY));
	opened(open("/dev/sysstat", O_RDONLY));
	opened(open("/dev/eia1", O_WRONLY));
	opened(open("/dev/kpctl", O_WRONLY));
	opened(open("/bin/echo", O_RDONLY));
}

/* One batch: n calls from seed. */
static void batch(uint32_t seed, uint32_t n, bool verbose)
{
	rng = seed;
	setup();
	for (uint32_t i = 0; i < n; i++) {
		struct call c;
		uint32_t kind = below(512);
		int r;

		if (kind == 0) {        /* slow (a burst fills 64 MB): seldom */
			burst(verbose);
			continue;
		}
		if (kind < 32) {
			ctl_write(verbose);
			continue;
		}
		if (kind < 64)
			c.num = below(4) ? rnd() : NSYSCALL + below(4);   /* not a call */
		else
			c.num = 1 + below(NSYSCALL - 1);
		shape(&c);
		tame(&c);
		if (verbose)
			fprintf(logfd, "call %u: %s(0x%x, 0x%x, 0x%x) ", i, callname(c.num),
				c.a[0], c.a[1], c.a[2]);
		r = usyscall(c.num, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4]);
		if (c.num == SYS_open || c.num == SYS_dup2)
			opened(r);
		if (verbose)
			fprintf(logfd, "= %d\n", r);
	}
	while (wait(-1, 0, 0) > 0)      /* echo and sleep children */
		;
}

/* ---- the parent ---- */

static int kpctl(const char *msg)
{
	int f = open("/dev/kpctl", O_WRONLY), r;

	if (f < 0)
		return -1;
	r = write(f, msg, strlen(msg));
	close(f);
	return r;
}

/* a number after "KEY " in /dev/kpinfo */
static unsigned kpinfo(const char *key)
{
	char text[512], *p;
	int f = open("/dev/kpinfo", O_RDONLY), n;

	if (f < 0)
		return 0;
	n = read(f, text, sizeof text - 1);
	close(f);
	text[n > 0 ? n : 0] = 0;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : 0)
		if (strncmp(p, key, strlen(key)) == 0 && p[strlen(key)] == ' ')
			return strtoul(p + strlen(key) + 1, 0, 10);
	return 0;
}

/* devkprof as it was: stopped, the old rate and resolution, its buffer
 * made (it is kept from the first start on, so it is no leak) */
static void restore(unsigned hz, unsigned res)
{
	char msg[32];

	kpctl("stop");
	snprintf(msg, sizeof msg, "hz %u", hz);
	kpctl(msg);
	snprintf(msg, sizeof msg, "res %u", res);
	kpctl(msg);
	kpctl("start");
	kpctl("stop");
}

/* The names in /tmp before the run, one after another; what the batches
 * made there (any name: a path may come from random bytes) is removed. */
static char before_tmp[2048];

static void list_tmp(char *out, unsigned size)
{
	struct dirent de;
	unsigned n = 0;
	int d = open("/tmp", O_RDONLY);

	while (d >= 0 && read(d, &de, sizeof de) == sizeof de && n + strlen(de.name) + 2 < size) {
		strcpy(out + n, de.name);
		n += strlen(de.name) + 1;
	}
	out[n] = 0;
	close(d);
}

static bool listed(const char *list, const char *name)
{
	for (; *list; list += strlen(list) + 1)
		if (strcmp(list, name) == 0)
			return true;
	return false;
}

/* removes path and, if it is a directory, all under it */
static void remove_tree(const char *path)
{
	struct dirent de;
	char sub[PATH_MAX];
	int d, again = 1;

	while (again) {
		again = 0;
		if ((d = open(path, O_RDONLY)) < 0)
			break;
		while (read(d, &de, sizeof de) == sizeof de) {
			if (strcmp(de.name, ".") == 0 || strcmp(de.name, "..") == 0)
				continue;
			snprintf(sub, sizeof sub, "%s/%s", path, de.name);
			remove_tree(sub);
			again = 1;
		}
		close(d);
		if (again && unlink(path) == 0)
			return;
	}
	unlink(path);
}

static void clean_tmp(void)
{
	char now[2048], path[PATH_MAX];

	list_tmp(now, sizeof now);
	for (char *name = now; *name; name += strlen(name) + 1)
		if (!listed(before_tmp, name)) {
			snprintf(path, sizeof path, "/tmp/%s", name);
			remove_tree(path);
		}
}

/* ms since boot (not ticks: a batch may change the clock's rate); last
 * when /dev/sysstat cannot be read (no memory for its text) */
static unsigned uptime_ms(unsigned last)
{
	unsigned ms = sysstat_get("uptime_ms", 0);
	return ms ? ms : last;
}

/* Runs batch i in a child; returns its exit status, or -1 if it hung. */
static int run_batch(uint32_t seed, uint32_t n, int nullfd)
{
	char s[16], c[16];
	char *argv[] = { "sysfuzz", "-batch", s, c, 0 };
	int map[3] = { nullfd, nullfd, nullfd }, pid, status, r;
	unsigned start = 0, now;

	snprintf(s, sizeof s, "%u", seed);
	snprintf(c, sizeof c, "%u", n);
	if ((pid = spawn("/bin/sysfuzz", argv, map)) < 0)
		return -2;
	while ((start = uptime_ms(0)) == 0)
		sleep(10);
	now = start;
	while ((r = wait(pid, &status, WNOHANG)) == 0) {
		if ((now = uptime_ms(now)) - start > BATCH_TIMEOUT_MS) {
			kill(pid);
			wait(pid, &status, 0);
			return -1;
		}
		sleep(10);
	}
	return r == pid ? status : -2;
}

static int fuzz(uint32_t seed, uint32_t calls, uint32_t per)
{
	unsigned hz = kpinfo("hz"), res = kpinfo("res"), before, after;
	unsigned nb = (calls + per - 1) / per, faults = 0, killed = 0, hung = 0, bad = 0;
	unsigned unstarted = 0;
	int nullfd = open("/dev/null", O_RDWR);

	if (nullfd < 0 || hz == 0) {
		fprintf(2, "sysfuzz: cannot open /dev/null or read /dev/kpinfo\n");
		return 2;
	}
	restore(hz, res);
	list_tmp(before_tmp, sizeof before_tmp);
	before = sysstat_get("freepages", 0);
	printf("sysfuzz: seed %u, %u calls in %u batches of %u\n", seed, calls, nb, per);
	for (uint32_t i = 0; i < nb; i++) {
		uint32_t s = batch_seed(seed, i), n = i + 1 < nb ? per : calls - i * per;
		int st = run_batch(s, n, nullfd);

		restore(hz, res);       /* a rate or resolution the batch left */
		if (st == 0)
			continue;
		/* no memory to start it: allowed, with memory short on purpose */
		if (st == -2 || st == EXIT_NOMEM)
			unstarted++;
		else if (st == WSTATUS_FAULT)
			faults++;
		else if (st == WSTATUS_KILLED)
			killed++;
		else if (st == -1)
			hung++;
		else
			bad++;
		if (st == -1 || st == WSTATUS_FAULT || (st > 0 && st != WSTATUS_KILLED && st != EXIT_NOMEM))
			printf("sysfuzz: batch %u: %s %d (replay: sysfuzz -replay %u -b %u)\n", i,
			       st == -1 ? "hung" : "status", st, s, n);
	}
	restore(hz, res);
	clean_tmp();
	close(nullfd);
	/* the last batch's children may still be exiting */
	after = sysstat_get("freepages", 0);
	for (int i = 0; i < 40 && after < before; i++) {
		sleep(50);
		after = sysstat_get("freepages", 0);
	}
	printf("sysfuzz: %u calls, %u batches, seed %u: %u batches faulted, %u killed themselves, "
	       "%u hung, %u odd exits, %u not started; freepages %u before, %u after\n",
	       calls, nb, seed, faults, killed, hung, bad, unstarted, before, after);
	if (hung || bad || after < before) {
		printf("sysfuzz: FAIL\n");
		return 1;
	}
	printf("sysfuzz: PASS\n");
	return 0;
}

static void usage(void)
{
	fprintf(2, "usage: sysfuzz [-s SEED] [-n CALLS] [-b BATCH] | sysfuzz -replay SEED [-b BATCH]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned seed = 1, calls = CALLS_DEFAULT, per = BATCH_DEFAULT, replay = 0;
	bool doreplay = false;

	if (argc == 4 && strcmp(argv[1], "-batch") == 0) {
		if (parse_uint(argv[2], &seed) < 0 || parse_uint(argv[3], &calls) < 0)
			usage();
		batch(seed, calls, false);
		return 0;
	}
	for (int i = 1; i < argc; i += 2) {
		unsigned *v = 0;
		if (strcmp(argv[i], "-s") == 0)
			v = &seed;
		else if (strcmp(argv[i], "-n") == 0)
			v = &calls;
		else if (strcmp(argv[i], "-b") == 0)
			v = &per;
		else if (strcmp(argv[i], "-replay") == 0)
			v = &replay, doreplay = true;
		if (!v || i + 1 >= argc || parse_uint(argv[i + 1], v) < 0)
			usage();
	}
	if (per == 0 || calls == 0 || (doreplay && replay == 0))
		usage();
	if (doreplay) {
		/* the log on a descriptor of its own; fd 0 must not be the console */
		int nullfd = open("/dev/null", O_RDONLY);
		logfd = NOFILE - 1;
		dup2(2, logfd);
		dup2(nullfd, 0);
		close(nullfd);
		batch(replay, per, true);
		fprintf(logfd, "sysfuzz: replay of %u done\n", replay);
		return 0;
	}
	return fuzz(seed, calls, per);
}
