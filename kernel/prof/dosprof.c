/* The DosProfile engine's sampling side: each clock tick goes to every
 * running session, which divides the clock (flgbits), sorts the tick into
 * idle, kernel, unknown or a slot, and records it in the slot's mode. The
 * call itself is in dosprof_call.c.
 *
 * Where a sample goes: each lands in exactly one counter.
 *   process session   no process running    r0_idle
 *                     the target, kernel    r0_kernel
 *                     the target, user      its slot, or r0_unknown
 *                     another process       nowhere (not the target)
 *   kernel session    no process running    r0_idle
 *                     kernel mode           its slot, or r0_kernel
 *                     user mode             r0_unknown
 * r0_vm86 stays 0: this kernel has no virtual-8086 mode. r0_shrmem stays
 * 0: processes share no user memory here (each has private pages; only
 * the kernel is mapped in all of them, and that is r0_kernel). */
#include "abi/errno.h"
#include "arch.h"
#include "clock.h"
#include "ctl.h"
#include "ctldev.h"
#include "dev.h"
#include "lib.h"
#include "proc.h"
#include "prof/dosprof.h"
#include "prof/engines.h"
#include "prof/prof.h"

struct dpsess dp_sess[PRF_MAXSESSIONS];
volatile uint32_t dp_running;
/* the running sessions, for the tick: a list, not the bits, so it walks
 * pointers and never computes an address */
static struct dpsess *live[PRF_MAXSESSIONS];
static uint32_t nlive;
/* The fast path's session and process: the one live session, and the
 * last of its processes a tick found; else NULL. fast_proc is that
 * process for a session without a divider, fast_dproc for one with.
 * refast() keeps them in step with live[] and the session's proc. */
static struct dpsess *fast_sess;
static struct proc *fast_proc, *fast_dproc;

static void refast(void)
{
	uint32_t x = splhi();   /* a tick sees all old or all new */
	struct proc *p;

	fast_sess = nlive == 1 ? live[0] : NULL;
	p = fast_sess ? fast_sess->proc : NULL;
	fast_proc = p && !fast_sess->nflgs ? p : NULL;
	fast_dproc = p && fast_sess->nflgs ? p : NULL;
	splx(x);
}
/* per process slot: the sessions that profile it */
static uint32_t pmask[NPROC];
static int nsessions;
static uint32_t timval_now;
static struct prof_engine dosprof;

/* the last of bucket b's candidates that starts at or below pc */
uint32_t dp_search(const struct dpsess *s, uint32_t b, uint32_t pc)
{
	uint32_t k = s->first[b], last = s->lastk[b];

	while (k < last) {
		uint32_t mid = (k + last + 1) / 2;
		if (s->start[mid] <= pc)
			k = mid;
		else
			last = mid - 1;
	}
	return k;
}

/* The hit table's last entry, which flags it full, and hits for a full
 * table: OS/2's stops, PRF_WRAP's ring overwrites the oldest, at hithead.
 * Out of line, with pc first as the sample has it, so the fast path
 * reaches it by a jump. */
static __attribute__((noinline)) void hit_end(uint32_t pc, struct dpsess *s)
{
	if (s->hitcnt < s->nhits) {
		s->hits[s->hitcnt++] = pc;
		s->flags |= PRFS_HITOVFL;
	} else if (s->flags & PRF_WRAP) {
		s->hits[s->hithead] = pc;
		if (++s->hithead == s->nhits)
			s->hithead = 0;
		prof_add_sat(&s->overwritten, 1, &s->lost);
	} else {
		s->lost++;
	}
}

/* a sample's address into the hit table: all but the last entry inline */
static inline void hit(struct dpsess *s, uint32_t pc)
{
	if (s->hitcnt < s->hitlast) {
		s->hits[s->hitcnt] = pc;
		s->hitcnt++;
	} else {
		hit_end(pc, s);
	}
}

/* a sample in slot k, in the slot's mode: one compare with PRF_VAHIT
 * tells the three apart */
_Static_assert(PRF_VADETAIL < PRF_VAHIT && PRF_VAHIT < PRF_VATOTAL, "mode order");
static inline void record(struct dpsess *s, uint32_t k, uint32_t pc, uint32_t w)
{
	uint32_t mode = s->mode[k];

	prof_add_sat(&s->count[k], w, &s->lost);
	if (mode > PRF_VAHIT)
		return;                 /* PRF_VATOTAL */
	if (mode == PRF_VAHIT)
		hit(s, pc);
	else
		prof_add_sat(&s->cnt0[k][pc >> s->shift], w, &s->lost);
}

