/* dptest: DosProfile from user space, every function and every return
 * code, the modes against the known page profile of dppages.c, the
 * flgbits divider, processes as OS/2's threads, sessions kept apart, the
 * wrapping hit table and saturation. "dptest work ..." is the workload it
 * profiles (as dpwork), so both share one set of page addresses. Prints
 * "dptest: ok NAME" per part and "dptest: ALL PASSED" at the end. */
#include <stdbool.h>
#include "ulib.h"
#include "dppages.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

#define PAGE(f) ((uint32_t)(f) & ~(PGSIZE - 1))
#define BAD_KPTR ((void *)0x00100000)           /* kernel memory */
#define BAD_UPTR ((void *)(USER_LINK + 0x20000000))    /* unmapped user memory */
#define MIN_U(a, b) ((a) < (b) ? (a) : (b))

static int fails;

static void check(bool ok, const char *what, int line, unsigned got)
{
	if (!ok) {
		fails++;
		printf("dptest: FAIL line %d: %s (got %u)\n", line, what, got);
	}
}
#define EQ(a, b) do { unsigned _a = (a); check(_a == (unsigned)(b), #a " == " #b, __LINE__, _a); } while (0)
#define CHECK(c, v) check((c), #c, __LINE__, (v))

static unsigned dp(unsigned func, unsigned pid, PRFCMD *c, PRFRET *r)
{
	return DosProfile(func, pid, c, r);
}

static uint16_t timval;         /* cm_timval for init() */

static unsigned init(unsigned pid, uint16_t flags, PRFSLOT *sl, unsigned n, uint32_t bufsz)
{
	PRFCMD c = { .cm_slots = sl, .cm_nslots = n, .cm_flags = flags, .cm_bufsz = bufsz,
		     .cm_timval = timval };
	return dp(PRF_CM_INIT, pid, &c, NULL);
}

static PRFRET0 global(unsigned pid)
{
	PRFRET0 r0;
	PRFRET r = { PRF_RET_GLOBAL, 0, 0, sizeof r0, &r0 };
	memset(&r0, 0xEE, sizeof r0);
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), NO_ERROR);
	return r0;
}

static uint8_t slotbuf[sizeof(PRFRET1) + PRF_MAXSLOTS * sizeof(PRFVA)];
static PRFVA *slots(unsigned pid)
{
	PRFRET r = { PRF_RET_VASLOTS, 0, 0, sizeof slotbuf, slotbuf };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), NO_ERROR);
	return ((PRFRET1 *)slotbuf)->r1_slots;
}

static uint32_t samples(const PRFRET0 *r0, const PRFVA *v, unsigned n)
{
	uint32_t t = r0->r0_idle + r0->r0_kernel + r0->r0_unknown + r0->r0_vm86 + r0->r0_shrmem;
	for (unsigned i = 0; i < n; i++)
		t += v[i].va_cnt;
	return t;
}

/* a child running the workload after a pause long enough to start a session */
static int work(const char *a, const char *b)
{
	char *av[] = { "dptest", "work", "-w", "30", (char *)a, (char *)b, NULL };
	int pid = spawn("/bin/dptest", av, NULL);
	CHECK(pid > 0, pid);
	return pid;
}

static int worker(const char *opt, const char *n, const char *spec)
{
	char *av[] = { "dptest", "work", "-w", "30", (char *)opt, (char *)n, (char *)spec, NULL };
	int pid = spawn("/bin/dptest", av, NULL);
	CHECK(pid > 0, pid);
	return pid;
}

/* share of part in whole, in per mille, within tol of want */
static void share(uint32_t part, uint32_t whole, unsigned want, unsigned tol, int line)
{
	unsigned pm = whole ? (unsigned)((uint64_t)part * 1000 / whole) : 0;
	check(whole > 100 && pm + tol >= want && pm <= want + tol, "share", line, pm);
}

