/* Files and the name space. A vnode is one file of one file system (the
 * initrd at /bin, the RAM file system at /tmp, the devices at /dev); a file
 * is one open of it, with its own offset. */
#ifndef FILE_H
#define FILE_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/fcntl.h"

struct vnode;
struct file;

struct vops {
	/* read/write at off through a kernel buffer; bytes or -errno */
	int (*read)(struct vnode *v, struct file *f, void *buf, uint32_t n, uint32_t off);
	int (*write)(struct vnode *v, struct file *f, const void *buf, uint32_t n, uint32_t off);
	int (*open)(struct vnode *v, struct file *f);        /* optional */
	void (*close)(struct vnode *v, struct file *f);      /* optional */
	/* directory entry number i: 1 and *de filled, 0 past the end */
	int (*readdir)(struct vnode *v, uint32_t i, struct dirent *de);
	int (*truncate)(struct vnode *v);                    /* optional */
	uint32_t (*size)(struct vnode *v, struct file *f);
	bool seekable;          /* false: offsets are ignored (console, eia1) */
};

struct vnode {
	const struct vops *ops;
	uint32_t type;          /* S_IFILE, S_IFDIR, S_IFDEV */
	uint32_t ino, dev;
	void *priv;
};

struct file {
	struct vnode *vn;
	uint32_t off;
	int flags;              /* O_* */
	int ref;
	void *priv;             /* per-open state, e.g. a device snapshot */
	uint32_t privsize;
};

#define FS_INITRD 0
#define FS_TMP    1
#define FS_DEV    2
#define FS_ROOT   3

/* vfs.c */
int vfs_abspath(const char *cwd, const char *path, char *out);   /* -errno */
int vfs_lookup(const char *abs, struct vnode **vp);
int vfs_open(const char *abs, int flags, struct file **fp);
int vfs_mkdir(const char *abs);
int vfs_unlink(const char *abs);
int vfs_rename(const char *from, const char *to);
int file_read(struct file *f, void *buf, uint32_t n);
int file_write(struct file *f, const void *buf, uint32_t n);
int file_stat(struct file *f, struct stat *st);
void vnode_stat(struct vnode *v, struct file *f, struct stat *st);
struct file *file_dup(struct file *f);
void file_close(struct file *f);

/* the file systems: path relative to their mount point ("" is the top) */
void initrd_init(const void *tar, uint32_t size);
int initrd_lookup(const char *path, struct vnode **vp);
void tmpfs_init(void);
int tmpfs_lookup(const char *path, bool create, struct vnode **vp);
int tmpfs_mkdir(const char *path);
int tmpfs_unlink(const char *path);
int tmpfs_rename(const char *from, const char *to);
int tmpfs_dirpath(const struct vnode *v, char *buf, uint32_t size);
void devfs_init(void);
int devfs_lookup(const char *path, struct vnode **vp);

#endif
