/* Byte ring buffer. head and tail run freely and wrap at 2^32; because the
 * size is a power of two, head - tail is the count even across the wrap. */
#include "ring.h"

void ring_init(struct ring *r, uint8_t *buf, uint32_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = r->tail = 0;
}

uint32_t ring_count(const struct ring *r)
{
	return r->head - r->tail;
}

uint32_t ring_space(const struct ring *r)
{
	return r->size - ring_count(r);
}

bool ring_put(struct ring *r, uint8_t c)
{
	if (ring_count(r) == r->size)
		return false;
	r->buf[r->head++ & (r->size - 1)] = c;
	return true;
}

bool ring_get(struct ring *r, uint8_t *c)
{
	if (r->head == r->tail)
		return false;
	*c = r->buf[r->tail++ & (r->size - 1)];
	return true;
}
