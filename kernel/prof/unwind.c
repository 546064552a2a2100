/* The unwind-table service (unwind.h). The builder is unwind_build.c,
 * shared with the host tool; here it gets the kernel's pages and sort. A
 * table is made only while an engine holds the service, since a large
 * program's takes a while (lua's 145 KiB of .eh_frame: see
 * docs/benchmarks.md), and spawns outside profiling should not pay it. */
#include "abi/errno.h"
#include "elf.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/prof.h"
#include "prof/unwind.h"

#define EH_FRAME_MAX (4u << 20)         /* larger than any program's here */

static int holds;

void unwind_hold(void)
{
	holds++;
}

void unwind_release(void)
{
	if (holds > 0)
		holds--;
}

static void *pages(void *ctx, uint32_t bytes)
{
	(void)ctx;
	return kalloc_contig(ROUNDUP(bytes, PGSIZE) / PGSIZE);
}

static void unpages(void *ctx, void *p, uint32_t bytes)
{
	(void)ctx;
	kfree_contig(p, ROUNDUP(bytes, PGSIZE) / PGSIZE);
}

static const struct unw_env env = { pages, unpages, ksort, NULL };

void unwind_spawn(struct proc *p, const struct elf_image *img)
{
	struct secthdr sh;
	struct unw_stats st;
	uint8_t *sec;
	int err;

	p->prof.prog.unw = NULL;
	if (holds == 0 || elf_find_section_named(img, ".eh_frame", &sh) < 0 || sh.size == 0)
		return;                 /* none: frame pointers */
	if (sh.size > EH_FRAME_MAX || !(sec = pages(NULL, sh.size))) {
		kprintf("unwind: pid %d (%s): no memory for its .eh_frame; walked by frame pointers\n",
			p->pid, p->name);
		return;
	}
	if (elf_read(img, sec, sh.size, sh.offset) < 0)
		err = -UNW_ETRUNC;
	else
		err = unw_build(sec, sh.size, sh.addr + img->base, &env, &p->prof.prog.unw, &st);
	unpages(NULL, sec, sh.size);
	if (err < 0)
		kprintf("unwind: pid %d (%s): %s; walked by frame pointers\n", p->pid, p->name,
			unw_strerror(err));
}

void unwind_exit(struct proc *p)
{
	struct unw_table *t = p->prof.prog.unw;

	p->prof.prog.unw = NULL;        /* first: a tick meanwhile walks without it */
	unw_free(t, &env);
}
