/* The profiling framework: which engines sample, the pointer the clock
 * calls, the fan-out to several engines, the rate policy, and the process
 * lifecycle hooks. No engine writes prof_tick; none is named outside this
 * directory.
 *
 * Why switching engines is safe at any time. The set of sampling engines
 * (live[], nlive) and prof_tick change only in rebuild(), which runs with
 * interrupts off. The clock's sample also runs with interrupts off, on the
 * one processor, so a tick sees either the old set or the new one, never a
 * half-made one: an engine switched on gets the ticks after the switch,
 * one switched off none after it, and no tick reaches an engine twice.
 * A change made by an engine's own sample function (an engine that turns
 * itself off when its buffer is full) happens while the fan-out walks
 * its list; rebuilding it under the walk's feet could skip or repeat an
 * engine, so the fan-out defers the rebuild to its end and, meanwhile,
 * an engine switched off has its place in the list taken by a function
 * that does nothing (an engine switched on joins at the rebuild).
 *
 * The return-to-user and single-step hooks have their own lists (uret[],
 * dbg[]) and pointers (prof_userret_hook, prof_debug_hook), rebuilt with
 * live[]: one engine's hook is called directly, several through a fan-out
 * that runs with interrupts off and defers a rebuild made by a hook (an
 * engine that stops itself, out of memory) in the same way.
 *
 * An engine's three switches (sampling, hooks, the rate hold) are three
 * flags: each setter changes one and rebuilds, so no order of calls
 * matters and none leaves another switch changed. */
#include "clock.h"
#include "prof/prof.h"
#include "abi/errno.h"
#include "cmdline.h"
#include "elf.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/unwind.h"
#include "symtab.h"

volatile prof_sample_fn prof_tick;
volatile prof_userret_fn prof_userret_hook;
volatile prof_debug_fn prof_debug_hook;
volatile prof_syscall_fn prof_syscall_hook;
volatile prof_kcall_fn prof_kcall_hook;

static struct prof_engine *engines[PROF_MAXENGINES];   /* registered */
static int nengines;
static struct prof_engine *live[PROF_MAXENGINES];      /* sampling now */
static int nlive;
/* what the tick's fan-out calls: live[i]->sample, and NULL after the last */
static prof_sample_fn tickfns[PROF_MAXENGINES + 1];
static struct prof_engine *uret[PROF_MAXENGINES];      /* hooks on, with a userret hook */
static int nuret;
static struct prof_engine *dbg[PROF_MAXENGINES];       /* hooks on, with a debug hook */
static int ndbg;
static struct prof_engine *sysc[PROF_MAXENGINES];      /* hooks on, with a syscall hook */
static int nsysc;
static struct prof_engine *kc[PROF_MAXENGINES];        /* hooks on, with a kcall hook */
static int nkc;
/* fan-outs under way. The tick's never runs inside another (the hooks'
 * hold interrupts off) nor inside itself: a flag, which costs the tick
 * least. A hook's can run inside another's, or inside the tick's (a
 * sample or hook that turns interrupts off reaches the kernel-call hook
 * in splhi): a count. */
static volatile uint32_t in_tick_fanout;     /* a word: stored as an immediate */
static int in_fanout;
static bool rebuild_pending;

_Static_assert(PROF_KC_OFF == 0 && PROF_KC_ON == 1, "spl.asm passes these numbers");

bool prof_testing;
BOOTPARAM_FLAG("prof.test", prof_testing);

static void ARCH_FASTCALL fanout(const struct prof_sample *s);
static void ARCH_FASTCALL skipped(const struct prof_sample *s);
static void ARCH_FASTCALL userret_fanout(struct proc *p, struct trapframe *tf);
static bool ARCH_FASTCALL debug_fanout(struct proc *p, struct trapframe *tf);
static void syscall_fanout(struct proc *p, uint32_t num, bool done);
static void kcall_fanout(uint32_t what, uint32_t site);

/* Makes live[], uret[], dbg[] and the pointers agree with the engines'
 * flags. Interrupts off. */
