/* The stack engine: on every tick, the whole call stack of the interrupted
 * code, by frame pointers from the sample's frame (s->tf): the
 * kernel's frames, and when the kernel was working for a process (a system
 * call, a fault), that process's user frames after them, from the frame of
 * the trap that entered the kernel, so that a stack crosses the boundary
 * as perf shows it; in user mode the user frames; in the idle loop one
 * "idle" frame. The kernel walk reads only kernel stack; the user walk
 * (arch_user_chain) loads each word through the fault fixup table, so a
 * load that faults on an unmapped page ends the walk instead of the
 * kernel. Walks stop at `depth` frames; a walk that ends on a bad chain
 * marks the stack truncated, and the sample is kept.
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
#include "prof/unwind.h"

/* A sample is built in a buffer of words, in the order a table entry
 * keeps them: the two words at the leaf's stack pointer (not part of the
 * key), then the key, what makes two stacks the same, compared as words:
 * the pid, the meta word (flags, nk, nu and the program, packed by
 * meta()) and the frames, kernel ones first. A slot whose meta word is 0
 * is empty: every stack has a frame or the idle flag. */
#define W_RET     0
#define W_PID     2                     /* the key starts here */
#define W_META    3
#define W_FRAMES  4

struct entry {
	uint32_t hash, count;
	uint32_t w[];                   /* W_FRAMES + depth words */
};

static inline uint32_t meta(uint32_t flags, uint32_t nk, uint32_t nu, uint32_t prog)
{
	return flags | nk << 8 | nu << 16 | prog << 24;
}

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
	bool frames_only;       /* "unwind off": frame pointers even where a table is */
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

/* The stack's hash: the walks add up its frames as they read them, one
 * instruction a frame (a sum, unlike a chained hash, also drops a frame
 * read past the depth in one subtraction); the pid and the meta word are
 * mixed in at the end, and the multiply carries every bit of them into
 * the high bits, which choose the slot. Two stacks with the same sum
 * share a slot's neighbourhood; the full comparison tells them apart. */
static inline uint32_t hash(uint32_t sum, uint32_t pid, uint32_t meta)
{
	return ((sum ^ pid * 0x9E3779B1u) + meta) * 0x85EBCA77u;
}

/* Counts the sample in buf, whose key is nkey words: its entry, found or
 * made, or the drop. The slot is the hash scaled to the table (a
 * multiply, no division); collisions probe the next slots, at most 32. */
static inline __attribute__((always_inline)) void count(const uint32_t *buf, uint32_t nkey, uint32_t h,
							 uint32_t w)
{
	for_each_probe(i, h, st.nslots, 32) {
		struct entry *e = slot(i);

		if (e->hash == h && arch_words_equal(e->w + W_PID, buf + W_PID, nkey)) {
			prof_add_sat(&e->count, w, &st.dropped);
			return;
		}
		if (!e->w[W_META]) {
			if (st.used * 8 >= st.nslots * 7)
				break;          /* full enough: probes would grow long */
			e->hash = h;
			e->count = w;
			memcpy(e->w, buf, 4 * (W_PID + nkey));
			st.used++;
			return;
		}
	}
	st.dropped += w;
}

/* the word at a kernel stack pointer; 0 if there is none */
static uint32_t kernel_word(uint32_t sp)
{
	return sp % 4 == 0 && sp >= KERNBASE && sp < KERN_TOP - 4 ? *(uint32_t *)sp : 0;
}

/* p's program's module of the dump (1 up; 0: the table is full), from
 * its program record */
