/* sysfuzz: a system-call fuzzer in the spirit of trinity. Batches of random
 * calls run in child processes, so a fault ends only a batch; the parent
 * checks that no page leaked. "sysfuzz -replay SEED" runs one batch here,
 * printing each call before it is made, to find the one that did harm.
 *
 *   sysfuzz [-s SEED] [-n CALLS] [-b BATCH]    fuzz (default 1, 50000, 500)
 *   sysfuzz -replay SEED [-b BATCH]            one batch, call by call
 *
 * The profiling calls are fuzzed too. DosProfile gets PRFCMDs and PRFRETs
 * built here, with slots, flgbits and dump buffers that are mostly right
 * and sometimes not. profil is refused (EPERM) to a program without
 * gcrt0's note, so one batch in PG_EVERY runs /bin/sysfuzz.pg, the same
 * fuzzer linked for profiling: its profil calls reach past the EPERM,
 * to the buffer gcrt0 set and the directory of its gmon file, which the
 * kernel writes when the batch exits. A batch ends every DosProfile
 * session it made (a session outlives its target until PRF_CM_EXIT); the
 * parent ends those of a batch that did not get that far.
 */
#include <stdbool.h>
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"
#include "abi/gmon.h"
#include "xorshift.h"

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
#define PG_EVERY 4              /* one batch in this many runs sysfuzz.pg */
#define DPPAGES 4               /* DosProfile's structures and dump buffer */
#define DP_DUMPBUF (3 * PGSIZE) /* the dump buffer: the last pages of dp */

int usyscall6(uint32_t num, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5,
	      uint32_t a6);
uint16_t *monbins(unsigned *nbins);
extern char etext[];

/* ---- randomness: xorshift32, so a seed replays ---- */
static uint32_t rng;

static uint32_t rnd(void)
{
	return xorshift32(&rng);
}

/* 0 .. n - 1; below(0), for a bound that wrapped around, is any word */
static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : rnd();
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
static char *dp;                /* DPPAGES for DosProfile's arguments */
static char *pgbuf;             /* sysfuzz.pg: gcrt0's profil buffer, else NULL */
static uint32_t pglen, pgsize;  /* its length and its bins' bytes */
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
	case 1: return below(2) ? KERN_LINK : KERNBASE + 0xB8000; /* kernel memory */
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

/* the children this batch spawned, for DosProfile's pids */
#define NKIDS 32
static int kids[NKIDS], nkids;

/* A DosProfile target: the kernel, itself, a child, an ancestor (the
 * fuzzer's parent, the shell), or any of pid()'s. */
static uint32_t dp_pid(void)
{
	switch (below(8)) {
	case 0: case 1: return 0;
	case 2: case 3: case 4: return mypid;
	case 5: return nkids ? (uint32_t)kids[below(nkids)] : (uint32_t)mypid;
	case 6: return 1 + below(mypid > 1 ? mypid - 1 : 1);
	default: return pid();
	}
}

/* the pids of the sessions this batch's INITs made; each ends at the end */
static uint32_t sessions[PRF_MAXSESSIONS + 1];
static int nsessions;
static uint32_t dp_need;        /* the us_bufsz the last DUMP came back with */
static PRFSLOT *last_slots;     /* the last slots built, for us_vaddr */
static uint32_t last_nslots;

/* where a slot starts: in the target's text, or anywhere in (or beside)
 * its address space */
static uint32_t slot_start(bool kernel)
{
	switch (below(6)) {
	case 0: return kernel ? KERN_LINK + below(0x40000) : USER_LINK + below((uint32_t)etext - USER_LINK);
	case 1: return kernel ? KERNBASE + below(KERN_TOP - KERNBASE) : USER_BASE + below(USER_TOP - USER_BASE);
	case 2: return kernel ? KERN_TOP - 1 - below(4096) : USER_TOP - 1 - below(4096);
	case 3: return kernel ? KERN_LINK : USER_LINK;
	case 4: return pointer();
	default: return value();
	}
}

