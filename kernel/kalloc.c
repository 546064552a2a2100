/* Physical page allocator over the multiboot memory map. */
#include "kalloc.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "lib.h"

struct run {
	struct run *next;
};

static struct run *freelist;
static uint32_t nfree, ntotal;

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
			kfree((void *)pa);
			ntotal++;
		}
	}
}

void kfree(void *page)
{
	struct run *r = page;
	uint32_t s;

	if ((uint32_t)page % PGSIZE)
		panic("kfree: unaligned page %p", page);
	s = splhi();
	r->next = freelist;
	freelist = r;
	nfree++;
	splx(s);
}

void *kalloc(void)
{
	struct run *r;
	uint32_t s = splhi();

	r = freelist;
	if (r) {
		freelist = r->next;
		nfree--;
	}
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

/* Looks for n free pages at consecutive addresses by marking the free ones
 * in a bitmap over the lowest KERN_TOP bytes, then scanning it. */
void *kalloc_contig(uint32_t n)
{
	static uint32_t map[KERN_TOP / PGSIZE / 32];
	uint32_t s, run = 0, first = 0;
	struct run **pp;
	void *found = NULL;

	if (n == 0)
		return NULL;
	s = splhi();
	memset(map, 0, sizeof map);
	for (struct run *r = freelist; r; r = r->next) {
		uint32_t pg = (uint32_t)r / PGSIZE;
		map[pg / 32] |= 1u << (pg % 32);
	}
	for (uint32_t pg = 0; pg < KERN_TOP / PGSIZE; pg++) {
		if (!(map[pg / 32] & (1u << (pg % 32)))) {
			run = 0;
			continue;
		}
		if (run++ == 0)
			first = pg;
		if (run == n) {
			found = (void *)(first * PGSIZE);
			break;
		}
	}
	if (found) {
		/* unlink the run's pages from the free list */
		uint32_t lo = (uint32_t)found, hi = lo + n * PGSIZE;
		for (pp = &freelist; *pp;) {
			if ((uint32_t)*pp >= lo && (uint32_t)*pp < hi) {
				*pp = (*pp)->next;
				nfree--;
			} else {
				pp = &(*pp)->next;
			}
		}
	}
	splx(s);
	if (found)
		memset(found, 0, n * PGSIZE);
	return found;
}

void kfree_contig(void *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		kfree((char *)p + i * PGSIZE);
}
