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

int sys_open(SYSARGS)
{
	struct proc *p = curproc();
	char abs[PATH_MAX];
	struct file *f;
	int fd, r;
	UNUSED_ARGS();

	if ((r = getpath(a0, abs)) < 0)
		return r;
	for (fd = 0; fd < NOFILE && p->ofile[fd]; fd++)
		;
	if (fd == NOFILE)
		return -EMFILE;
	if ((r = vfs_open(abs, (int)a1, &f)) < 0)
		return r;
	p->ofile[fd] = f;
	return fd;
}

int sys_close(SYSARGS)
{
	struct file *f = getfile(a0);
	UNUSED_ARGS();
	if (!f)
		return -EBADF;
	curproc()->ofile[a0] = NULL;
	file_close(f);
	return 0;
}

int sys_read(SYSARGS)
{
	struct file *f = getfile(a0);
	uint32_t done = 0;
	char *k;
	UNUSED_ARGS();

	if (!f)
		return -EBADF;
	if (!uvalid(a1, a2))
		return -EFAULT;
	if (!(k = kalloc()))
		return -ENOMEM;
	while (done < a2) {
		int r = file_read(f, k, MIN(a2 - done, 4096u));
		if (r < 0) {
			kfree(k);
			return done ? (int)done : r;
		}
		if (r == 0)
			break;
		if (copyout(a1 + done, k, r) < 0) {
			kfree(k);
			return -EFAULT;
		}
		done += r;
		/* a console line, a directory or a stream device ends a read */
		if (!f->vn->ops->seekable || f->vn->type == S_IFDIR)
			break;
	}
	kfree(k);
	return done;
}

int sys_write(SYSARGS)
{
	struct file *f = getfile(a0);
	uint32_t done = 0;
	char *k;
	UNUSED_ARGS();

	if (!f)
		return -EBADF;
	if (!uvalid(a1, a2))
		return -EFAULT;
	if (!(k = kalloc()))
		return -ENOMEM;
	/* at least one file_write, even of 0 bytes: to a control file such as
	 * /dev/kpctl an empty write is a (bad) message, not nothing */
	do {
		uint32_t chunk = MIN(a2 - done, 4096u);
		int r;
		if (copyin(k, a1 + done, chunk) < 0) {
			kfree(k);
			return -EFAULT;
		}
		r = file_write(f, k, chunk);
		if (r < 0 || (r == 0 && chunk)) {
			kfree(k);
			return done ? (int)done : r;
		}
		done += r;
		if ((uint32_t)r < chunk)
			break;
	} while (done < a2);
	kfree(k);
	return done;
}

int sys_lseek(SYSARGS)
{
	struct file *f = getfile(a0);
	int32_t off = (int32_t)a1;
	int64_t pos;
	UNUSED_ARGS();

	if (!f)
		return -EBADF;
	if (!f->vn->ops->seekable)
		return -ESPIPE;
	switch (a2) {
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

int sys_fstat(SYSARGS)
{
	struct file *f = getfile(a0);
	struct stat st;
	UNUSED_ARGS();

	if (!f)
		return -EBADF;
	file_stat(f, &st);
	return copyout(a1, &st, sizeof st);
}

int sys_stat(SYSARGS)
{
	char abs[PATH_MAX];
	struct vnode *v;
	struct stat st;
	int r;
	UNUSED_ARGS();

	if ((r = getpath(a0, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	if (!uvalid(a1, sizeof st))
		return -EFAULT;
	vnode_stat(v, NULL, &st);
	return copyout(a1, &st, sizeof st);
}

int sys_dup2(SYSARGS)
{
	struct proc *p = curproc();
	struct file *f = getfile(a0);
	UNUSED_ARGS();

	if (!f || a1 >= NOFILE)
		return -EBADF;
	if (a0 == a1)
		return a1;
	if (p->ofile[a1])
		file_close(p->ofile[a1]);
	p->ofile[a1] = file_dup(f);
	return a1;
}

int sys_chdir(SYSARGS)
{
	char abs[PATH_MAX];
	struct vnode *v;
	int r;
	UNUSED_ARGS();

	if ((r = getpath(a0, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	if (v->type != S_IFDIR)
		return -ENOTDIR;
	strlcpy(curproc()->cwd, abs, PATH_MAX);
	return 0;
}

int sys_getcwd(SYSARGS)
{
	const char *cwd = curproc()->cwd;
	uint32_t len = strlen(cwd);
	UNUSED_ARGS();

	if (a1 < len + 1)
		return -ERANGE;
	if (copyout(a0, cwd, len + 1) < 0)
		return -EFAULT;
	return len;
}

int sys_mkdir(SYSARGS)
{
	char abs[PATH_MAX];
	int r;
	UNUSED_ARGS();
	return (r = getpath(a0, abs)) < 0 ? r : vfs_mkdir(abs);
}

int sys_unlink(SYSARGS)
{
	char abs[PATH_MAX];
	int r;
	UNUSED_ARGS();
	return (r = getpath(a0, abs)) < 0 ? r : vfs_unlink(abs);
}
