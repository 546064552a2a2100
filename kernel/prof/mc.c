/* Monte Carlo profiling, after Windows CE's kernel profiler: ProfileStart
 * and ProfileStop as system calls, the `prof on`/`prof off` of the shell.
 * Every clock tick names the module (the kernel or a program) and the
 * routine it landed in; ProfileStop prints the module and routine tables
 * (mcreport.c) on the console and into /tmp/prof/mc.N.
 *
 *   buffered (PROFILE_BUFFER)  a tick stores its PC and module, 8 bytes,
 *       in a buffer allocated at start; the routines are looked up at
 *       stop. A full buffer drops ticks, and counts them.
 *   unbuffered                 a tick looks its routine up at once, in the
 *       module's symbol table (symtab.h: an index, not a scan), and adds
 *       to that routine's counter; /dev/mcprof shows the tables live.
 *   PROFILE_OBJCALL (-s)       no ticks: each system call is one hit on
 *       its handler, in the same tables.
 *   PROFILE_KCALL (-k)         no ticks: system calls, interrupts-off
 *       sections and the scheduler's switches are timed (mckcall.c).
 *
 * A module is a program by name (every process of hog is one module), or
 * with PROFILE_PERPID each process ("hog[7]"). A program's symbols are
 * loaded at its spawn while a session is on (the symbol service holds
 * them for us) and kept until the report, also when it exits first. */
#include "abi/errno.h"
#include "abi/mcprof.h"
#include "abi/syscall.h"
#include "clock.h"
#include "ctldev.h"
#include "dev.h"
#include "elf.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/mc.h"
#include "prof/prof.h"
#include "syscall.h"
#include "uaccess.h"
#include "file.h"

struct mc_session mc;
static struct prof_engine engine;

/* A process's slot holds, buffered, its module's tag (index | weight 1
 * << 16, as a buffered entry has it), so the usual tick stores it with no
 * load through a pointer; unbuffered, the module itself, which the tick
 * looks the routine up in. */
static inline uint32_t tagof(struct proc *p)
{
	return (uint32_t)p->prof.slot[engine.id];
}

static inline void settag(struct proc *p, const struct mc_module *m)
{
	p->prof.slot[engine.id] = mc.options & PROFILE_BUFFER ? (void *)m->tag : (void *)m;
}

static inline struct mc_module *modof(struct proc *p)
{
	void *s = p->prof.slot[engine.id];
	return mc.options & PROFILE_BUFFER ? &mc.mods[MC_ENT_MOD((uint32_t)s)] : s;
}

/* Finds or makes the module for process p (NULL: the kernel). A new one
 * takes a reference on p's symbol table. A process past the table's end
 * gets the UNKNOWN module. */
static struct mc_module *module_for(struct proc *p)
{
	char name[sizeof mc.mods[0].name];
	bool perpid = mc.options & PROFILE_PERPID;
	struct mc_module *m;

	if (!p)
		return &mc.mods[MC_MOD_KERNEL];
	if (perpid)
		ksnprintf(name, sizeof name, "%s[%d]", p->name, p->pid);
	else
		strlcpy(name, p->name, sizeof name);
	for (uint32_t i = MC_MOD_FIRST; i < mc.nmods; i++)
		if (strcmp(mc.mods[i].name, name) == 0)
			return &mc.mods[i];
	if (mc.nmods == MC_MAXMODS)
		return &mc.mods[MC_MOD_UNKNOWN];
	m = &mc.mods[mc.nmods];
	memset(m, 0, sizeof *m);
	strlcpy(m->name, name, sizeof m->name);
	m->pid = perpid ? p->pid : 0;
	m->ref = symtab_get(p);
	m->syms = m->ref ? m->ref : &symtab_none;
	m->nsyms = symtab_count(m->syms);
	m->tag = mc.nmods | 1u << 16;
	if (p->prof.prog.idlen == sizeof m->build_id) {
		memcpy(m->build_id, p->prof.prog.build_id, sizeof m->build_id);
		m->idlen = sizeof m->build_id;
	}
	mc.nmods++;
	return m;
}

/* counters for an unbuffered module's routines, made when it is made:
 * never at interrupt time. Without memory for them the module has no
 * symbols (its hits are its nosym), so a tick needs no test for them. */
