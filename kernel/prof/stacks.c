/* The stack engine: on every tick, the whole call stack of the interrupted
 * code, by frame pointers from the sample's frame (prof_frame): the
 * kernel's frames, and when the kernel was working for a process (a system
 * call, a fault), that process's user frames after them, from the frame of
 * the trap that entered the kernel, so that a stack crosses the boundary
 * as perf shows it; in user mode the user frames; in the idle loop one
 * "idle" frame. The walks never fault (arch's, over the page tables) and
 * stop at `depth` frames; a walk that ends on a bad chain marks the stack
 * truncated, and the sample is kept.
 *
 * Identical stacks (pid, mode, frames) are one entry of a table allocated
 * at start, with a count, as bpftrace's profile probe keeps its stack
 * maps: memory goes with the distinct stacks, not the samples. A new stack
 * that finds the table full is dropped and counted; the others still
 * count. Each entry keeps the word at the leaf's stack pointer: a tick in
 * a prologue or epilogue has the caller's return address there, which the
 * host tool uses to repair the stack. The formats are in abi/stacks.h. */
#include "abi/dump.h"
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "abi/stacks.h"
#include "buildid.h"
#include "clock.h"
#include "ctl.h"
#include "ctldev.h"
#include "elf.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/prof.h"

/* one table entry: a stack and its count; frames[] holds depth words */
struct entry {
	uint32_t hash, count, pid, flags, ret, ret1;
	uint8_t nk, nu, used, prog;     /* prog: the program's index in progs[] + 1 */
	uint32_t frames[];
};

/* the programs the stacks came from, for the dump's module table */
#define MAXPROGS 64
struct prog {
	char name[16];
	uint8_t id[BUILDID_MAX];
	uint8_t idlen;
};

enum { BOTH, KERNEL_ONLY, USER_ONLY };

static struct {
	bool on;
	uint32_t depth, table_kib;
	int pid;                /* follow this process and its children; 0: all */
	int mode;
	uint8_t *table;         /* nslots entries of slotsize bytes */
	uint32_t npages, nslots, slotsize, used;
	uint32_t samples, dropped, truncated;
	struct prog progs[MAXPROGS];
	uint32_t nprogs;
	uint8_t progof[NPROC];  /* each process slot's program + 1; 0: none yet */
	bool followed[NPROC];
} st = { .depth = STK_DEPTH_DEFAULT, .table_kib = STK_TABLE_KIB_DEFAULT };

static struct prof_engine engine;

static struct entry *slot(uint32_t i)
{
	return (struct entry *)(st.table + i * st.slotsize);
}

static uint32_t hash(const uint32_t *f, uint32_t n, uint32_t pid, uint32_t flags)
{
	uint32_t h = 2166136261u ^ pid ^ flags << 24;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ f[i]) * 16777619u;
	return h;
}

