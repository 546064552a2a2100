/* The heat engine's storage, a sparse two-level table: a directory with one
 * pointer per 4 KiB page of user space, each pointing to a record page (64
 * KiB, a record per byte address) allocated when an instruction in that
 * user page first runs. The directory itself (3 MiB for the 3 GiB below
 * USER_TOP) is allocated when tracing starts. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "kalloc.h"
#include "lib.h"
#include "prof/heat.h"
#include "uaccess.h"

#define NDIR (USER_TOP / HEAT_RECPAGE_BYTES)       /* from address 0, so no subtraction */
#define DIRPAGES (NDIR * sizeof(struct heat_rec *) / PGSIZE)

static struct heat_rec **dir;
static uint32_t nrecpages;
uint32_t heattab_limit;

int heattab_init(void)
{
	if (dir)
		return 0;
	dir = kalloc_contig(DIRPAGES);
	return dir ? 0 : -ENOMEM;
}

void heattab_free(void)
{
	if (!dir)
		return;
	for (uint32_t i = 0; i < NDIR; i++)
		if (dir[i])
			kfree_contig(dir[i], HEAT_RECPAGE_PAGES);
	kfree_contig(dir, DIRPAGES);
	dir = NULL;
	nrecpages = 0;
}

uint32_t heattab_dirpages(void) { return dir ? DIRPAGES : 0; }
uint32_t heattab_recpages(void) { return nrecpages; }

/* Reads the instruction's bytes (as many of 15 as are mapped) and decodes
 * it once; self-modifying code keeps the first decoding. */
static void decode(uint32_t va, struct heat_rec *r)
{
	uint8_t b[15];
	uint32_t n = 0;
	bool call;

	if (copyin(b, va, sizeof b) == 0)
		n = sizeof b;
	else            /* near the end of the mapped pages: byte by byte */
		while (n < sizeof b && copyin(b + n, va + n, 1) == 0)
			n++;
	r->len = (uint8_t)arch_insn_decode(b, n, &call);
	r->flags |= HEAT_F_DECODED | (call ? HEAT_F_ISCALL : 0);
}

struct heat_rec *heattab_get(uint32_t va, int *why)
{
	uint32_t i = va / HEAT_RECPAGE_BYTES;
	struct heat_rec *page, *r;

	*why = 0;
	if (va < USER_BASE || va >= USER_TOP || !dir)
		return NULL;
	page = dir[i];
	if (__builtin_expect(!page, 0)) {
		if ((heattab_limit && nrecpages + HEAT_RECPAGE_PAGES > heattab_limit) ||
		    kalloc_free_pages() < HEAT_RESERVE_PAGES + HEAT_RECPAGE_PAGES ||
		    !(page = kalloc_contig(HEAT_RECPAGE_PAGES))) {
			*why = -ENOMEM;
			return NULL;
		}
		dir[i] = page;
		nrecpages += HEAT_RECPAGE_PAGES;
	}
	r = &page[va % HEAT_RECPAGE_BYTES];
	if (__builtin_expect(!(r->flags & HEAT_F_DECODED), 0))
		decode(va, r);
	return r;
}

void heattab_walk(void (*fn)(uint32_t va, const struct heat_rec *r, void *arg), void *arg)
{
	if (!dir)
		return;
	for (uint32_t i = 0; i < NDIR; i++) {
		if (!dir[i])
			continue;
		for (uint32_t j = 0; j < HEAT_RECPAGE_BYTES; j++)
			if (dir[i][j].count)
				fn(i * HEAT_RECPAGE_BYTES + j, &dir[i][j], arg);
	}
}