static void rebuild(void)
{
	if (in_fanout || in_tick_fanout) {
		rebuild_pending = true;
		for (int i = 0; i < nlive; i++)     /* off now: not called again */
			if (!live[i]->sampling)
				tickfns[i] = skipped;
		return;
	}
	nlive = nuret = ndbg = nsysc = nkc = 0;
	for (int i = 0; i < nengines; i++) {
		struct prof_engine *e = engines[i];
		if (e->sampling)
			live[nlive++] = e;
		if (e->hooked && e->userret)
			uret[nuret++] = e;
		if (e->hooked && e->debug)
			dbg[ndbg++] = e;
		if (e->hooked && e->syscall)
			sysc[nsysc++] = e;
		if (e->hooked && e->kcall)
			kc[nkc++] = e;
	}
	for (int i = 0; i < nlive; i++)
		tickfns[i] = live[i]->sample;
	tickfns[nlive] = NULL;
	prof_tick = nlive == 0 ? NULL : nlive == 1 ? live[0]->sample : fanout;
	prof_userret_hook = nuret == 0 ? NULL : nuret == 1 ? uret[0]->userret : userret_fanout;
	prof_debug_hook = ndbg == 0 ? NULL : ndbg == 1 ? dbg[0]->debug : debug_fanout;
	prof_syscall_hook = nsysc == 0 ? NULL : nsysc == 1 ? sysc[0]->syscall : syscall_fanout;
	prof_kcall_hook = nkc == 0 ? NULL : nkc == 1 ? kc[0]->kcall : kcall_fanout;
}

/* the end of a fan-out: the rebuild a callee asked for, once none is
 * under way */
static void fanout_done(void)
{
	if (--in_fanout == 0 && !in_tick_fanout && rebuild_pending) {
		rebuild_pending = false;
		rebuild();
	}
}

/* an engine switched off inside the fan-out, until the fan-out ends */
static void ARCH_FASTCALL skipped(const struct prof_sample *s)
{
	(void)s;
}

/* Each engine's sample with the same pointer: a call, a load and a test an
 * engine (the list has at least two). */
__attribute__((optimize("omit-frame-pointer")))      /* it costs every tick */
static void ARCH_FASTCALL fanout(const struct prof_sample *s)
{
	prof_sample_fn *f = tickfns;

	/* the flag's stores as immediates (gcc moves them through a register) */
	__asm__ volatile("movl $1, %0" : "=m"(in_tick_fanout));
	do
		(*f)(s);
	while (*++f);
	__asm__ volatile("movl $0, %0" : "=m"(in_tick_fanout));
	if (rebuild_pending && !in_fanout) {
		rebuild_pending = false;
		rebuild();
	}
}

/* The hooks' fan-outs turn interrupts off (a return from a system call
 * has them on), so no tick's fan-out can start inside them. */
static void ARCH_FASTCALL userret_fanout(struct proc *p, struct trapframe *tf)
{
	uint32_t s = splhi();

	in_fanout++;
	for (int i = 0; i < nuret; i++)
		if (uret[i]->hooked)
			uret[i]->userret(p, tf);
	fanout_done();
	splx(s);
}

void prof_userret_call(struct proc *p, struct trapframe *tf)
{
	prof_userret_fn fn = prof_userret_hook;

	if (fn)         /* it may have gone since the caller looked */
		fn(p, tf);
}

/* the first engine that takes the step has it */
static bool ARCH_FASTCALL debug_fanout(struct proc *p, struct trapframe *tf)
{
	bool took = false;

	in_fanout++;
	for (int i = 0; i < ndbg && !took; i++)
		if (dbg[i]->hooked)
			took = dbg[i]->debug(p, tf);
	fanout_done();
	return took;
}

/* A system call's and a kernel section's hooks run with interrupts on
 * and off respectively; the fan-outs hold them off, like the others. */
static void syscall_fanout(struct proc *p, uint32_t num, bool done)
{
	uint32_t s = splhi();

	in_fanout++;
	for (int i = 0; i < nsysc; i++)
		if (sysc[i]->hooked)
			sysc[i]->syscall(p, num, done);
	fanout_done();
	splx(s);
}

static void kcall_fanout(uint32_t what, uint32_t site)
{
	in_fanout++;
	for (int i = 0; i < nkc; i++)
		if (kc[i]->hooked)
			kc[i]->kcall(what, site);
	fanout_done();
}

prof_sample_fn prof_sampler(void)
{
	return prof_tick;
}

void prof_register(struct prof_engine *e)
{
	if (nengines == PROF_MAXENGINES)
		panic("prof: more than %d engines", PROF_MAXENGINES);
	e->id = nengines;
	e->sampling = e->hooked = e->holding = false;
	engines[nengines++] = e;
}

