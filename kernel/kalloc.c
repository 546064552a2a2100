/* Physical page allocator over the multiboot memory map. */
#include "kalloc.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "lib.h"

/* A free page holds its links. The list is doubly linked so that
 * kalloc_contig can take pages out of its middle in O(1) each. */
struct run {
	struct run *next, *prev;
};

static struct run *freelist;
static uint32_t nfree, ntotal;

/* Fault injection, after Linux's fail_page_alloc: with the boot option
 * failalloc, kalloc and kalloc_contig fail every Nth call, or each with a
 * probability from a pseudo-random generator, so that every allocating path's
 * failure runs. Armed once init is running (a boot that cannot start a
 * shell tells nothing). */
static uint32_t fail_every, fail_permille, fail_state, fail_calls, fail_once;
static uint32_t injected;

/* the nth allocation from now fails, once (0: none); for tests that walk
 * a path's allocations one by one (/dev/proftest's failonce) */
void kalloc_failonce(uint32_t n)
{
	fail_once = n;
}

void kalloc_failinject(uint32_t every, uint32_t start, uint32_t permille)
{
	fail_every = every;
	fail_permille = permille;
	fail_state = start;
}

uint32_t kalloc_injected(void)
{
	return injected;
}

static bool inject(void)
{
	bool fail = false;

	if (fail_once && --fail_once == 0)
		fail = true;
	else if (fail_every)
		fail = ++fail_calls % fail_every == 0;
	else if (fail_permille) {
		fail_state = fail_state * 1103515245u + 12345u;
		fail = (fail_state >> 8) % 1000 < fail_permille;
	}
	injected += fail;
	return fail;
}

/* One bit per physical page below KERN_TOP - KERNBASE, set while the page is free. It is kept
 * up to date by kfree and kalloc, so kalloc_contig can search it with
 * interrupts on instead of building it from the list with them off. */
#define NMAPPAGES ((KERN_TOP - KERNBASE) / PGSIZE)
static volatile uint32_t freemap[NMAPPAGES / 32];

static bool page_free(uint32_t pg)
{
	return freemap[pg / 32] & (1u << (pg % 32));
}

/* with interrupts off */
static void unlink_page(struct run *r)
{
	uint32_t pg = V2P(r) / PGSIZE;

	if (r->prev)
		r->prev->next = r->next;
	else
		freelist = r->next;
	if (r->next)
		r->next->prev = r->prev;
	freemap[pg / 32] &= ~(1u << (pg % 32));
	nfree--;
}

static bool overlaps(uint32_t a, uint32_t b, const struct memrange *r, int n)
{
	for (int i = 0; i < n; i++)
		if (a < r[i].end && r[i].start < b)
			return true;
	return false;
}

void kalloc_init(const struct memrange *avail, int navail,
		 const struct memrange *reserved, int nreserved, uint32_t limit)
{
	for (int i = 0; i < navail; i++) {
		uint32_t pa = ROUNDUP(avail[i].start, PGSIZE);
		uint32_t end = MIN(avail[i].end, limit);
		for (; pa + PGSIZE <= end && pa + PGSIZE > pa; pa += PGSIZE) {
			/* reserved, or already freed from an earlier map entry
			 * that overlaps this one */
			if (pa == 0 || overlaps(pa, pa + PGSIZE, reserved, nreserved) ||
			    overlaps(pa, pa + PGSIZE, avail, i))
				continue;
			kfree(P2V(pa));
			ntotal++;
		}
	}
}

void kfree(void *page)
{
	struct run *r = page;
	uint32_t pg = V2P(page) / PGSIZE, s;

	if ((uint32_t)page % PGSIZE || (uint32_t)page < KERNBASE || pg >= NMAPPAGES)
		panic("kfree: bad page %p", page);
	s = splhi();
	if (page_free(pg))
		panic("kfree: page %p freed twice", page);
	r->prev = NULL;
	r->next = freelist;
	if (freelist)
		freelist->prev = r;
	freelist = r;
	freemap[pg / 32] |= 1u << (pg % 32);
	nfree++;
	splx(s);
}

void *kalloc(void)
{
	struct run *r;
	uint32_t s = splhi();

	r = inject() ? NULL : freelist;
	if (r)
		unlink_page(r);
	splx(s);
	if (r)
		memset(r, 0, PGSIZE);
	return r;
}

uint32_t kalloc_free_pages(void)
{
	return nfree;
}

uint32_t kalloc_total_pages(void)
{
	return ntotal;
}

/* Looks for n free pages at consecutive addresses. The bitmap is searched
 * with interrupts on, since at high clock rates a search of all memory
 * with them off loses ticks; a run found is checked again, and taken,
 * with them off, which costs O(n). If a page of it went meanwhile, the
 * search goes on past that page, so it always ends. */
void *kalloc_contig(uint32_t n)
{
	uint32_t pg = 0, run = 0, s;

	if (n == 0 || n > NMAPPAGES || inject())
		return NULL;
	while (pg < NMAPPAGES) {
		if (!page_free(pg)) {
			/* a whole word of used pages at once */
			if (pg % 32 == 0 && freemap[pg / 32] == 0)
				pg += 32;
			else
				pg++;
			run = 0;
			continue;
		}
		if (++run < n) {
			pg++;
			continue;
		}
		uint32_t first = pg + 1 - n, ok = 1;
		s = splhi();
		for (uint32_t i = first; i <= pg && ok; i++)
			ok = page_free(i);
		if (ok)
			for (uint32_t i = first; i <= pg; i++)
				unlink_page(P2V(i * PGSIZE));
		splx(s);
		if (ok) {
			memset(P2V(first * PGSIZE), 0, n * PGSIZE);
			return P2V(first * PGSIZE);
		}
		pg++;
		run = 0;
	}
	return NULL;
}

void kfree_contig(void *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		kfree((char *)p + i * PGSIZE);
}
