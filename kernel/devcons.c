/* The basic devices: cons (the console), null and eia1 (COM2, raw: the
 * export channel). */
#include "abi/errno.h"
#include "arch.h"
#include "clock.h"
#include "console.h"
#include "dev.h"
#include "lib.h"

enum { Qcons, Qnull, Qeia1 };

static const struct dirtab constab[] = {
	{ "cons", Qcons, true },
	{ "null", Qnull, true },
	{ "eia1", Qeia1, true },
};

static int consread(int id, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	(void)f, (void)off;
	if (id == Qcons)
		return console_read(buf, n);
	return 0;       /* null and eia1 read as empty */
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

static const struct dev consdev = {
	"cons", constab, NELEM(constab), NULL, NULL, consread, conswrite, NULL,
};

void devcons_init(void)
{
	devfs_register(&consdev);
}
