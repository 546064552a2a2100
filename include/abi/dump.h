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

#endif