static void module_hits(struct mc_module *m)
{
	uint32_t n;

	if (!m || m->hits || !m->nsyms || (mc.options & PROFILE_BUFFER))
		return;
	n = ROUNDUP(m->nsyms * sizeof(uint32_t), PGSIZE) / PGSIZE;
	if (!(m->hits = kalloc_contig(n))) {       /* zeroed */
		m->syms = &symtab_none;
		m->nsyms = 0;
	}
}

static inline void count(uint32_t *c, uint32_t w)
{
	prof_add_sat(c, w, &mc.saturated);
}

/* An unbuffered hit: the routine at pc in module m. (A module's total
 * is its routines' and its nosym's, summed by the report.) */
static inline void hit(struct mc_module *m, uint32_t pc, uint32_t w)
{
	int i = symtab_find(m->syms, pc);       /* symtab_none: always -1 */

	if (i < 0)
		count(&m->nosym, w);
	else
		count(&m->hits[i], w);
}

/* Everything but the buffered user-mode tick of weight 1 of a process
 * that has its module: the idle loop, kernel mode, merged ticks, a
 * process without a module yet, a full buffer, and unbuffered sampling. */
static __attribute__((noinline)) void sample_slow(const struct prof_sample *s)
{
	uint32_t pc = s->pc, flags = s->flags, w = prof_weight(flags);
	struct proc *p = s->p;
	struct mc_module *m;

	if (!p) {
		/* once a tick has been dropped, idle ones are dropped too, so
		 * that the idle count stops where the recording did */
		count(mc.dropped ? &mc.dropped : &mc.idle, w);
		return;
	}
	if (!prof_user(flags)) {
		m = &mc.mods[MC_MOD_KERNEL];
		if (!symtab_covers(m->syms, pc))
			m = &mc.mods[MC_MOD_UNKNOWN];
	} else {
		m = modof(p);
	}
	if (!(mc.options & PROFILE_BUFFER)) {
		hit(m, pc, w);
		return;
	}
	if (mc.pos == mc.end) {
		count(&mc.dropped, w);
		return;
	}
	mc.pos->pc = pc;
	mc.pos->mod = (m - mc.mods) | MIN(w, MC_ENT_MAXWEIGHT) << 16;
	mc.pos++;
	if (w > MC_ENT_MAXWEIGHT)
		count(&mc.dropped, w - MC_ENT_MAXWEIGHT);
}

/* a buffered user-mode tick of weight 1 that found the buffer full */
static __attribute__((noinline)) void full(void)
{
	count(&mc.dropped, 1);
}

/* The usual buffered tick: a process in user mode, weight 1: two stores
 * and the buffer's bump. Every process has its module's tag while a
 * session is on (ProfileStart gives one to each process there is, the
 * spawn hook to each new one), so there is no test for it, and the three
 * argument registers suffice. */
__attribute__((optimize("omit-frame-pointer")))
static void ARCH_FASTCALL mc_sample(const struct prof_sample *s)
{
	struct mc_entry *e;
	uint32_t tag;

	if (__builtin_expect(s->flags != 1, 0)) {
		sample_slow(s);
		return;
	}
	tag = tagof(s->p);      /* every process has one while a session is on */
	e = mc.pos;
	if (__builtin_expect(e == mc.end, 0)) {
		full();
		return;
	}
	e->pc = s->pc;
	e->mod = tag;
	mc.pos = e + 1;
}

/* Unbuffered: a tick of weight 1 looks its routine up at once, in its
 * process's module (user mode) or the kernel's (kernel mode, a process
 * running, a PC in a routine); the others go the slow way (idle, merged
 * ticks, PCs in no routine of the kernel). */
__attribute__((optimize("omit-frame-pointer")))
static void ARCH_FASTCALL mc_sample_unbuffered(const struct prof_sample *s)
{
	struct mc_module *k = &mc.mods[MC_MOD_KERNEL];
	int i;

	if (__builtin_expect(s->flags == 1, 1)) {
		hit(s->p->prof.slot[engine.id], s->pc, 1);
		return;
	}
	if (s->flags == (PROF_KERNEL | 1) && s->p && (i = symtab_find(k->syms, s->pc)) >= 0) {
		count(&k->hits[i], 1);
		return;
	}
	sample_slow(s);
}

/* a process spawned while a session is on gets its module now, with its
 * symbols (loaded by the symbol service's own spawn hook, before ours) */
static void mc_spawn(struct proc *p, const struct elf_image *img)
{
	struct mc_module *m;

	(void)img;              /* the program record has what we need */
	if (!mc.on || (mc.options & PROFILE_DATATYPES))
		return;
	m = module_for(p);
	module_hits(m);
	settag(p, m);       /* before p first runs: no tick can come first */
}