static uint32_t prog_of(struct proc *p)
{
	const struct prof_program *pr = &p->prof.prog;
	uint32_t i = p - procs;
	struct prog g = { 0 };

	if (st.progof[i])
		return st.progof[i];
	strlcpy(g.name, pr->name, sizeof g.name);
	g.idlen = pr->idlen;
	memcpy(g.id, pr->build_id, g.idlen);
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

/* Where a user walk starts: the user's pc, stack pointer and frame
 * pointer at the tick, or where the kernel was entered */
struct uregs {
	uint32_t pc, sp, fp;
};

/* The user's frames through p's unwind table t (include/unwtab.h), from
 * r into f: at each frame the rule of its pc (a return address's call,
 * the byte before it, past the leaf) says where the CFA is, the return
 * address at CFA - 4 and the caller's ebp, if the function saved it;
 * where no CFI covers the pc, the frame pointer does (CFA = ebp + 8, the
 * caller's ebp at ebp); gcc's realigning main() keeps both in its frame
 * (UNW_DEREF). The stack pointer must climb at every frame and
 * every load stays in user space, through the fault fixup, so garbage
 * ends the walk instead of the kernel, and a return address outside the
 * code the table covers ends it without becoming a frame. Sets
 * STK_UTRUNC in *fl when the walk could not reach the outermost frame (_start's, whose return
 * address the CFI calls undefined, or a null frame pointer); returns the
 * number of frames, at most max, their sum added to *h. */
static inline __attribute__((always_inline)) uint32_t
table_walk(struct unw_table *t, struct uregs r, uint32_t *f, uint32_t max, uint32_t *h, uint32_t *fl)
{
	uint32_t *o = f, *end = f + max, sp = r.sp, fp = r.fp, pc = r.pc, sum = *h;
	/* the leaf's rule is its pc's, the interrupted instruction's; a
	 * return address's is its call's, the byte before it */
	struct unw_rule ru = unw_lookup(t, pc);

	for (;;) {
		uint32_t cfa;
		int32_t at = ru.ebp;

		if (o == end) {
			if (ru.how != UNW_END && !(ru.how == UNW_NONE && fp == 0))
				*fl |= STK_UTRUNC;      /* more frames than the depth */
			break;
		}
		*o++ = pc;
		sum += pc;
		if (__builtin_expect(ru.how == UNW_ESP, 1)) {
			cfa = sp + ru.off;
		} else if (ru.how == UNW_EBP) {
			cfa = fp + ru.off;
		} else if (ru.how == UNW_NONE && o > f + 1 && arch_signal_unwind(pc, sp, &pc, &sp, &fp)) {
			/* pc was a sigreturn trampoline (a frame of its own, as
			 * perf shows __restore_rt): on with the code the signal
			 * interrupted, from its registers in the frame; its
			 * pc is the interrupted instruction, not a return. The
			 * trampoline is recorded a byte in: every tool names a
			 * caller's frame by the byte before it (its call), and
			 * no call precedes a trampoline */
			o[-1]++;
			sum++;
			ru = unw_lookup(t, pc);
			continue;
		} else if (ru.how == UNW_NONE && fp >= sp) {
			cfa = fp + 8;                   /* a frame-pointer frame */
			at = -2;
		} else if (ru.how == UNW_DEREF) {
			/* realigning main: the CFA and the caller's ebp in
			 * its frame, within 512 bytes of ebp */
			if (fp - (USER_BASE + 512) > USER_TOP - 1024 - USER_BASE ||
			    !arch_user_load32((const uint32_t *)(fp + ru.off), &cfa) ||
			    !arch_user_load32((const uint32_t *)(fp + 4 * at), &fp)) {
				*fl |= STK_UTRUNC;
				break;
			}
			at = 0;
		} else {
			if (ru.how != UNW_END && !(ru.how == UNW_NONE && fp == 0))
				*fl |= STK_UTRUNC;      /* CFI not kept, or no frame */
			break;
		}
		/* climbing, and the words at CFA - 4 * 128 .. CFA - 4 in user
		 * space; then a return into the program's code, or the CFI is
		 * wrong here (glibc's i386 memcpy pushes a register and does
		 * not say so), or the stack is being torn down */
		if (cfa <= sp || cfa - (USER_BASE + 512) > USER_TOP - 4 - (USER_BASE + 512) ||
		    !arch_user_load32((const uint32_t *)(cfa - 4), &pc) ||
		    (at && !arch_user_load32((const uint32_t *)(cfa + 4 * at), &fp)) ||
		    pc - t->lo >= t->span) {
			*fl |= STK_UTRUNC;
			break;
		}
		sp = cfa;
		ru = unw_lookup(t, pc - 1);
	}
	*h = sum;
	return o - f;
}

/* The user's side of a sample: frames from r into f (max of them, and
 * room for one more, which the chain may read past the depth), their sum
 * added to *h; sets STK_UTRUNC in *fl when the chain was cut. A program
 * with an unwind table is walked through it, one without by its frame
 * pointers, two frames a turn (arch_user_chain). */
static inline __attribute__((always_inline)) uint32_t user_side(struct proc *p, struct uregs r,
								 uint32_t *f, uint32_t max, uint32_t *h,
								 uint32_t *fl)
{
	uint32_t fp = r.fp, sum = *h + r.pc, bits = 0, *o;
	struct unw_table *t = st.frames_only ? NULL : p->prof.prog.unw;
	bool whole, loaded = p->pgdir == arch_loaded_pgdir();
	int n = -1;

	if (max == 0) {
		*fl |= STK_UTRUNC;      /* no room left for the user's frames */
		return 0;
	}
	if (t && loaded && r.sp - USER_BASE <= USER_TOP - 8 - USER_BASE) {
		*fl |= STK_UNWOUND;
		return table_walk(t, r, f, max, h, fl);
	}
	f[0] = r.pc;
	if (loaded && fp - USER_BASE <= USER_TOP - 8 - USER_BASE) {
		o = arch_user_chain(fp, f + 1, f + max, &sum, &bits, &whole);
		n = bits % 4 ? -1 : o - (f + 1);        /* misaligned somewhere: -1 */
	}
	if (n < 0) {                    /* not loaded, or misaligned: the checked walk */
		sum = *h + f[0];
		n = arch_stack_walk_user_end(p->pgdir, fp, f + 1, max - 1, &whole);
		for (int i = 1; i <= n; i++)
			sum += f[i];
	}
	*h = sum;
	if (!whole)
		*fl |= STK_UTRUNC;
	return 1 + n;
}

/* Ends a sample of p: the key's pid and meta word, the truncation's count,
 * the hash over both, and the count. */
static inline __attribute__((always_inline)) void finish(uint32_t *buf, struct proc *p, uint32_t fl, uint32_t nk,
							  uint32_t nu, uint32_t h, uint32_t w)
{
	if (fl & (STK_KTRUNC | STK_UTRUNC))
		st.truncated += w;
	buf[W_PID] = p->pid;
	buf[W_META] = meta(fl, nk, nu, st.progof[p - procs]);
	count(buf, W_FRAMES - W_PID + nk + nu, hash(h, buf[W_PID], buf[W_META]), w);
}

/* a tick in user mode: the user's frames, from the interrupted frame */
__attribute__((noinline))
static void ARCH_FASTCALL user_sample(struct proc *p, const struct trapframe *tf, uint32_t w)
{
	uint32_t buf[W_FRAMES + STK_DEPTH_MAX + 1], fl = STK_USER_LEAF, nu = 0, h = 0;
	uint32_t sp = arch_frame_sp(tf);

	buf[W_RET] = buf[W_RET + 1] = 0;
	/* the words a repair needs; a table's walk is exact at every
	 * instruction, and needs none */
	if ((st.frames_only || !p->prof.prog.unw) && sp - USER_BASE <= USER_TOP - 8 - USER_BASE &&
	    arch_user_load32((const uint32_t *)sp, &buf[W_RET]))
		arch_user_load32((const uint32_t *)sp + 1, &buf[W_RET + 1]);
	if (st.mode != KERNEL_ONLY)
		nu = user_side(p, (struct uregs){ arch_frame_pc(tf), sp, arch_frame_fp(tf) },
			       buf + W_FRAMES, st.depth, &h, &fl);
	finish(buf, p, fl, 0, nu, h, w);
}

/* a tick in the kernel, working for p: the kernel's frames from the
 * interrupted frame, then p's from the frame of the trap that entered it */
__attribute__((noinline))
static void ARCH_FASTCALL kernel_sample(const struct prof_sample *s, uint32_t w)
{
	const struct trapframe *tf = s->tf;
	struct proc *p = s->p;
	uint32_t buf[W_FRAMES + STK_DEPTH_MAX + 1], *f = buf + W_FRAMES, fl = 0, nk = 0, nu = 0;
	uint32_t h = 0;
	bool whole;

	buf[W_RET] = buf[W_RET + 1] = 0;
	if (st.mode != USER_ONLY) {
		f[0] = s->pc;
		nk = 1 + arch_stack_walk_kernel_end(arch_frame_fp(tf), f + 1, st.depth - 1, &whole);
		if (!whole)
			fl |= STK_KTRUNC;
		for (uint32_t i = 0; i < nk; i++)
			h += f[i];
		buf[W_RET] = kernel_word(arch_frame_sp(tf));
		buf[W_RET + 1] = kernel_word(arch_frame_sp(tf) + 4);
	}
	if (st.mode != KERNEL_ONLY && !p->prof.exited) {
		/* where the kernel was entered (an exiting process has
		 * no user stack left to walk); in the gate's stubs the user's
		 * ebp is in the register, not yet or no longer in the frame */
		struct uregs r = { arch_frame_pc(p->tf), arch_frame_sp(p->tf), arch_frame_fp(p->tf) };

		if (arch_user_regs_live(tf, p->tf))
			r.fp = arch_frame_fp(tf);
		nu = user_side(p, r, f + nk, st.depth - nk, &h, &fl);
	}
	finish(buf, p, fl, nk, nu, h, w);
}

static void ARCH_FASTCALL st_sample(const struct prof_sample *s)
{
	struct proc *p = s->p;
	uint32_t flags = s->flags, w = prof_weight(flags);

	if (st.pid && (!p || !st.followed[p - procs]))
		return;                 /* following one process: its ticks only */
	st.samples += w;
	if (p && prof_user(flags)) {
		user_sample(p, s->tf, w);
	} else if (p) {
		kernel_sample(s, w);
	} else {                        /* the idle loop: one frame */
		uint32_t buf[W_FRAMES] = { 0, 0, 0, meta(STK_IDLE, 0, 0, 0) };

		count(buf, W_FRAMES - W_PID, hash(0, 0, buf[W_META]), w);
	}
}

static void st_spawn(struct proc *p, const struct elf_image *img)
{
	struct proc *parent = curproc();
	uint32_t i = p - procs;

	(void)img;              /* the program record has what we need */
	st.progof[i] = 0;
	st.followed[i] = !st.pid || (parent && st.followed[parent - procs]);
	if (st.on)
		prog_of(p);
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
		st.slotsize = sizeof(struct entry) + 4 * (W_FRAMES + st.depth);
		st.npages = ROUNDUP(st.table_kib * 1024, PGSIZE) / PGSIZE;
		if (!(st.table = kalloc_contig(st.npages)))
			return -ENOMEM;
		st.nslots = st.npages * PGSIZE / st.slotsize;
		st_clear();
	}
	/* the processes there are now: their programs, without build-ids */
	for_each_proc(p) {
		prog_of(p);
		if (!st.pid)
			st.followed[p - procs] = true;
	}
	st.on = true;
	unwind_hold();                  /* programs spawned from now on get tables */
	prof_set_hold(&engine, true);
	prof_set_sampling(&engine, true);
	return 0;
}

