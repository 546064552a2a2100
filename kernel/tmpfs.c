/* The RAM file system mounted at /tmp: a tree of nodes from a fixed pool,
 * file data in paged buffers. A file unlinked while open lives on until its
 * last close, as in Unix. */
#include "abi/errno.h"
#include "file.h"
#include "lib.h"
#include "pagebuf.h"

#define NNODE 256

struct node {
	struct vnode vn;
	bool used, unlinked;
	int opens;
	char name[NAME_MAX + 1];
	struct node *parent;
	struct pagebuf data;
};

static struct node nodes[NNODE];
#define ROOT (&nodes[0])

static int tread(struct vnode *v, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	(void)f;
	if (v->type == S_IFDIR)
		return -EISDIR;
	return pagebuf_read(&((struct node *)v->priv)->data, off, buf, n);
}

static int twrite(struct vnode *v, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	(void)f;
	if (v->type == S_IFDIR)
		return -EISDIR;
	return pagebuf_write(&((struct node *)v->priv)->data, off, buf, n);
}

static void freenode(struct node *n)
{
	pagebuf_free(&n->data);
	n->used = false;
}

static int topen(struct vnode *v, struct file *f)
{
	(void)f;
	((struct node *)v->priv)->opens++;
	return 0;
}

static void tclose(struct vnode *v, struct file *f)
{
	struct node *n = v->priv;
	(void)f;
	if (--n->opens == 0 && n->unlinked)
		freenode(n);
}

static int ttruncate(struct vnode *v)
{
	pagebuf_truncate(&((struct node *)v->priv)->data, 0);
	return 0;
}

static uint32_t tsize(struct vnode *v, struct file *f)
{
	(void)f;
	return ((struct node *)v->priv)->data.size;
}

static int treaddir(struct vnode *v, uint32_t i, struct dirent *de)
{
	for (int k = 1; k < NNODE; k++) {
		struct node *n = &nodes[k];
		if (!n->used || n->unlinked || n->parent != v->priv)
			continue;
		if (i-- == 0) {
			de->ino = n->vn.ino;
			de->type = n->vn.type;
			de->size = n->data.size;
			strlcpy(de->name, n->name, sizeof de->name);
			return 1;
		}
	}
	return 0;
}

static const struct vops tmpfs_ops = {
	.read = tread, .write = twrite, .open = topen, .close = tclose,
	.readdir = treaddir, .truncate = ttruncate, .size = tsize, .seekable = true,
};

void tmpfs_init(void)
{
	memset(nodes, 0, sizeof nodes);
	for (int k = 0; k < NNODE; k++)
		nodes[k].vn = (struct vnode){ &tmpfs_ops, S_IFILE, (uint32_t)k + 1, FS_TMP, &nodes[k] };
	ROOT->used = true;
	ROOT->vn.type = S_IFDIR;
}

static struct node *child(struct node *dir, const char *name, size_t len)
{
	for (int k = 1; k < NNODE; k++) {
		struct node *n = &nodes[k];
		if (n->used && !n->unlinked && n->parent == dir &&
		    strlen(n->name) == len && strncmp(n->name, name, len) == 0)
			return n;
	}
	return NULL;
}

/* Walks path; on success *dirp is the parent of the last component and *np
 * the node (NULL if only the last component is missing). */
static int walk(const char *path, struct node **dirp, struct node **np, const char **last)
{
	struct node *dir = ROOT, *n = ROOT;
	const char *s = path;

	*dirp = NULL;
	*last = "";
	while (*s) {
		const char *e = strchr(s, '/');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (n->vn.type != S_IFDIR)
			return -ENOTDIR;
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		dir = n;
		n = child(dir, s, len);
		*last = s;
		if (!n) {
			if (e)
				return -ENOENT;
			*dirp = dir;
			*np = NULL;
			return 0;
		}
		s = e ? e + 1 : s + len;
	}
	*dirp = dir;
	*np = n;
	return 0;
}

