/* The heat engine: exact per-instruction counts of one user process, by
 * single-stepping it with the trap flag. Every single-step debug exception
 * is one user instruction completed; the record of the instruction that
 * just ran gets its count, its time, and the flags of the transfer it made
 * (heat.h). /dev/heatctl and the dump are in heatdev.c.
 *
 * How the steps are followed. `cur` is the instruction the process is
 * about to run (or is running). The return-to-user hook sets the trap flag
 * and takes the TSC as late as it can; the #DB hook takes it as early as
 * it can, charges the difference to cur and moves cur to the new EIP.
 * Other ways into the kernel:
 *   - an interrupt before cur ran: the frame's EIP is still cur; the hook
 *     on the way back takes the TSC again, so the interrupt's time is not
 *     charged (one inside a rep-string instruction loses the part before it)
 *   - int 0x80: the gate clears TF, so no step is reported for the int
 *     itself; on the way back the frame's EIP is past it, which completes
 *     it there (its time is kernel time: it is charged as one step of the
 *     fastest kind)
 *   - a fault, a kill, exit: the instruction in flight never completes and
 *     is not counted; tracing stops at the exit hook
 * A step comes straight from the #DB entry (trap.c's debug_intr), and the
 * usual one (cur's record known, the same record page as the last) takes
 * no call but the two hooks; the rest is in debug_slow and userret_slow.
 * Timing: each step's raw time includes the kernel's fixed cost of one step
 * (the #DB entry, this code, the iret). The smallest raw step seen is
 * taken as that cost plus one tick, and heat_overhead() is subtracted per
 * count when the dump is made. */
#include "abi/errno.h"
#include "buildid.h"
#include "elf.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/heat.h"
#include "prof/prof.h"

struct heat_state heat;
static struct prof_engine engine;
static struct proc *traced;             /* == a process with pid heat.pid */
static uint32_t cur;                    /* the instruction in flight */
static struct heat_rec *currec;         /* its record; NULL: the slow path */
static bool have_cur;                   /* cur is valid */
static uint64_t t0;                     /* TSC when cur started, 0: unknown */

/* heat.minstep is NOSTEP until a step has been timed */
#define NOSTEP (~0ull)

uint64_t heat_overhead(void)
{
	return heat.minstep != NOSTEP ? heat.minstep - 1 : 0;
}

/* Out of memory for records: stop, keep what was counted. At interrupt
 * level too, so only flags change here. */
static void out_of_memory(void)
{
	kprintf("heat: out of memory for records (%u record pages); tracing of pid %d stopped\n",
		heattab_recpages(), heat.pid);
	heat_stop("stopped: out of memory for records");
}

/* The record page of the last lookup: nearly every step stays in it. */
static struct heat_rec *lastpage;
static uint32_t lastpage_va;

/* the record of va, or NULL (outside user space, or no memory: then
 * tracing stops) */
__attribute__((noinline)) static struct heat_rec *rec_slow(uint32_t va)
{
	int why;
	struct heat_rec *r = heattab_get(va, &why);

	if (!r && why == -ENOMEM)
		out_of_memory();
	if (r) {
		lastpage = r - va % HEAT_RECPAGE_BYTES;
		lastpage_va = va - va % HEAT_RECPAGE_BYTES;
	}
	return r;
}

static inline struct heat_rec *rec(uint32_t va)
{
	if (__builtin_expect(lastpage && va - lastpage_va < HEAT_RECPAGE_BYTES, 1)) {
		struct heat_rec *r = &lastpage[va - lastpage_va];
		if (__builtin_expect(r->flags & HEAT_F_DECODED, 1))
			return r;
	}
	return rec_slow(va);
}

/* cur, whose record is r (NULL: outside user space), completed in raw
 * ticks, and the next instruction is at next: count it, mark the
 * transfer, and make next the one in flight. */
static inline void step_to(struct heat_rec *r, uint32_t next, uint64_t raw)
{
	struct heat_rec *n;
	uint32_t f = 0;

	heat.steps++;
	if (__builtin_expect(r != NULL, 1)) {
		if (__builtin_expect(r->count == 0, 0))
			heat.addrs++;
		prof_add_sat(&r->count, 1, &heat.lost);
		r->raw += raw;
		if (__builtin_expect(next != cur + r->len, 0) && r->len) {
			r->flags |= HEAT_F_EXIT;
			f = HEAT_F_ENTER;
		}
		if (r->flags & HEAT_F_ISCALL)
			f |= HEAT_F_CALLED;
	} else {
		heat.outside++;
	}
	n = rec(next);
	if (__builtin_expect(f != 0, 0) && n)
		n->flags |= f;
	cur = next;
	currec = n;
}

/* The steps currec == NULL sends here: the first step of a child (its
 * record not looked up yet, its start not timed), one from an instruction
 * outside user space, one before tracing saw its first return to user
 * mode. */
__attribute__((noinline)) static bool debug_slow(struct trapframe *tf, uint64_t now)
{
	uint64_t raw = t0 ? now - t0 : 0;
	struct heat_rec *r;

	if (t0 && raw < heat.minstep)
		heat.minstep = raw;
	t0 = 0;
	if (!have_cur)
		return true;            /* the process had set TF itself */
	r = rec(cur);
	if (heat.tracing)               /* not if rec() ran out of memory */
		step_to(r, arch_frame_pc(tf), raw);
	return true;
}

