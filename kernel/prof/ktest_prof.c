/* In-kernel tests of the profiling framework: engines switched in every
 * order, at interrupt time too, and the stack walks over bad chains. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "clock.h"
#include "kalloc.h"
#include "ktest.h"
#include "lib.h"
#include "proc.h"
#include "prof/prof.h"

/* What a test engine saw: how many samples and their total weight, and
 * the last sample's values. */
struct seen {
	uint32_t n, weight, pc, flags;
	struct proc *p;
};
static struct seen seen_a, seen_b;
static struct prof_engine eng_a, eng_b;
static void (*a_hook)(void);    /* run inside a's sample: a switch at interrupt time */

static void ARCH_FASTCALL sample_a(const struct prof_sample *s)
{
	seen_a = (struct seen){ seen_a.n + 1, seen_a.weight + prof_weight(s->flags), s->pc, s->flags, s->p };
	if (a_hook)
		a_hook();
}

static void ARCH_FASTCALL sample_b(const struct prof_sample *s)
{
	seen_b = (struct seen){ seen_b.n + 1, seen_b.weight + prof_weight(s->flags), s->pc, s->flags, s->p };
}

static struct prof_engine eng_a = { .name = "ktest.a", .sample = sample_a };
static struct prof_engine eng_b = { .name = "ktest.b", .sample = sample_b };

static void disable_b(void) { prof_set_sampling(&eng_b, false); }
static void disable_a(void) { prof_set_sampling(&eng_a, false); }
static void enable_b(void) { prof_set_sampling(&eng_b, true); }

/* one clock tick as the clock delivers it, in kernel mode at pc */
static void tick(uint32_t pc, uint32_t weight)
{
	struct trapframe tf;
	struct prof_sample s = { .p = (struct proc *)procs, .tf = &tf };

	memset(&tf, 0, sizeof tf);
	arch_frame_set_pc(&tf, pc);
	prof_clock_tick(&s, &tf, false, weight);
}

void ktest_prof_engines(void)
{
	uint32_t was_splpc = splpc;

	prof_register(&eng_a);
	prof_register(&eng_b);
	CHECK(prof_sampler() == NULL);

	/* one engine: the clock calls it directly */
	prof_set_sampling(&eng_a, true);
	CHECK(prof_sampler() == sample_a);
	tick(0x1234, 1);
	CHECK(seen_a.n == 1 && seen_a.pc == 0x1234 && seen_a.p == procs && !prof_user(seen_a.flags));

	/* two: a fan-out, and both see the same sample, splpc applied once */
	prof_set_sampling(&eng_b, true);
	CHECK(prof_sampler() != sample_a && prof_sampler() != sample_b && prof_sampler() != NULL);
	splpc = 0x5678;
	tick((uint32_t)splx_landing, 3);
	CHECK(seen_a.pc == 0x5678 && seen_b.pc == 0x5678);
	CHECK(seen_a.flags == seen_b.flags && prof_weight(seen_b.flags) == 3 && seen_a.p == seen_b.p);
	CHECK(seen_a.n == 2 && seen_b.n == 1 && seen_a.weight == 4 && seen_b.weight == 3);

	/* b stops sampling: no samples, and back */
	prof_set_sampling(&eng_b, false);
	CHECK(prof_sampler() == sample_a);
	tick(0x1000, 1);
	prof_set_sampling(&eng_b, true);
	tick(0x1000, 1);
	CHECK(seen_a.n == 4 && seen_b.n == 2);

	/* a switches b off inside its sample: b gets none of that tick, and
	 * after it the clock calls a directly again */
	a_hook = disable_b;
	tick(0x2000, 1);
	a_hook = NULL;
	CHECK(seen_a.n == 5 && seen_b.n == 2 && prof_sampler() == sample_a);

	/* a switches b on inside its sample: b starts with the next tick */
	a_hook = enable_b;
	tick(0x2000, 1);
	a_hook = NULL;
	CHECK(seen_a.n == 6 && seen_b.n == 2);
	tick(0x2000, 1);
	CHECK(seen_a.n == 7 && seen_b.n == 3);

	/* a switches itself off inside the fan-out: b still gets that tick */
	a_hook = disable_a;
	tick(0x3000, 1);
	a_hook = NULL;
	CHECK(seen_a.n == 8 && seen_b.n == 4 && prof_sampler() == sample_b);
	tick(0x3000, 1);
	CHECK(seen_a.n == 8 && seen_b.n == 5);

	/* the rate: b holds it, so a may not change it, b may; sampling has
	 * nothing to do with it */
	prof_set_hold(&eng_b, true);
	prof_set_hold(&eng_a, true);
	CHECK(prof_set_hz(&eng_a, 500) == -EBUSY);
	prof_set_hold(&eng_a, false);
	CHECK(prof_set_hz(&eng_a, 500) == -EBUSY);      /* b still holds it */
	CHECK(prof_set_hz(&eng_b, 18) == -EINVAL);
	prof_set_sampling(&eng_b, false);
	CHECK(prof_sampler() == NULL);
	CHECK(prof_set_hz(&eng_a, 500) == -EBUSY);      /* not sampling, still held */
	prof_set_hold(&eng_b, false);
	CHECK(prof_set_hz(&eng_a, 500) == 0);
	/* holding alone samples nothing, and hooks alone neither */
	prof_set_hold(&eng_a, true);
	prof_set_hooks(&eng_a, true);
	CHECK(prof_sampler() == NULL);
	prof_set_hooks(&eng_a, false);
	prof_set_hold(&eng_a, false);
	tick(0x4000, 1);
	CHECK(seen_a.n == 8 && seen_b.n == 5);
	splpc = was_splpc;
}

