/* malloc over sbrk: a free list kept in address order so that free can
 * merge neighbours, first fit, and large free space at the top of the heap
 * handed back to the kernel so a long-lived program does not hold it. */
#include "ulib.h"
#include "string.h"
#include "stdlib.h"

/* One header before every block; blocks are counted in header-sized units,
 * which also keeps every pointer malloc returns 8-byte aligned. */
struct hdr {
	struct hdr *next;       /* next free block (free blocks only) */
	size_t units;           /* size of this block with its header */
};

#define UNIT         sizeof(struct hdr)
#define GROW_MIN     (16 * PGSIZE)      /* fewer, larger sbrk calls */
#define TRIM_MIN     (32 * PGSIZE)      /* give back at least this much */

static struct hdr base;          /* zero-sized list head, never allocated */
static struct hdr *freep;        /* where the last search stopped */

/* Puts block b on the free list, merging it with its neighbours, and
 * returns the free block that now holds it. */
static struct hdr *release(struct hdr *b)
{
	struct hdr *p;

	/* Find p with p < b < p->next, allowing for the wrap at the list head. */
	for (p = freep; !(b > p && b < p->next); p = p->next)
		if (p >= p->next && (b > p || b < p->next))
			break;
	if (b + b->units == p->next) {
		b->units += p->next->units;
		b->next = p->next->next;
	} else {
		b->next = p->next;
	}
	freep = p;
	if (p + p->units == b) {
		p->units += b->units;
		p->next = b->next;
		return p;
	}
	p->next = b;
	return b;
}

/* If free block b reaches the break and is big, shrink the heap down to
 * the page boundary after its start. */
static void trim(struct hdr *b)
{
	char *brk;
	struct hdr *prev;
	uintptr_t keep;

	/* Most frees are small: skip the system call when nothing could go. */
	if (b->units * UNIT < TRIM_MIN)
		return;
	brk = sbrk(0);
	if (brk == (char *)-1 || (uintptr_t)brk % PGSIZE != 0 ||
	    (char *)(b + b->units) != brk)
		return;
	keep = ((uintptr_t)(b + 1) + PGSIZE - 1) & ~(uintptr_t)(PGSIZE - 1);
	if ((uintptr_t)brk - keep < TRIM_MIN)
		return;
	if (sbrk(-(int)((uintptr_t)brk - keep)) == (void *)-1)
		return;
	if (keep - (uintptr_t)b >= 2 * UNIT) {
		b->units = (keep - (uintptr_t)b) / UNIT;
		return;
	}
	/* Too small to keep as a block: unlink it. */
	for (prev = &base; prev->next != b; prev = prev->next)
		;
	prev->next = b->next;
	freep = prev;
}

void free(void *ap)
{
	if (ap == 0)
		return;
	trim(release((struct hdr *)ap - 1));
}

static struct hdr *grow(size_t units)
{
	size_t bytes = units * UNIT;
	char *p;
	struct hdr *h;

	if (bytes < GROW_MIN)
		bytes = GROW_MIN;
	/* Whole pages keep the break page-aligned, which trim() relies on. */
	bytes = (bytes + PGSIZE - 1) & ~(size_t)(PGSIZE - 1);
	p = sbrk((int)bytes);
	if (p == (char *)-1)
		return 0;
	h = (struct hdr *)p;
	h->units = bytes / UNIT;
	release(h);             /* not free(): trimming would undo the growth */
	return freep;
}

void *malloc(size_t n)
{
	struct hdr *p, *prev;
	size_t units;

	/* Anything near the heap limit cannot work; refuse before overflowing. */
	if (n > USER_HEAP_MAX) {
		errno = ENOMEM;
		return 0;
	}
	units = (n + UNIT - 1) / UNIT + 1;
	if (freep == 0) {
		base.next = freep = &base;
		base.units = 0;
	}
	prev = freep;
	for (p = prev->next;; prev = p, p = p->next) {
		if (p->units >= units) {
			if (p->units == units) {
				prev->next = p->next;
			} else {
				/* Hand out the tail, so the list link stays put. */
				p->units -= units;
				p += p->units;
				p->units = units;
			}
			freep = prev;
			return p + 1;
		}
		if (p == freep && (p = grow(units)) == 0) {
			errno = ENOMEM;
			return 0;
		}
	}
}

void *calloc(size_t count, size_t size)
{
	void *p;

	if (size && count > (size_t)-1 / size) {
		errno = ENOMEM;
		return 0;
	}
	p = malloc(count * size);
	if (p)
		memset(p, 0, count * size);
	return p;
}

void *realloc(void *ap, size_t n)
{
	struct hdr *b;
	size_t have;
	void *np;

	if (ap == 0)
		return malloc(n);
	b = (struct hdr *)ap - 1;
	have = (b->units - 1) * UNIT;
	if (n <= have)
		return ap;
	np = malloc(n);
	if (np == 0)
		return 0;
	memcpy(np, ap, have);
	free(ap);
	return np;
}
