/* Build-ids (buildid.c): the kernel's, and hex for any. */
#ifndef BUILDID_H
#define BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 20          /* bytes of a GNU (sha1) build-id */

/* the n bytes of id as lower-case hex into hex (cut to size), or "none"
 * when n is 0; returns hex */
char *buildid_hex(char *hex, size_t size, const uint8_t *id, uint32_t n);
const char *kernel_build_id(void);      /* 40 hex digits, or "none" */
uint32_t kernel_build_id_bytes(const uint8_t **id);    /* its bytes; 0: none */

#endif