/* A stack engine's walk: the interrupted PC, then the frame-pointer chain
 * from the sample's frame. */
#define WALKMAX 6
static uint32_t walked[WALKMAX];
/* volatile: the compiler cannot see that tick_here() reaches the sample */
static volatile int nwalked;

static void ARCH_FASTCALL sample_walk(const struct prof_sample *s)
{
	walked[0] = s->pc;
	nwalked = 1 + arch_stack_walk_kernel(arch_frame_fp(s->tf), walked + 1, WALKMAX - 1);
}

static struct prof_engine eng_walk = { .name = "ktest.walk", .sample = sample_walk };
static struct prof_engine eng_beside = { .name = "ktest.beside", .sample = sample_b };

/* a clock tick at a known place: its caller is the walk's second frame */
__attribute__((noinline)) static uint32_t tick_here(void)
{
	arch_raise_clock();
	return (uint32_t)__builtin_return_address(0);
}

/* The walk from the sample's frame gives the same frames whatever engines
 * are on: alone (the clock calls the engine directly) and beside another
 * (through the fan-out, one frame more between the clock and the engine). */
void ktest_prof_frame(void)
{
	uint32_t alone[WALKMAX], ret;
	int nalone;

	prof_register(&eng_walk);
	prof_register(&eng_beside);
	prof_set_sampling(&eng_walk, true);
	CHECK(prof_sampler() == sample_walk);
	nwalked = 0;
	ret = tick_here();
	__asm__ volatile("" ::: "memory");
	CHECK(nwalked >= 3);
	/* the tick landed in tick_here, and the next frame is its caller */
	CHECK(walked[0] > (uint32_t)tick_here && walked[0] < (uint32_t)tick_here + 64);
	CHECK(walked[1] == ret);
	memcpy(alone, walked, sizeof alone);
	nalone = nwalked;

	prof_set_sampling(&eng_beside, true);
	CHECK(prof_sampler() != sample_walk && prof_sampler() != NULL);
	nwalked = 0;
	ret = tick_here();
	__asm__ volatile("" ::: "memory");
	CHECK(nwalked == nalone && walked[1] == ret);
	CHECK(walked[0] == alone[0]);
	/* from the second frame on only the call site of tick_here differs */
	for (int i = 2; i < nwalked && i < nalone; i++)
		CHECK(walked[i] == alone[i]);
	prof_set_sampling(&eng_beside, false);
	prof_set_sampling(&eng_walk, false);
	CHECK(prof_sampler() == NULL);
}

/* The checked walk, and when pgdir is the one loaded, the stack engine's
 * fast one too (arch_user_chain), which must agree with it frame for
 * frame wherever the chain is aligned, and add up the same sum. */
static int walk(uint32_t *pgdir, uint32_t fp, uint32_t *pcs, int max, bool *whole)
{
	uint32_t fast[16], *o, sum = 0, want = 0, bits;
	int n = arch_stack_walk_user_end(pgdir, fp, pcs, max, whole);
	bool fwhole;

	if (pgdir != arch_loaded_pgdir() || fp - USER_BASE > USER_TOP - 8 - USER_BASE || max > 15)
		return n;
	o = arch_user_chain(fp, fast, fast + max, &sum, &bits, &fwhole);
	if (bits % 4)
		return n;               /* misaligned: the engine takes the checked walk */
	for (int i = 0; i < n; i++)
		want += pcs[i];
	CHECK(o - fast == n && fwhole == *whole && sum == want);
	for (int i = 0; i < n && i < o - fast; i++)
		CHECK(fast[i] == pcs[i]);
	return n;
}

/* The user walk's cases on the address space pgdir, whose first stack
 * page at base is w (through the kernel's view of it). */