/* -s: each system call is a hit on its handler: a kernel-mode sample at
 * the handler's first byte (an unknown call's, 0, is UNKNOWN's), whose
 * source is the call, given to the engine's sample function as the
 * clock's samples are */
static void mc_syscall(struct proc *p, uint32_t num, bool done)
{
	struct prof_sample s;

	if (done || mc.running <= 0 || !p)
		return;
	s = (struct prof_sample){ .pc = syscall_handler(num), .flags = 1 | PROF_KERNEL | PROF_SYSCALL,
				  .p = p, .tf = p->tf };
	engine.sample(&s);
}

static struct prof_engine engine = {
	.name = "mc", .sample = mc_sample, .spawn = mc_spawn,
};

static struct prof_engine objcall = {
	.name = "mc.objcall", .syscall = mc_syscall,
};

/* sampling runs while continues outnumber pauses; the ticks elapsed are
 * counted over the running spans */
static void set_running(int running)
{
	uint32_t s = splhi();
	bool was = mc.running > 0, now = running > 0;

	mc.running = running;
	if (was && !now)
		mc.ticks += ticks - mc.since;
	if (now && !was)
		mc.since = ticks;
	if (!(mc.options & PROFILE_DATATYPES))
		prof_set_sampling(&engine, now);
	else if (mc.options & PROFILE_OBJCALL)
		prof_set_hooks(&objcall, now);
	splx(s);
}

static void end_session(void)
{
	set_running(0);
	mc_kcall_stop();
	prof_release_hz(&engine);       /* the rate before the session, as DosProfile's */
	mc_free_hits();
	for (uint32_t i = MC_MOD_FIRST; i < mc.nmods; i++)
		symtab_put(mc.mods[i].ref);
	if (mc.buf)
		kfree_contig(mc.buf, mc.bufpages);
	for (int i = 0; i < NPROC; i++)
		procs[i].prof.slot[engine.id] = NULL;
	symtab_release();
	mc.buf = mc.pos = mc.end = NULL;
	mc.nmods = 0;
	mc.on = false;
}

/* ProfileStart(usec, options, params) */
static int sys_profile_start(uint32_t usec, uint32_t options, uint32_t uparams)
{
	struct profile_params pp = { MC_BUF_KIB_DEFAULT, MC_TOP_DEFAULT };
	uint32_t hz = 0;
	int r;

	/* pause and continue: a session started paused */
	if (options & (PROFILE_PAUSE | PROFILE_CONTINUE)) {
		if ((options & ~(PROFILE_PAUSE | PROFILE_CONTINUE)) ||
		    (options & PROFILE_PAUSE && options & PROFILE_CONTINUE))
			return -EINVAL;
		if (!mc.on)
			return -ESRCH;
		if (!(mc.options & PROFILE_STARTPAUSED))
			return -EPERM;
		set_running(mc.running + (options & PROFILE_CONTINUE ? 1 : -1));
		return 0;
	}
	if (options & ~PROFILE_START_OPTS)
		return -EINVAL;
	if ((options & PROFILE_DATATYPES) == PROFILE_DATATYPES)
		return -EINVAL;         /* one data type at a time */
	if (uparams && copyin(&pp, uparams, sizeof pp) < 0)
		return -EFAULT;
	if (pp.buf_kib == 0)
		pp.buf_kib = MC_BUF_KIB_DEFAULT;
	if (pp.buf_kib > MC_BUF_KIB_MAX)
		return -EINVAL;
	if (usec) {
		hz = (1000000 + usec / 2) / usec;
		if (hz == 0)
			return -EINVAL;
	}
	if (mc.on)
		return -EALREADY;
	if ((r = prof_claim_hz(&engine, hz)) < 0)
		return r;               /* released at the end, or if the start fails */
	memset(mc.mods, 0, MC_MOD_FIRST * sizeof mc.mods[0]);
	strlcpy(mc.mods[MC_MOD_KERNEL].name, "kernel", sizeof mc.mods[0].name);
	mc.mods[MC_MOD_KERNEL].syms = symtab_kernel();
	mc.mods[MC_MOD_KERNEL].nsyms = symtab_count(symtab_kernel());
	strlcpy(mc.mods[MC_MOD_UNKNOWN].name, "UNKNOWN", sizeof mc.mods[0].name);
	mc.mods[MC_MOD_UNKNOWN].syms = &symtab_none;
	for (uint32_t i = 0; i < MC_MOD_FIRST; i++)
		mc.mods[i].tag = i | 1u << 16;
	mc.nmods = MC_MOD_FIRST;
	mc.options = options;
	mc.top = pp.top;
	mc.idle = mc.dropped = mc.saturated = 0;
	mc.ticks = 0;
	mc.running = 0;
	if (options & PROFILE_BUFFER && !(options & PROFILE_KCALL)) {
		mc.bufpages = ROUNDUP(pp.buf_kib * 1024, PGSIZE) / PGSIZE;
		if (!(mc.buf = kalloc_contig(mc.bufpages))) {
			prof_release_hz(&engine);
			return -ENOMEM;
		}
		mc.pos = mc.buf;
		mc.end = mc.buf + mc.bufpages * PGSIZE / sizeof *mc.buf;
	} else {
		module_hits(&mc.mods[MC_MOD_KERNEL]);
		mc.pos = mc.end = NULL;
	}
	if (options & PROFILE_KCALL && (r = mc_kcall_start()) < 0) {
		if (mc.buf)
			kfree_contig(mc.buf, mc.bufpages);
		mc.buf = NULL;
		mc_free_hits();
		prof_release_hz(&engine);
		return r;
	}
	symtab_hold();
	mc.on = true;
	engine.sample = options & PROFILE_BUFFER ? mc_sample : mc_sample_unbuffered;
	/* the processes there are now: their modules (without symbols, which
	 * are loaded only at a spawn while a session is on) */
	for_each_proc(p) {
		struct mc_module *m = module_for(p);
		module_hits(m);
		settag(p, m);
	}
	mc.hz = (clock_hz_mhz() + 500) / 1000;     /* held since the claim */
	set_running(options & PROFILE_STARTPAUSED ? 0 : 1);
	return 0;
}
SYSCALL_ENTRY(SYS_ProfileStart, sys_profile_start, (a[0], a[1], a[2]));

