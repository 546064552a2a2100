/* The basic devices: cons (the console), consctl (names the foreground job
 * for ^C), null, eia1 (COM2, raw: the export channel) and sysstat (ticks,
 * processes, free pages, as text). */
#include "abi/errno.h"
#include "abi/kprof.h"
#include "arch.h"
#include "console.h"
#include "dev.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"

enum { Qcons, Qconsctl, Qnull, Qeia1, Qsysstat };

static const struct dirtab constab[] = {
	{ "cons", Qcons, true },
	{ "consctl", Qconsctl, true },
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
		return 0;       /* consctl, null and eia1 read as empty */
	}
}

/* consctl takes "fg PID" (^C kills PID and its descendants) and "fg 0"
 * (none: ^C only starts a fresh line). The shell writes it around each
 * foreground command. */
static int consctl(const char *s, uint32_t n)
{
	uint32_t pid;

	if (n > 0 && s[n - 1] == '\n')
		n--;
	if (n < 4 || strncmp(s, "fg ", 3) != 0 || !parse_uint(s + 3, n - 3, &pid) ||
	    pid > 0x7FFFFFFF)
		return -EINVAL;
	console_set_fg((int)pid);
	return 0;
}

static int conswrite(int id, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	int r;

	const char *s = buf;
	(void)f, (void)off;
	switch (id) {
	case Qcons:
		console_write(s, n);
		return n;
	case Qconsctl:
		r = consctl(s, n);
		return r < 0 ? r : (int)n;
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