/* ---- every function and return code; failures change nothing ---- */
static void t_codes(void)
{
	uint32_t a = PAGE(dp_page_a), c3 = PAGE(dp_page_c);
	PRFSLOT sl[2] = { { a, PGSIZE, 0 }, { c3, PGSIZE, PRF_VAHIT } };
	PRFSLOT many[256];
	uint8_t flg[2] = { 1, 0 };
	PRFRET0 before, after, r0;
	uint8_t s1[sizeof slotbuf];
	PRFRET r;
	PRFCMD c;
	int me = getpid(), pid;

	/* before INIT */
	for (unsigned f = PRF_CM_START; f <= PRF_CM_EXIT; f++)
		EQ(dp(f, me, NULL, NULL), PRF_NOT_INITIALIZED);
	EQ(dp(PRF_CM_START, 0, NULL, NULL), PRF_NOT_INITIALIZED);
	EQ(dp(PRF_CM_START, 99999, NULL, NULL), ERROR_INVALID_PROCID);
	EQ(init(99999, PRF_PROCESS_ST, sl, 1, 0), ERROR_INVALID_PROCID);
	EQ(dp(6, me, NULL, NULL), ERROR_INVALID_PARAMETER);

	/* INIT's bad input, field by field */
	EQ(dp(PRF_CM_INIT, me, NULL, NULL), ERROR_PROTECTION_VIOLATION);
	EQ(dp(PRF_CM_INIT, me, BAD_KPTR, NULL), ERROR_PROTECTION_VIOLATION);
	EQ(dp(PRF_CM_INIT, me, BAD_UPTR, NULL), ERROR_PROTECTION_VIOLATION);
	EQ(init(me, PRF_PROCESS_ST, NULL, 1, 0), ERROR_PROTECTION_VIOLATION);
	EQ(init(me, PRF_PROCESS_ST, BAD_KPTR, 1, 0), ERROR_PROTECTION_VIOLATION);
	EQ(init(me, PRF_PROCESS_ST, (PRFSLOT *)(USER_TOP - USER_STACK_SIZE - 8), 1, 0), ERROR_PROTECTION_VIOLATION);
	c = (PRFCMD){ sl, 1, PRF_PROCESS_ST | PRF_FLGBITS, 0, 0, BAD_KPTR, 2 };
	EQ(dp(PRF_CM_INIT, me, &c, NULL), ERROR_PROTECTION_VIOLATION);
	c.cm_flgbits = flg;
	EQ(dp(PRF_CM_INIT, me, &c, NULL), ERROR_INVALID_PARAMETER);     /* a zero byte */
	flg[1] = 3, c.cm_nflgs = 1;
	EQ(dp(PRF_CM_INIT, me, &c, NULL), ERROR_INVALID_PARAMETER);     /* fewer than 2 */
	EQ(init(me, PRF_PROCESS_ST, sl, 0, 0), ERROR_INVALID_PARAMETER);
	for (int i = 0; i < 256; i++)
		many[i] = (PRFSLOT){ USER_LINK + i * 16, 16, 0 };
	EQ(init(me, PRF_PROCESS_ST, many, 256, 0), ERROR_INVALID_PARAMETER);
	EQ(init(me, PRF_PROCESS_ST | PRFS_RUNNING, sl, 1, 0), ERROR_INVALID_PARAMETER);
	EQ(init(me, 3, sl, 1, 0), ERROR_INVALID_PARAMETER);
	EQ(init(me, PRF_KERNEL, sl, 1, 0), ERROR_INVALID_PARAMETER);    /* kernel is pid 0 */
	EQ(init(me, PRF_PROCESS_ST | PRF_VAMASK, sl, 1, 4096), ERROR_INVALID_PARAMETER);
	{
		PRFSLOT over[2] = { { a, 0x100, 0 }, { a + 0xFF, 0x10, 0 } };
		PRFSLOT out[] = { { 0x1000, 0x1000, 0 }, { USER_TOP - 0x1000, 0x2000, 0 },
				  { 0xFFFFF000, 0x2000, 0 }, { a, 0, 0 } };
		EQ(init(me, PRF_PROCESS_ST, over, 2, 0), ERROR_INVALID_PARAMETER);
		for (unsigned i = 0; i < NELEM(out); i++)
			EQ(init(me, PRF_PROCESS_ST, &out[i], 1, 0), ERROR_INVALID_PARAMETER);
		out[0].sl_vaddr = 0x200000;     /* a kernel slot outside the kernel */
		out[0].sl_size = 0x40000000;
		EQ(init(0, PRF_KERNEL, &out[0], 1, 0), ERROR_INVALID_PARAMETER);
	}
	sl[0].sl_mode = PRF_SL_CMFLAGS;  /* detailed, with no buffer */
	EQ(init(me, PRF_PROCESS_ST | PRF_VADETAIL, sl, 1, 0), ERROR_INVALID_PARAMETER);
	sl[0].sl_mode = 0;
	EQ(init(me, PRF_PROCESS_ST, sl, 2, 0), ERROR_INVALID_PARAMETER);        /* hits, no buffer */
	EQ(init(me, PRF_PROCESS_ST, sl, 2, PRF_MAXBUF + 4), ERROR_NOT_ENOUGH_MEMORY);
	c = (PRFCMD){ sl, 1, PRF_PROCESS_ST, 0, 10, NULL, 0 };
	EQ(dp(PRF_CM_INIT, me, &c, NULL), PRF_TIMER_OUT_OF_RANGE);

	/* a session with data: a run of the workload, ended */
	pid = work("aaaaabbbcc:3000", NULL);
	EQ(init(pid, PRF_PROCESS_ST, sl, 2, 4096), NO_ERROR);
	EQ(init(pid, PRF_PROCESS_ST, sl, 2, 4096), PRF_ALREADY_INITIALIZED);
	c = (PRFCMD){ sl, 1, PRF_PROCESS_ST, 0, 2000, NULL, 0 };
	EQ(dp(PRF_CM_INIT, me, &c, NULL), PRF_TIMER_RESET);     /* the rate is 1000 now */
	EQ(dp(PRF_CM_STOP, pid, NULL, NULL), PRF_NOT_STARTED);
	EQ(dp(PRF_CM_START, pid, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_START, pid, NULL, NULL), PRF_ALREADY_STARTED);
	CHECK(global(pid).r0_flags & PRFS_RUNNING, global(pid).r0_flags);
	wait(pid, NULL, 0);
	EQ(dp(PRF_CM_STOP, pid, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_STOP, pid, NULL, NULL), PRF_NOT_STARTED);

	/* the target is gone; its data is not */
	before = global(pid);
	slots(pid);
	memcpy(s1, slotbuf, sizeof slotbuf);
	CHECK(before.r0_hitbufcnt > 20 && slots(pid)[0].va_cnt > 20, before.r0_hitbufcnt);
	EQ(before.r0_flags & PRFS_RUNNING, 0);

	/* DUMP's bad input */
	EQ(dp(PRF_CM_DUMP, pid, NULL, NULL), ERROR_PROTECTION_VIOLATION);
	EQ(dp(PRF_CM_DUMP, pid, NULL, BAD_KPTR), ERROR_PROTECTION_VIOLATION);
	r = (PRFRET){ PRF_RET_GLOBAL, 0, 0, sizeof r0, BAD_KPTR };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_PROTECTION_VIOLATION);
	r.us_buf = NULL;
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_PROTECTION_VIOLATION);
	r = (PRFRET){ PRF_RET_GLOBAL, 0, 0, sizeof r0 - 1, &r0 };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_BUFFER_OVERFLOW);
	EQ(r.us_bufsz, sizeof(PRFRET0));                /* the size needed */
	r = (PRFRET){ PRF_RET_VASLOTS, 0, 0, 5, &r0 };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_BUFFER_OVERFLOW);
	EQ(r.us_bufsz, 1 + 2 * sizeof(PRFVA));
	r = (PRFRET){ PRF_RET_VAHITS, 0, 0, 8, &r0 };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_BUFFER_OVERFLOW);
	EQ(r.us_bufsz, 4 + 4 * before.r0_hitbufcnt);
	r = (PRFRET){ 9, 0, 0, sizeof r0, &r0 };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_INVALID_PARAMETER);
	r = (PRFRET){ PRF_RET_GLOBAL, 1, 0, sizeof r0, &r0 };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_INVALID_PARAMETER);     /* us_thrdno */
	r = (PRFRET){ PRF_RET_VADETAIL, 0, a, sizeof r0, &r0 };
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_MOD_NOT_FOUND);         /* a count slot */
	r.us_vaddr = USER_LINK + 0x01000000;
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_MOD_NOT_FOUND);
	EQ(init(pid, PRF_PROCESS_ST, sl, 2, 4096), PRF_ALREADY_INITIALIZED);
	EQ(dp(PRF_CM_START, 12345, NULL, NULL), ERROR_INVALID_PROCID);
	after = global(pid);
	CHECK(memcmp(&before, &after, sizeof before) == 0, after.r0_hitbufcnt);
	slots(pid);
	CHECK(memcmp(s1, slotbuf, sizeof slotbuf) == 0, 0);

	/* a session of no process at all */
	EQ(init(me, PRF_PROCESS_ST, sl, 1, 0), NO_ERROR);
	r = (PRFRET){ PRF_RET_VAHITS, 0, 0, sizeof r0, &r0 };
	EQ(dp(PRF_CM_DUMP, me, NULL, &r), ERROR_MOD_NOT_FOUND);          /* no hit slot */
	EQ(dp(PRF_CM_EXIT, me, NULL, NULL), NO_ERROR);

	/* CLEAR, then EXIT */
	EQ(dp(PRF_CM_CLEAR, pid, NULL, NULL), NO_ERROR);
	after = global(pid);
	EQ(after.r0_hitbufcnt + after.r0_unknown + after.r0_kernel + slots(pid)[0].va_cnt, 0);
	EQ(dp(PRF_CM_EXIT, pid, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), ERROR_INVALID_PROCID);       /* gone, and no session */
	EQ(dp(PRF_CM_EXIT, me, NULL, NULL), PRF_NOT_INITIALIZED);

	/* SYS_INTERNAL: a session whose check word is broken (prof.test only) */
	{
		int fd = open("/dev/dosproftest", O_WRONLY);
		char msg[32];
		if (fd >= 0) {
			EQ(init(me, PRF_PROCESS_ST, sl, 1, 0), NO_ERROR);
			snprintf(msg, sizeof msg, "corrupt %d", me);
			write(fd, msg, strlen(msg));
			EQ(dp(PRF_CM_START, me, NULL, NULL), ERROR_SYS_INTERNAL);
			EQ(dp(PRF_CM_EXIT, me, NULL, NULL), NO_ERROR);
			close(fd);
		} else {
			printf("dptest: no /dev/dosproftest (boot with prof.test): SYS_INTERNAL untested\n");
		}
	}
	printf("dptest: ok codes\n");
}

