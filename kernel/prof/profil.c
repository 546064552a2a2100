/* profil(2): per-process 16-bit PC bins in the program's own buffer, for
 * programs linked for profiling (gcrt0's ELF note), and the gmon file the
 * kernel writes for them at exit. include/abi/gmon.h has the layouts.
 *
 * The bin of a PC is ((pc - offset) / 2) * scale / 65536, each division
 * rounding down (toward offset), for every scale up to 65536 (bin_index).
 * A tick in user mode adds to the bin of the interrupted PC. A tick in the
 * kernel on the process's behalf (a system call, a fault) adds to the bin
 * of the user PC the process will return to, the PC 4.4BSD's addupc_task
 * charges at the return: that PC is already in the process's user frame
 * at the tick, so it is charged there and then, which spares every return
 * to user mode a hook. Always on: a profile adds up to all the time the
 * process ran. A bin stops at 65535; what did not fit is counted, written
 * into the file's header and reported at exit. */
#include "abi/errno.h"
#include "abi/gmon.h"
#include "abi/syscall.h"
#include "clock.h"
#include "elf.h"
#include "file.h"
#include "kalloc.h"
#include "ktest.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/prof.h"
#include "syscall.h"
#include "uaccess.h"

struct pstate {
	/* what the sample reads, first */
	uint32_t offset, span;  /* PCs in [offset, offset + span) have a bin */
	uint32_t mul;           /* scale << 15: see bin_index() */
	uint16_t *bins;         /* the user address of bin 0 */
	uint32_t lost;          /* samples that found their bin full or unmapped */
	/* the rest is the system call's and exit's */
	bool linked;            /* the program has gcrt0's note */
	bool set;               /* a buffer is set */
	uint32_t buf, buflen, samplesize, scale0;
	char dir[PATH_MAX];     /* "" for GMON_PROFDIR */
};

/* A process's slot points at its state while it is sampled (a buffer set,
 * scale not 0) and at nobins otherwise, whose empty span every PC misses:
 * the tick never tests for NULL. */
static struct pstate states[NPROC];
static struct pstate nobins;
static uint32_t nprofiling;     /* processes with a buffer set */
static struct prof_engine profil;

static void lose(struct pstate *s, uint32_t n)
{
	s->lost = s->lost + n < s->lost ? 0xFFFFFFFFu : s->lost + n;
}

/* The bin of the PC at d = pc - offset: ((d / 2) * scale) / 65536, each
 * division rounding down (toward offset). It is computed as the high half
 * of (d rounded down to even) * (scale << 15), which is the same number:
 * (2 * (d / 2)) * scale * 2^15 / 2^32 = (d / 2) * scale / 2^16. That is
 * one 32x32-bit multiply, exact for every d and every scale up to 65536,
 * whose shifted value still fits in 32 bits. */
static inline uint32_t bin_index(uint32_t d, uint32_t mul)
{
	return (uint32_t)(((uint64_t)(d & ~1u) * mul) >> 32);
}

static inline uint32_t mul_of(uint32_t scale)
{
	return scale << 15;
}

/* A tick the fast path leaves: one in kernel mode, or one with merged
 * ticks (weight above 1). A kernel-mode tick is charged to the user PC
 * the process will return to. The kernel may be working on the
 * process's address space (inside sbrk, between unmapping a page and
 * lowering the break; at exit; in a switch), so the bin is reached
 * through the process's own page table, whatever is loaded, and a page
 * not mapped there loses the sample. */
static __attribute__((noinline)) void ARCH_FASTCALL slow_tick(uint32_t pc, struct proc *p, uint32_t flags)
{
	struct pstate *s;
	uint32_t d, v, w = prof_weight(flags);
	uint16_t *b, *k;

	if (!p)
		return;                 /* the idle loop */
	if (!prof_user(flags))
		pc = arch_frame_pc(p->tf);
	s = p->prof.slot[profil.id];
	if ((d = pc - s->offset) >= s->span)
		return;                 /* not sampled, or a PC without a bin */
	b = s->bins + bin_index(d, s->mul);
	if (!(k = arch_user_kptr(p->pgdir, (uint32_t)b))) {
		lose(s, w);
		return;
	}
	if ((v = *k + w) > GMON_BIN_MAX) {
		lose(s, v - GMON_BIN_MAX);      /* a bin stops at its limit */
		v = GMON_BIN_MAX;
	}
	*k = (uint16_t)v;
}