static void user_walk_cases(uint32_t *pgdir, uint32_t base, uint32_t *w)
{
	uint32_t pcs[8];
	bool whole;

	/* a good chain of three frames, ending in a null fp */
	w[0] = base + 0x40, w[1] = USER_BASE + 0x111;
	w[16] = base + 0x80, w[17] = USER_BASE + 0x222;
	w[32] = 0, w[33] = USER_BASE + 0x333;
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 3 && whole);
	CHECK(pcs[0] == USER_BASE + 0x111 && pcs[2] == USER_BASE + 0x333);
	CHECK(walk(pgdir, base, pcs, 3, &whole) == 3 && whole);
	CHECK(walk(pgdir, base, pcs, 2, &whole) == 2 && !whole);       /* at most max */
	CHECK(walk(pgdir, base, pcs, 1, &whole) == 1 && !whole);
	CHECK(walk(pgdir, base, pcs, 0, &whole) == 0 && !whole);
	w[32] = base + 0xC0, w[48] = 0, w[49] = USER_BASE + 0x444;     /* four frames */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 4 && whole);
	CHECK(walk(pgdir, base, pcs, 3, &whole) == 3 && !whole);
	CHECK(walk(pgdir, base, pcs, 4, &whole) == 4 && whole);
	w[32] = 0;

	CHECK(walk(pgdir, 0, pcs, 8, &whole) == 0);                     /* null */
	CHECK(walk(pgdir, base + 2, pcs, 8, &whole) == 0);              /* misaligned */
	CHECK(walk(pgdir, KERN_LINK, pcs, 8, &whole) == 0);             /* kernel */
	CHECK(walk(pgdir, base + 2 * PGSIZE, pcs, 8, &whole) == 0);     /* unmapped */
	CHECK(walk(pgdir, USER_TOP - 4, pcs, 8, &whole) == 0);          /* past the top */

	w[0] = base, w[1] = USER_BASE + 0x111;                  /* points at itself */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 1 && !whole);
	w[0] = base + 0x40, w[16] = base;                       /* a cycle of two */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	/* into the kernel, mapped above USER_TOP in every address space: the
	 * walk must not read it (were it read, the fast walk would record a
	 * third frame from the kernel's memory) */
	w[16] = KERN_LINK;
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	w[16] = USER_TOP - 4;                                   /* its second word is the kernel's */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	w[16] = USER_TOP - 8;                                   /* the last whole frame: unmapped here */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	w[16] = base + 0x42;                                    /* then misaligned */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2);
	w[16] = base + 3 * PGSIZE;                              /* then unmapped */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	w[16] = USER_TOP;                                       /* then past the top */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	w[16] = 0xFFFFFFFCu;                                    /* then the last word */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 2 && !whole);
	w[16] = base + 0x80, w[32] = base + 4 * PGSIZE;         /* unmapped third */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 3 && !whole);
	w[32] = 0;
	w[1] = KERN_LINK;       /* a return address is recorded as the chain has it */
	CHECK(walk(pgdir, base, pcs, 8, &whole) == 3 && pcs[0] == KERN_LINK);
	/* the last word of the second page: its return address would be on
	 * the unmapped third page */
	w[1024 + 1023] = base;
	CHECK(walk(pgdir, base + 2 * PGSIZE - 4, pcs, 8, &whole) == 0);
}

/* A user address space with two mapped stack pages, walked through its
 * page table and then loaded, with single loads and their fixups. */
void ktest_stack_walk(void)
{
	uint32_t *pgdir = arch_pgdir_new(), *loaded = arch_loaded_pgdir(), pcs[8];
	uint32_t base = USER_BASE + 0x100000, free0 = 0;
	uint8_t *pg[2] = { NULL, NULL };

	CHECK(pgdir != NULL);
	if (!pgdir)
		return;
	/* two physically adjacent pages, so w[1024 ..] is the second one */
	pg[0] = kalloc_contig(2);
	CHECK(pg[0] != NULL);
	if (!pg[0]) {
		arch_pgdir_free(pgdir);
		return;
	}
	pg[1] = pg[0] + PGSIZE;
	for (int i = 0; i < 2; i++)
		CHECK(arch_map_user(pgdir, base + i * PGSIZE, pg[i]));
	free0 = kalloc_free_pages();
	user_walk_cases(pgdir, base, (uint32_t *)pg[0]);
	arch_pgdir_switch(pgdir);
	user_walk_cases(pgdir, base, (uint32_t *)pg[0]);
	arch_pgdir_switch(loaded);
	CHECK(kalloc_free_pages() == free0);                     /* the walks allocate nothing */

	/* the kernel walk: from here, at least this function's caller; from
	 * garbage, nothing */
	CHECK(arch_stack_walk_kernel((uint32_t)__builtin_frame_address(0), pcs, 8) >= 1);
	CHECK(arch_stack_walk_kernel(0, pcs, 8) == 0);
	CHECK(arch_stack_walk_kernel(3, pcs, 8) == 0);
	CHECK(arch_stack_walk_kernel(0xFFFFFFF0u, pcs, 8) == 0);
	arch_pgdir_free(pgdir);
}