/* ---- the three modes against the known profile: 50/30/20 ---- */
static void t_modes(void)
{
	uint32_t a = PAGE(dp_page_a), b = PAGE(dp_page_b), cc = PAGE(dp_page_c);
	PRFSLOT cnt[3] = { { a, PGSIZE, 0 }, { b, PGSIZE, 0 }, { cc, PGSIZE, 0 } };
	PRFSLOT hit[1] = { { a, cc + PGSIZE - a, PRF_VAHIT } };
	PRFSLOT det[1] = { { a, cc + PGSIZE - a, PRF_SL_CMFLAGS } };
	int p[3];
	static uint32_t buf[4 + 16384];
	PRFRET r;
	PRFRET0 g;
	PRFVA *v;
	uint32_t tot, by[3] = { 0, 0, 0 };

	CHECK(b == a + PGSIZE && cc == b + PGSIZE, b - a);   /* three pages in a row */
	/* at 4000 Hz: over a thousand samples each */
	timval = 4000;
	for (int i = 0; i < 3; i++)
		p[i] = work("aaaaabbbcc:5000", NULL);
	EQ(init(p[0], PRF_PROCESS_ST, cnt, 3, 0), NO_ERROR);
	EQ(init(p[1], PRF_PROCESS_ST | PRF_VAHIT, hit, 1, 65536), NO_ERROR);
	/* 3 pages: 3 counters at 4096 bytes fit in 12 bytes, 6 at 2048 do not */
	EQ(init(p[2], PRF_PROCESS_ST | PRF_VADETAIL, det, 1, 12), NO_ERROR);
	timval = 0;
	for (int i = 0; i < 3; i++)
		EQ(dp(PRF_CM_START, p[i], NULL, NULL), NO_ERROR);
	for (int i = 0; i < 3; i++)
		wait(p[i], NULL, 0);
	for (int i = 0; i < 3; i++)
		EQ(dp(PRF_CM_STOP, p[i], NULL, NULL), NO_ERROR);

	/* simple counts */
	g = global(p[0]);
	v = slots(p[0]);
	tot = v[0].va_cnt + v[1].va_cnt + v[2].va_cnt;
	CHECK(tot * 10 >= samples(&g, v, 3) * 9, tot);         /* nearly all in the pages */
	share(v[0].va_cnt, tot, 500, 40, __LINE__);
	share(v[1].va_cnt, tot, 300, 40, __LINE__);
	share(v[2].va_cnt, tot, 200, 40, __LINE__);
	EQ(v[0].va_flags, PRF_VATOTAL);
	EQ(v[0].va_reserved, PRF_VATOTAL);
	EQ(g.r0_vm86 + g.r0_shrmem, 0);
	EQ(g.r0_nstruc1, 3);
	EQ(g.r0_nstruc2, 1);

	/* hit table: every sample in the slot, by page */
	g = global(p[1]);
	v = slots(p[1]);
	EQ(v[0].va_flags, PRF_VATOTAL | PRF_VAHIT);
	EQ(v[0].va_reserved, PRF_VAHIT);
	EQ(g.r0_nhitbufs, 65536 / 4);
	EQ(g.r0_hitbufcnt, v[0].va_cnt);
	r = (PRFRET){ PRF_RET_VAHITS, 0, 0, sizeof buf, buf };
	EQ(dp(PRF_CM_DUMP, p[1], NULL, &r), NO_ERROR);
	EQ(buf[0], g.r0_hitbufcnt);
	EQ(r.us_bufsz, 4 + 4 * buf[0]);
	for (uint32_t i = 0; i < buf[0] && i < 16384; i++)
		by[(buf[1 + i] - a) / PGSIZE < 3 ? (buf[1 + i] - a) / PGSIZE : 0] +=
			(buf[1 + i] - a) / PGSIZE < 3;
	share(by[0], buf[0], 500, 40, __LINE__);
	share(by[1], buf[0], 300, 40, __LINE__);
	share(by[2], buf[0], 200, 40, __LINE__);
	EQ(by[0] + by[1] + by[2], buf[0]);

	/* detailed counters: 3 of 4096 bytes */
	g = global(p[2]);
	v = slots(p[2]);
	EQ(g.r0_shift, 12);
	EQ(v[0].va_flags, PRF_VATOTAL | PRF_VADETAIL);
	EQ(v[0].va_reserved, PRF_VADETAIL);
	r = (PRFRET){ PRF_RET_VADETAIL, 0, b + 5, sizeof buf, buf };
	EQ(dp(PRF_CM_DUMP, p[2], NULL, &r), NO_ERROR);
	EQ(buf[0], PGSIZE);
	EQ(buf[1], 3);
	EQ(buf[2] + buf[3] + buf[4], v[0].va_cnt);
	share(buf[2], v[0].va_cnt, 500, 40, __LINE__);
	share(buf[3], v[0].va_cnt, 300, 40, __LINE__);
	share(buf[4], v[0].va_cnt, 200, 40, __LINE__);
	for (int i = 0; i < 3; i++)
		EQ(dp(PRF_CM_EXIT, p[i], NULL, NULL), NO_ERROR);

	/* the granularity: the finest that fits */
	{
		int me = getpid();
		PRFSLOT two[2] = { { a + 0x10, 0x1000, PRF_SL_CMFLAGS }, { cc, 0x100, PRF_SL_CMFLAGS } };
		/* 24 bytes, 6 counters: at 2^10, +0x10..+0x100f spans 5 and
		 * the 0x100 bytes 1; at 2^9 they would need 9 and 1 */
		EQ(init(me, PRF_PROCESS_ST | PRF_VADETAIL, two, 2, 24), NO_ERROR);
		EQ(global(me).r0_shift, 10);
		EQ(dp(PRF_CM_EXIT, me, NULL, NULL), NO_ERROR);
		/* one counter for two slots: none fits */
		EQ(init(me, PRF_PROCESS_ST | PRF_VADETAIL, two, 2, 4), ERROR_INVALID_PARAMETER);
	}
	printf("dptest: ok modes\n");
}