/* sets one flag and rebuilds, with interrupts off */
static void set(bool *flag, bool v)
{
	uint32_t s = splhi();
	*flag = v;
	rebuild();
	splx(s);
}

/* The first engine to sample restarts the PIT's count, so its first sample
 * comes one whole period after the start. Under -icount the samples then
 * fall on the same instructions in every run; otherwise the phase would
 * depend on when the host's keystrokes arrived (the idle loop's time
 * before them is the host's). An engine that joins others leaves their
 * phase alone. So does the first engine that hooks, with nobody
 * sampling: the heat engine's durations hold the ticks that land in a
 * step, which then land on the same steps in every run. */
void prof_set_sampling(struct prof_engine *e, bool on)
{
	if (on && !e->sample)
		panic("prof: engine %s has no sample function", e->name);
	if (on && !prof_tick)
		clock_restart_phase();
	set(&e->sampling, on);
}

void prof_set_hooks(struct prof_engine *e, bool on)
{
	if (on && !prof_tick && !e->hooked)
		clock_restart_phase();
	set(&e->hooked, on);
}
void prof_set_hold(struct prof_engine *e, bool on) { set(&e->holding, on); }

/* One rate for all: the rate decides what a sample means (the gmon file's
 * profrate, a DosProfile timer value), so it may not change under an
 * engine that holds it. The engine that asks may hold it itself. */
int prof_set_hz(struct prof_engine *e, uint32_t hz)
{
	uint32_t s;

	if (hz < CLOCK_MIN_HZ || hz > CLOCK_MAX_HZ)
		return -EINVAL;
	if (clock_check_hz(hz) < 0)
		return -ERANGE;
	s = splhi();
	for (int i = 0; i < nengines; i++)
		if (engines[i] != e && engines[i]->holding) {
			splx(s);
			return -EBUSY;
		}
	clock_set_hz(hz);
	splx(s);
	return 0;
}

int prof_claim_hz(struct prof_engine *e, uint32_t hz)
{
	uint32_t before = (clock_hz_mhz() + 500) / 1000;
	int r;

	e->hz_before = 0;
	if (hz && clock_hz_mhz() != clock_achieved_mhz(hz)) {
		if ((r = prof_set_hz(e, hz)) < 0)
			return r;
		e->hz_before = before;
	}
	prof_set_hold(e, true);
	return 0;
}

void prof_release_hz(struct prof_engine *e)
{
	if (e->hz_before)
		prof_set_hz(e, e->hz_before);
	e->hz_before = 0;
	prof_set_hold(e, false);
}

/* The symbol service's hooks come first at spawn and last at exit, so
 * every engine's hook sees the program's symbols. */
static void program_record(struct prof_program *g, struct proc *p, const struct elf_image *img)
{
	int n = elf_find_note(img, "GNU", NT_GNU_BUILD_ID, g->build_id, sizeof g->build_id);

	strlcpy(g->name, p->name, sizeof g->name);
	strlcpy(g->path, img->path ? img->path : p->name, sizeof g->path);
	g->idlen = n > 0 && n <= (int)sizeof g->build_id ? (uint32_t)n : 0;
	buildid_hex(g->build_id_hex, sizeof g->build_id_hex, g->build_id, g->idlen);
	if (!g->idlen)
		g->build_id_hex[0] = 0;
}

void prof_spawn(struct proc *p, const struct elf_image *img)
{
	memset(&p->prof, 0, sizeof p->prof);
	program_record(&p->prof.prog, p, img);
	symtab_spawn(p, img);
	unwind_spawn(p, img);
	for (int i = 0; i < nengines; i++)
		if (engines[i]->spawn)
			engines[i]->spawn(p, img);
}

/* Every process that exits was spawned, so its slots were set up. */
void prof_exit(struct proc *p)
{
	for (int i = 0; i < nengines; i++)
		if (engines[i]->exit)
			engines[i]->exit(p);
	p->prof.exited = true;
	unwind_exit(p);
	symtab_exit(p);
}

/* Starts the engines built into the kernel, in the order of their list,
 * which is the fan-out's order. */
void prof_init(void)
{
	symtab_devinit();
#define X(name) name##_init();
	PROF_ENGINES(X)
#undef X
}
