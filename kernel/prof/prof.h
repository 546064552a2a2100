/* The profiling framework: the engines, the sample every engine gets on a
 * clock tick, the per-process state and the process lifecycle hooks.
 * kernel/prof/README.md shows how to write an engine. */
#ifndef PROF_PROF_H
#define PROF_PROF_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"
#include "buildid.h"
#include "clock.h"

struct proc;
struct elf_image;
struct unw_table;

/* One sample, as every engine sees it: what was interrupted, where, and
 * how much it weighs. The source builds it once (the clock at every tick;
 * an engine's own source, such as the Monte Carlo engine's system-call
 * hit, the same way) and every engine gets a pointer to the same struct,
 * in one register:
 *   pc     the interrupted PC; a tick held back by splhi() is charged to
 *          splpc, where interrupts went off
 *   flags  the mode (PROF_KERNEL: the sample interrupted kernel mode), the
 *          source (PROF_SYSCALL: a system call's entry, not a tick) and
 *          the weight: 1, plus the ticks merged into this one while
 *          interrupts were off. A user-mode tick's flags are its weight
 *          alone, which keeps the common case cheapest.
 *   p      the running process; NULL in the idle loop
 *   tf     the whole interrupted frame (arch_frame_pc, arch_frame_fp): an
 *          engine that walks the stack starts from it, never from its own
 *          frame pointer (the fan-out and the clock put a varying number
 *          of frames in between). For a kernel-mode sample of a process,
 *          its user registers are p->tf, the frame of the trap that
 *          entered the kernel.
 * It is valid only during the call: an engine keeps what it needs of it,
 * never the pointer. (The clock's is clock_sample, kept up to date as the
 * clock.h says; any other source builds one on its stack.) */
struct prof_sample {
	uint32_t pc;
	uint32_t flags;
	struct proc *p;
	struct trapframe *tf;
};
#define PROF_KERNEL 0x80000000u
#define PROF_SYSCALL 0x40000000u
#define PROF_WEIGHT_MASK 0x3FFFFFFFu
static inline bool prof_user(uint32_t flags) { return !(flags & PROF_KERNEL); }
static inline uint32_t prof_weight(uint32_t flags) { return flags & PROF_WEIGHT_MASK; }

typedef void (*prof_sample_fn)(const struct prof_sample *s) ARCH_FASTCALL;
/* the return-to-user and single-step hooks: arguments in registers too,
 * since a traced process takes both on every instruction */
typedef void (*prof_userret_fn)(struct proc *p, struct trapframe *tf) ARCH_FASTCALL;
typedef bool (*prof_debug_fn)(struct proc *p, struct trapframe *tf) ARCH_FASTCALL;
/* a system call: before its handler (done false) and after (true) */
typedef void (*prof_syscall_fn)(struct proc *p, uint32_t num, bool done);
/* A kernel section that the kernel-call timer measures (what):
 *   PROF_KC_OFF     splhi() turned interrupts off, at site (its caller)
 *   PROF_KC_ON      splx() turns them back on; site is splpc
 *   PROF_KC_PICK    the scheduler starts looking for the next process
 *   PROF_KC_SWITCH  it switches to the one it found (site: its pid)
 *   PROF_KC_IDLE    it found none and idles: the pick is not timed
 * Interrupts are off at every call. */
enum { PROF_KC_OFF, PROF_KC_ON, PROF_KC_PICK, PROF_KC_SWITCH, PROF_KC_IDLE };
typedef void (*prof_kcall_fn)(uint32_t what, uint32_t site);

/* An engine: a table of functions, each optional. The fields after the
 * line are prof.c's. */