/* ---- 255 slots: every sample in the pages is counted by the slot holding
 * it, and every hit lies in the slot that counted it ---- */
static void lookup_run(PRFSLOT *sl, const char *layout)
{
	static uint32_t buf[1 + 16384];
	static uint8_t s1[sizeof slotbuf];
	uint32_t sum = 0, unknown;
	PRFRET r = { PRF_RET_VAHITS, 0, 0, sizeof buf, buf };
	PRFVA *v;
	int pid = work("aaaaabbbcc:3000", NULL);

	timval = 4000;
	EQ(init(pid, PRF_PROCESS_ST, sl, PRF_MAXSLOTS, sizeof buf - 4), NO_ERROR);
	timval = 0;
	EQ(dp(PRF_CM_START, pid, NULL, NULL), NO_ERROR);
	wait(pid, NULL, 0);
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), NO_ERROR);
	unknown = global(pid).r0_unknown;
	slots(pid);
	memcpy(s1, slotbuf, sizeof s1);
	v = ((PRFRET1 *)s1)->r1_slots;
	for (int i = 0; i < PRF_MAXSLOTS; i++) {
		uint32_t in = 0;
		for (uint32_t h = 0; h < buf[0]; h++)
			in += buf[1 + h] - v[i].va_vaddr < v[i].va_size;
		EQ(v[i].va_cnt, in);
		sum += v[i].va_cnt;
	}
	EQ(sum, buf[0]);
	/* the workload's loops all lie in the slots: a lookup that missed
	 * would send their samples to r0_unknown */
	CHECK(sum > 300 && unknown * 50 < sum, unknown);
	EQ(dp(PRF_CM_EXIT, pid, NULL, NULL), NO_ERROR);
	printf("dptest: ok lookup %s\n", layout);
}

