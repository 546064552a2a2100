/* The DosProfile engine's sessions, shared by the sampling side
 * (dosprof.c) and the system call (dosprof_call.c). */
#ifndef PROF_DOSPROF_H
#define PROF_DOSPROF_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/dosprof.h"

/* The index over a session's sorted slots has this many buckets: an
 * address's bucket names the few slots that can hold it, so a lookup is a
 * shift, a load and a search over those few, never over all 255. */
#define DP_NBUCKETS 1024
#define DP_MAGIC 0x444f5350u    /* a live session's check word */

struct dpslot {                 /* in address order */
	uint32_t start, size;
	uint32_t mode;                  /* PRF_VA* */
	uint32_t count;                 /* va_cnt */
	uint32_t cbase;                 /* detailed: counter index of address 0 >> shift */
	uint32_t order;                 /* its place in the caller's array */
};

struct dpsess {
	/* the sample path's fields first */
	uint32_t nticks;                /* clock ticks while running (r0_reserved1) */
	uint8_t nflgs, fi, left;        /* divider: bytes, the current one, its countdown */
	bool kernel;                    /* the target is the kernel */
	uint32_t bit;                   /* 1 << the session's index */
	uint32_t lo, span;              /* the slots' hull: [lo, lo + span) */
	uint32_t bshift;                /* address - lo >> bshift = bucket */
	uint32_t shift;                 /* detailed counters: 2^shift bytes each */
	uint32_t idle, kern, unknown;   /* r0_idle, r0_kernel, r0_unknown */
	uint32_t lost;                  /* samples a full counter or table dropped */
	uint32_t *hits;                 /* the hit table */
	uint32_t nhits, hitcnt, hithead, overwritten;
	uint32_t *cnts;                 /* detailed counters */
	uint32_t ncnts;
	uint32_t nslots;
	uint16_t flags;                 /* cm_flags and PRFS_* */
	uint16_t timval;
	uint16_t nprocs;                /* r0_nstruc2 */
	uint32_t magic;                 /* DP_MAGIC, or the session is corrupt */
	int pid;                        /* the key: 0 for the kernel */
	bool used;
	uint32_t hitpages, cntpages;    /* for kfree_contig */
	uint8_t flg[256];
	uint16_t bucket[DP_NBUCKETS + 1];       /* first slot ending after the bucket's start */
	struct dpslot slot[PRF_MAXSLOTS];
};

extern struct dpsess dp_sess[PRF_MAXSESSIONS];
extern volatile uint32_t dp_running;            /* bits of sessions that sample */

struct proc;
/* dosprof.c, for the call */
void dp_follow(struct dpsess *s, struct proc *p);       /* p joins the session */
void dp_unfollow_all(struct dpsess *s);
void dp_set_running(struct dpsess *s, bool on);
bool dp_engine_begin(uint32_t timval, int *err);        /* a session starts to exist */
void dp_engine_end(void);                               /* one stopped existing */
int dp_lookup(const struct dpsess *s, uint32_t pc);     /* slot index, or -1 */

#endif
