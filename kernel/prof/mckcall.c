/* Kernel-call timing (PROFILE_KCALL, `prof on -k`), after Windows CE's
 * KCall profile: not samples but the time of the kernel's own sections,
 * each with its count, total, minimum, maximum and average, in TSC cycles
 * (under QEMU's -icount a cycle is one guest instruction):
 *   - each system call, from its dispatch to its return, less the time
 *     its process was switched out (a sleep is not the call's work);
 *   - each interrupts-off section, splhi() to splx(), by the place that
 *     turned interrupts off;
 *   - the scheduler's switch, from its start looking for a process to the
 *     switch to the one it found (CE's NextThread); a look that ends in
 *     the idle loop is not a switch and is not timed. */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch.h"
#include "dev.h"
#include "lib.h"
#include "proc.h"
#include "prof/mc.h"
#include "prof/prof.h"
#include "syscall.h"

struct kstat {
	uint32_t calls;
	uint64_t total;
	uint32_t min, max;
};

#define NSITES 64               /* interrupts-off sections told apart */

static struct {
	struct kstat sys[NSYSCALL], sites[NSITES], pick;
	uint32_t site[NSITES];  /* each section's splhi caller; 0: free */
	bool shown[NSITES];     /* the report's */
	uint32_t othersites;    /* sections past NSITES, counted in "other" */
	struct kstat other;
	/* per process slot: the system call in progress */
	uint64_t start[NPROC], away[NPROC], out[NPROC];
	bool insys[NPROC];
	int last;               /* the slot switched to last, or -1 */
	uint64_t off;           /* when interrupts went off; 0: not timed */
	uint32_t offsite;
	uint64_t pickstart;     /* 0: no pick under way */
} kc;

static void record(struct kstat *k, uint64_t d)
{
	uint32_t c = (uint32_t)MIN(d, 0xFFFFFFFFu);

	if (k->calls == 0 || c < k->min)
		k->min = c;
	if (c > k->max)
		k->max = c;
	k->calls++;
	k->total += d;
}

static struct kstat *site_of(uint32_t site)
{
	for_each_probe(h, site * 2654435761u, NSITES, NSITES) {
		if (kc.site[h] == site)
			return &kc.sites[h];
		if (!kc.site[h]) {
			kc.site[h] = site;
			return &kc.sites[h];
		}
	}
	kc.othersites++;
	return &kc.other;
}

static void kc_syscall(struct proc *p, uint32_t num, bool done)
{
	int i;

	if (!p || num >= NSYSCALL || mc.running <= 0)
		return;
	i = p - procs;
	if (!done) {
		kc.start[i] = arch_read_tsc();
		kc.away[i] = 0;
		kc.insys[i] = true;
	} else if (kc.insys[i]) {
		uint64_t d = arch_read_tsc() - kc.start[i];
		record(&kc.sys[num], d > kc.away[i] ? d - kc.away[i] : 0);
		kc.insys[i] = false;
	}
}

/* interrupts are off at every call */
static void kc_kcall(uint32_t what, uint32_t site)
{
	uint64_t now = arch_read_tsc();

	if (mc.running <= 0)
		return;
	switch (what) {
	case PROF_KC_OFF:
		kc.off = now;
		kc.offsite = site;
		break;
	case PROF_KC_ON:
		if (kc.off)
			record(site_of(kc.offsite), now - kc.off);
		kc.off = 0;
		break;
	case PROF_KC_PICK:
		if (kc.last >= 0)
			kc.out[kc.last] = now;          /* it has just left */
		kc.last = -1;                   /* later looks (after idling) are not its */
		kc.pickstart = now;
		break;
	case PROF_KC_IDLE:
		kc.pickstart = 0;
		break;
	case PROF_KC_SWITCH:
		for (int i = 0; i < NPROC; i++) {
			if (procs[i].pid != (int)site)
				continue;
			if (kc.insys[i] && kc.out[i])
				kc.away[i] += now - kc.out[i];
			kc.out[i] = 0;
			kc.last = i;
		}
		if (kc.pickstart)
			record(&kc.pick, now - kc.pickstart);
		kc.pickstart = 0;
		break;
	}
}

static struct prof_engine engine = {
	.name = "mc.kcall", .syscall = kc_syscall, .kcall = kc_kcall,
};

void mc_kcall_init(void)
{
	prof_register(&engine);
}

int mc_kcall_start(void)
{
	memset(&kc, 0, sizeof kc);
	kc.last = -1;
	prof_set_hooks(&engine, true);
	return 0;
}

void mc_kcall_stop(void)
{
	prof_set_hooks(&engine, false);
}

static void row(struct textbuf *t, const char *idx, const char *name, const struct kstat *k)
{
	text_add(t, "%5s %-35s %8u %12llu %8u %8u %8u\n", idx, name, k->calls,
		 (unsigned long long)k->total, k->calls ? k->min : 0, k->max,
		 k->calls ? (uint32_t)(k->total / k->calls) : 0);
}

void mc_kcall_report(struct textbuf *t)
{
	const struct symtab *ks = symtab_kernel();
	struct kstat all = { 0 };
	char idx[12], name[64];

	text_add(t, "=================== KERNEL CALL REPORT ===================\n");
	text_add(t, "Resolution: 1 TSC cycle (%u kHz); under QEMU's -icount, one instruction\n",
		 arch_tsc_khz());
	text_add(t, "%5s %-35s %8s %12s %8s %8s %8s\n", "Index", "Entrypoint", "Calls", "Cycles", "Min",
		 "Max", "Avg");
	for (uint32_t n = 0; n < NSYSCALL; n++) {
		int i;
		if (!kc.sys[n].calls)
			continue;
		i = symtab_find(ks, syscall_handler(n));
		ksnprintf(idx, sizeof idx, "%u", n);
		row(t, idx, i >= 0 ? symtab_name(ks, i) : "?", &kc.sys[n]);
	}
	/* the interrupts-off sections, longest in all first, numbered c1... */
	for (int k = 1;; k++) {
		int h = -1;
		for (int j = 0; j < NSITES; j++)
			if (kc.site[j] && !kc.shown[j] && (h < 0 || kc.sites[j].total > kc.sites[h].total))
				h = j;
		if (h < 0)
			break;
		kc.shown[h] = true;
		symtab_format(name + 4, sizeof name - 4, kc.site[h], true);
		memcpy(name, "cli ", 4);
		ksnprintf(idx, sizeof idx, "c%d", k);
		row(t, idx, name, &kc.sites[h]);
		all.calls += kc.sites[h].calls;
		all.total += kc.sites[h].total;
		all.max = MAX(all.max, kc.sites[h].max);
	}
	if (kc.other.calls)
		row(t, "c*", "cli (other places)", &kc.other);
	for (uint32_t n = 0; n < NSYSCALL; n++) {
		all.calls += kc.sys[n].calls;
		all.total += kc.sys[n].total;
		all.max = MAX(all.max, kc.sys[n].max);
	}
	all.calls += kc.other.calls;
	all.total += kc.other.total;
	all.max = MAX(all.max, kc.other.max);
	text_add(t, "-- Summary -------------------------------------\n");
	text_add(t, "NextThread: Calls=%u Min=%u Max=%u Avg=%u\n", kc.pick.calls,
		 kc.pick.calls ? kc.pick.min : 0, kc.pick.max,
		 kc.pick.calls ? (uint32_t)(kc.pick.total / kc.pick.calls) : 0);
	text_add(t, "Other Kernel calls: Max=%u Avg=%u\n", all.max,
		 all.calls ? (uint32_t)(all.total / all.calls) : 0);
}