static void t_lookup(void)
{
	static PRFSLOT sl[PRF_MAXSLOTS];
	uint32_t a = PAGE(dp_page_a), b = PAGE(dp_page_b), c = PAGE(dp_page_c);

	/* 37 and 59 bytes in turn, given in reverse (the kernel sorts them):
	 * the index sees one candidate in most buckets, two where a slot
	 * ends inside one */
	for (int i = 0; i < PRF_MAXSLOTS; i++)
		sl[PRF_MAXSLOTS - 1 - i] = (PRFSLOT){ a + i / 2 * 96 + i % 2 * 37, i % 2 ? 59 : 37,
						      PRF_VAHIT };
	lookup_run(sl, "tiled");
	/* 253 one-byte slots over page a's loop, then pages b and c whole:
	 * many candidates in a bucket, so the binary search */
	for (int i = 0; i < PRF_MAXSLOTS - 2; i++)
		sl[i] = (PRFSLOT){ a + i, 1, PRF_VAHIT };
	sl[PRF_MAXSLOTS - 2] = (PRFSLOT){ b, PGSIZE, PRF_VAHIT };
	sl[PRF_MAXSLOTS - 1] = (PRFSLOT){ c, PGSIZE, PRF_VAHIT };
	lookup_run(sl, "bytes");
}

