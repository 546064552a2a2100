/* The heat engine's parts (heat.c stepping, heattab.c storage, heatdev.c
 * the files): exact per-instruction counts of one traced process. */
#ifndef PROF_HEAT_H
#define PROF_HEAT_H

#include <stdbool.h>
#include <stdint.h>

struct proc;

/* One user instruction's record: 16 bytes, 4096 to a 64 KiB record page,
 * one record page per 4 KiB page of user code that ran. */
#define HEAT_F_CALLED  0x01       /* some call went to it */
#define HEAT_F_ENTER   0x02       /* reached by a control transfer */
#define HEAT_F_EXIT    0x04       /* left by a control transfer */
#define HEAT_F_ISCALL  0x08       /* it is a call instruction */
#define HEAT_F_DECODED 0x10       /* len and HEAT_F_ISCALL are known */
struct heat_rec {
	uint64_t raw;           /* TSC ticks, the per-step overhead still in */
	uint32_t count;         /* completions; saturates */
	uint8_t flags;
	uint8_t len;            /* its length, 0 if it could not be decoded */
	uint16_t unused;
};

#define HEAT_RECPAGE_BYTES  4096        /* user bytes one record page covers */
#define HEAT_RECPAGE_PAGES  (HEAT_RECPAGE_BYTES * sizeof(struct heat_rec) / 4096)
#define HEAT_RESERVE_PAGES  256         /* left free for everything else */

/* heattab.c: the directory (one pointer per 4 KiB of user space) and the
 * record pages behind it. */
int heattab_init(void);                 /* 0 or -ENOMEM; allocates the directory */
void heattab_free(void);                /* all of it */
/* the record for user address va of the current process, allocated and
 * decoded on first use; NULL if va is outside user space (*why = 0) or
 * memory ran short (*why = -ENOMEM) */
struct heat_rec *heattab_get(uint32_t va, int *why);
/* calls fn for each record with a nonzero count, ascending */
void heattab_walk(void (*fn)(uint32_t va, const struct heat_rec *r, void *arg), void *arg);
uint32_t heattab_dirpages(void);
uint32_t heattab_recpages(void);
extern uint32_t heattab_limit;          /* record pages allowed; 0: no limit */

/* heat.c: the state heatdev.c shows and controls */
struct heat_state {
	int pid;                /* traced process, 0 if none */
	int parent;             /* trace this process's next child; 0: not armed */
	bool tracing;
	char name[16];
	char build_id[41];      /* the traced program's, hex; "" if it has none */
	char why[64];           /* why it stopped */
	uint64_t steps, outside;
	uint32_t addrs, lost;   /* distinct records; counts that saturated */
	uint64_t minstep;       /* smallest step seen, TSC ticks; ~0: none yet */
};
extern struct heat_state heat;
int heat_trace_pid(uint32_t pid);       /* 0, -ESRCH, -ENOMEM */
int heat_trace_child(int parent);       /* 0, -ENOMEM */
void heat_stop(const char *why);
void heat_clear(void);
uint64_t heat_overhead(void);           /* ticks taken off every step */
void heatdev_init(void);

#endif