static uint32_t slot_size(void)
{
	switch (below(6)) {
	case 0: return 1 + below(16);
	case 1: return 1 + below(4096);
	case 2: return 1 + below(1 << 20);
	case 3: return (uint32_t)etext - USER_LINK;
	case 4: return 0;
	default: return value();
	}
}

/* Slots at s. Most often good ones: one after another from the target's
 * text, apart or touching, of sizes that fit, with one of them spoilt
 * now and then (size 0, overlapping, outside, a bad mode). Otherwise
 * anything: anywhere (so likely overlapping), of any size and sl_mode. */
static void slots(PRFSLOT *s, uint32_t n, bool kernel)
{
	static const uint32_t modes[] = { 0, PRF_VAHIT, PRF_VATOTAL, PRF_SL_CMFLAGS };
	bool good = below(8), apart = below(2);
	uint32_t at = good ? (kernel ? KERN_LINK : USER_LINK) + below(4096) : slot_start(kernel);
	uint32_t most = below(2) ? 64 : 4096;

	for (uint32_t i = 0; i < n; i++) {
		s[i].sl_vaddr = apart || good ? at : slot_start(kernel);
		if (good)
			s[i].sl_size = 1 + below(most);
		else
			s[i].sl_size = below(4) ? slot_size() : 1 + below(64);
		s[i].sl_mode = good || below(8) ? modes[below(NELEM(modes))] : value();
		at += s[i].sl_size + (below(2) ? 0 : below(good ? most : 4096));
	}
	if (good && n && below(8) == 0) {
		PRFSLOT *x = &s[below(n)];
		switch (below(4)) {
		case 0: x->sl_size = 0; break;
		case 1: x->sl_vaddr = s[below(n)].sl_vaddr + below(2); break;
		case 2: x->sl_vaddr = kernel ? KERN_TOP - below(2) : USER_TOP - below(2); break;
		default: x->sl_mode = PRF_VAMASK; break;
		}
	}
	last_slots = s, last_nslots = n;
}

/* A structure built in k copied to at, as much as is mapped: one at the
 * heap's end is cut short by the unmapped page. */
static uint32_t place(void *at, const void *k, uint32_t size)
{
	uint32_t room = (uint32_t)(edge + PGSIZE - (char *)at);

	memcpy(at, k, room < size ? room : size);
	return (uint32_t)at;
}

/* A PRFCMD in dp (or at the heap's end, or any pointer), its slots and
 * flgbits in dp or at the heap's end, where the unmapped page cuts an
 * array short. */