/* ---- flgbits {5,6,7,8}: samples at ticks 8, 15, 21, 26, 34, ... ---- */
static void t_flgbits(void)
{
	uint8_t flg[4] = { 5, 6, 7, 8 };
	PRFSLOT sl = { PAGE(dp_page_a), PGSIZE, 0 };
	PRFCMD c = { &sl, 1, PRF_PROCESS_ST | PRF_FLGBITS, 0, 0, flg, 4 };
	static const unsigned want[] = { 8, 15, 21, 26, 34, 41, 47, 52, 60, 67, 73, 78 };
	unsigned got[12], n = 0, last = 0, lastsum = 0, me = getpid();
	char line[160];
	int len;

	EQ(dp(PRF_CM_INIT, me, &c, NULL), NO_ERROR);
	EQ(dp(PRF_CM_START, me, NULL, NULL), NO_ERROR);
	while (n < 12) {
		PRFRET0 g = global(me);
		unsigned sum = samples(&g, NULL, 0);     /* the slot (page a) stays 0 */
		if (g.r0_reserved1 == last)
			continue;
		if (sum != lastsum) {
			/* a poll per tick, or the tick of a sample is not known */
			CHECK(g.r0_reserved1 == last + 1, g.r0_reserved1);
			got[n++] = g.r0_reserved1;
		}
		last = g.r0_reserved1;
		lastsum = sum;
		if (last > 200)
			break;
	}
	EQ(dp(PRF_CM_EXIT, me, NULL, NULL), NO_ERROR);
	len = snprintf(line, sizeof line, "dptest: flgbits samples at ticks");
	for (unsigned i = 0; i < n; i++)
		len += snprintf(line + len, sizeof line - len, " %u", got[i]);
	printf("%s\n", line);
	EQ(n, 12);
	for (unsigned i = 0; i < n; i++)
		EQ(got[i], want[i]);
	printf("dptest: ok flgbits\n");
}

/* ---- MT follows the processes the target spawns; ST does not ---- */
static void t_threads(void)
{
	PRFSLOT sl = { PAGE(dp_page_a), PGSIZE, 0 };
	int mt = worker("-c", "2", "a:10000"), st = worker("-c", "2", "a:10000");
	PRFRET0 g;

	EQ(init(mt, PRF_PROCESS_MT, &sl, 1, 0), NO_ERROR);
	EQ(init(st, PRF_PROCESS_ST, &sl, 1, 0), NO_ERROR);
	EQ(dp(PRF_CM_START, mt, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_START, st, NULL, NULL), NO_ERROR);
	wait(mt, NULL, 0);
	wait(st, NULL, 0);
	g = global(mt);
	EQ(g.r0_nstruc2, 3);
	CHECK(g.r0_flags & PRFS_THRDS, g.r0_flags);
	CHECK(slots(mt)[0].va_cnt > 50, slots(mt)[0].va_cnt);
	g = global(st);
	EQ(g.r0_nstruc2, 1);
	EQ(g.r0_flags & PRFS_THRDS, 0);
	EQ(slots(st)[0].va_cnt, 0);     /* its children did the work */
	EQ(dp(PRF_CM_EXIT, mt, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_EXIT, st, NULL, NULL), NO_ERROR);
	printf("dptest: ok threads\n");
}

