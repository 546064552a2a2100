/* The DosProfile engine's sessions, shared by the sampling side
 * (dosprof.c) and the system call (dosprof_call.c). */
#ifndef PROF_DOSPROF_H
#define PROF_DOSPROF_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/dosprof.h"

/* The index over a session's sorted slots has this many buckets: an
 * address's bucket names the slots that can hold it, so a lookup is a
 * shift, a load and a compare or two, never a walk over all 255. An entry
 * is the first candidate, and DP_TWO if the next slot is one too, or
 * DP_MANY if more are (then a binary search over them). */
#define DP_NBUCKETS 2048
#define DP_TWO      0x100
#define DP_MANY     0x200
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
	uint16_t bucket[DP_NBUCKETS];           /* first candidate | DP_TWO or DP_MANY */
	uint8_t lastk[DP_NBUCKETS];             /* the last candidate, for DP_MANY */
	/* the slots in address order, one array per field, so that a lookup
	 * indexes by 4 and touches only what it reads */
	uint32_t start[PRF_MAXSLOTS], size[PRF_MAXSLOTS];
	uint32_t count[PRF_MAXSLOTS];           /* va_cnt */
	uint32_t mode[PRF_MAXSLOTS];            /* PRF_VA* */
	uint32_t cbase[PRF_MAXSLOTS];           /* detailed: counter of address 0 >> shift */
	uint8_t order[PRF_MAXSLOTS];            /* its place in the caller's array */
};

extern struct dpsess dp_sess[PRF_MAXSESSIONS];
extern volatile uint32_t dp_running;            /* bits of sessions that sample */

uint32_t dp_search(const struct dpsess *s, uint32_t b, uint32_t pc);

/* the slot holding pc, or -1 */
static inline int dp_lookup(const struct dpsess *s, uint32_t pc)
{
	uint32_t off = pc - s->lo, e, k;

	if (off >= s->span)
		return -1;
	e = s->bucket[off >> s->bshift];
	k = e & 0xFF;
	if (__builtin_expect(e > 0xFF, 0)) {
		if (e & DP_TWO)
			k += pc >= s->start[k + 1];
		else
			k = dp_search(s, off >> s->bshift, pc);
	}
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