/* The tick: a user-mode tick of weight 1, the usual case, adds 1 to its
 * bin in the process's own buffer through the user address. The process
 * is not in the kernel, so its mappings are what they will be: a bin on a
 * page the program gave back to the kernel since profil() faults, and the
 * fault counts the sample as lost instead (arch_user_inc16). */
__attribute__((optimize("omit-frame-pointer")))      /* it costs every tick */
static void ARCH_FASTCALL profil_sample(const struct prof_sample *sm)
{
	struct pstate *s;
	uint32_t d;

	if (__builtin_expect(sm->flags != 1, 0)) {
		slow_tick(sm->pc, sm->p, sm->flags);    /* kernel mode, or merged ticks */
		return;
	}
	s = sm->p->prof.slot[profil.id];
	if ((d = sm->pc - s->offset) >= s->span)
		return;
	arch_user_inc16(s->bins + bin_index(d, s->mul), &s->lost);
}

/* Only a program with gcrt0's note may call profil(); the others get EPERM. */
static void profil_spawn(struct proc *p, const struct elf_image *img)
{
	struct pstate *s = &states[p - procs];
	uint8_t desc[4];

	memset(s, 0, sizeof *s);
	p->prof.slot[profil.id] = &nobins;
	s->linked = elf_find_note(img, GMON_NOTE_OWNER, GMON_NOTE_TYPE, desc, sizeof desc) >= 0;
}

/* the bytes from offset that have a bin: d < 2 * ceil(nbins * 65536 / scale) */
static uint32_t span_of(uint32_t nbins, uint32_t scale)
{
	uint64_t half = ((uint64_t)nbins * GMON_SCALE_ONE + scale - 1) / scale;
	return half >= 0x80000000u ? 0xFFFFFFFFu : (uint32_t)(2 * half);
}

/* The file's header, the kernel's own: from profil's arguments and the
 * clock, never read back from the buffer (see include/abi/gmon.h). */
static void header(const struct pstate *s, struct gmonhdr *h)
{
	*h = (struct gmonhdr){
		.lpc = s->offset, .hpc = s->offset + s->span,
		.ncnt = sizeof *h + s->samplesize, .version = GMON_VERSION_BSD44,
		.profrate = (clock_hz_mhz() + 500) / 1000, .lost_bins = s->lost,
	};
	if (h->hpc < h->lpc)
		h->hpc = 0xFFFFFFFFu;   /* the bins reach past the top */
}