static uint32_t prfcmd(uint32_t target)
{
	PRFCMD k, *c = &k, *at = (PRFCMD *)(dp + 3100);
	uint8_t *flg = (uint8_t *)dp + 3200;
	uint32_t n, nflg;
	bool kernel;

	if (below(16) == 0)
		return pointer();
	if (below(16) == 0)
		at = (PRFCMD *)(edge + PGSIZE - below(sizeof *at + 1));
	switch (below(8)) {
	case 0: n = value() & 0xFFFF; break;
	case 1: n = below(2) ? 0 : 255 + below(2); break;
	case 2: case 3: n = 1 + below(8); break;
	default: n = 1 + below(PRF_MAXSLOTS + 1); break;
	}
	if (below(8) == 0) {
		c->cm_flags = value();
	} else {
		c->cm_flags = (below(4) ? (target ? below(2) : PRF_KERNEL) : below(3)) |
			      below(3) * PRF_VAHIT;
		c->cm_flags |= (below(4) ? 0 : PRF_FLGBITS) | (below(3) ? 0 : PRF_WRAP);
		if (below(16) == 0)
			c->cm_flags |= below(2) ? PRFS_RUNNING : 1u << below(16);
		if (below(16) == 0)
			c->cm_flags |= PRF_TARGETMASK;
	}
	kernel = target == 0 || (c->cm_flags & PRF_TARGETMASK) == PRF_KERNEL;
	switch (below(8)) {
	case 0: c->cm_slots = (PRFSLOT *)pointer(); break;
	case 1:         /* cut short by the unmapped page */
		c->cm_slots = (PRFSLOT *)(edge + PGSIZE) - 1 - below(n >= 1 && n <= 256 ? n : 256);
		slots(c->cm_slots, (edge + PGSIZE - (char *)c->cm_slots) / sizeof(PRFSLOT), kernel);
		break;
	default:
		c->cm_slots = (PRFSLOT *)dp;
		slots(c->cm_slots, n < 256 ? n : 256, kernel);
	}
	c->cm_nslots = n;
	switch (below(16)) {
	case 0: c->cm_bufsz = value(); break;
	case 1: c->cm_bufsz = below(4); break;
	case 2: c->cm_bufsz = PRF_MAXBUF - 2 + below(4); break;
	case 3: case 4: c->cm_bufsz = 4 * (1 + below(64 * 1024)); break;
	default: c->cm_bufsz = 4 * (1 + below(1024)); break;
	}
	switch (below(12)) {
	case 0: c->cm_timval = 0; break;
	case 1: c->cm_timval = value(); break;
	case 2: { static const uint16_t t[] = { 1, 17, 18, 19, 100, 2000, 10000, 10001, 65535 };
		c->cm_timval = t[below(NELEM(t))]; break; }
	default: c->cm_timval = 1000; break;
	}
	nflg = below(8) ? 2 + below(below(2) ? 8 : 254) : below(3);
	c->cm_nflgs = nflg;
	switch (below(16)) {
	case 0: c->cm_flgbits = (uint8_t *)pointer(); break;
	case 1: c->cm_flgbits = (uint8_t *)(edge + PGSIZE) - below(nflg + 1); break;
	default: c->cm_flgbits = flg; break;
	}
	if (((char *)c->cm_flgbits >= dp && (char *)c->cm_flgbits < dp + DPPAGES * PGSIZE) ||
	    ((char *)c->cm_flgbits >= edge && (char *)c->cm_flgbits < edge + PGSIZE)) {
		uint32_t room = (uint32_t)(edge + PGSIZE - (char *)c->cm_flgbits);
		room = room < nflg ? room : nflg;
		for (uint32_t i = 0; i < room; i++)
			c->cm_flgbits[i] = 1 + below(below(2) ? 8 : 255);
		if (room && below(16) == 0)
			c->cm_flgbits[below(room)] = 0;
	}
	return place(at, c, sizeof *c);
}

/* A PRFRET: each us_cmd, us_vaddr in a slot built earlier, and us_bufsz
 * around what the data needs (what the last DUMP said it needed, too). */
static uint32_t prfret(void)
{
	PRFRET k, *r = &k, *at = (PRFRET *)(dp + 3500);
	uint32_t n;

	if (below(16) == 0)
		return pointer();
	if (below(16) == 0)
		at = (PRFRET *)(edge + PGSIZE - below(sizeof *at + 1));
	r->us_cmd = below(8) ? below(5) : value();
	r->us_thrdno = below(4) ? 0 : value();
	if (last_nslots && below(4)) {
		const PRFSLOT *s = &last_slots[below(last_nslots)];
		r->us_vaddr = s->sl_vaddr + (s->sl_size ? below(s->sl_size) : 0);
	} else {
		r->us_vaddr = below(2) ? USER_BASE + below((uint32_t)etext - USER_BASE) : value();
	}
	switch (below(8)) {
	case 0: n = value(); break;
	case 1: n = sizeof(PRFRET0) - 1 + below(3); break;
	case 2: n = sizeof(PRFRET1) + below(PRF_MAXSLOTS + 1) * sizeof(PRFVA) - below(2); break;
	case 3: n = 4 + 4 * below(2048) - below(2); break;
	case 4: case 5: n = dp_need - below(2); break;
	default: n = DP_DUMPBUF; break;
	}
	r->us_bufsz = n;
	switch (below(8)) {
	case 0: r->us_buf = (void *)pointer(); break;
	case 1: r->us_buf = edge + PGSIZE - (n < PGSIZE ? n : PGSIZE) + below(2); break;
	default: r->us_buf = dp + DPPAGES * PGSIZE - DP_DUMPBUF; break;
	}
	return place(at, r, sizeof *r);
}

