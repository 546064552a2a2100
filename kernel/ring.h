/* A byte ring buffer (single producer in an interrupt handler, single
 * consumer with interrupts off). The size must be a power of two. */
#ifndef RING_H
#define RING_H

#include <stdbool.h>
#include <stdint.h>

struct ring {
	uint8_t *buf;
	uint32_t size;          /* power of two */
	uint32_t head, tail;    /* free-running: count = head - tail */
};

void ring_init(struct ring *r, uint8_t *buf, uint32_t size);
uint32_t ring_count(const struct ring *r);
uint32_t ring_space(const struct ring *r);
bool ring_put(struct ring *r, uint8_t c);       /* false when full */
bool ring_get(struct ring *r, uint8_t *c);      /* false when empty */

#endif
