/* Devices made of control and snapshot files (ctldev.h). A file's id is
 * its device's index here and its own index in the device's table, so the
 * operations, which get only the id, find the file. */
#include "abi/errno.h"
#include "ctldev.h"
#include "lib.h"

#define MAXDEVS 16
static struct ctldev *devs[MAXDEVS];
static int ndevs;

static const struct ctlfile *file_of(int id)
{
	return &devs[id >> 8]->files[id & 0xFF];
}

static bool snapshot(const struct ctlfile *c)
{
	return c->text || c->open;
}

static int cd_open(int id, struct file *f)
{
	const struct ctlfile *c = file_of(id);
	struct textbuf t;

	if (c->open)
		return c->open(f);
	if (!c->text)
		return 0;
	if (!text_begin(&t))
		return -ENOMEM;
	c->text(&t);
	return text_finish(&t, f);
}

static void cd_close(int id, struct file *f)
{
	if (snapshot(file_of(id)))
		snap_close(f);
}

static int cd_read(int id, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	const struct ctlfile *c = file_of(id);

	if (!snapshot(c))
		return 0;               /* a control file reads as empty */
	if (c->align && off % c->align)
		return -EINVAL;
	return snap_read(f, buf, n, off);
}

static int cd_write(int id, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	const struct ctlfile *c = file_of(id);
	int r;

	(void)f, (void)off;
	if (!c->ctl)
		return -EPERM;
	r = c->ctl(buf, n);
	return r < 0 ? r : (int)n;
}

static uint32_t cd_size(int id, struct file *f)
{
	const struct ctlfile *c = file_of(id);

	if (!snapshot(c))
		return 0;
	return f ? snap_size(f) : c->size ? c->size() : 0;
}

void ctldev_register(struct ctldev *d)
{
	if (ndevs == MAXDEVS || d->nfiles > CTLDEV_MAXFILES)
		panic("ctldev: %s: too many devices or files", d->name);
	for (int i = 0; i < d->nfiles; i++)
		d->tab[i] = (struct dirtab){ d->files[i].name, ndevs << 8 | i, false };
	d->dev = (struct dev){ d->name, d->tab, d->nfiles, cd_open, cd_close, cd_read, cd_write,
			       cd_size };
	devs[ndevs++] = d;
	devfs_register(&d->dev);
}