/* profil's arguments in sysfuzz.pg: gcrt0's own (with any scale and
 * dirfd: they stop, restart or redirect the profile), one of them off by
 * a little (EALREADY), or any. In sysfuzz the first case reaches EPERM. */
static void profil_args(uint32_t *a)
{
	uint32_t b = pgbuf ? (uint32_t)pgbuf : (uint32_t)buf;
	uint32_t len = pgbuf ? pglen : 4096, ss = pgbuf ? pgsize : 1024;
	static const uint32_t scales[] = { 0, GMON_SCALE_ONE, GMON_SCALE_ONE + 1, 1, 32768, 0xFFFFFFFF };

	a[0] = b, a[1] = len, a[2] = ss, a[3] = USER_BASE;
	a[4] = below(4) ? scales[below(2)] : scales[below(NELEM(scales))];
	switch (below(4)) {
	case 0: a[5] = -1; break;
	case 1: a[5] = fd(); break;
	case 2: a[5] = value(); break;
	default: a[5] = below(2) ? -1 : fd(); break;
	}
	switch (below(8)) {
	case 0: case 1: case 2: break;
	case 3: a[below(4)] += below(2) ? 2 : -4; break;
	case 4: a[2] = below(2) ? 0 : len + 2 * below(3) - 2; break;
	case 5: a[0] = pointer() & ~3u; a[1] = length(); a[2] = below(a[1] + 1) & ~1u; break;
	case 6: a[1] = GMON_ARCTAB_OFF(ss) + 3 + sizeof(struct gmon_arctab) +
		       sizeof(struct gmon_arc) - below(2); break;
	default: a[0] = pointer(); a[1] = value(); a[2] = value(); a[3] = value(); break;
	}
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
	uint32_t num, a[6];             /* profil has six */
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
		[SYS_kwork] = "kwork", [SYS_profil] = "profil",
		[SYS_DosProfile] = "DosProfile",
		[SYS_ProfileStart] = "ProfileStart", [SYS_ProfileStop] = "ProfileStop",
	};
	return num < NSYSCALL && names[num] ? names[num] : "nosys";
}

