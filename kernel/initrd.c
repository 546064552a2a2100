/* The initrd: a ustar archive (built by make from user/) that GRUB loads as
 * a module. Its members are served read-only in place; directories are
 * implied by the member names (bin/echo makes /bin). */
#include "abi/errno.h"
#include "file.h"
#include "lib.h"

#define MAXENT 128

struct ent {
	struct vnode vn;
	char name[101];         /* path inside the archive, no trailing '/' */
	const uint8_t *data;
	uint32_t size;
};

static struct ent ents[MAXENT];
static int nent;
static struct vnode topdir;

static uint32_t octal(const char *s, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n && s[i] >= '0' && s[i] <= '7'; i++)
		v = v * 8 + (s[i] - '0');
	return v;
}

static int iread(struct vnode *v, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	struct ent *e = v->priv;
	(void)f;
	if (off >= e->size)
		return 0;
	n = MIN(n, e->size - off);
	memcpy(buf, e->data + off, n);
	return n;
}

static int iwrite(struct vnode *v, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	(void)v, (void)f, (void)buf, (void)n, (void)off;
	return -EROFS;
}

static uint32_t isize(struct vnode *v, struct file *f)
{
	(void)f;
	return v->type == S_IFILE ? ((struct ent *)v->priv)->size : 0;
}

/* entry i of a directory: the members directly below its name */
static int ireaddir(struct vnode *v, uint32_t i, struct dirent *de)
{
	struct ent *d = v->priv;
	size_t plen = d ? strlen(d->name) : 0;

	for (int k = 0; k < nent; k++) {
		const char *rest = ents[k].name;
		if (plen) {
			if (strncmp(rest, d->name, plen) != 0 || rest[plen] != '/')
				continue;
			rest += plen + 1;
		}
		if (strchr(rest, '/'))
			continue;
		if (i-- == 0) {
			de->ino = ents[k].vn.ino;
			de->type = ents[k].vn.type;
			de->size = ents[k].size;
			strlcpy(de->name, rest, sizeof de->name);
			return 1;
		}
	}
	return 0;
}

static const struct vops initrd_ops = {
	.read = iread, .write = iwrite, .readdir = ireaddir, .size = isize, .seekable = true,
};

void initrd_init(const void *tar, uint32_t size)
{
	const uint8_t *p = tar, *end = p + size;

	topdir = (struct vnode){ &initrd_ops, S_IFDIR, 0, FS_INITRD, NULL };
	while (p + 512 <= end && p[0] && nent < MAXENT) {
		const char *h = (const char *)p;
		uint32_t fsize = octal(h + 124, 12);
		char type = h[156];
		struct ent *e = &ents[nent];
		size_t len;

		if (fsize > (uint32_t)(end - p) - 512) {
			kprintf("initrd: member '%.100s' runs past the end; ignoring the rest\n", h);
			break;
		}
		len = strnlen(h, 100);
		memcpy(e->name, h, len);
		e->name[len] = 0;
		while (len && e->name[len - 1] == '/')
			e->name[--len] = 0;
		if (len && (type == '0' || type == 0 || type == '5')) {
			e->data = p + 512;
			e->size = type == '5' ? 0 : fsize;
			e->vn = (struct vnode){ &initrd_ops, type == '5' ? S_IFDIR : S_IFILE,
						 (uint32_t)nent + 1, FS_INITRD, e };
			nent++;
		}
		p += 512 + ROUNDUP(fsize, 512);
	}
	kprintf("initrd: %d files\n", nent);
}

int initrd_lookup(const char *path, struct vnode **vp)
{
	size_t len = strlen(path);

	if (len == 0) {
		*vp = &topdir;
		return 0;
	}
	for (int k = 0; k < nent; k++)
		if (strcmp(ents[k].name, path) == 0) {
			*vp = &ents[k].vn;
			return 0;
		}
	/* a directory implied by a member name */
	for (int k = 0; k < nent; k++)
		if (strncmp(ents[k].name, path, len) == 0 && ents[k].name[len] == '/') {
			/* make it a real entry so it has a vnode */
			if (nent == MAXENT)
				return -ENOENT;
			struct ent *e = &ents[nent];
			strlcpy(e->name, path, sizeof e->name);
			e->vn = (struct vnode){ &initrd_ops, S_IFDIR, (uint32_t)nent + 1, FS_INITRD, e };
			nent++;
			*vp = &e->vn;
			return 0;
		}
	return -ENOENT;
}