/* profil(buf, buflen, samplesize, offset, scale, dirfd) */
static int sys_profil(uint32_t buf, uint32_t buflen, uint32_t samplesize, uint32_t offset,
	       uint32_t scale, int dirfd)
{
	struct proc *p = curproc();
	struct pstate *s = &states[p - procs];
	int r;
	char dir[PATH_MAX] = "";
	struct gmonhdr h;
	uint32_t x;

	if (!s->linked)
		return -EPERM;
	if (dirfd != -1) {
		struct file *f = dirfd >= 0 && dirfd < NOFILE ? p->ofile[dirfd] : NULL;
		if (!f)
			return -EBADF;
		if (f->vn->type != S_IFDIR)
			return -ENOTDIR;
		if ((r = tmpfs_dirpath(f->vn, dir, sizeof dir)) < 0)
			return r;
	}
	if (scale > GMON_SCALE_ONE)
		return -EINVAL;
	/* room for the header, the bins and an arc table with one slot */
	if (samplesize == 0 || samplesize % 2 || buf % 4 || samplesize > buflen ||
	    buflen - samplesize < GMON_ARCTAB_OFF(0) + 3 + sizeof(struct gmon_arctab) +
				  sizeof(struct gmon_arc))
		return -EINVAL;
	if (!uvalid(buf, buflen))
		return -EFAULT;
	if (s->set && (buf != s->buf || buflen != s->buflen || samplesize != s->samplesize ||
		       offset != s->offset || (scale && scale != s->scale0)))
		return -EALREADY;
	if (!s->set && scale) {
		s->buf = buf, s->buflen = buflen, s->samplesize = samplesize;
		s->offset = offset, s->scale0 = scale;
		s->bins = (uint16_t *)(buf + sizeof h);
		s->span = span_of(samplesize / 2, scale);
		/* the program may read what its file's header will say */
		header(s, &h);
		if (copyout(buf, &h, sizeof h) < 0)
			return -EFAULT;
		s->set = true;
		if (nprofiling++ == 0) {
			prof_set_hold(&profil, true);
			prof_set_sampling(&profil, true);
		}
	}
	/* nothing has failed: only now may the call change what it names */
	if (dir[0])
		strlcpy(s->dir, dir, sizeof s->dir);
	if (!s->set)
		return 0;               /* scale 0 and no buffer: nothing to turn off */
	x = splhi();
	s->offset = offset;
	s->mul = mul_of(scale);
	p->prof.slot[profil.id] = scale ? s : &nobins;
	splx(x);
	return 0;
}
SYSCALL_ENTRY(SYS_profil, sys_profil, (a[0], a[1], a[2], a[3], a[4], (int)a[5]));

/* Writes the header, the bins and the arcs in use; 0 or -errno. The
 * buffer is read through copyin: whatever the program did to it, a bad
 * page reads as an error, never a kernel fault. */
static int write_gmon(struct pstate *s, struct file *f, struct gmonhdr *h, uint8_t *page)
{
	uint32_t bins = s->buf + sizeof *h, tab = s->buf + GMON_ARCTAB_OFF(s->samplesize);
	uint32_t nslots = (s->buflen - GMON_ARCTAB_OFF(s->samplesize) -
			   sizeof(struct gmon_arctab)) / sizeof(struct gmon_arc);
	uint32_t per = PGSIZE / sizeof(struct gmon_arc);
	struct gmon_arctab t;
	int r;

	if (copyin(&t, tab, sizeof t) == 0)
		h->lost_arcs = t.overflow;
	if ((r = file_write(f, h, sizeof *h)) < 0)
		return r;
	for (uint32_t off = 0; off < s->samplesize; off += PGSIZE) {
		uint32_t n = MIN(PGSIZE, s->samplesize - off);
		if (copyin(page, bins + off, n) < 0)
			memset(page, 0, n);     /* the program unmapped them */
		if ((r = file_write(f, page, n)) < 0)
			return r;
	}
	tab += sizeof t;
	for (uint32_t i = 0; i < nslots; i += per) {
		uint32_t n = MIN(per, nslots - i), used = 0;
		struct gmon_arc *a = (struct gmon_arc *)page;
		if (copyin(page, tab + i * sizeof *a, n * sizeof *a) < 0)
			break;          /* given back: the file ends with the arcs so far */
		for (uint32_t k = 0; k < n; k++)
			if (a[k].count)
				a[used++] = a[k];
		if (used && (r = file_write(f, page, used * sizeof *a)) < 0)
			return r;
	}
	return 0;
}

/* At every exit, normal, killed or faulted: the process's memory is still
 * there, so the file holds what was counted up to the end. */
