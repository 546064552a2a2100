/* /dev/sysstat: the clock, free pages, lost ticks and one line per
 * process, as text, taken whole at open so that every read agrees. */
#include "abi/errno.h"
#include "abi/kprof.h"
#include "arch.h"
#include "clock.h"
#include "dev.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"

enum { Qsysstat };

static const struct dirtab sysstattab[] = {
	{ "sysstat", Qsysstat, false },
};

static int sysstatopen(int id, struct file *f)
{
	struct textbuf t;
	uint32_t mhz = clock_hz_mhz();
	(void)id;

	if (!text_begin(&t))
		return -ENOMEM;
	uint32_t s = splhi();
	uint64_t now = ticks;           /* 64 bits: read with the clock held off */
	splx(s);

	text_add(&t, "ticks %llu\n", (unsigned long long)now);
	text_add(&t, "hz %u.%03u\n", mhz / 1000, mhz % 1000);
	text_add(&t, "hz_max %u\n", clock_max_hz());
	text_add(&t, "uptime_ms %llu\n", (unsigned long long)(clock_uptime_us() / 1000));
	text_add(&t, "nproc %d\n", proc_count());
	text_add(&t, "freepages %u\n", kalloc_free_pages());
	text_add(&t, "totalpages %u\n", kalloc_total_pages());
	text_add(&t, "failalloc %u\n", kalloc_injected());
	text_add(&t, "%s %u\n", KPINFO_LOST, lost_ticks);
	text_add(&t, "pit_jitter %u\n", arch_timer_jitter_k());
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &procs[i];
		if (p->state == P_UNUSED)
			continue;
		text_add(&t, "proc %d %d %s %u %u %s %s\n", p->pid, p->ppid, procstate_name(p),
			 p->uticks, p->kticks, p->abi == ABI_LINUX ? "linux" : "kprof", p->name);
	}
	return text_finish(&t, f);
}

static void sysstatclose(int id, struct file *f)
{
	(void)id;
	snap_close(f);
}

static int sysstatread(int id, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	(void)id;
	return snap_read(f, buf, n, off);
}

static int sysstatwrite(int id, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	(void)id, (void)f, (void)buf, (void)n, (void)off;
	return -EPERM;
}

static uint32_t sysstatsize(int id, struct file *f)
{
	(void)id;
	return snap_size(f);
}

static const struct dev sysstatdev = {
	"sysstat", sysstattab, NELEM(sysstattab), sysstatopen, sysstatclose, sysstatread,
	sysstatwrite, sysstatsize,
};

void sysstat_init(void)
{
	devfs_register(&sysstatdev);
}
