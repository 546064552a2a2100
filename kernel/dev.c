/* devfs: the /dev directory made of every registered device's dirtab, and
 * the snapshot helpers that generated files share. */
#include "dev.h"
#include "abi/errno.h"
#include "kalloc.h"
#include "lib.h"
#include "pagebuf.h"

#define MAXDEVFILES 32

struct devfile {
	struct vnode vn;
	const struct dev *dev;
	const struct dirtab *dt;
};

static struct devfile files[MAXDEVFILES];
static int nfiles;
static struct vnode devdir;

static int dread(struct vnode *v, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	struct devfile *d = v->priv;
	if (v->type == S_IFDIR)
		return -EISDIR;
	return d->dev->read(d->dt->id, f, buf, n, off);
}

static int dwrite(struct vnode *v, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	struct devfile *d = v->priv;
	if (v->type == S_IFDIR)
		return -EISDIR;
	if (!d->dev->write)
		return -EPERM;
	return d->dev->write(d->dt->id, f, buf, n, off);
}

static int dopen(struct vnode *v, struct file *f)
{
	struct devfile *d = v->priv;
	return d && d->dev->open ? d->dev->open(d->dt->id, f) : 0;
}

static void dclose(struct vnode *v, struct file *f)
{
	struct devfile *d = v->priv;
	if (d && d->dev->close)
		d->dev->close(d->dt->id, f);
}

static uint32_t dsize(struct vnode *v, struct file *f)
{
	struct devfile *d = v->priv;
	return d && d->dev->size ? d->dev->size(d->dt->id, f) : 0;
}

static int dreaddir(struct vnode *v, uint32_t i, struct dirent *de)
{
	(void)v;
	if (i >= (uint32_t)nfiles)
		return 0;
	de->ino = files[i].vn.ino;
	de->type = S_IFDEV;
	de->size = dsize(&files[i].vn, NULL);
	strlcpy(de->name, files[i].dt->name, sizeof de->name);
	return 1;
}

static const struct vops seek_ops = {
	.read = dread, .write = dwrite, .open = dopen, .close = dclose,
	.readdir = dreaddir, .size = dsize, .seekable = true,
};
static const struct vops stream_ops = {
	.read = dread, .write = dwrite, .open = dopen, .close = dclose,
	.readdir = dreaddir, .size = dsize, .seekable = false,
};

void devfs_init(void)
{
	devdir = (struct vnode){ &seek_ops, S_IFDIR, 0, FS_DEV, NULL };
}

void devfs_register(const struct dev *d)
{
	for (int i = 0; i < d->ntab; i++) {
		if (nfiles == MAXDEVFILES)
			panic("devfs: too many device files");
		files[nfiles] = (struct devfile){
			{ d->tab[i].stream ? &stream_ops : &seek_ops, S_IFDEV, (uint32_t)nfiles + 1, FS_DEV, &files[nfiles] },
			d, &d->tab[i] };
		nfiles++;
	}
}

int devfs_lookup(const char *path, struct vnode **vp)
{
	if (!*path) {
		*vp = &devdir;
		return 0;
	}
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i].dt->name, path) == 0) {
			*vp = &files[i].vn;
			return 0;
		}
	return -ENOENT;
}

/* ---- snapshots ---- */

int snap_open(struct file *f, const void *data, uint32_t n)
{
	struct pagebuf *b = kalloc();   /* a whole page for a small struct: simple */
	if (!b)
		return -ENOMEM;
	memset(b, 0, sizeof *b);
	if (n && pagebuf_write(b, 0, data, n) != (int)n) {
		pagebuf_free(b);
		kfree(b);
		return -ENOMEM;
	}
	f->priv = b;
	f->privsize = n;
	return 0;
}

int snap_write(struct file *f, uint32_t off, const void *data, uint32_t n)
{
	if (pagebuf_write(f->priv, off, data, n) != (int)n)
		return -ENOMEM;
	f->privsize = ((struct pagebuf *)f->priv)->size;
	return 0;
}

int snap_read(struct file *f, void *buf, uint32_t n, uint32_t off)
{
	return f && f->priv ? pagebuf_read(f->priv, off, buf, n) : 0;
}

void snap_close(struct file *f)
{
	if (f->priv) {
		pagebuf_free(f->priv);
		kfree(f->priv);
		f->priv = NULL;
	}
}

uint32_t snap_size(struct file *f)
{
	return f ? f->privsize : 0;
}

bool text_begin(struct textbuf *t)
{
	t->pb = kalloc();       /* zeroed: an empty pagebuf, as snap_open makes */
	t->len = 0;
	t->err = 0;
	return t->pb != NULL;
}

void text_add(struct textbuf *t, const char *fmt, ...)
{
	char line[128], *s = line;
	va_list ap;
	int n, r;

	if (t->err)
		return;
	va_start(ap, fmt);
	n = kvsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof line) {
		/* a long one: format it again, into a page */
		if (!(s = kalloc())) {
			t->err = -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		n = kvsnprintf(s, PGSIZE, fmt, ap);
		va_end(ap);
	}
	if (n >= PGSIZE)
		t->err = -E2BIG;
	else if ((r = pagebuf_write(t->pb, t->len, s, n)) == n)
		t->len += n;
	else
		t->err = r < 0 ? r : -ENOSPC;
	if (s != line)
		kfree(s);
}

int text_finish(struct textbuf *t, struct file *f)
{
	if (t->err) {
		pagebuf_free(t->pb);
		kfree(t->pb);
		return t->err;
	}
	f->priv = t->pb;
	f->privsize = t->len;
	return 0;
}

int text_write(struct textbuf *t, struct file *f)
{
	char chunk[256];
	uint32_t off = 0;
	int n, r;

	if (t->err)
		return t->err;
	while ((n = pagebuf_read(t->pb, off, chunk, sizeof chunk)) > 0) {
		if ((r = file_write(f, chunk, n)) < 0)
			return r;
		off += n;
	}
	return 0;
}

void text_print(struct textbuf *t)
{
	char chunk[256];
	uint32_t off = 0;
	int n;

	while ((n = pagebuf_read(t->pb, off, chunk, sizeof chunk)) > 0) {
		console_write(chunk, n);
		off += n;
	}
}

void text_free(struct textbuf *t)
{
	pagebuf_free(t->pb);
	kfree(t->pb);
	t->pb = NULL;
}