static inline bool same_frames(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Counts the stack: its entry, found or made, or the drop. */
static inline __attribute__((always_inline)) void count(const uint32_t *f, uint32_t nk, uint32_t nu, uint32_t pid, uint32_t flags,
		  const uint32_t ret[2], uint32_t prog, uint32_t w)
{
	uint32_t n = nk + nu, h = hash(f, n, pid, flags), i = h % st.nslots;

	for (uint32_t probe = 0; probe < 32; probe++, i = (i + 1) % st.nslots) {
		struct entry *e = slot(i);

		if (!e->used) {
			if (st.used * 8 >= st.nslots * 7)
				break;          /* full enough: probes would grow long */
			*e = (struct entry){ h, 0, pid, flags, ret[0], ret[1], (uint8_t)nk, (uint8_t)nu,
					     1, (uint8_t)prog };
			memcpy(e->frames, f, 4 * n);
			st.used++;
		} else if (e->hash != h || e->pid != pid || e->flags != flags || e->nk != nk ||
			   e->nu != nu || !same_frames(e->frames, f, n)) {
			continue;
		}
		prof_add_sat(&e->count, w, &st.dropped);
		return;
	}
	st.dropped += w;
}

/* the word at a stack pointer, a user one through p's page table; 0 if
 * there is none */
static uint32_t word_at(struct proc *p, uint32_t sp, bool user)
{
	uint32_t w;

	if (!user)
		return sp % 4 == 0 && sp > PGSIZE && sp < KERN_TOP - 4 ? *(uint32_t *)sp : 0;
	return arch_user_word(p->pgdir, sp, &w) ? w : 0;
}

static uint32_t prog_of(struct proc *p, const struct elf_image *img)
{
	uint32_t i = p - procs;

	struct prog g = { 0 };
	int n;

	if (st.progof[i])
		return st.progof[i];
	n = img ? elf_find_note(img, "GNU", NT_GNU_BUILD_ID, g.id, sizeof g.id) : -1;
	strlcpy(g.name, p->name, sizeof g.name);
	g.idlen = n == (int)sizeof g.id ? n : 0;
	/* one module per program: a second run of it is the same module */
	for (uint32_t k = 0; k < st.nprogs; k++)
		if (!strcmp(st.progs[k].name, g.name) && st.progs[k].idlen == g.idlen &&
		    !memcmp(st.progs[k].id, g.id, g.idlen))
			return st.progof[i] = (uint8_t)(k + 1);
	if (st.nprogs == MAXPROGS)
		return 0;
	st.progs[st.nprogs] = g;
	return st.progof[i] = (uint8_t)++st.nprogs;
}

__attribute__((noinline))
static void ARCH_FASTCALL st_sample(uint32_t pc, struct proc *p, uint32_t flags)
{
	struct trapframe *tf = prof_frame();
	uint32_t f[STK_DEPTH_MAX], nk = 0, nu = 0, fl = 0, ret[2] = { 0, 0 }, w = prof_weight(flags);
	bool whole;

	if (p && st.pid && !st.followed[p - procs])
		return;
	if (!p && st.pid)
		return;                 /* following one process: its ticks only */
	st.samples += w;
	if (!p) {
		count(NULL, 0, 0, 0, STK_IDLE, ret, 0, w);
		return;
	}
	if (!prof_user(flags)) {
		if (st.mode != USER_ONLY) {
			f[0] = pc;
			nk = 1 + arch_stack_walk_kernel_end(arch_frame_fp(tf), f + 1, st.depth - 1, &whole);
			if (!whole)
				fl |= STK_KTRUNC;
			ret[0] = word_at(p, arch_frame_sp(tf), false);
			ret[1] = word_at(p, arch_frame_sp(tf) + 4, false);
		}
		tf = p->tf;             /* the user side, from where it entered */
	} else {
		fl |= STK_USER_LEAF;
		ret[0] = word_at(p, arch_frame_sp(tf), true);
		ret[1] = word_at(p, arch_frame_sp(tf) + 4, true);
	}
	if (st.mode != KERNEL_ONLY && nk < st.depth) {
		f[nk] = arch_frame_pc(tf);
		nu = 1 + arch_stack_walk_user_end(p->pgdir, arch_frame_fp(tf), f + nk + 1,
						  st.depth - nk - 1, &whole);
		if (!whole)
			fl |= STK_UTRUNC;
	} else if (st.mode != KERNEL_ONLY) {
		fl |= STK_UTRUNC;       /* no room left for the user's frames */
	}
	if (fl & (STK_KTRUNC | STK_UTRUNC))
		st.truncated += w;
	count(f, nk, nu, p->pid, fl, ret, st.progof[p - procs], w);
}

static void st_spawn(struct proc *p, const struct elf_image *img)
{
	struct proc *parent = curproc();
	uint32_t i = p - procs;

	st.progof[i] = 0;
	st.followed[i] = !st.pid || (parent && st.followed[parent - procs]);
	if (st.on)
		prog_of(p, img);
}

static void st_exit(struct proc *p)
{
	st.followed[p - procs] = false;
}

static struct prof_engine engine = {
	.name = "stacks", .sample = st_sample, .spawn = st_spawn, .exit = st_exit,
};

static void st_clear(void)
{
	uint32_t s = splhi();

	if (st.table)
		memset(st.table, 0, st.npages * PGSIZE);
	st.used = st.samples = st.dropped = st.truncated = 0;
	splx(s);
}

static void st_free(void)
{
	if (st.table)
		kfree_contig(st.table, st.npages);
	st.table = NULL;
	st.nprogs = 0;
	memset(st.progof, 0, sizeof st.progof);
}

static int st_start(void)
{
	if (st.on)
		return 0;
	if (!st.table) {
		st.slotsize = ROUNDUP(sizeof(struct entry) + 4 * st.depth, 4);
		st.npages = ROUNDUP(st.table_kib * 1024, PGSIZE) / PGSIZE;
		if (!(st.table = kalloc_contig(st.npages)))
			return -ENOMEM;
		st.nslots = st.npages * PGSIZE / st.slotsize;
		st_clear();
	}
	/* the processes there are now: their programs, without build-ids */
	for (int i = 0; i < NPROC; i++)
		if (procs[i].state != P_UNUSED && procs[i].state != P_EMBRYO) {
			prog_of(&procs[i], NULL);
			if (!st.pid)
				st.followed[i] = true;
		}
	st.on = true;
	prof_set_hold(&engine, true);
	prof_set_sampling(&engine, true);
	return 0;
}

static void st_stop(void)
{
	prof_set_sampling(&engine, false);
	prof_set_hold(&engine, false);
	st.on = false;
}

static int st_ctl(const char *buf, uint32_t n)
{
	struct ctlmsg m;
	uint32_t v;
	int r;

	if ((r = ctl_parse(buf, n, STK_CTL_MAXLEN, &m)) < 0)
		return r;
	if (ctl_cmd(&m, "start", 0))
		return st_start();
	if (ctl_cmd(&m, "stop", 0)) {
		st_stop();
		return 0;
	}
	if (ctl_cmd(&m, "clear", 0)) {
		st_clear();
		return 0;
	}
	/* what changes the table's shape or what is followed: only while off */
	if (st.on)
		return -EBUSY;
	if (ctl_cmd(&m, "depth", 1) && ctl_uint(&m, 1, &v)) {
		if (v < 1 || v > STK_DEPTH_MAX)
			return -EINVAL;
		st_free();
		st.depth = v;
		return 0;
	}
	if (ctl_cmd(&m, "table", 1) && ctl_uint(&m, 1, &v)) {
		if (v < 4 || v > STK_TABLE_KIB_MAX)
			return -EINVAL;
		st_free();
		st.table_kib = v;
		return 0;
	}
	if (ctl_cmd(&m, "pid", 1) && ctl_uint(&m, 1, &v)) {
		struct proc *p = v && v < 0x7FFFFFFF ? proc_lookup((int)v) : NULL;
		if (v && !p)
			return -ESRCH;
		st.pid = (int)v;
		for (int i = 0; i < NPROC; i++)
			st.followed[i] = !v || &procs[i] == p;
		return 0;
	}
	if (ctl_cmd(&m, "kernel", 0) || ctl_cmd(&m, "user", 0) || ctl_cmd(&m, "both", 0)) {
		st.mode = ctl_is(&m, 0, "kernel") ? KERNEL_ONLY : ctl_is(&m, 0, "user") ? USER_ONLY : BOTH;
		return 0;
	}
	return -EINVAL;
}

/* ---- the dump ---- */

static int put(struct file *f, uint32_t *off, const void *p, uint32_t n)
{
	int r = snap_write(f, *off, p, n);

	*off += n;
	return r;
}

static int module(struct file *f, uint32_t *off, const char *path, const uint8_t *id, uint32_t idlen)
{
	static const uint8_t zero[DUMP_ALIGN];
	uint32_t plen = strlen(path), len = sizeof(struct dump_module) + idlen + plen;
	struct dump_module m = { .load = 0, .build_id_len = idlen, .path_len = plen };

	if (put(f, off, &m, sizeof m) < 0 || put(f, off, id, idlen) < 0 || put(f, off, path, plen) < 0)
		return -ENOMEM;
	return put(f, off, zero, (DUMP_ALIGN - len % DUMP_ALIGN) % DUMP_ALIGN);
}

/* The snapshot. Sampling goes on meanwhile: each entry is copied with
 * interrupts off, so it is whole, and the count of records is written
 * last, from what was copied. */
static int st_open(struct file *f)
{
	struct dump_header h = { .version = DUMP_VERSION, .engine = DUMP_ENGINE_STACKS,
				 .rate_mhz = clock_hz_mhz(), .nmodules = 1 + st.nprogs };
	struct stk_dump d = { .depth = st.depth, .samples = st.samples, .dropped = st.dropped,
			      .truncated = st.truncated };
	const uint8_t *kid = NULL;
	uint32_t kidlen = kernel_build_id_bytes(&kid), off = 0, doff, x;
	uint32_t copy[sizeof(struct stk_rec) / 4 + STK_DEPTH_MAX];
	char path[32];
	int r;

	if ((r = snap_open(f, NULL, 0)) < 0)
		return r;
	memcpy(h.magic, DUMP_MAGIC, DUMP_MAGIC_LEN);
	h.size = sizeof h + ROUNDUP(sizeof(struct dump_module) + kidlen + strlen(DUMP_PATH_KERNEL),
				    DUMP_ALIGN);
	for (uint32_t i = 0; i < st.nprogs; i++)
		h.size += ROUNDUP(sizeof(struct dump_module) + st.progs[i].idlen + 5 +
				  strlen(st.progs[i].name), DUMP_ALIGN);
	r = put(f, &off, &h, sizeof h);
	r |= module(f, &off, DUMP_PATH_KERNEL, kid, kidlen);
	for (uint32_t i = 0; i < st.nprogs; i++) {
		ksnprintf(path, sizeof path, "/bin/%s", st.progs[i].name);
		r |= module(f, &off, path, st.progs[i].id, st.progs[i].idlen);
	}
	doff = off;
	r |= put(f, &off, &d, sizeof d);
	for (uint32_t i = 0; st.table && i < st.nslots && r == 0; i++) {
		struct entry *e = slot(i);
		struct stk_rec *rec = (struct stk_rec *)copy;
		uint32_t n;

		x = splhi();
		n = e->used && e->count ? e->nk + e->nu : 0;
		if (n || (e->used && e->count)) {
			*rec = (struct stk_rec){ e->count, e->pid, e->prog ? e->prog : 0xFFFF, e->nk,
						 e->nu, e->flags, e->ret, e->ret1 };
			memcpy(rec + 1, e->frames, 4 * n);
		}
		splx(x);
		if (!e->used || !rec->count || (!n && !(e->flags & STK_IDLE)))
			continue;
		r |= put(f, &off, copy, sizeof *rec + 4 * n);
		d.nrecs++;
		rec->count = 0;
	}
	r |= snap_write(f, doff, &d, sizeof d);
	if (r < 0) {
		snap_close(f);
		return -ENOMEM;
	}
	return 0;
}

static const struct ctlfile files[] = {
	{ .name = "stackctl", .ctl = st_ctl },
	{ .name = "stacks", .open = st_open, .align = 0 },
};
static struct ctldev stackdev = { .name = "stacks", .files = files, .nfiles = NELEM(files) };

void stacks_init(void)
{
	prof_register(&engine);
	ctldev_register(&stackdev);
}