/* ProfileStop(path, n): stops, prints the report and writes it to
 * /tmp/prof/mc.N, whose name goes to path (when not 0). */
static int sys_profile_stop(uint32_t upath, uint32_t n)
{
	struct textbuf t;
	char path[32];
	struct file *f;
	int r;

	if (!mc.on)
		return -ESRCH;
	set_running(0);
	if (!text_begin(&t)) {
		end_session();
		return -ENOMEM;
	}
	r = mc.buf ? mc_resolve() : 0;
	if (r == 0) {
		if (mc.options & PROFILE_KCALL)
			mc_kcall_report(&t);
		else
			mc_tables(&t, mc.top);
	}
	mc.seq++;
	ksnprintf(path, sizeof path, "%s/mc.%u", MC_REPORT_DIR, mc.seq);
	vfs_mkdir(MC_REPORT_DIR);       /* EEXIST is fine */
	if (r == 0 && (r = vfs_open(path, O_WRONLY | O_CREAT | O_TRUNC, &f)) == 0) {
		r = text_write(&t, f);
		file_close(f);
	}
	if (r == 0)
		text_print(&t);
	text_free(&t);
	if (r == 0 && !(mc.options & PROFILE_KCALL)) {        /* -k has no samples */
		char dpath[40];
		ksnprintf(dpath, sizeof dpath, "%s.dump", path);
		r = mc_write_dump(dpath);
	}
	end_session();
	if (r < 0)
		return r;
	if (upath && n && copyout(upath, path, MIN(n, strlen(path) + 1)) < 0)
		return -EFAULT;
	return 0;
}
SYSCALL_ENTRY(SYS_ProfileStop, sys_profile_stop, (a[0], a[1]));

/* /dev/mcprof: the unbuffered tables as they are now, for prof top. The
 * counters are read without stopping them: each once, into the copy the
 * tables are made from. */
static void mcprof_text(struct textbuf *t)
{
	if (!mc.on)
		text_add(t, "off\n");
	else if (mc.options & (PROFILE_BUFFER | PROFILE_DATATYPES))
		text_add(t, "a buffered or -s/-k session: the tables come at prof off\n");
	else
		mc_tables(t, mc.top);
}

static const struct ctlfile files[] = { { .name = "mcprof", .text = mcprof_text } };
static struct ctldev mcprofdev = { .name = "mcprof", .files = files, .nfiles = NELEM(files) };

void mc_init(void)
{
	prof_register(&engine);
	prof_register(&objcall);
	mc_kcall_init();
	ctldev_register(&mcprofdev);
}
