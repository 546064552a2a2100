/* The name space: path resolution and the file layer. The root directory
 * holds three mounts, dispatched on the first path component: /bin (the
 * initrd), /tmp (the RAM file system) and /dev (the devices). */
#include "abi/errno.h"
#include "file.h"
#include "lib.h"

#define NFILE 256

static struct file ftable[NFILE];
static const char *const mounts[] = { "bin", "dev", "tmp" };

static int rootreaddir(struct vnode *v, uint32_t i, struct dirent *de)
{
	(void)v;
	if (i >= NELEM(mounts))
		return 0;
	de->ino = i + 1;
	de->type = S_IFDIR;
	de->size = 0;
	strlcpy(de->name, mounts[i], sizeof de->name);
	return 1;
}

static int rootread(struct vnode *v, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	(void)v, (void)f, (void)buf, (void)n, (void)off;
	return -EISDIR;
}

static int rootwrite(struct vnode *v, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	(void)v, (void)f, (void)buf, (void)n, (void)off;
	return -EISDIR;
}

static uint32_t rootsize(struct vnode *v, struct file *f)
{
	(void)v, (void)f;
	return 0;
}

static const struct vops root_ops = {
	.read = rootread, .write = rootwrite, .readdir = rootreaddir, .size = rootsize,
};
static struct vnode rootdir = { &root_ops, S_IFDIR, 0, FS_ROOT, NULL };

/* Joins path to cwd and removes ".", ".." and repeated slashes: out is an
 * absolute path with no trailing slash ("/" for the root). */
int vfs_abspath(const char *cwd, const char *path, char *out)
{
	char tmp[PATH_MAX * 2];
	size_t o = 0;
	const char *s;

	if (!*path)
		return -ENOENT;
	if (path[0] == '/')
		ksnprintf(tmp, sizeof tmp, "%s", path);
	else if (ksnprintf(tmp, sizeof tmp, "%s/%s", cwd, path) >= (int)sizeof tmp)
		return -ENAMETOOLONG;
	for (s = tmp; *s;) {
		const char *e;
		size_t len;
		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		len = e ? (size_t)(e - s) : strlen(s);
		if (len == 1 && s[0] == '.') {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (len > NAME_MAX || o + 1 + len + 1 > PATH_MAX)
				return -ENAMETOOLONG;
			out[o++] = '/';
			memcpy(out + o, s, len);
			o += len;
		}
		s += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = 0;
	return 0;
}

/* splits "/tmp/a/b" into the mount index and "a/b" */
static int mount_of(const char *abs, const char **rest)
{
	const char *s = abs + 1;
	for (size_t i = 0; i < NELEM(mounts); i++) {
		size_t len = strlen(mounts[i]);
		if (strncmp(s, mounts[i], len) == 0 && (s[len] == 0 || s[len] == '/')) {
			*rest = s[len] ? s + len + 1 : "";
			return i;
		}
	}
	return -1;
}

static int lookup(const char *abs, bool create, struct vnode **vp)
{
	const char *rest;

	if (strcmp(abs, "/") == 0) {
		*vp = &rootdir;
		return 0;
	}
	switch (mount_of(abs, &rest)) {
	case 0:
		if (create) {
			int r = initrd_lookup(abs + 1, vp);
			return r == 0 ? 0 : -EROFS;
		}
		return initrd_lookup(abs + 1, vp);
	case 1:
		return devfs_lookup(rest, vp);
	case 2:
		return tmpfs_lookup(rest, create, vp);
	default:
		return -ENOENT;
	}
}

int vfs_lookup(const char *abs, struct vnode **vp)
{
	return lookup(abs, false, vp);
}

int vfs_mkdir(const char *abs)
{
	const char *rest;
	struct vnode *v;

	switch (mount_of(abs, &rest)) {
	case 2:
		return *rest ? tmpfs_mkdir(rest) : -EEXIST;
	default:
		return lookup(abs, false, &v) == 0 ? -EEXIST : -EROFS;
	}
}

int vfs_unlink(const char *abs)
{
	const char *rest;
	struct vnode *v;

	if (mount_of(abs, &rest) == 2 && *rest)
		return tmpfs_unlink(rest);
	return lookup(abs, false, &v) == 0 ? -EROFS : -ENOENT;
}

/* Only /tmp can change; a name moves within it, not out of it (EXDEV) */
int vfs_rename(const char *from, const char *to)
{
	const char *rf, *rt;
	struct vnode *v;
	int mf = mount_of(from, &rf), mt = mount_of(to, &rt);

	if (mf == 2 && *rf && mt == 2 && *rt)
		return tmpfs_rename(rf, rt);
	if (lookup(from, false, &v) < 0)
		return -ENOENT;
	return mf == 2 && *rf ? -EXDEV : -EROFS;
}

int vfs_open(const char *abs, int flags, struct file **fp)
{
	struct vnode *v;
	struct file *f = NULL;
	int acc = flags & O_ACCMODE, r;

	if (acc == O_ACCMODE)
		return -EINVAL;
	if ((r = lookup(abs, flags & O_CREAT, &v)) < 0)
		return r;
	if (v->type == S_IFDIR && acc != O_RDONLY)
		return -EISDIR;
	if (acc != O_RDONLY && v->dev == FS_INITRD)
		return -EROFS;
	for (int i = 0; i < NFILE; i++)
		if (ftable[i].ref == 0) {
			f = &ftable[i];
			break;
		}
	if (!f)
		return -ENFILE;
	memset(f, 0, sizeof *f);
	f->vn = v;
	f->flags = flags;
	f->ref = 1;
	if (v->ops->open && (r = v->ops->open(v, f)) < 0) {
		f->ref = 0;
		return r;
	}
	if ((flags & O_TRUNC) && acc != O_RDONLY && v->ops->truncate)
		v->ops->truncate(v);
	*fp = f;
	return 0;
}

int file_read(struct file *f, void *buf, uint32_t n)
{
	struct vnode *v = f->vn;
	int r;

	if ((f->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (v->type == S_IFDIR) {
		/* whole struct dirent records, f->off counts entries */
		uint32_t got = 0;
		struct dirent de;
		if (n < sizeof de)
			return -EINVAL;
		while (got + sizeof de <= n) {
			memset(&de, 0, sizeof de);
			if (!v->ops->readdir(v, f->off, &de))
				break;
			memcpy((char *)buf + got, &de, sizeof de);
			got += sizeof de;
			f->off++;
		}
		return got;
	}
	r = v->ops->read(v, f, buf, n, f->off);
	if (r > 0 && v->ops->seekable)
		f->off += r;
	return r;
}

int file_write(struct file *f, const void *buf, uint32_t n)
{
	struct vnode *v = f->vn;
	int r;

	if ((f->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	if (f->flags & O_APPEND)
		f->off = v->ops->size(v, f);
	r = v->ops->write(v, f, buf, n, f->off);
	if (r > 0 && v->ops->seekable)
		f->off += r;
	return r;
}

void vnode_stat(struct vnode *v, struct file *f, struct stat *st)
{
	st->type = v->type;
	st->size = v->ops->size(v, f);
	st->ino = v->ino;
	st->dev = v->dev;
}

int file_stat(struct file *f, struct stat *st)
{
	vnode_stat(f->vn, f, st);
	return 0;
}

struct file *file_dup(struct file *f)
{
	f->ref++;
	return f;
}

void file_close(struct file *f)
{
	if (--f->ref > 0)
		return;
	if (f->vn->ops->close)
		f->vn->ops->close(f->vn, f);
	f->vn = NULL;
}
