/* The Monte Carlo engine's shared state: the session, its module table and
 * the parts that mc.c (sampling, the calls), mcreport.c (the analysis and
 * the report) and mckcall.c (kernel-call timing) share. */
#ifndef PROF_MC_H
#define PROF_MC_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/mcprof.h"
#include "buildid.h"
#include "symtab.h"

struct proc;
struct textbuf;

/* A module: the kernel, or a program (a process, with PROFILE_PERPID).
 * Its routines come from its symbol table; a module without one gets its
 * hits in its "<no symbols>" row. */
struct mc_module {
	char name[24];          /* "kernel", "hog", "hog[7]" */
	int pid;                /* with PROFILE_PERPID; else 0 */
	const struct symtab *syms;      /* NULL: no symbols */
	struct symtab *ref;     /* a program's table, kept until the report */
	uint32_t tag;           /* a buffered entry's mod word: index | weight 1 */
	uint32_t nsyms;
	uint8_t build_id[BUILDID_MAX];  /* for the dump; idlen 0: not known */
	uint8_t idlen;
	uint32_t *hits;         /* per routine, nsyms of them; NULL until needed */
	uint32_t nosym;         /* hits in no routine of the table (or no table) */
};

/* the session's first modules: the kernel, and UNKNOWN, which takes the
 * hits in no module (a kernel-mode PC outside the kernel's text, a
 * process past the table's end); programs follow */
#define MC_MOD_UNKNOWN    1
#define MC_MOD_FIRST      2

/* a buffered entry's mod word: the module's index, and the tick's weight */
#define MC_ENT_MOD(m)     ((m) & 0xFFFFu)
#define MC_ENT_WEIGHT(m)  ((m) >> 16)
#define MC_ENT_MAXWEIGHT  0xFFFFu

struct mc_session {
	bool on;
	uint32_t options;       /* PROFILE_* */
	int running;            /* continues minus pauses: samples while > 0 */
	uint32_t top;           /* routines in the report, 0: all */
	uint32_t hz;            /* the rate, for the report */
	/* the buffer: entries [buf, pos); pos == end: full */
	struct mc_entry *buf, *pos, *end;
	uint32_t bufpages;
	struct mc_module mods[MC_MAXMODS];
	uint32_t nmods;
	uint32_t idle;          /* samples in the idle loop */
	uint32_t dropped;       /* samples the buffer had no room for */
	uint32_t saturated;     /* hits a full counter could not take */
	uint64_t ticks;         /* clock ticks while running */
	uint64_t since;         /* the clock's ticks when it last started running */
	uint32_t seq;           /* sessions since boot: the report's file name */
};

extern struct mc_session mc;

/* mcreport.c: resolves the buffer (buffered) and writes the tables */
int mc_resolve(void);           /* 0 or -ENOMEM */
void mc_tables(struct textbuf *t, uint32_t top);
void mc_free_hits(void);

/* mcdump.c: the raw dump for the host tool */
int mc_write_dump(const char *path);

/* mckcall.c: -k */
void mc_kcall_init(void);
int mc_kcall_start(void);
void mc_kcall_stop(void);
void mc_kcall_report(struct textbuf *t);

#endif
