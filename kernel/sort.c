/* ksort: heapsort, for the kernel's few sorts (report tables). In place,
 * no allocation, O(n log n) in the worst case; not stable, so callers
 * that want a fixed order break ties in cmp. */
#include "lib.h"

static void swap(char *a, char *b, size_t size)
{
	/* a word at a time where it can: the symbol tables' 16-byte entries
	 * (a glibc program's thousands of them, sorted at its spawn) */
	if ((size | (size_t)a | (size_t)b) % 4 == 0) {
		for (uint32_t *x = (uint32_t *)a, *y = (uint32_t *)b; size; size -= 4) {
			uint32_t t = *x;
			*x++ = *y;
			*y++ = t;
		}
		return;
	}
	while (size--) {
		char t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

/* moves the element at i down the heap of n until both children are
 * smaller */
static void sift(char *base, size_t i, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && cmp(base + c * size, base + (c + 1) * size) < 0)
			c++;
		if (cmp(base + i * size, base + c * size) >= 0)
			return;
		swap(base + i * size, base + c * size, size);
		i = c;
	}
}

void ksort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base;

	for (size_t i = n / 2; i-- > 0;)
		sift(b, i, n, size, cmp);
	while (n > 1) {
		n--;
		swap(b, b + n * size, size);
		sift(b, 0, n, size, cmp);
	}
}
