/* The header that starts every binary profile dump except kpdata (which
 * keeps its own headerless layout, include/abi/kprof.h). From its first
 * bytes the host tool tells which engine wrote a file and at what rate,
 * and which programs the samples came from: every user program is linked
 * at the same address, so a sample names its module by index.
 *
 * Layout, all fields little-endian:
 *   struct dump_header
 *   nmodules times: struct dump_module, then build_id_len bytes of
 *     build-id, then path_len bytes of path (no NUL), then zeros up to a
 *     multiple of DUMP_ALIGN
 *   the engine's payload, from byte `size` of the file
 * Every 64-bit field sits at a multiple of 8 and every struct is a
 * multiple of 8 bytes, so i386 and x86-64 compilers lay them out alike.
 */
#ifndef ABI_DUMP_H
#define ABI_DUMP_H

#include <stdint.h>

#define DUMP_MAGIC         "KPROFDMP"   /* the first 8 bytes, no NUL */
#define DUMP_MAGIC_LEN     8
#define DUMP_VERSION       1
#define DUMP_ALIGN         8

/* engines: which code wrote the payload */
#define DUMP_ENGINE_KPDATA   1   /* devkprof's bins; kpdata itself has no header */
#define DUMP_ENGINE_GMON     2   /* profil(2) histogram in gmon layout */
#define DUMP_ENGINE_DOSPROF  3   /* DosProfile-style buffer */
#define DUMP_ENGINE_MONTE    4   /* Monte Carlo samples */
#define DUMP_ENGINE_HEAT     5   /* exact per-instruction counts */
#define DUMP_ENGINE_STACKS   6   /* sampled call stacks */

#define DUMP_MODULES_MAX   256
#define DUMP_PATH_KERNEL   "kernel"     /* the kernel's module: its path */
#define DUMP_BUILD_ID_MAX  64    /* bytes; a GNU build-id is usually 20 */
#define DUMP_PATH_MAX      1024

struct dump_header {             /* 32 bytes */
	char     magic[DUMP_MAGIC_LEN];
	uint16_t version;            /* DUMP_VERSION */
	uint16_t engine;             /* DUMP_ENGINE_* */
	uint32_t rate_mhz;           /* sampling rate in millihertz: 1000.153 Hz is 1000153 */
	uint32_t nmodules;           /* entries in the module table */
	uint32_t size;               /* header + module table: the payload starts here */
	uint64_t reserved;           /* zero */
};

struct dump_module {             /* 16 bytes, then build-id and path */
	uint64_t load;               /* where the module's file was loaded */
	uint16_t build_id_len;       /* <= DUMP_BUILD_ID_MAX; 0: none */
	uint16_t path_len;           /* <= DUMP_PATH_MAX */
	uint32_t reserved;           /* zero */
};

/* The one writer of the header and the module table, for every engine
 * that writes a dump (the kernel's stack and Monte Carlo dumps, user
 * space's DosProfile dump): each lays out its bytes in memory, and the
 * caller writes them to its file as it likes. */

/* the bytes of a module's entry: the struct, the build-id, the path, the
 * padding to DUMP_ALIGN */
static inline uint32_t dump_module_size(uint32_t idlen, uint32_t pathlen)
{
	uint32_t n = (uint32_t)sizeof(struct dump_module) + idlen + pathlen;
	return (n + DUMP_ALIGN - 1) & ~(uint32_t)(DUMP_ALIGN - 1);
}

/* the largest entry: a buffer of this size holds any */
#define DUMP_MODULE_SIZE_MAX \
	((sizeof(struct dump_module) + DUMP_BUILD_ID_MAX + DUMP_PATH_MAX + DUMP_ALIGN - 1) & \
	 ~(DUMP_ALIGN - 1))

/* A module's entry laid out at buf (dump_module_size(idlen, pathlen)
 * bytes; idlen and pathlen are clamped to their maxima); returns its
 * size. The module was loaded at 0: every program is linked at its own
 * address, and the kernel's dump names the kernel's. */
static inline uint32_t dump_module_encode(uint8_t *buf, const uint8_t *id, uint32_t idlen,
					  const char *path, uint32_t pathlen)
{
	struct dump_module m = { 0, 0, 0, 0 };
	uint32_t n, i;

	idlen = idlen > DUMP_BUILD_ID_MAX ? DUMP_BUILD_ID_MAX : idlen;
	pathlen = pathlen > DUMP_PATH_MAX ? DUMP_PATH_MAX : pathlen;
	n = dump_module_size(idlen, pathlen);
	m.build_id_len = (uint16_t)idlen;
	m.path_len = (uint16_t)pathlen;
	for (i = 0; i < sizeof m; i++)
		buf[i] = ((const uint8_t *)&m)[i];
	for (uint32_t k = 0; k < idlen; k++)
		buf[i++] = id[k];
	for (uint32_t k = 0; k < pathlen; k++)
		buf[i++] = (uint8_t)path[k];
	while (i < n)
		buf[i++] = 0;
	return n;
}

/* the header of a dump whose module table takes tablesize bytes */
static inline struct dump_header dump_header_make(uint16_t engine, uint32_t rate_mhz,
						  uint32_t nmodules, uint32_t tablesize)
{
	struct dump_header h = { DUMP_MAGIC, DUMP_VERSION, engine, rate_mhz, nmodules,
				 (uint32_t)sizeof(struct dump_header) + tablesize, 0 };
	return h;
}

#endif
