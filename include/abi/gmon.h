/* The profil(2) buffer and the gmon file, shared by the kernel (which
 * samples into the buffer and writes the file at exit), user space (gcrt0
 * and mcount, which fill it) and the host tool (which reads the file).
 *
 * The buffer given to profil(buf, buflen, samplesize, offset, scale, dirfd):
 *   struct gmonhdr                 filled in by the kernel at profil()
 *   samplesize bytes of bins       uint16_t each, counted by the kernel
 *   (padding to 4 bytes)
 *   struct gmon_arctab             mcount's counters
 *   struct gmon_arc[nslots]        mcount's hash table; count 0 = empty
 *
 * The file, gmon.<progname>.<pid>.out, is the 4.4BSD layout GNU gprof reads
 * as is: the header, the bins, then every arc whose count is not 0. Its
 * header is the kernel's own (from profil's arguments and the clock), so a
 * program that scribbles on its buffer cannot make it lie about the bins.
 * All words are little-endian, the guest's order. */
#ifndef ABI_GMON_H
#define ABI_GMON_H

#define GMON_ARC_SIZE      12           /* sizeof(struct gmon_arc), for mcount.S */

/* gcrt0's ELF note: a program linked for profiling carries it, and
 * profil() is refused (EPERM) to any program without it. */
#define GMON_NOTE_OWNER    "kprof-os"
#define GMON_NOTE_TYPE     0x676d6f6e   /* "gmon"; no suffix: gcrt0.S uses it */

#ifndef __ASSEMBLER__
#include <stdint.h>

#define GMON_VERSION_BSD44 0x00051879u  /* gmonhdr.version: has profrate */
#define GMON_BIN_MAX       0xFFFFu      /* a bin saturates here */
#define GMON_SCALE_ONE     65536u       /* scale: one bin per 2 bytes */
#define GMON_PROFDIR       "/tmp/prof"  /* where the file goes by default */

struct gmonhdr {
	uint32_t lpc;           /* offset: the first PC the bins cover */
	uint32_t hpc;           /* one past the last */
	uint32_t ncnt;          /* bytes of this header and the bins */
	uint32_t version;       /* GMON_VERSION_BSD44 */
	uint32_t profrate;      /* the clock's achieved rate, Hz */
	uint32_t lost_bins;     /* samples lost: a full bin, or one sbrk gave back */
	uint32_t lost_arcs;     /* calls not recorded: the arc table was full */
	uint32_t spare;
};

/* One caller-callee pair: gprof's raw arc, 12 bytes on i386. */
struct gmon_arc {
	uint32_t frompc;        /* the return address in the caller */
	uint32_t selfpc;        /* a PC just inside the callee */
	uint32_t count;         /* calls; saturates at 0xFFFFFFFF */
};
_Static_assert(sizeof(struct gmon_arc) == GMON_ARC_SIZE, "mcount.S's arc size");

/* mcount's table: open addressing on (frompc, selfpc), nslots a power of
 * two, at most maxarcs in use so a probe always ends at an empty slot. */
struct gmon_arctab {
	uint32_t nslots, maxarcs, narcs;
	uint32_t overflow;      /* calls that found the table full */
};

/* the arc table's offset in the buffer */
#define GMON_ARCTAB_OFF(samplesize) \
	((uint32_t)sizeof(struct gmonhdr) + (((samplesize) + 3u) & ~3u))

#endif
#endif
