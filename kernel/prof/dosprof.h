/* The DosProfile engine's sessions, shared by the sampling side
 * (dosprof.c) and the system call (dosprof_call.c). */
#ifndef PROF_DOSPROF_H
#define PROF_DOSPROF_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/dosprof.h"

/* The index over a session's sorted slots has this many buckets, so a
 * lookup is a shift, a load and a compare, never a walk over all 255. A
 * bucket covered by one slot k, or by k and k + 1 with no gap between,
 * has entry k: an address there is in k unless it is at or above
 * start[k + 1]. Any other bucket's entry is DP_CHECK, a number no slot
 * has: its addresses take a binary search over the bucket's candidates,
 * first..lastk, and a bounds check. */
#define DP_NBUCKETS 2048
#define DP_CHECK    PRF_MAXSLOTS
#define DP_MAGIC 0x444f5350u    /* a live session's check word */

struct dpsess {
	/* the sample path's fields first */
	uint32_t nticks;                /* clock ticks while running (r0_reserved1) */
	uint8_t nflgs, fi, left;        /* divider: bytes, the current one, its countdown */
	bool kernel;                    /* the target is the kernel */
	uint32_t bit;                   /* 1 << the session's index */
	struct proc *proc;              /* the last of its processes a tick found, or NULL */
	uint32_t lo, span;              /* the slots' hull: [lo, lo + span) */
	uint32_t bshift;                /* address - lo >> bshift = bucket */
	uint32_t shift;                 /* detailed counters: 2^shift bytes each */
	uint32_t idle, kern, unknown;   /* r0_idle, r0_kernel, r0_unknown */
	uint32_t lost;                  /* samples a full counter or table dropped */
	uint32_t *hits;                 /* the hit table */
	uint32_t nhits, hitcnt, hithead, overwritten;
	uint32_t hitlast;               /* nhits - 1: the fast path stops short of it */
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
	uint8_t bucket[DP_NBUCKETS];            /* the covering slot, or DP_CHECK */
	uint8_t first[DP_NBUCKETS], lastk[DP_NBUCKETS]; /* the candidates */
	/* the slots in address order, one array per field, so that a lookup
	 * indexes by 4 and touches only what it reads */
	uint32_t start[PRF_MAXSLOTS + 1];       /* start[nslots] is ~0u, above them all */
	uint32_t size[PRF_MAXSLOTS];
	uint32_t count[PRF_MAXSLOTS];           /* va_cnt */
	uint32_t mode[PRF_MAXSLOTS];            /* PRF_VA* */
	uint32_t *cnt0[PRF_MAXSLOTS];           /* detailed: address a's counter is cnt0[k][a >> shift] */
	uint8_t order[PRF_MAXSLOTS];            /* its place in the caller's array */
};

extern struct dpsess dp_sess[PRF_MAXSESSIONS];
extern volatile uint32_t dp_running;            /* bits of sessions that sample */

uint32_t dp_search(const struct dpsess *s, uint32_t b, uint32_t pc);

/* the slot holding pc, or -1 */
static inline int dp_lookup(const struct dpsess *s, uint32_t pc)
{
	uint32_t off = pc - s->lo, b, k;

	if (off >= s->span)
		return -1;
	b = off >> s->bshift;
	k = s->bucket[b];
	if (k != DP_CHECK)
		return k + (pc >= s->start[k + 1]);
	k = dp_search(s, b, pc);
	return pc - s->start[k] < s->size[k] ? (int)k : -1;
}

struct proc;
/* dosprof.c, for the call */
void dp_follow(struct dpsess *s, struct proc *p);       /* p joins the session */
void dp_unfollow_all(struct dpsess *s);
void dp_set_running(struct dpsess *s, bool on);
bool dp_engine_begin(uint32_t timval, int *err);        /* a session starts to exist */
void dp_engine_end(void);                               /* one stopped existing */

#endif
