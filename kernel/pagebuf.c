/* Paged byte buffers: see pagebuf.h. Pages are allocated as writes reach
 * them; a hole reads as zeros. */
#include "pagebuf.h"
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "kalloc.h"
#include "lib.h"

int pagebuf_write(struct pagebuf *b, uint32_t off, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t done = 0;

	if (n == 0)
		return 0;
	if (off > PAGEBUF_MAX || n > PAGEBUF_MAX - off)
		return -ENOSPC;
	if (!b->pages && !(b->pages = kalloc()))
		return -ENOSPC;
	while (done < n) {
		uint32_t pos = off + done, i = pos / PGSIZE;
		uint32_t chunk = MIN(n - done, PGSIZE - pos % PGSIZE);
		if (!b->pages[i] && !(b->pages[i] = kalloc()))
			break;
		memcpy(b->pages[i] + pos % PGSIZE, s + done, chunk);
		done += chunk;
	}
	if (off + done > b->size)
		b->size = off + done;
	return done ? (int)done : -ENOSPC;
}

int pagebuf_read(const struct pagebuf *b, uint32_t off, void *dst, uint32_t n)
{
	uint8_t *d = dst;
	uint32_t done = 0;

	if (off >= b->size)
		return 0;
	n = MIN(n, b->size - off);
	while (done < n) {
		uint32_t pos = off + done, i = pos / PGSIZE;
		uint32_t chunk = MIN(n - done, PGSIZE - pos % PGSIZE);
		if (b->pages[i])
			memcpy(d + done, b->pages[i] + pos % PGSIZE, chunk);
		else
			memset(d + done, 0, chunk);
		done += chunk;
	}
	return done;
}

void pagebuf_truncate(struct pagebuf *b, uint32_t size)
{
	if (!b->pages)
		return;
	for (uint32_t i = ROUNDUP(size, PGSIZE) / PGSIZE; i < PGSIZE / 4; i++)
		if (b->pages[i]) {
			kfree(b->pages[i]);
			b->pages[i] = NULL;
		}
	if (size % PGSIZE && b->pages[size / PGSIZE])
		memset(b->pages[size / PGSIZE] + size % PGSIZE, 0, PGSIZE - size % PGSIZE);
	if (size < b->size)
		b->size = size;
}

void pagebuf_free(struct pagebuf *b)
{
	pagebuf_truncate(b, 0);
	if (b->pages)
		kfree(b->pages);
	b->pages = NULL;
	b->size = 0;
}
