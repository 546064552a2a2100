/* The basic devices: cons (the console), null, eia1 (COM2, raw: the export
 * channel) and sysstat (ticks, processes, free pages, as text). */
#include "abi/errno.h"
#include "abi/kprof.h"
#include "arch.h"
#include "clock.h"
#include "console.h"
#include "dev.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"

enum { Qcons, Qnull, Qeia1, Qsysstat };

static const struct dirtab constab[] = {
	{ "cons", Qcons, true },
	{ "null", Qnull, true },
	{ "eia1", Qeia1, true },
	{ "sysstat", Qsysstat, false },
};

static int sysstat_open(struct file *f)
{
	struct textbuf t;
	uint32_t mhz = clock_hz_mhz();

	if (!text_begin(&t))
		return -ENOMEM;
	uint32_t s = splhi();
	uint64_t now = ticks;           /* 64 bits: read with the clock held off */
	splx(s);

	text_add(&t, "ticks %llu\n", (unsigned long long)now);
	text_add(&t, "hz %u.%03u\n", mhz / 1000, mhz % 1000);
	text_add(&t, "uptime_ms %llu\n", (unsigned long long)(clock_uptime_us() / 1000));
	text_add(&t, "nproc %d\n", proc_count());
	text_add(&t, "freepages %u\n", kalloc_free_pages());
	text_add(&t, "totalpages %u\n", kalloc_total_pages());
	text_add(&t, "%s %u\n", KPINFO_LOST, lost_ticks);
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &procs[i];
		if (p->state == P_UNUSED)
			continue;
		text_add(&t, "proc %d %d %s %u %u %s\n", p->pid, p->ppid, procstate_name(p),
			 p->uticks, p->kticks, p->name);
	}
	return text_finish(&t, f);
}

static int consopen(int id, struct file *f)
{
	return id == Qsysstat ? sysstat_open(f) : 0;
}

static void consclose(int id, struct file *f)
{
	if (id == Qsysstat)
		snap_close(f);
}

static int consread(int id, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	switch (id) {
	case Qcons:
		return console_read(buf, n);
	case Qsysstat:
		return snap_read(f, buf, n, off);
	default:
		return 0;       /* null and eia1 read as empty */
	}
}

static int conswrite(int id, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	const char *s = buf;
	(void)f, (void)off;
	switch (id) {
	case Qcons:
		console_write(s, n);
		return n;
	case Qnull:
		return n;
	case Qeia1:
		for (uint32_t i = 0; i < n; i++)
			arch_uart_putc(1, s[i]);
		return n;
	default:
		return -EPERM;
	}
}

static uint32_t conssize(int id, struct file *f)
{
	return id == Qsysstat ? snap_size(f) : 0;
}

static const struct dev consdev = {
	"cons", constab, NELEM(constab), consopen, consclose, consread, conswrite, conssize,
};

void devcons_init(void)
{
	devfs_register(&consdev);
}
