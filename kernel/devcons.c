/* The basic devices: cons (the console), consctl (names the foreground job
 * for ^C), null and eia1 (COM2, raw: the export channel). */
#include "abi/errno.h"
#include "arch.h"
#include "console.h"
#include "ctl.h"
#include "dev.h"
#include "lib.h"
#include "proc.h"

enum { Qcons, Qconsctl, Qnull, Qeia1 };

static const struct dirtab constab[] = {
	{ "cons", Qcons, true },
	{ "consctl", Qconsctl, true },
	{ "null", Qnull, true },
	{ "eia1", Qeia1, true },
};

static int consread(int id, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	(void)f, (void)off;
	if (id == Qcons)
		return console_read(buf, n);
	return 0;       /* consctl, null and eia1 read as empty */
}

/* consctl takes "fg PID" (^C sends SIGINT to PID and its descendants) and "fg 0"
 * (none: ^C only starts a fresh line). The shell writes it around each
 * foreground command. */
static int consctl(const char *s, uint32_t n)
{
	struct ctlmsg m;
	uint32_t pid;

	if (ctl_parse(s, n, 32, &m) < 0 || !ctl_cmd(&m, "fg", 1) || !ctl_uint(&m, 1, &pid) ||
	    pid > PID_MAX)
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

static const struct dev consdev = {
	"cons", constab, NELEM(constab), NULL, NULL, consread, conswrite, NULL,
};

void devcons_init(void)
{
	devfs_register(&consdev);
}