struct prof_engine {
	const char *name;
	prof_sample_fn sample;                  /* at interrupt time */
	/* a process was made from img (readable through kernel/elf.h);
	 * p->prof is cleared, p has not run yet. Not at interrupt time. */
	void (*spawn)(struct proc *p, const struct elf_image *img);
	/* p is exiting: its address space and files are still there */
	void (*exit)(struct proc *p);
	/* p is about to return to user mode (only while the engine's hooks
	 * are on). Interrupts may be on. */
	prof_userret_fn userret;
	/* a single step in user mode: the trap flag's debug exception (the
	 * arch code has told it from other #DBs); true if the engine took
	 * it, and then the userret hooks run and p goes straight back to
	 * user mode. Only while the engine's hooks are on; interrupts off. */
	prof_debug_fn debug;
	/* every system call, before and after its handler (not after exit
	 * or halt, which do not return). Only while the hooks are on. */
	prof_syscall_fn syscall;
	/* the kernel sections above. Only while the hooks are on. */
	prof_kcall_fn kcall;
	/* ---- */
	int id;                 /* index in each process's slot array */
	bool sampling;          /* the clock calls sample */
	bool hooked;            /* userret and debug run */
	bool holding;           /* holds the clock rate */
	uint32_t hz_before;     /* the rate prof_claim_hz changed, to put back; 0: none */
};

/* The program a process runs, read once from its ELF at spawn by the
 * framework, before any engine's spawn hook: every engine names a
 * program by it (a dump's module, a report's line). The symbols are the
 * symbol service's (p->syms, loaded while a profiler holds the service:
 * symtab.h); so is the unwind table (kernel/prof/unwind.h). */
#define PROF_PATHMAX 64
struct prof_program {
	char name[16];                  /* the file's name: p->name */
	char path[PROF_PATHMAX];        /* as spawned: "/bin/NAME" */
	uint8_t build_id[BUILDID_MAX];  /* the GNU build-id note's bytes */
	uint32_t idlen;                 /* BUILDID_MAX, or 0: the ELF has none */
	char build_id_hex[2 * BUILDID_MAX + 1];  /* "" for none */
	struct unw_table *unw;          /* its unwind table, made while an engine
	                                 * wants them (unwind.h); NULL: none */
};

/* Each process's profiling state. An engine keeps its own per-process data
 * in slot[e->id]; prof.c clears the slots at spawn, the engine frees what
 * its slot holds in its exit hook. prog is the program record. */
#define PROF_MAXENGINES 16
struct prof_proc {
	void *slot[PROF_MAXENGINES];
	struct prof_program prog;
	bool exited;            /* prof_exit ran: its memory is going, its
	                         * user stack is no longer there to walk */
};

/* Registration, at boot: after it the engine's lifecycle hooks (spawn,
 * exit) run, whatever else is on. */
void prof_register(struct prof_engine *e);

/* Three switches, each independent of the others, each safe in any order,
 * with interrupts on or off, and from inside a sample or hook (see prof.c):
 *   sampling   the clock calls e->sample on every tick
 *   hooks      e->userret and e->debug run
 *   hold       e holds the clock rate: no other engine may change it
 * An engine that records samples holds the rate while it records, since
 * the rate is what a sample means; one that only traces (heat) wants its
 * hooks and the rate, and no samples. */
void prof_set_sampling(struct prof_engine *e, bool on);
void prof_set_hooks(struct prof_engine *e, bool on);
void prof_set_hold(struct prof_engine *e, bool on);

/* The clock rate: an engine may change it only while no other engine
 * holds it. 0 or -EBUSY (or -EINVAL for a bad rate, -ERANGE above the
 * clock's ceiling). */
int prof_set_hz(struct prof_engine *e, uint32_t hz);

/* A session's rate: hz (0: the rate now) is set if the clock is not
 * already at it, and held; prof_release_hz puts back the rate there was
 * before, if the claim changed it, and lets go of the hold. 0, or
 * prof_set_hz's error, and then nothing has changed. */
int prof_claim_hz(struct prof_engine *e, uint32_t hz);
void prof_release_hz(struct prof_engine *e);

/* The boot option prof.test: the test engines and devices are present. */
extern bool prof_testing;

/* ---- called by the clock, proc.c, spawn.c and trap.c, never by name ---- */

/* The one pointer the clock calls: NULL while no engine samples, an
 * engine's own sample function while exactly one does, the fan-out while
 * several do. Only prof.c writes it. */
