/* File system calls. Data moves between the user's buffer and the file
 * through a kernel page, a chunk at a time, so every file system and
 * device works on kernel memory only. */
#include "abi/errno.h"
#include "abi/fcntl.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "syscall.h"
#include "uaccess.h"

static struct file *getfile(uint32_t fd)
{
	struct proc *p = curproc();
	return fd < NOFILE ? p->ofile[fd] : NULL;
}

/* copies a user path in and makes it absolute against the cwd */
static int getpath(uint32_t upath, char *abs)
{
	char path[PATH_MAX];
	int r = copyinstr(path, upath, sizeof path);
	return r < 0 ? r : vfs_abspath(curproc()->cwd, path, abs);
}

int sys_open(uint32_t upath, int flags)
{
	struct proc *p = curproc();
	char abs[PATH_MAX];
	struct file *f;
	int fd, r;

	if ((r = getpath(upath, abs)) < 0)
		return r;
	for (fd = 0; fd < NOFILE && p->ofile[fd]; fd++)
		;
	if (fd == NOFILE)
		return -EMFILE;
	if ((r = vfs_open(abs, flags, &f)) < 0)
		return r;
	p->ofile[fd] = f;
	return fd;
}

int sys_close(uint32_t fd)
{
	struct file *f = getfile(fd);
	if (!f)
		return -EBADF;
	curproc()->ofile[fd] = NULL;
	file_close(f);
	return 0;
}

/* A small transfer (a prompt, a typed line, a control message) goes
 * through a buffer on the stack instead of a page: it then works while
 * memory is short, which is when a shell's messages matter most. */
#define SMALL_IO 128

static char *iobuf(uint32_t n, char *small)
{
	return n <= SMALL_IO ? small : kalloc();
}

static void iobuf_free(char *k, char *small)
{
	if (k != small)
		kfree(k);
}

int sys_read(uint32_t fd, uint32_t ubuf, uint32_t n)
{
	struct file *f = getfile(fd);
	char small[SMALL_IO], *k;
	uint32_t done = 0;
	int r = 0;

	if (!f)
		return -EBADF;
	if (!uvalid(ubuf, n))
		return -EFAULT;
	/* short of a page, a read is a short read, through the small buffer */
	if (!(k = iobuf(n, small))) {
		k = small;
		n = SMALL_IO;
	}
	while (done < n) {
		r = done ? proc_preempt() : 0;          /* a big read may outlast a slice */
		if (r == 0)
			r = file_read(f, k, MIN(n - done, PGSIZE));
		if (r <= 0)
			break;
		if (copyout(ubuf + done, k, r) < 0) {
			iobuf_free(k, small);
			return -EFAULT;
		}
		done += r;
		r = 0;
		/* a console line, a directory or a stream device ends a read */
		if (!f->vn->ops->seekable || f->vn->type == S_IFDIR)
			break;
	}
	iobuf_free(k, small);
	return done || r >= 0 ? (int)done : r;
}

int sys_write(uint32_t fd, uint32_t ubuf, uint32_t n)
{
	struct file *f = getfile(fd);
	char small[SMALL_IO], *k;
	uint32_t done = 0;
	int r;

	if (!f)
		return -EBADF;
	if (!uvalid(ubuf, n))
		return -EFAULT;
	if (!(k = iobuf(n, small)))
		return -ENOMEM;
	/* at least one file_write, even of 0 bytes: to a control file such as
	 * /dev/kpctl an empty write is a (bad) message, not nothing */
	do {
		uint32_t chunk = MIN(n - done, PGSIZE);
		/* 4 MiB to a serial port takes 19 s: others run meanwhile, and a
		 * kill ends it between chunks, with what was written so far */
		if ((r = done ? proc_preempt() : 0) < 0)
			break;
		if (copyin(k, ubuf + done, chunk) < 0) {
			iobuf_free(k, small);
			return -EFAULT;
		}
		r = file_write(f, k, chunk);
		if (r < 0 || (r == 0 && chunk))
			break;
		done += r;
		if ((uint32_t)r < chunk)
			break;
	} while (done < n);
	iobuf_free(k, small);
	return done || r >= 0 ? (int)done : r;
}

int sys_lseek(uint32_t fd, int32_t off, uint32_t whence)
{
	struct file *f = getfile(fd);
	int64_t pos;

	if (!f)
		return -EBADF;
	if (!f->vn->ops->seekable)
		return -ESPIPE;
	switch (whence) {
	case SEEK_SET: pos = off; break;
	case SEEK_CUR: pos = (int64_t)f->off + off; break;
	case SEEK_END: pos = (int64_t)f->vn->ops->size(f->vn, f) + off; break;
	default: return -EINVAL;
	}
	if (pos < 0 || pos > 0x7FFFFFFF)
		return -EINVAL;
	f->off = (uint32_t)pos;
	return (int)pos;
}

int sys_fstat(uint32_t fd, uint32_t ust)
{
	struct file *f = getfile(fd);
	struct stat st;

	if (!f)
		return -EBADF;
	file_stat(f, &st);
	return copyout(ust, &st, sizeof st);
}

int sys_stat(uint32_t upath, uint32_t ust)
{
	char abs[PATH_MAX];
	struct vnode *v;
	struct stat st;
	int r;

	if ((r = getpath(upath, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	if (!uvalid(ust, sizeof st))
		return -EFAULT;
	vnode_stat(v, NULL, &st);
	return copyout(ust, &st, sizeof st);
}

int sys_dup2(uint32_t oldfd, uint32_t newfd)
{
	struct proc *p = curproc();
	struct file *f = getfile(oldfd);

	if (!f || newfd >= NOFILE)
		return -EBADF;
	if (oldfd == newfd)
		return newfd;
	if (p->ofile[newfd])
		file_close(p->ofile[newfd]);
	p->ofile[newfd] = file_dup(f);
	return newfd;
}

int sys_chdir(uint32_t upath)
{
	char abs[PATH_MAX];
	struct vnode *v;
	int r;

	if ((r = getpath(upath, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	if (v->type != S_IFDIR)
		return -ENOTDIR;
	strlcpy(curproc()->cwd, abs, PATH_MAX);
	return 0;
}

int sys_getcwd(uint32_t ubuf, uint32_t n)
{
	const char *cwd = curproc()->cwd;
	uint32_t len = strlen(cwd);

	if (n < len + 1)
		return -ERANGE;
	if (copyout(ubuf, cwd, len + 1) < 0)
		return -EFAULT;
	return len;
}

int sys_mkdir(uint32_t upath)
{
	char abs[PATH_MAX];
	int r;
	return (r = getpath(upath, abs)) < 0 ? r : vfs_mkdir(abs);
}

int sys_unlink(uint32_t upath)
{
	char abs[PATH_MAX];
	int r;
	return (r = getpath(upath, abs)) < 0 ? r : vfs_unlink(abs);
}
