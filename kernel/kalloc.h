/* The physical page allocator: 4 KiB pages from the memory map, on a free
 * list threaded through the free pages themselves. */
#ifndef KALLOC_H
#define KALLOC_H

#include <stdint.h>
#include "abi/memlayout.h"

/* All of RAM is mapped at KERNBASE (include/abi/memlayout.h): a page's
 * kernel address and its physical address, one from the other. Page
 * tables, %cr3 and the multiboot information speak physical addresses;
 * the kernel's pointers are virtual. */
#define P2V(pa) ((void *)((uint32_t)(pa) + KERNBASE))
#define V2P(va) ((uint32_t)(va) - KERNBASE)

struct memrange {
	uint32_t start, end;    /* [start, end) */
};

/* Frees every page in the available ranges (physical) that is below the
 * physical address limit and outside all of the reserved ranges (kernel,
 * modules, multiboot data, low memory). */
void kalloc_init(const struct memrange *avail, int navail,
		 const struct memrange *reserved, int nreserved, uint32_t limit);
void *kalloc(void);             /* one zero-filled page (its kernel address), or NULL */
void kfree(void *page);
uint32_t kalloc_free_pages(void);
uint32_t kalloc_total_pages(void);
/* fault injection (boot option failalloc): every Nth allocation fails, or
 * (every 0) each with probability permille/1000, the generator starting at
 * start; 0, 0: none */
void kalloc_failinject(uint32_t every, uint32_t start, uint32_t permille);
uint32_t kalloc_injected(void);        /* allocations failed on purpose */
void kalloc_failonce(uint32_t n);      /* the nth allocation from now fails, once */

/* n physically contiguous pages, zero-filled, or NULL. Used for buffers the
 * clock interrupt indexes directly. It searches a bitmap of all memory
 * with interrupts on (they are off only to take the n pages found), so
 * call it rarely (when profiling starts), not on a hot path. */
void *kalloc_contig(uint32_t n);
void kfree_contig(void *p, uint32_t n);
#endif