extern volatile prof_sample_fn prof_tick;
prof_sample_fn prof_sampler(void);      /* prof_tick, for tests */

/* The clock's per-tick call: completes the clock's sample s, whose tf
 * (the frame, also in tf) and p are already there (clock.h), and hands it
 * on. Profiling off costs a load, a test and a branch; on, the PC's load
 * and two stores. */
static inline void prof_clock_tick(struct prof_sample *s, const struct trapframe *tf, bool user,
				   uint32_t weight)
{
	prof_sample_fn fn = prof_tick;
	uint32_t pc;

	if (!fn)
		return;
	pc = arch_frame_pc(tf);
	s->flags = weight;
	if (__builtin_expect(!user, 0)) {
		if (pc == (uint32_t)splx_landing)
			pc = splpc;
		s->flags = weight | PROF_KERNEL;
	}
	s->pc = pc;
	fn(s);
}

void prof_spawn(struct proc *p, const struct elf_image *img);
void prof_exit(struct proc *p);

/* The return-to-user and single-step hooks, like prof_tick: NULL while no
 * engine with its hooks on has it, that engine's own function while one
 * has, a fan-out while several have. Only prof.c writes them. So the trap
 * path pays a load, a test and a branch while nobody wants them, and a traced
 * process's step reaches its engine with no loop in between. */
extern volatile prof_userret_fn prof_userret_hook;
extern volatile prof_debug_fn prof_debug_hook;
extern volatile prof_syscall_fn prof_syscall_hook;
extern volatile prof_kcall_fn prof_kcall_hook;   /* spl.asm tests it too */

/* syscall.c, around each handler */
static inline void prof_syscall(struct proc *p, uint32_t num, bool done)
{
	prof_syscall_fn fn = prof_syscall_hook;

	if (__builtin_expect(fn != 0, 0))
		fn(p, num, done);
}

/* the scheduler's sections (proc.c); spl.asm makes its own calls */
static inline void prof_kcall(uint32_t what, uint32_t site)
{
	prof_kcall_fn fn = prof_kcall_hook;

	if (__builtin_expect(fn != 0, 0))
		fn(what, site);
}

/* Every return to user mode but a step's (the clock's, trap()'s). The
 * call is out of line, so the clock's tick, which pays for this test,
 * keeps its registers as they were. */
void prof_userret_call(struct proc *p, struct trapframe *tf);
static inline void prof_userret(struct proc *p, struct trapframe *tf)
{
	if (__builtin_expect(prof_userret_hook != 0, 0))
		prof_userret_call(p, tf);
}

/* A single step in user mode, from the arch's #DB entry: true if an engine
 * took it; the return-to-user hooks have then run, and the caller goes
 * back to user mode at once. False: nobody traces p, and it dies. */
static inline bool prof_step(struct proc *p, struct trapframe *tf)
{
	prof_debug_fn fn = prof_debug_hook;
	prof_userret_fn u;

	if (!fn || !fn(p, tf))
		return false;
	if ((u = prof_userret_hook) != 0)
		u(p, tf);
	return true;
}

/* The engines' hash tables (open addressing, linear probing): the slots
 * to try for hash h in a table of n, at most max of them, from h's home
 * slot (its high bits scaled to n: a multiply, no division), wrapping at
 * the end:
 *     for_each_probe(i, h, n, max) { if (slot i is h's or free) ...; }
 * after which none was. */
static inline uint32_t prof_probe_home(uint32_t h, uint32_t n)
{
	return (uint32_t)(((uint64_t)h * n) >> 32);
}
#define for_each_probe(i, h, n, max) \
	for (uint32_t i = prof_probe_home(h, n), probe_left_ = (max); probe_left_ > 0; \
	     probe_left_--, i = i + 1 == (n) ? 0 : i + 1)

/* A counter that stops at 0xFFFFFFFF instead of wrapping; what did not
 * fit is added to *lost. */
static inline void prof_add_sat(uint32_t *c, uint32_t w, uint32_t *lost)
{
	arch_add_sat(c, w, lost);
}

/* starts the engines built into the kernel (engines.h), at boot */
void prof_init(void);

#endif