/* a sample of the target in user mode: its slot, or r0_unknown. Out of
 * line, pc first, for the jumps from the fast paths. */
__attribute__((noinline, optimize("omit-frame-pointer")))
static void in_slots(uint32_t pc, struct dpsess *s, uint32_t w)
{
	int k = dp_lookup(s, pc);

	if (k < 0)
		prof_add_sat(&s->unknown, w, &s->lost);
	else
		record(s, k, pc, w);
}

/* The divider counts clock interrupts down through the bytes, from the
 * last to the first, and lets a tick sample when one reaches 0; then the
 * next byte's countdown starts. */
static inline void next_flg(struct dpsess *s)
{
	s->fi = s->fi ? s->fi - 1 : s->nflgs - 1;
	s->left = s->flg[s->fi];
}

/* Whether p is one of the session's processes: the target itself, or
 * (MT) a process it spawned. The last one found is the one the fast path
 * expects; this runs before the divider, so the fast path takes over from
 * the first tick that finds it. A kernel session has none. */
static inline bool follows(struct dpsess *s, struct proc *p)
{
	if (!p)
		return false;
	if (p == s->proc)
		return true;
	if (!(pmask[p - procs] & s->bit))
		return false;
	s->proc = p;
	refast();
	return true;
}

/* the counter a tick goes to, or NULL when it is not the target's; *k is
 * the slot when the counter is a slot's */
static inline uint32_t *where(struct dpsess *s, uint32_t pc, struct proc *p, bool target,
			      uint32_t flags, int *k)
{
	if (!p)
		return &s->idle;
	if (s->kernel) {
		if (prof_user(flags))
			return &s->unknown;
		return (*k = dp_lookup(s, pc)) < 0 ? &s->kern : &s->count[*k];
	}
	if (!target)
		return NULL;
	if (!prof_user(flags))
		return &s->kern;
	return (*k = dp_lookup(s, pc)) < 0 ? &s->unknown : &s->count[*k];
}

static inline void tick(struct dpsess *s, uint32_t pc, struct proc *p, uint32_t flags)
{
	bool target = follows(s, p);
	uint32_t *c;
	int k = -1;

	s->nticks++;
	if (s->nflgs) {
		if (--s->left)
			return;
		next_flg(s);
	}
	if (!(c = where(s, pc, p, target, flags, &k)))
		return;
	if (k >= 0)
		record(s, k, pc, prof_weight(flags));
	else
		prof_add_sat(c, prof_weight(flags), &s->lost);
}

static __attribute__((noinline)) void sample_all(uint32_t pc, struct proc *p, uint32_t flags)
{
	for (uint32_t i = 0; i < nlive; i++)
		tick(live[i], pc, p, flags);
}

/* The other ticks, first the fast path's with a divider: one that does
 * not sample is a decrement and a branch. */
__attribute__((noinline, optimize("omit-frame-pointer")))
static void sample_other(uint32_t pc, struct proc *p, uint32_t flags)
{
	struct dpsess *s = fast_sess;

	if (p != fast_dproc || flags != 1) {
		sample_all(pc, p, flags);
		return;
	}
	s->nticks++;
	if (--s->left)
		return;
	next_flg(s);
	in_slots(pc, s, 1);
}

/* The common case first: one session, a process's, without a divider,
 * and a tick of weight 1 that caught (one of) its process(es) in user
 * mode, in a bucket the index covers. Every other case goes on by a jump.
 * No frame: nothing walks the stack from in here, and a frame would cost
 * every tick. */
__attribute__((optimize("omit-frame-pointer")))
static void ARCH_FASTCALL dp_sample(const struct prof_sample *sm)
{
	uint32_t pc = sm->pc, flags = sm->flags, off, k;
	struct proc *p = sm->p;
	struct dpsess *s;

	/* fast_proc is NULL without a fast session, and for a kernel
	 * session; p is NULL only in the idle loop, in kernel mode. A
	 * user-mode tick's flags are its weight. */
	if (__builtin_expect(p != fast_proc || flags != 1, 0)) {
		sample_other(pc, p, flags);
		return;
	}
	s = fast_sess;
	s->nticks++;
	off = pc - s->lo;
	if (off >= s->span) {
		prof_add_sat(&s->unknown, 1, &s->lost);
		return;
	}
	if ((k = s->bucket[off >> s->bshift]) == DP_CHECK) {
		in_slots(pc, s, 1);     /* the general lookup */
		return;
	}
	record(s, k + (pc >= s->start[k + 1]), pc, 1);
}

/* A process spawned by one that a PRF_PROCESS_MT session follows joins
 * that session: here processes stand in for OS/2's threads. */
