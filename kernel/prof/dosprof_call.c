/* The DosProfile system call: OS/2's six functions over sessions, one per
 * target (a pid, or 0 for the kernel), with OS/2's return codes. A call
 * that fails changes nothing: every check comes before the first change.
 *
 * Beyond OS/2: up to PRF_MAXSESSIONS sessions at once, counters that stop
 * at 0xFFFFFFFF (r0_errcnt counts what that, or a full hit table, lost),
 * a PRF_WRAP ring that works, and data that outlives its target until
 * PRF_CM_EXIT. cm_bufsz is the size of each buffer a session needs: the
 * hit table (cm_bufsz / 4 entries) and the detailed counters (at most
 * cm_bufsz / 4 of them, as fine as fits). */
#include "abi/memlayout.h"
#include "abi/syscall.h"
#include "kalloc.h"
#include "clock.h"
#include "lib.h"
#include "proc.h"
#include "prof/dosprof.h"
#include "syscall.h"
#include "uaccess.h"

/* The call runs to its end without sleeping, so one scratch buffer serves
 * every caller: the slots as copied in, or a PRFRET1 on its way out. */
static union {
	PRFSLOT in[PRF_MAXSLOTS];
	uint8_t out[sizeof(PRFRET1) + PRF_MAXSLOTS * sizeof(PRFVA)];
} scratch;

static struct dpsess *find(uint32_t pid)
{
	for (int i = 0; i < PRF_MAXSESSIONS; i++)
		if (dp_sess[i].used && dp_sess[i].pid == (int)pid)
			return &dp_sess[i];
	return NULL;
}

static struct proc *live(uint32_t pid)
{
	return proc_lookup(pid);
}

/* the counters' count for every detailed slot at granularity 2^shift */
static uint64_t ncounters(const PRFSLOT *sl, const uint32_t *mode, uint32_t n, uint32_t shift)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < n; i++)
		if (mode[i] == PRF_VADETAIL)
			total += ((sl[i].sl_vaddr + (uint64_t)sl[i].sl_size - 1) >> shift) -
				 (sl[i].sl_vaddr >> shift) + 1;
	return total;
}

static void *alloc_words(uint32_t n, uint32_t *pages)
{
	*pages = n ? ROUNDUP(n * 4, PGSIZE) / PGSIZE : 0;
	return n ? kalloc_contig(*pages) : NULL;
}

static void free_bufs(struct dpsess *s)
{
	if (s->hits)
		kfree_contig(s->hits, s->hitpages);
	if (s->cnts)
		kfree_contig(s->cnts, s->cntpages);
	s->hits = s->cnts = NULL;
}

/* the index over the sorted slots: each bucket's candidates are the
 * slots from the first that ends after the bucket starts to the first
 * that ends after it ends. Needs start[nslots]. */
static void build_index(struct dpsess *s)
{
	uint32_t j = 0, last = 0;
	uint64_t hull;

	s->lo = s->start[0];
	s->span = s->start[s->nslots - 1] + s->size[s->nslots - 1] - s->lo;
	hull = (uint64_t)s->lo + s->span;
	s->bshift = 0;
	while (((s->span - 1) >> s->bshift) >= DP_NBUCKETS)
		s->bshift++;
	for (uint32_t b = 0; b < DP_NBUCKETS; b++) {
		uint64_t at = s->lo + ((uint64_t)b << s->bshift);
		uint64_t end = MIN(at + (1ull << s->bshift), hull);
		bool covered;
		while (j < s->nslots && s->start[j] + (uint64_t)s->size[j] <= at)
			j++;
		j = MIN(j, s->nslots - 1);
		last = MAX(last, j);
		while (last + 1 < s->nslots && s->start[last + 1] < end)
			last++;
		/* the part inside the hull, in j, or in j and j + 1 */
		covered = s->start[j] <= at && end <= s->start[last] + (uint64_t)s->size[last] &&
			  (last == j || (last == j + 1 && s->start[j] + s->size[j] == s->start[last]));
		s->bucket[b] = covered ? j : DP_CHECK;
		s->first[b] = j;
		s->lastk[b] = last;
	}
}

static void restart_divider(struct dpsess *s)
{
	if (s->nflgs) {
		s->fi = s->nflgs - 1;
		s->left = s->flg[s->fi];
	}
}