/* ---- two sessions on two processes stay apart ---- */
static void t_apart(void)
{
	PRFSLOT sl[2] = { { PAGE(dp_page_a), PGSIZE, 0 }, { PAGE(dp_page_c), PGSIZE, 0 } };
	int pa = work("a:10000", NULL), pc = work("c:10000", NULL);
	PRFVA *v;

	EQ(init(pa, PRF_PROCESS_ST, sl, 2, 0), NO_ERROR);
	EQ(init(pc, PRF_PROCESS_ST, sl, 2, 0), NO_ERROR);
	EQ(dp(PRF_CM_START, pa, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_START, pc, NULL, NULL), NO_ERROR);
	wait(pa, NULL, 0);
	wait(pc, NULL, 0);
	v = slots(pa);
	CHECK(v[0].va_cnt > 30, v[0].va_cnt);
	EQ(v[1].va_cnt, 0);
	v = slots(pc);
	EQ(v[0].va_cnt, 0);
	CHECK(v[1].va_cnt > 30, v[1].va_cnt);
	EQ(dp(PRF_CM_EXIT, pa, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_EXIT, pc, NULL, NULL), NO_ERROR);
	printf("dptest: ok apart\n");
}

/* ---- a full table: OS/2's stops (the oldest stay), the ring keeps the newest ---- */
static void t_wrap(void)
{
	uint32_t a = PAGE(dp_page_a), cc = PAGE(dp_page_c);
	PRFSLOT sl = { a, cc + PGSIZE - a, PRF_VAHIT };
	int pw = work("a:4000", "c:6000"), ps = work("a:4000", "c:6000");
	uint32_t buf[1 + 16];
	PRFRET r = { PRF_RET_VAHITS, 0, 0, sizeof buf, buf };
	PRFRET0 g;

	EQ(init(pw, PRF_PROCESS_ST | PRF_WRAP, &sl, 1, 64), NO_ERROR);
	EQ(init(ps, PRF_PROCESS_ST, &sl, 1, 64), NO_ERROR);
	EQ(dp(PRF_CM_START, pw, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_START, ps, NULL, NULL), NO_ERROR);
	wait(pw, NULL, 0);
	wait(ps, NULL, 0);

	g = global(pw);
	EQ(g.r0_hitbufcnt, 16);
	CHECK(g.r0_flags & PRFS_HITOVFL, g.r0_flags);
	EQ(g.r0_reserved2, slots(pw)[0].va_cnt - 16);          /* overwritten */
	EQ(dp(PRF_CM_DUMP, pw, NULL, &r), NO_ERROR);
	for (int i = 1; i <= 16; i++)
		EQ(PAGE(buf[i]), cc);                           /* the newest: page c */

	g = global(ps);
	EQ(g.r0_hitbufcnt, 16);
	CHECK(g.r0_flags & PRFS_HITOVFL, g.r0_flags);
	EQ(g.r0_reserved2, 0);
	EQ(g.r0_errcnt, MIN_U(slots(ps)[0].va_cnt - 16, 255));  /* dropped */
	EQ(dp(PRF_CM_DUMP, ps, NULL, &r), NO_ERROR);
	for (int i = 1; i <= 16; i++)
		EQ(PAGE(buf[i]), a);                            /* the oldest: page a */
	EQ(dp(PRF_CM_EXIT, pw, NULL, NULL), NO_ERROR);
	EQ(dp(PRF_CM_EXIT, ps, NULL, NULL), NO_ERROR);
	printf("dptest: ok wrap\n");
}

/* ---- 16 sessions at once, each its own; the 17th has no room ---- */
static void t_sessions(void)
{
	int pids[PRF_MAXSESSIONS], me = getpid();
	PRFSLOT sl[PRF_MAXSESSIONS];
	PRFSLOT ks = { KERN_LINK, 0x1000, 0 };

	for (int i = 0; i < PRF_MAXSESSIONS; i++) {
		sl[i] = (PRFSLOT){ USER_LINK + i * 0x100, 0x100, 0 };
		pids[i] = i == 0 ? 0 : i == 1 ? me : worker("-w", "5000", "a:1");
	}
	EQ(init(0, PRF_KERNEL, &ks, 1, 0), NO_ERROR);
	for (int i = 1; i < PRF_MAXSESSIONS; i++)
		EQ(init(pids[i], PRF_PROCESS_ST, sl, i + 1, 0), NO_ERROR);
	{
		int extra = worker("-w", "5000", "a:1");
		EQ(init(extra, PRF_PROCESS_ST, sl, 1, 0), ERROR_NOT_ENOUGH_MEMORY);
		kill(extra);
		wait(extra, NULL, 0);
	}
	for (int i = 0; i < PRF_MAXSESSIONS; i++)
		EQ(global(pids[i]).r0_nstruc1, i ? i + 1 : 1);
	for (int i = 0; i < PRF_MAXSESSIONS; i++) {
		EQ(dp(PRF_CM_EXIT, pids[i], NULL, NULL), NO_ERROR);
		if (i > 1) {
			kill(pids[i]);
			wait(pids[i], NULL, 0);
		}
	}
	printf("dptest: ok sessions\n");
}