/* The step: every instruction of the traced process comes here, straight
 * from the #DB entry, so the usual case is kept short. currec != NULL
 * means the return-to-user hook below started cur and read t0 (every
 * return to user mode of a traced process runs it, but a child's first,
 * and a child starts with currec == NULL). */
__attribute__((optimize("omit-frame-pointer")))
static bool ARCH_FASTCALL heat_debug(struct proc *p, struct trapframe *tf)
{
	uint64_t now = arch_read_tsc(), raw;
	struct heat_rec *r = currec;

	if (p != traced)
		return false;           /* not ours: the process dies */
	if (__builtin_expect(r == NULL, 0))
		return debug_slow(tf, now);
	raw = now - t0;
	if (__builtin_expect(raw < heat.minstep, 0))
		heat.minstep = raw;
	step_to(r, arch_frame_pc(tf), raw);
	return true;
}

/* the return-to-user hook's other cases */
__attribute__((noinline)) static void userret_slow(struct trapframe *tf)
{
	uint32_t pc = arch_frame_pc(tf);

	if (!have_cur) {                /* the first return since tracing began */
		cur = pc;
		currec = rec(pc);
		have_cur = true;
	} else if (pc != cur) {         /* cur completed in the kernel: int 0x80 */
		struct heat_rec *r = currec ? currec : rec(cur);
		if (heat.tracing)
			step_to(r, pc, heat.minstep != NOSTEP ? heat.minstep : 0);
	}
	if (!heat.tracing)
		return;
	arch_single_step(tf, true);
	t0 = arch_read_tsc();
}

/* Every return to user mode of the traced process, after a step too: cur
 * starts now. The trap flag is set again, for a popf may have cleared it. */
__attribute__((optimize("omit-frame-pointer")))
static void ARCH_FASTCALL heat_userret(struct proc *p, struct trapframe *tf)
{
	if (p != traced)
		return;
	if (__builtin_expect(arch_frame_pc(tf) != cur || currec == NULL, 0)) {
		userret_slow(tf);
		return;
	}
	arch_single_step(tf, true);
	t0 = arch_read_tsc();
}

/* A child of the armed parent starts traced from its first instruction:
 * its frame gets the trap flag now. Its record is found at the first step
 * (here the parent's address space is the current one). */
static void heat_spawn(struct proc *p, const struct elf_image *img)
{
	(void)img;
	if (!heat.parent || p->ppid != heat.parent)
		return;
	heat.parent = 0;
	if (heat_trace_pid(p->pid) < 0)
		return;
	cur = arch_frame_pc(p->tf);
	have_cur = true;                /* currec stays NULL: found at the first step */
	arch_single_step(p->tf, true);
}

static void heat_exit(struct proc *p)
{
	if (p == traced && heat.tracing)
		heat_stop(p->killed ? "stopped: the process was killed" :
			  "stopped: the process exited");
	if (heat.parent == p->pid)      /* armed, and the parent is gone */
		heat_stop("stopped");   /* and the rate is free again */
}

static struct prof_engine engine = {
	.name = "heat",
	.spawn = heat_spawn, .exit = heat_exit,
	.userret = heat_userret, .debug = heat_debug,
};

/* Throws the old heat away and traces pid from its next return to user
 * mode. The engine wants its hooks and holds the rate (heat's durations
 * are in the clock's terms too); it takes no clock samples, so the clock
 * pays nothing for it. */
int heat_trace_pid(uint32_t pid)
{
	struct proc *p = NULL;
	int r;

	if (!(p = proc_lookup(pid)))
		return -ESRCH;
	heat_clear();
	if ((r = heattab_init()) < 0)
		return r;
	heat.pid = (int)pid;
	strlcpy(heat.name, p->name, sizeof heat.name);
	/* heatinfo names the ELF the dump belongs to ("" for none) */
	strlcpy(heat.build_id, p->prof.prog.build_id_hex, sizeof heat.build_id);
	traced = p;
	have_cur = false;
	currec = NULL;
	t0 = 0;
	heat.tracing = true;
	prof_set_hold(&engine, true);
	prof_set_hooks(&engine, true);
	return 0;
}

int heat_trace_child(int parent)
{
	int r;

	heat_clear();
	if ((r = heattab_init()) < 0)
		return r;
	heat.parent = parent;
	prof_set_hold(&engine, true);   /* from now: the child runs at this rate */
	return 0;
}

/* Stops tracing. The traced process's saved frame loses the trap flag, so
 * its next return to user mode (the hooks are off by then) does not step. */
void heat_stop(const char *why)
{
	uint32_t s = splhi();

	if (traced && traced->pid == heat.pid && traced->state != P_UNUSED)
		arch_single_step(traced->tf, false);
	traced = NULL;
	heat.parent = 0;
	if (heat.tracing)
		strlcpy(heat.why, why, sizeof heat.why);
	heat.tracing = false;
	prof_set_hooks(&engine, false);
	prof_set_hold(&engine, false);
	splx(s);
}

void heat_clear(void)
{
	heat_stop("stopped");
	heattab_free();
	lastpage = NULL;
	memset(&heat, 0, sizeof heat);
	heat.minstep = NOSTEP;
}

void heat_init(void)
{
	heat.minstep = NOSTEP;
	prof_register(&engine);
	heatdev_init();
}