static void dp_spawn(struct proc *p, const struct elf_image *img)
{
	struct proc *parent = curproc();
	uint32_t m = 0;

	(void)img;
	if (parent && parent->pid == p->ppid) {
		uint32_t pm = pmask[parent - procs];
		for (int i = 0; i < PRF_MAXSESSIONS; i++)
			if ((pm >> i & 1) && (dp_sess[i].flags & PRFS_THRDS)) {
				m |= 1u << i;
				dp_sess[i].nprocs++;
			}
	}
	pmask[p - procs] = m;
}

/* the data stays with the session until PRF_CM_EXIT */
static void dp_exit(struct proc *p)
{
	pmask[p - procs] = 0;
	for (int i = 0; i < PRF_MAXSESSIONS; i++)
		if (dp_sess[i].proc == p)
			dp_sess[i].proc = NULL;
	refast();
}

void dp_follow(struct dpsess *s, struct proc *p)
{
	s->proc = p;
	pmask[p - procs] |= s->bit;
	refast();
	s->nprocs++;
}

void dp_unfollow_all(struct dpsess *s)
{
	for (int i = 0; i < NPROC; i++)
		pmask[i] &= ~s->bit;
}

/* The engine samples while any session runs, and holds the rate while
 * any exists, so no other engine changes it under a session. */
void dp_set_running(struct dpsess *s, bool on)
{
	uint32_t x = splhi();

	if (on)
		dp_running |= s->bit;
	else
		dp_running &= ~s->bit;
	nlive = 0;
	for (int i = 0; i < PRF_MAXSESSIONS; i++)
		if (dp_running & dp_sess[i].bit)
			live[nlive++] = &dp_sess[i];
	refast();
	prof_set_sampling(&dosprof, dp_running != 0);
	splx(x);
}

/* The rate is one for all: the first session sets it (and the rate before
 * it comes back after the last), later ones must ask for the same. */
bool dp_engine_begin(uint32_t timval, int *err)
{
	int r;

	if (nsessions > 0) {
		if (timval != timval_now) {
			*err = PRF_TIMER_RESET;
			return false;
		}
		nsessions++;
		return true;
	}
	if ((r = prof_claim_hz(&dosprof, timval)) < 0) {
		/* EBUSY: another engine owns the rate */
		*err = r == -EBUSY ? PRF_TIMER_RESET : PRF_TIMER_OUT_OF_RANGE;
		return false;
	}
	timval_now = timval;
	nsessions = 1;
	return true;
}

void dp_engine_end(void)
{
	if (--nsessions > 0)
		return;
	prof_release_hz(&dosprof);
}

static struct prof_engine dosprof = {
	.name = "dosprof", .sample = dp_sample, .spawn = dp_spawn, .exit = dp_exit,
};

/* /dev/dosproftest (boot option prof.test): what no caller can do, for the
 * tests: "preset PID VALUE" sets every counter of the session to VALUE
 * (to watch them saturate), "corrupt PID" breaks its check word. */
static int dpt_ctl(const char *buf, uint32_t n)
{
	struct ctlmsg m;
	uint32_t pid, v = 0;
	struct dpsess *s = NULL;
	int r;

	if ((r = ctl_parse(buf, n, 64, &m)) < 0)
		return r;
	if (!(ctl_cmd(&m, "corrupt", 1) || (ctl_cmd(&m, "preset", 2) && ctl_uint(&m, 2, &v))) ||
	    !ctl_uint(&m, 1, &pid))
		return -EINVAL;
	for (int i = 0; i < PRF_MAXSESSIONS; i++)
		if (dp_sess[i].used && dp_sess[i].pid == (int)pid)
			s = &dp_sess[i];
	if (!s)
		return -ESRCH;
	if (ctl_is(&m, 0, "corrupt")) {
		s->magic = 0;
		return 0;
	}
	r = splhi();
	s->idle = s->kern = s->unknown = v;
	for (uint32_t i = 0; i < s->nslots; i++)
		s->count[i] = v;
	for (uint32_t i = 0; i < s->ncnts; i++)
		s->cnts[i] = v;
	splx(r);
	return 0;
}

static const struct ctlfile dpt_files[] = { { .name = "dosproftest", .ctl = dpt_ctl } };
static struct ctldev dpt_dev = { .name = "dosproftest", .files = dpt_files, .nfiles = NELEM(dpt_files) };

void dosprof_init(void)
{
	for (int i = 0; i < PRF_MAXSESSIONS; i++)
		dp_sess[i].bit = 1u << i;
	prof_register(&dosprof);
	if (prof_testing)
		ctldev_register(&dpt_dev);
}