static int init(uint32_t pid, uint32_t ucmd)
{
	PRFCMD cmd;
	PRFSLOT *sl = scratch.in;
	uint32_t mode[PRF_MAXSLOTS], order[PRF_MAXSLOTS];
	uint8_t flg[256];
	uint32_t lo, hi, timval, nhits = 0, ncnts = 0, shift = 0, ndetail = 0, nhit = 0;
	struct dpsess *s = NULL;
	struct proc *target = NULL;
	bool kernel;
	int err;

	if (copyin(&cmd, ucmd, sizeof cmd) < 0)
		return ERROR_PROTECTION_VIOLATION;
	if ((cmd.cm_flags & PRF_TARGETMASK) == 3 || (cmd.cm_flags & PRF_VAMASK) == PRF_VAMASK ||
	    (cmd.cm_flags & ~(PRF_TARGETMASK | PRF_VAMASK | PRF_FLGBITS | PRF_WRAP)))
		return ERROR_INVALID_PARAMETER;         /* status bits and unknown bits too */
	kernel = pid == 0 || (cmd.cm_flags & PRF_TARGETMASK) == PRF_KERNEL;
	if (kernel && pid != 0)
		return ERROR_INVALID_PARAMETER;         /* PRF_KERNEL names the kernel: pid 0 */
	if (find(pid))
		return PRF_ALREADY_INITIALIZED;
	if (!kernel && !(target = live(pid)))
		return ERROR_INVALID_PROCID;
	if (cmd.cm_nslots == 0 || cmd.cm_nslots > PRF_MAXSLOTS)
		return ERROR_INVALID_PARAMETER;
	timval = cmd.cm_timval ? cmd.cm_timval : PRF_DEFAULT_TIMVAL;
	if (timval < CLOCK_MIN_HZ || timval > CLOCK_MAX_HZ)
		return PRF_TIMER_OUT_OF_RANGE;
	if (cmd.cm_flags & PRF_FLGBITS) {
		if (cmd.cm_nflgs < 2)
			return ERROR_INVALID_PARAMETER;
		if (copyin(flg, (uint32_t)cmd.cm_flgbits, cmd.cm_nflgs) < 0)
			return ERROR_PROTECTION_VIOLATION;
		for (int i = 0; i < cmd.cm_nflgs; i++)
			if (flg[i] == 0)
				return ERROR_INVALID_PARAMETER;     /* a countdown from 0 never ends */
	}
	if (copyin_array(sl, (uint32_t)cmd.cm_slots, cmd.cm_nslots, sizeof *sl) < 0)
		return ERROR_PROTECTION_VIOLATION;

	/* each slot inside the target's address space, with a known mode */
	lo = kernel ? KERNBASE : USER_BASE;
	hi = kernel ? KERN_TOP : USER_TOP;
	for (uint32_t i = 0; i < cmd.cm_nslots; i++) {
		uint32_t m = sl[i].sl_mode & PRF_VAMASK;
		if (sl[i].sl_size == 0 || sl[i].sl_vaddr < lo || sl[i].sl_vaddr >= hi ||
		    sl[i].sl_size > hi - sl[i].sl_vaddr)
			return ERROR_INVALID_PARAMETER;
		if (m == PRF_VAMASK)
			return ERROR_INVALID_PARAMETER;
		mode[i] = sl[i].sl_mode == 0 ? PRF_VATOTAL : m ? m : cmd.cm_flags & PRF_VAMASK;
		ndetail += mode[i] == PRF_VADETAIL;
		nhit += mode[i] == PRF_VAHIT;
	}
	/* sorted by address (insertion sort: at most 255), and apart */
	for (uint32_t i = 0; i < cmd.cm_nslots; i++) {
		uint32_t j = i;
		for (; j > 0 && sl[order[j - 1]].sl_vaddr > sl[i].sl_vaddr; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (uint32_t i = 1; i < cmd.cm_nslots; i++)
		if (sl[order[i]].sl_vaddr - sl[order[i - 1]].sl_vaddr < sl[order[i - 1]].sl_size)
			return ERROR_INVALID_PARAMETER;     /* overlapping */

	if ((ndetail || nhit) && cmd.cm_bufsz / 4 == 0)
		return ERROR_INVALID_PARAMETER;
	if ((ndetail || nhit) && cmd.cm_bufsz > PRF_MAXBUF)
		return ERROR_NOT_ENOUGH_MEMORY;
	if (nhit)
		nhits = cmd.cm_bufsz / 4;
	if (ndetail) {
		/* the finest granularity whose counters all fit */
		while (shift < 32 && ncounters(sl, mode, cmd.cm_nslots, shift) > cmd.cm_bufsz / 4)
			shift++;
		if (shift == 32)
			return ERROR_INVALID_PARAMETER;     /* not even one counter per slot fits */
		ncnts = ncounters(sl, mode, cmd.cm_nslots, shift);
	}
	for (int i = 0; i < PRF_MAXSESSIONS && !s; i++)
		if (!dp_sess[i].used)
			s = &dp_sess[i];
	if (!s)
		return ERROR_NOT_ENOUGH_MEMORY;         /* every session is taken */

	s->hits = alloc_words(nhits, &s->hitpages);
	s->cnts = alloc_words(ncnts, &s->cntpages);
	if ((nhits && !s->hits) || (ncnts && !s->cnts)) {
		free_bufs(s);
		return ERROR_NOT_ENOUGH_MEMORY;
	}
	if (!dp_engine_begin(timval, &err)) {
		free_bufs(s);
		return err;
	}

	/* from here on nothing fails */
	s->nslots = cmd.cm_nslots;
	for (uint32_t i = 0, base = 0; i < s->nslots; i++) {
		const PRFSLOT *in = &sl[order[i]];
		s->start[i] = in->sl_vaddr;
		s->size[i] = in->sl_size;
		s->mode[i] = mode[order[i]];
		s->order[i] = order[i];
		s->count[i] = 0;
		if (s->mode[i] == PRF_VADETAIL) {
			/* in unsigned arithmetic: the pointer itself may lie
			 * outside cnts, only cnt0[i][a >> shift] for a in the
			 * slot is in it */
			s->cnt0[i] = (uint32_t *)((uintptr_t)s->cnts +
						  4 * (base - (in->sl_vaddr >> shift)));
			base += ((in->sl_vaddr + (uint64_t)in->sl_size - 1) >> shift) -
				(in->sl_vaddr >> shift) + 1;
		}
	}
	/* every slot ends by USER_TOP, so no address in one is at or above ~0u */
	s->start[s->nslots] = ~0u;
	build_index(s);
	s->kernel = kernel;
	s->pid = pid;
	s->shift = shift;
	s->nhits = nhits;
	s->hitlast = nhits - 1;
	s->ncnts = ncnts;
	s->nticks = s->idle = s->kern = s->unknown = s->lost = 0;
	s->hitcnt = s->hithead = s->overwritten = 0;
	s->nflgs = cmd.cm_flags & PRF_FLGBITS ? cmd.cm_nflgs : 0;
	memcpy(s->flg, flg, s->nflgs);
	restart_divider(s);
	s->timval = timval;
	s->nprocs = 0;
	s->proc = NULL;
	s->flags = cmd.cm_flags;
	if (!kernel && (cmd.cm_flags & PRF_TARGETMASK) == PRF_PROCESS_MT)
		s->flags |= PRFS_THRDS;
	s->magic = DP_MAGIC;
	s->used = true;
	if (target)
		dp_follow(s, target);
	return NO_ERROR;
}

static bool sane(const struct dpsess *s)
{
	return s->magic == DP_MAGIC && s->nslots >= 1 && s->nslots <= PRF_MAXSLOTS &&
	       s->hitcnt <= s->nhits && (s->nhits == 0 || s->hithead < s->nhits);
}

static void clear(struct dpsess *s)
{
	uint32_t x = splhi();

	s->nticks = s->idle = s->kern = s->unknown = s->lost = 0;
	s->hitcnt = s->hithead = s->overwritten = 0;
	s->flags &= ~PRFS_HITOVFL;
	for (uint32_t i = 0; i < s->nslots; i++)
		s->count[i] = 0;
	if (s->cnts)
		memset(s->cnts, 0, s->ncnts * 4);
	restart_divider(s);
	splx(x);
}

static void global(const struct dpsess *s, PRFRET0 *r)
{
	uint32_t x = splhi();

	*r = (PRFRET0){
		.r0_flags = s->flags | (dp_running & s->bit ? PRFS_RUNNING : 0),
		.r0_shift = s->shift, .r0_idle = s->idle, .r0_kernel = s->kern,
		.r0_unknown = s->unknown, .r0_nhitbufs = s->nhits, .r0_hitbufcnt = s->hitcnt,
		.r0_reserved1 = s->nticks, .r0_reserved2 = s->overwritten,
		.r0_timval = s->timval, .r0_errcnt = MIN(s->lost, 255u),
		.r0_nstruc1 = s->nslots, .r0_nstruc2 = s->nprocs,
	};
	splx(x);
}

static int dump(struct dpsess *s, uint32_t uret)
{
	PRFRET r;
	uint32_t ubuf, len, hdr[2], nhdr = 0, head = 0, cnt = 0, nw = 0;
	const uint32_t *from = NULL;
	const void *body = NULL;
	PRFRET0 r0;
	int k;

	if (copyin(&r, uret, sizeof r) < 0)
		return ERROR_PROTECTION_VIOLATION;
	ubuf = (uint32_t)r.us_buf;
	switch (r.us_cmd) {
	case PRF_RET_GLOBAL:
		if (r.us_thrdno != 0)
			return ERROR_INVALID_PARAMETER;     /* no per-process data here */
		global(s, &r0);
		body = &r0;
		len = sizeof r0;
		break;
	case PRF_RET_VASLOTS: {
		PRFRET1 *r1 = (PRFRET1 *)scratch.out;
		r1->r1_nslots = s->nslots;
		for (uint32_t i = 0; i < s->nslots; i++) {
			r1->r1_slots[s->order[i]] = (PRFVA){ s->start[i], s->size[i],
				PRF_VATOTAL | s->mode[i], s->mode[i], s->count[i] };
		}
		body = r1;
		len = sizeof *r1 + s->nslots * sizeof(PRFVA);
		break;
	}
	case PRF_RET_VAHITS:
		if (!s->nhits)
			return ERROR_MOD_NOT_FOUND;         /* no slot in hit mode */
		{
			uint32_t x = splhi();
			cnt = s->hitcnt;
			head = s->hithead;
			splx(x);
		}
		hdr[0] = cnt;
		nhdr = 1;
		len = 4 + cnt * 4;
		break;
	case PRF_RET_VADETAIL:
		k = dp_lookup(s, r.us_vaddr);
		if (k < 0 || s->mode[k] != PRF_VADETAIL)
			return ERROR_MOD_NOT_FOUND;         /* no detailed slot holds us_vaddr */
		from = &s->cnt0[k][s->start[k] >> s->shift];
		nw = ((s->start[k] + (uint64_t)s->size[k] - 1) >> s->shift) -
		     (s->start[k] >> s->shift) + 1;
		hdr[0] = 1u << s->shift;
		hdr[1] = nw;
		nhdr = 2;
		len = 8 + nw * 4;
		break;
	default:
		return ERROR_INVALID_PARAMETER;
	}
	/* us_bufsz comes back as the bytes written, or the bytes needed */
	if (r.us_bufsz < len) {
		if (copyout(uret + offsetof(PRFRET, us_bufsz), &len, 4) < 0)
			return ERROR_PROTECTION_VIOLATION;
		return ERROR_BUFFER_OVERFLOW;
	}
	if (!uvalid(ubuf, len))
		return ERROR_PROTECTION_VIOLATION;
	if (body) {
		copyout(ubuf, body, len);
	} else {
		copyout(ubuf, hdr, nhdr * 4);
		if (r.us_cmd == PRF_RET_VADETAIL) {
			copyout(ubuf + 8, from, nw * 4);
		} else if (cnt == s->nhits && head) {
			/* a ring that wrapped: the oldest entry is at head */
			copyout(ubuf + 4, s->hits + head, (cnt - head) * 4);
			copyout(ubuf + 4 + (cnt - head) * 4, s->hits, head * 4);
		} else {
			copyout(ubuf + 4, s->hits, cnt * 4);
		}
	}
	if (copyout(uret + offsetof(PRFRET, us_bufsz), &len, 4) < 0)
		return ERROR_PROTECTION_VIOLATION;
	return NO_ERROR;
}

static int finish(struct dpsess *s)
{
	if (dp_running & s->bit)
		dp_set_running(s, false);
	dp_unfollow_all(s);
	s->proc = NULL;
	free_bufs(s);
	s->used = false;
	s->magic = 0;
	dp_engine_end();
	return NO_ERROR;
}

static int sys_dosprofile(uint32_t func, uint32_t pid, uint32_t ucmd, uint32_t uret)
{
	struct dpsess *s;

	if (func > PRF_CM_EXIT)
		return ERROR_INVALID_PARAMETER;
	if (func == PRF_CM_INIT)
		return init(pid, ucmd);
	if (!(s = find(pid)))
		return pid == 0 || live(pid) ? PRF_NOT_INITIALIZED : ERROR_INVALID_PROCID;
	if (func == PRF_CM_EXIT)
		return finish(s);               /* a corrupt session can still go */
	if (!sane(s))
		return ERROR_SYS_INTERNAL;
	switch (func) {
	case PRF_CM_START:
		if (dp_running & s->bit)
			return PRF_ALREADY_STARTED;
		dp_set_running(s, true);
		return NO_ERROR;
	case PRF_CM_STOP:
		if (!(dp_running & s->bit))
			return PRF_NOT_STARTED;
		dp_set_running(s, false);
		return NO_ERROR;
	case PRF_CM_CLEAR:
		clear(s);
		return NO_ERROR;
	default:
		return dump(s, uret);
	}
}
SYSCALL_ENTRY(SYS_DosProfile, sys_dosprofile, (a[0], a[1], a[2], a[3]));