static struct node *newnode(struct node *dir, const char *name, uint32_t type)
{
	for (int k = 1; k < NNODE; k++) {
		struct node *n = &nodes[k];
		if (n->used)
			continue;
		memset(&n->data, 0, sizeof n->data);
		n->used = true;
		n->unlinked = false;
		n->opens = 0;
		n->parent = dir;
		n->vn.type = type;
		strlcpy(n->name, name, sizeof n->name);
		return n;
	}
	return NULL;
}

int tmpfs_lookup(const char *path, bool create, struct vnode **vp)
{
	struct node *dir, *n;
	const char *last;
	int r = walk(path, &dir, &n, &last);

	if (r < 0)
		return r;
	if (!n) {
		if (!create)
			return -ENOENT;
		if (!(n = newnode(dir, last, S_IFILE)))
			return -ENOSPC;
	}
	*vp = &n->vn;
	return 0;
}

int tmpfs_mkdir(const char *path)
{
	struct node *dir, *n;
	const char *last;
	int r = walk(path, &dir, &n, &last);

	if (r < 0)
		return r;
	if (n)
		return -EEXIST;
	return newnode(dir, last, S_IFDIR) ? 0 : -ENOSPC;
}

int tmpfs_unlink(const char *path)
{
	struct node *dir, *n;
	const char *last;
	int r = walk(path, &dir, &n, &last);

	if (r < 0)
		return r;
	if (!n)
		return -ENOENT;
	if (n == ROOT)
		return -EBUSY;
	if (n->vn.type == S_IFDIR)
		for (int k = 1; k < NNODE; k++)
			if (nodes[k].used && !nodes[k].unlinked && nodes[k].parent == n)
				return -ENOTEMPTY;
	n->unlinked = true;
	if (n->opens == 0)
		freenode(n);
	return 0;
}

/* Moves a node to a new name, replacing what is there as Unix's rename
 * does: a file by a file, an empty directory by a directory. */
int tmpfs_rename(const char *from, const char *to)
{
	struct node *dir, *n, *dir2, *n2;
	const char *last, *last2;
	int r;

	if ((r = walk(from, &dir, &n, &last)) < 0)
		return r;
	if (!n)
		return -ENOENT;
	if ((r = walk(to, &dir2, &n2, &last2)) < 0)
		return r;
	if (n == ROOT || n2 == ROOT)
		return -EBUSY;
	if (n2 == n)
		return 0;
	/* a directory may not go inside itself */
	for (struct node *d = dir2; d != ROOT; d = d->parent)
		if (d == n)
			return -EINVAL;
	if (n2) {
		if (n2->vn.type == S_IFDIR && n->vn.type != S_IFDIR)
			return -EISDIR;
		if (n2->vn.type != S_IFDIR && n->vn.type == S_IFDIR)
			return -ENOTDIR;
		if ((r = tmpfs_unlink(to)) < 0)
			return r;
	}
	n->parent = dir2;
	strlcpy(n->name, last2, sizeof n->name);
	return 0;
}

/* The absolute path ("/tmp/a/b") of a directory of this file system, for a
 * caller that holds only its vnode (profil's dirfd). -EROFS for a
 * directory elsewhere (nothing can be created there), -ENOENT for one
 * already unlinked. */
int tmpfs_dirpath(const struct vnode *v, char *buf, uint32_t size)
{
	const struct node *n;
	char tmp[PATH_MAX];
	uint32_t len = 0;

	if (v->ops != &tmpfs_ops || v->type != S_IFDIR)
		return -EROFS;
	/* built backwards from the end of tmp, one component at a time */
	tmp[PATH_MAX - 1] = 0;
	len = 1;
	for (n = v->priv; n != ROOT; n = n->parent) {
		uint32_t l = strlen(n->name);
		if (n->unlinked)
			return -ENOENT;
		if (len + l + 1 + 4 > PATH_MAX)
			return -ENAMETOOLONG;
		len += l + 1;
		memcpy(tmp + PATH_MAX - len, "/", 1);
		memcpy(tmp + PATH_MAX - len + 1, n->name, l);
	}
	if (ksnprintf(buf, size, "/tmp%s", tmp + PATH_MAX - len) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}
