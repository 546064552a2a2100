/* Marsaglia's xorshift32: a small, fast generator of 32-bit words whose
 * sequence a seed fixes, for the kernel's PIT jitter and the system-call
 * fuzzer's replayable batches. A seed not 0 never reaches 0. */
#ifndef XORSHIFT_H
#define XORSHIFT_H

#include <stdint.h>

static inline uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

#endif
