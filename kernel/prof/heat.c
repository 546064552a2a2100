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
 * Timing: each step's raw time includes the kernel's fixed cost of one step
 * (the #DB entry, this code, the iret). The smallest raw step seen is
 * taken as that cost plus one tick, and heat_overhead() is subtracted per
 * count when the dump is made. */
#include "abi/errno.h"
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
static struct heat_rec *currec;         /* its record, or NULL */
static bool have_cur;                   /* cur is valid */
static bool need_rec;                   /* cur's record is still to be found */
static uint64_t t0;                     /* TSC when cur started, 0: unknown */

static void ARCH_FASTCALL nosample(uint32_t pc, struct proc *p, uint32_t flags)
{
	(void)pc, (void)p, (void)flags;
}

uint64_t heat_overhead(void)
{
	return heat.minstep ? heat.minstep - 1 : 0;
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

/* cur completed, taking raw ticks, and the next instruction is at next */
static inline void step_to(uint32_t next, uint64_t raw)
{
	struct heat_rec *r = currec, *n;
	uint32_t f = 0;

	if (__builtin_expect(need_rec, 0)) {
		r = rec(cur);
		need_rec = false;
	}
	heat.steps++;
	if (__builtin_expect(r != NULL, 1)) {
		if (__builtin_expect(r->count == 0, 0))
			heat.addrs++;
		prof_add_sat(&r->count, 1, &heat.lost);
		r->raw += raw;
		if (next != cur + r->len && r->len) {
			r->flags |= HEAT_F_EXIT;
			f = HEAT_F_ENTER;
		}
		if (r->flags & HEAT_F_ISCALL)
			f |= HEAT_F_CALLED;
	} else {
		heat.outside++;
	}
	if (__builtin_expect(!heat.tracing, 0))
		return;                 /* rec(cur) ran out of memory */
	n = rec(next);
	if (n)
		n->flags |= f;
	cur = next;
	currec = n;
}

static bool ARCH_FASTCALL heat_debug(struct proc *p, struct trapframe *tf)
{
	uint64_t now = arch_read_tsc(), raw;

	if (p != traced)
		return false;           /* not a step of ours: the process dies */
	raw = now - t0;
	if (__builtin_expect(!t0, 0))
		raw = 0;                /* its start was not seen */
	else if (raw < heat.minstep || !heat.minstep)
		heat.minstep = raw;
	if (__builtin_expect(have_cur, 1))
		step_to(arch_frame_pc(tf), raw);
	t0 = 0;
	return true;
}

static void ARCH_FASTCALL heat_userret(struct proc *p, struct trapframe *tf)
{
	uint32_t pc = arch_frame_pc(tf);

	if (p != traced)
		return;
	if (__builtin_expect(pc != cur || !have_cur, 0)) {
		if (!have_cur) {        /* the first return since tracing began */
			cur = pc;
			currec = rec(pc);
			have_cur = true;
		} else {                /* cur completed in the kernel: int 0x80 */
			step_to(pc, heat.minstep);
		}
		if (!heat.tracing)
			return;
	}
	arch_single_step(tf, true);
	t0 = arch_read_tsc();
}

/* Every program's build-id, read at spawn, so that heatinfo can name the
 * ELF a dump belongs to whichever way its tracing started. */
static char buildids[NPROC][41];

/* A child of the armed parent starts traced from its first instruction:
 * its frame gets the trap flag now. Its record is found at the first step
 * (here the parent's address space is the current one). */
static void heat_spawn(struct proc *p, const struct elf_image *img)
{
	uint8_t id[20];
	int n = elf_find_note(img, "GNU", NT_GNU_BUILD_ID, id, sizeof id);
	char *hex = buildids[p - procs];

	hex[0] = 0;
	for (int i = 0; i < n && i < (int)sizeof id; i++)
		ksnprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (!heat.parent || p->ppid != heat.parent)
		return;
	heat.parent = 0;
	if (heat_trace_pid(p->pid) < 0)
		return;
	cur = arch_frame_pc(p->tf);
	have_cur = need_rec = true;
	arch_single_step(p->tf, true);
}

static void heat_exit(struct proc *p)
{
	if (p == traced && heat.tracing)
		heat_stop(p->killed ? "stopped: the process was killed" :
			  "stopped: the process exited");
	if (heat.parent == p->pid)      /* armed, and the parent is gone */
		heat_stop("stopped");   /* the engine off: it would hold the rate */
}

static struct prof_engine engine = {
	.name = "heat", .sample = nosample,
	.spawn = heat_spawn, .exit = heat_exit,
	.userret = heat_userret, .debug = heat_debug,
};

/* Throws the old heat away and traces pid from its next return to user
 * mode. The engine is on (for its hooks) but paused: it takes no clock
 * samples, so the clock pays nothing for it. */
int heat_trace_pid(int pid)
{
	struct proc *p = NULL;
	int r;

	for (int i = 0; i < NPROC; i++)
		if (procs[i].pid == pid && procs[i].state != P_UNUSED && procs[i].state != P_ZOMBIE)
			p = &procs[i];
	if (!p)
		return -ESRCH;
	heat_clear();
	if ((r = heattab_init()) < 0)
		return r;
	heat.pid = pid;
	strlcpy(heat.name, p->name, sizeof heat.name);
	strlcpy(heat.build_id, buildids[p - procs], sizeof heat.build_id);
	traced = p;
	have_cur = need_rec = false;
	currec = NULL;
	t0 = 0;
	heat.tracing = true;
	prof_pause(&engine);
	prof_enable(&engine);
	return 0;
}

int heat_trace_child(int parent)
{
	int r;

	heat_clear();
	if ((r = heattab_init()) < 0)
		return r;
	heat.parent = parent;
	prof_pause(&engine);
	prof_enable(&engine);           /* for the spawn hook's sake: it runs anyway */
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
	prof_disable(&engine);
	splx(s);
}

void heat_clear(void)
{
	heat_stop("stopped");
	heattab_free();
	lastpage = NULL;
	memset(&heat, 0, sizeof heat);
}

void heat_init(void)
{
	prof_register(&engine);
	heatdev_init();
}
