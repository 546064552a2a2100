/* A growable byte buffer made of separate pages, indexed through one page
 * of pointers (so at most PAGEBUF_MAX bytes). The RAM file system keeps its
 * files in these, and devices keep per-open snapshots in them. */
#ifndef PAGEBUF_H
#define PAGEBUF_H

#include <stdint.h>
#include "abi/memlayout.h"

#define PAGEBUF_MAX ((uint32_t)(PGSIZE / sizeof(uint8_t *)) * PGSIZE)

struct pagebuf {
	uint8_t **pages;        /* one kalloc'd page of pointers, or NULL */
	uint32_t size;
};

int pagebuf_write(struct pagebuf *b, uint32_t off, const void *src, uint32_t n); /* n or -errno */
int pagebuf_read(const struct pagebuf *b, uint32_t off, void *dst, uint32_t n);  /* bytes read */
void pagebuf_truncate(struct pagebuf *b, uint32_t size);
void pagebuf_free(struct pagebuf *b);

#endif