static void profil_exit(struct proc *p)
{
	struct pstate *s = &states[p - procs];
	char path[PATH_MAX];
	struct gmonhdr h;
	struct file *f = NULL;
	uint8_t *page = NULL;
	uint32_t x;
	int r;

	if (!s->set)
		return;
	x = splhi();
	p->prof.slot[profil.id] = &nobins;
	splx(x);
	if (--nprofiling == 0) {
		prof_set_sampling(&profil, false);
		prof_set_hold(&profil, false);
	}
	header(s, &h);
	if (!s->dir[0])
		vfs_mkdir(GMON_PROFDIR);        /* EEXIST is fine */
	if (ksnprintf(path, sizeof path, "%s/gmon.%s.%d.out", s->dir[0] ? s->dir : GMON_PROFDIR,
		      p->name, p->pid) >= (int)sizeof path)
		r = -ENAMETOOLONG;
	else if (!(page = kalloc()))
		r = -ENOMEM;
	else if ((r = vfs_open(path, O_WRONLY | O_CREAT | O_TRUNC, &f)) == 0)
		r = write_gmon(s, f, &h, page);
	if (f)
		file_close(f);
	if (page)
		kfree(page);
	if (r < 0)
		kprintf("profil: pid %d (%s): %s not written (error %d)\n", p->pid, p->name, path, -r);
	if (h.lost_bins || h.lost_arcs)
		kprintf("profil: pid %d (%s): %u samples lost (full bins, or given back), "
			"%u calls (full arc table)\n",
			p->pid, p->name, h.lost_bins, h.lost_arcs);
	s->set = false;
}

/* the formula as written, in 64 bits, for the test below */
static uint32_t bin_formula(uint32_t d, uint32_t scale)
{
	return (uint32_t)(((uint64_t)(d / 2) * scale) / 65536);
}

/* In-kernel test of the bin arithmetic: the formula's rounding on the
 * README's examples; that the tick's multiply gives the formula's bin for
 * PCs across the whole range, odd and even, and every scale; and that
 * span_of() gives every PC below the span a bin (the last PC the last
 * bin) and none at the span: the tick writes wherever bin_index() points. */
static void ktest_profil_bins(void)
{
	static const uint32_t nbins[] = { 1, 2, 3, 1000, 32767, 65535, 1u << 20, 1u << 30 };
	static const uint32_t scales[] = { 1, 2, 3, 100, 16384, 32768, 65535, GMON_SCALE_ONE };
	static const uint32_t ds[] = { 0, 1, 2, 3, 65535, 65536, 65537, 131071, 131072,
				       0x12345677, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF };

	CHECK(bin_index(0, mul_of(65536)) == 0 && bin_index(1, mul_of(65536)) == 0 &&
	      bin_index(2, mul_of(65536)) == 1);
	CHECK(bin_index(3, mul_of(32768)) == 0 && bin_index(4, mul_of(32768)) == 1);
	CHECK(bin_index(7, mul_of(16384)) == 0 && bin_index(8, mul_of(16384)) == 1);
	CHECK(bin_index(0xFFFFFFFFu, mul_of(1)) == 0x7FFF);
	for (unsigned j = 0; j < NELEM(scales); j++) {
		uint32_t m = mul_of(scales[j]);
		for (unsigned i = 0; i < NELEM(ds); i++)
			CHECK(bin_index(ds[i], m) == bin_formula(ds[i], scales[j]));
		for (uint32_t d = 1, i = 0; i < 2000; i++, d = d * 1103515245u + 12345u)
			CHECK(bin_index(d, m) == bin_formula(d, scales[j]));
	}
	for (unsigned i = 0; i < NELEM(nbins); i++)
		for (unsigned j = 0; j < NELEM(scales); j++) {
			uint32_t span = span_of(nbins[i], scales[j]), m = mul_of(scales[j]);
			CHECK(span > 0 && bin_index(span - 1, m) < nbins[i]);
			/* bins for more than 4 GiB of PCs: the span stops at the top */
			if (span == 0xFFFFFFFFu)
				continue;
			CHECK(bin_index(span - 1, m) == nbins[i] - 1);
			CHECK(bin_index(span, m) >= nbins[i]);
		}
}
KTEST(ktest_profil_bins, "profil_bins");

static struct prof_engine profil = {
	.name = "profil", .sample = profil_sample,
	.spawn = profil_spawn, .exit = profil_exit,
};

void profil_init(void)
{
	prof_register(&profil);
}
