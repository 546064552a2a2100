/* Big-endian 32-bit words: the byte order of kpdata and of QEMU's fw_cfg
 * directory. One definition for the kernel and the host tool. */
#ifndef ABI_BE32_H
#define ABI_BE32_H

#include <stdint.h>

static inline uint32_t be32_get(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline void be32_put(void *p, uint32_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

#endif