/* Arguments that fit the call, most of the time; any words otherwise. */
static void shape(struct call *c)
{
	uint32_t *a = c->a;

	for (int i = 0; i < 5; i++)
		a[i] = value();
	a[5] = 0;
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
	case SYS_profil: profil_args(a); break;
	case SYS_ProfileStart: {
		/* mostly options a session takes, and buffers of a few pages */
		static const uint32_t opts[] = { 0, PROFILE_BUFFER, PROFILE_OBJCALL, PROFILE_KCALL,
			PROFILE_BUFFER | PROFILE_PERPID, PROFILE_STARTPAUSED, PROFILE_PAUSE,
			PROFILE_CONTINUE, PROFILE_OBJCALL | PROFILE_KCALL };
		struct profile_params *pp = (struct profile_params *)(dp + 3000);
		a[0] = below(2) ? 0 : below(2000);
		a[1] = below(8) ? opts[below(NELEM(opts))] : value();
		pp->buf_kib = below(4) ? below(64) : value();
		pp->top = below(100);
		a[2] = below(4) ? (uint32_t)pp : pointer();
		break;
	}
	case SYS_ProfileStop: a[0] = below(2) ? pointer() : 0; a[1] = length(); break;
	case SYS_DosProfile: {
		static const uint8_t funcs[] = { PRF_CM_INIT, PRF_CM_INIT, PRF_CM_INIT, PRF_CM_START,
			PRF_CM_START, PRF_CM_STOP, PRF_CM_CLEAR, PRF_CM_DUMP, PRF_CM_DUMP, PRF_CM_DUMP,
			PRF_CM_EXIT };
		a[0] = below(8) ? funcs[below(NELEM(funcs))] : value();
		a[1] = dp_pid();
		a[2] = a[0] == PRF_CM_INIT || below(4) == 0 ? prfcmd(a[1]) : value();
		a[3] = a[0] == PRF_CM_DUMP || below(4) == 0 ? prfret() : value();
		break;
	}
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

/* sysfuzz.pg: where gcrt0's profil buffer is (include/abi/gmon.h) */
static void pg_setup(void)
{
	unsigned nbins;
	uint16_t *bins = monbins(&nbins);
	const struct gmon_arctab *t;

	if (!bins)
		return;
	pgbuf = (char *)bins - sizeof(struct gmonhdr);
	pgsize = nbins * 2;
	t = (const struct gmon_arctab *)(pgbuf + GMON_ARCTAB_OFF(pgsize));
	pglen = GMON_ARCTAB_OFF(pgsize) + sizeof *t + t->nslots * sizeof(struct gmon_arc);
}

static void setup(void)
{
	uint32_t brk = (uint32_t)sbrk(0);

	if (brk % PGSIZE)
		sbrk(PGSIZE - brk % PGSIZE);
	dp = sbrk(DPPAGES * PGSIZE);
	buf = sbrk(BUFPAGES * PGSIZE);
	edge = sbrk(PGSIZE);
	base_brk = (uint32_t)sbrk(0);
	if (dp == (char *)-1 || buf == (char *)-1 || edge == (char *)-1) {
		fprintf(2, "sysfuzz: no memory for buffers\n");
		exit(EXIT_NOMEM);
	}
	memset(edge, 'A', PGSIZE);      /* a string unterminated at the page end */
	mypid = getpid();
	pg_setup();
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

/* After a DosProfile call: the sessions made, the size a DUMP needed. */
static void dp_called(const struct call *c, int r)
{
	const PRFRET *ret = (const PRFRET *)(dp + 3500);

	if (c->a[0] == PRF_CM_INIT && r == NO_ERROR && nsessions < (int)NELEM(sessions))
		sessions[nsessions++] = c->a[1];
	if (c->a[0] == PRF_CM_DUMP && c->a[3] == (uint32_t)ret)
		dp_need = ret->us_bufsz;
}

/* the end of every session the batch made: their memory goes with them
 * (a Monte Carlo session, like a DosProfile one, outlives its maker) */
static void dp_end(bool verbose)
{
	char path[32];
	int r = ProfileStop(path, sizeof path);

	if (verbose)
		fprintf(logfd, "  ProfileStop = %d\n", r);
	for (int i = 0; i < nsessions; i++) {
		unsigned r = DosProfile(PRF_CM_EXIT, sessions[i], 0, 0);
		if (verbose)
			fprintf(logfd, "  DosProfile EXIT %u = %u\n", sessions[i], r);
	}
	nsessions = 0;
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
		r = usyscall6(c.num, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5]);
		if (c.num == SYS_open || c.num == SYS_dup2)
			opened(r);
		if (c.num == SYS_spawn && r > 0)
			kids[nkids < NKIDS ? (uint32_t)nkids++ : below(NKIDS)] = r;
		if (c.num == SYS_DosProfile)
			dp_called(&c, r);
		if (verbose)
			fprintf(logfd, "= %d\n", r);
		if (verbose && c.num == SYS_DosProfile && c.a[0] == PRF_CM_INIT &&
		    c.a[2] == (uint32_t)(dp + 3100)) {
			const PRFCMD *k = (const PRFCMD *)(dp + 3100);
			fprintf(logfd, "  PRFCMD slots %p n %u flags 0x%x bufsz %u timval %u flgbits %p n %u\n",
				k->cm_slots, k->cm_nslots, k->cm_flags, k->cm_bufsz, k->cm_timval,
				k->cm_flgbits, k->cm_nflgs);
		}
	}
	dp_end(verbose);
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
static char before_tmp[2048], before_prof[2048];

static void list_dir(const char *dir, char *out, unsigned size)
{
	struct dirent de;
	unsigned n = 0;
	int d = open(dir, O_RDONLY);

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

static void clean_dir(const char *dir, const char *before)
{
	char now[2048], path[PATH_MAX];

	list_dir(dir, now, sizeof now);
	for (char *name = now; *name; name += strlen(name) + 1)
		if (!listed(before, name)) {
			snprintf(path, sizeof path, "%s/%s", dir, name);
			remove_tree(path);
		}
}

/* /tmp, and /tmp/prof: the gmon files of the sysfuzz.pg batches */
static void clean_tmp(void)
{
	clean_dir(GMON_PROFDIR, before_prof);
	clean_dir("/tmp", before_tmp);
}

/* ms since boot (not ticks: a batch may change the clock's rate); last
 * when /dev/sysstat cannot be read (no memory for its text) */
static unsigned uptime_ms(unsigned last)
{
	unsigned ms = sysstat_get("uptime_ms", 0);
	return ms ? ms : last;
}

/* the batches that run the profiled fuzzer, by seed */
static bool profiled(uint32_t seed)
{
	return seed % PG_EVERY == 0;
}

/* The sessions a batch that did not end them may have left: on the
 * kernel, on the fuzzer and its ancestors, and on the batch and what it
 * spawned (from its pid to the next one spawn gives out). EXIT where no
 * session is changes nothing. */
static void dp_sweep(int batchpid, int nullfd)
{
	char *argv[] = { "echo", 0 };
	int map[3] = { nullfd, nullfd, nullfd }, hi = spawn("/bin/echo", argv, map);

	if (hi > 0)
		wait(hi, 0, 0);
	else
		hi = batchpid + 4096;   /* no process to learn the next pid from */
	DosProfile(PRF_CM_EXIT, 0, 0, 0);
	for (int p = 1; p <= mypid; p++)
		DosProfile(PRF_CM_EXIT, p, 0, 0);
	for (int p = batchpid; p < hi; p++)
		DosProfile(PRF_CM_EXIT, p, 0, 0);
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
	if ((pid = spawn(profiled(seed) ? "/bin/sysfuzz.pg" : "/bin/sysfuzz", argv, map)) < 0)
		return -2;
	while ((start = uptime_ms(0)) == 0)
		sleep(10);
	now = start;
	while ((r = wait(pid, &status, WNOHANG)) == 0) {
		if ((now = uptime_ms(now)) - start > BATCH_TIMEOUT_MS) {
			kill(pid);
			wait(pid, &status, 0);
			dp_sweep(pid, nullfd);
			return -1;
		}
		sleep(10);
	}
	if (r != pid || status != 0)
		dp_sweep(pid, nullfd);
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
	mypid = getpid();
	restore(hz, res);
	list_dir("/tmp", before_tmp, sizeof before_tmp);
	list_dir(GMON_PROFDIR, before_prof, sizeof before_prof);
	before = sysstat_get("freepages", 0);
	printf("sysfuzz: seed %u, %u calls in %u batches of %u\n", seed, calls, nb, per);
	for (uint32_t i = 0; i < nb; i++) {
		uint32_t s = batch_seed(seed, i), n = i + 1 < nb ? per : calls - i * per;
		int st = run_batch(s, n, nullfd);

		restore(hz, res);       /* a rate or resolution the batch left */
		if (profiled(s))
			clean_tmp();    /* its gmon file, wherever it went */
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
			printf("sysfuzz: batch %u: %s %d (replay: %s -replay %u -b %u)\n", i,
			       st == -1 ? "hung" : "status", st,
			       profiled(s) ? "sysfuzz.pg" : "sysfuzz", s, n);
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