static void st_stop(void)
{
	prof_set_sampling(&engine, false);
	prof_set_hold(&engine, false);
	if (st.on)
		unwind_release();
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
		struct proc *p = proc_lookup(v);
		if (v && !p)
			return -ESRCH;
		st.pid = (int)v;
		for (int i = 0; i < NPROC; i++)
			st.followed[i] = !v || &procs[i] == p;
		return 0;
	}
	if (ctl_cmd(&m, "unwind", 1) && (ctl_is(&m, 1, "on") || ctl_is(&m, 1, "off"))) {
		st.frames_only = ctl_is(&m, 1, "off");
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
	static uint8_t m[DUMP_MODULE_SIZE_MAX];     /* not on the kernel stack */

	return put(f, off, m, dump_module_encode(m, id, idlen, path, strlen(path)));
}

/* The snapshot. Sampling goes on meanwhile: each entry is copied with
 * interrupts off, so it is whole, and the count of records is written
 * last, from what was copied. */
static int st_open(struct file *f)
{
	struct dump_header h;
	struct stk_dump d = { .depth = st.depth, .samples = st.samples, .dropped = st.dropped,
			      .truncated = st.truncated };
	const uint8_t *kid = NULL;
	uint32_t kidlen = kernel_build_id_bytes(&kid), off = 0, doff, x;
	uint32_t copy[sizeof(struct stk_rec) / 4 + STK_DEPTH_MAX];
	char path[32];
	int r;

	if ((r = snap_open(f, NULL, 0)) < 0)
		return r;
	x = dump_module_size(kidlen, strlen(DUMP_PATH_KERNEL));
	for (uint32_t i = 0; i < st.nprogs; i++)
		x += dump_module_size(st.progs[i].idlen, strlen("/bin/") + strlen(st.progs[i].name));
	h = dump_header_make(DUMP_ENGINE_STACKS, clock_hz_mhz(), 1 + st.nprogs, x);
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
		uint32_t n, m;

		x = splhi();
		m = e->count ? e->w[W_META] : 0;
		n = (m >> 8 & 0xFF) + (m >> 16 & 0xFF);
		if (m) {
			*rec = (struct stk_rec){ e->count, e->w[W_PID], m >> 24 ? m >> 24 : 0xFFFF,
						 (uint8_t)(m >> 8), (uint8_t)(m >> 16), m & 0xFF,
						 e->w[W_RET], e->w[W_RET + 1] };
			memcpy(rec + 1, e->w + W_FRAMES, 4 * n);
		}
		splx(x);
		if (!m || (!n && !(m & STK_IDLE)))
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
