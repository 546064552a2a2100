/* kprof.h: the host tool's internal interfaces, shared by its files and by
 * its unit tests. The dump format itself is in include/abi/kprof.h. */
#ifndef KPROF_H
#define KPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gelf.h>
#include "abi/kprof.h"

/* ---- util.c: errors, memory, files ---- */

/* Library functions return -1 after kp_error() recorded one line;
 * main prints it as "kprof: <line>" and exits 2. */
void kp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *kp_lasterror(void);
void *kp_calloc(size_t n, size_t size);    /* exits 2 when out of memory */
char *kp_strdup(const char *s);
int kp_readfile(const char *path, size_t max, unsigned char **data, size_t *len);

/* ---- kpinfo.c: the `key value` text beside kpdata ---- */

enum {
	KI_TEXT_START = 1 << 0, KI_TEXT_END = 1 << 1, KI_RES = 1 << 2,
	KI_NBINS = 1 << 3, KI_HZ = 1 << 4, KI_TICKS = 1 << 5,
	KI_KTICKS = 1 << 6, KI_STATE = 1 << 7, KI_SATURATED = 1 << 8,
	KI_BUILD_ID = 1 << 9,
};

struct kpinfo {
	unsigned have;                 /* KI_* bits for the keys seen */
	uint32_t text_start, text_end;
	unsigned res;
	uint64_t nbins, ticks, kernel_ticks, saturated;
	double hz;
	char state[8];
	char build_id[129];            /* lower-case hex */
};

int kpinfo_parse(struct kpinfo *ki, const char *text, size_t len, const char *name);
int kpinfo_read(struct kpinfo *ki, const char *path);

/* ---- kpdata.c: the counts ---- */

struct kpdata {
	uint32_t total, kernel;        /* words 0 and 1 */
	uint32_t *bins;
	size_t nbins;
};

int kpdata_parse(struct kpdata *kd, const unsigned char *buf, size_t len, const char *name);
int kpdata_read(struct kpdata *kd, const char *path);
void kpdata_free(struct kpdata *kd);

/* ---- elfsym.c: the kernel ELF ---- */

/* A text symbol and the bytes it owns: [start, end), never overlapping the
 * next symbol. A symbol of size 0 owns up to the next symbol. */
struct ksym {
	uint32_t start, end;
	const char *name;              /* in libelf's string table */
	unsigned char type, bind;
};

struct ksect {                     /* an executable, allocated section */
	uint32_t addr, size;
	size_t index;
	const unsigned char *bytes;    /* NULL for SHT_NOBITS */
};

struct kelf {
	const char *path;
	int fd;
	Elf *elf;
	char build_id[129];            /* "" when the ELF has no build-id note */
	struct ksym *syms;             /* sorted by start */
	size_t nsyms;
	struct ksect *text;            /* sorted by addr */
	size_t ntext;
	uint32_t text_lo, text_hi;     /* hull of the executable sections */
};

int kelf_open(struct kelf *ke, const char *path);
void kelf_close(struct kelf *ke);
const unsigned char *kelf_bytes(const struct kelf *ke, uint32_t addr, size_t *avail);

/* ---- profile.c: checking a dump against its kernel, and symbolizing ---- */

int kp_check(const struct kpdata *kd, const struct kpinfo *ki, const struct kelf *ke);
int kp_check_build_id(const struct kelf *ke, const struct kpinfo *ki, int force);

struct hit {                       /* one nonzero bin */
	uint32_t addr;                 /* the bin's first byte */
	uint32_t count;
	long sym;                      /* index into kelf.syms, -1 for none */
};

struct profile {
	struct hit *hits;              /* in address order */
	size_t nhits;
	uint64_t *symcount;            /* per kelf.syms entry */
	uint64_t unknown;              /* ticks in bins no symbol owns */
	uint64_t outside;              /* kernel ticks with no bin: word1 - sum of bins */
	uint64_t kernel;               /* the % denominator */
	uint32_t text_start;
	unsigned res;
};

int symbolize(struct profile *p, const struct kelf *ke, const struct kpdata *kd,
	      uint32_t text_start, unsigned res);
void profile_free(struct profile *p);

/* ---- lines.c: DWARF line table ---- */

struct lrow {
	uint32_t addr;
	int line;
	int end;                       /* end of a sequence: no line from here */
	size_t seq;                    /* original order, for stable ties */
	const char *file;
};

struct linetab {
	void *dwarf;                   /* Dwarf *, kept open for the file names */
	struct lrow *rows;
	size_t n;
};

int linetab_load(struct linetab *lt, struct kelf *ke);
void linetab_free(struct linetab *lt);
const struct lrow *linetab_next(const struct linetab *lt, size_t *cursor, uint32_t addr);
const char *linetab_relpath(const char *file);

/* ---- disasm.c: the instruction at an address (Capstone) ---- */

struct disasm {
	size_t handle;                 /* csh */
	void *insn;                    /* cs_insn, reused */
	int ok;
	const struct ksym *sweep_sym;  /* the res > 0 sweep: where it got to */
	uint32_t sweep_at;
};

void disasm_open(struct disasm *d);
void disasm_close(struct disasm *d);
void disasm_bin(struct disasm *d, const struct kelf *ke, const struct ksym *s,
		uint32_t bin, uint32_t step, char *buf, size_t n);

/* ---- report.c ---- */

enum { BY_SYMBOL, BY_LINE, BY_ADDR };

struct ropts {
	int by;
	long top;                      /* 0: every row */
};

int report(FILE *out, const struct ropts *ro, struct kelf *ke, const struct kpinfo *ki,
	   const struct kpdata *kd, const struct profile *p);

/* ---- export.c ---- */

int export_readprofile(const char *dir, const struct kelf *ke, const struct kpdata *kd,
		       const struct profile *p);

/* ---- dosprof.c: kprof dosprof ELF DUMP, the DosProfile reader ---- */

int dosprof_main(int argc, char **argv);

#endif