/* ---- the kernel: its own slots, user time elsewhere ---- */
static void t_kernel(void)
{
	PRFSLOT ks = { KERN_LINK, KERN_TOP - KERN_LINK, 0 };
	PRFCMD c = { &ks, 1, PRF_KERNEL, 0, 0, NULL, 0 };
	PRFRET0 g;

	EQ(dp(PRF_CM_INIT, 0, &c, NULL), NO_ERROR);
	EQ(dp(PRF_CM_START, 0, NULL, NULL), NO_ERROR);
	kwork(KWORK_LOOP, 3000000);
	dp_page_a(3000000);
	EQ(dp(PRF_CM_STOP, 0, NULL, NULL), NO_ERROR);
	g = global(0);
	CHECK(slots(0)[0].va_cnt > 5, slots(0)[0].va_cnt);
	CHECK(g.r0_unknown > 5, g.r0_unknown);          /* user mode */
	EQ(g.r0_timval, PRF_DEFAULT_TIMVAL);
	EQ(dp(PRF_CM_EXIT, 0, NULL, NULL), NO_ERROR);
	printf("dptest: ok kernel\n");
}

/* ---- counters stop at 0xFFFFFFFF (prof.test presets them) ---- */
static void t_saturate(void)
{
	PRFSLOT sl[2] = { { PAGE(dp_page_a), PGSIZE, 0 }, { PAGE(dp_page_c), PGSIZE, PRF_SL_CMFLAGS } };
	int fd = open("/dev/dosproftest", O_WRONLY), pid;
	uint32_t buf[2 + 4];
	PRFRET r = { PRF_RET_VADETAIL, 0, PAGE(dp_page_c), sizeof buf, buf };
	char msg[48];

	if (fd < 0) {
		printf("dptest: no /dev/dosproftest (boot with prof.test): saturation untested\n");
		return;
	}
	pid = work("ac:5000", NULL);
	EQ(init(pid, PRF_PROCESS_ST | PRF_VADETAIL, sl, 2, 4), NO_ERROR);
	snprintf(msg, sizeof msg, "preset %d 0xfffffff0", pid);
	EQ(write(fd, msg, strlen(msg)), (int)strlen(msg));
	close(fd);
	EQ(dp(PRF_CM_START, pid, NULL, NULL), NO_ERROR);
	wait(pid, NULL, 0);
	EQ(slots(pid)[0].va_cnt, 0xFFFFFFFFu);
	EQ(slots(pid)[1].va_cnt, 0xFFFFFFFFu);
	EQ(dp(PRF_CM_DUMP, pid, NULL, &r), NO_ERROR);
	EQ(buf[2], 0xFFFFFFFFu);
	CHECK(global(pid).r0_errcnt > 0, global(pid).r0_errcnt);
	EQ(dp(PRF_CM_EXIT, pid, NULL, NULL), NO_ERROR);
	printf("dptest: ok saturate\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "work") == 0)
		return dpwork_main(argc - 1, argv + 1, "/bin/dptest", "work");
	for (int i = 1; i < argc || argc == 1; i++) {
		const char *t = argc == 1 ? "all" : argv[i];
		bool all = strcmp(t, "all") == 0;
		if (all || strcmp(t, "codes") == 0) t_codes();
		if (all || strcmp(t, "modes") == 0) t_modes();
		if (all || strcmp(t, "lookup") == 0) t_lookup();
		if (all || strcmp(t, "flgbits") == 0) t_flgbits();
		if (all || strcmp(t, "threads") == 0) t_threads();
		if (all || strcmp(t, "apart") == 0) t_apart();
		if (all || strcmp(t, "wrap") == 0) t_wrap();
		if (all || strcmp(t, "sessions") == 0) t_sessions();
		if (all || strcmp(t, "kernel") == 0) t_kernel();
		if (all || strcmp(t, "saturate") == 0) t_saturate();
		if (argc == 1)
			break;
	}
	if (fails)
		printf("dptest: %d FAILED\n", fails);
	else
		printf("dptest: ALL PASSED\n");
	return fails != 0;
}
