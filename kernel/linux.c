/* The Linux i386 system-call interface, for static glibc programs run
 * unmodified (elf.c's ABI rule says which programs those are). The calls
 * come by Linux's numbers (asm/unistd_32.h) with Linux's structures (the
 * UAPI headers the cross compiler brings), and are wrapped around the
 * kernel's own file, process and memory code: a Linux call is the
 * project's call with Linux's conventions, never a second implementation.
 *
 * What a Linux program gets, and what it does not:
 *   - files: the one name space (/bin, /dev, /tmp); no links, owners or
 *     permissions (everything is root's: mode 0755 for programs and
 *     directories, 0644 for /tmp files, 0666 for devices); a stream device
 *     (the console, the serial port) is a terminal for TCGETS/TIOCGWINSZ.
 *   - memory: brk with Linux's rule (the break is returned, never an
 *     error); anonymous mmap (a private file mapping is a copy, read at
 *     mmap time); protections are not enforced (mprotect says yes, every
 *     page stays readable and writable).
 *   - processes: one thread; no fork, exec or wait (spawn is the
 *     project's); signals as Linux has them (signal.c: actions,
 *     masks, handlers on Linux i386's frames, sigreturn, the interval
 *     timers), to any process but init; abort() ends the program as
 *     SIGABRT does (wait status 128 + 6 = 134).
 *   - time and randomness are the same every run with the same boot line:
 *     getrandom and AT_RANDOM come from xorshift32 seeded by linux.seed=,
 *     the wall clock is linux.epoch= (seconds) plus the kernel's uptime
 *     less the time it sat waiting for input (clock_unwaited_us: under
 *     -icount that wait is the host's, and Lua seeds its hashes with
 *     time(), so a profile would move with it).
 *   - uname says sysname "Linux" (the ABI a program is given, so a program
 *     that asks takes its Linux path), nodename "kprof-os".
 *   - anything else: -ENOSYS, and one console line per process and call;
 *     the probes glibc makes at every start (set_robust_list, rseq) are
 *     answered quietly.
 */
#include <asm/unistd_32.h>
#include <asm/ldt.h>
/* asm/stat.h's struct stat is Linux's old one; the project's own struct
 * stat (abi/fcntl.h) keeps the name */
#define stat linux_old_stat
#include <asm/stat.h>
#undef stat
#include <linux/stat.h>
/* the one name both define: Linux's value is kept as LINUX_S_IFDIR */
enum { LINUX_S_IFDIR = S_IFDIR };
#undef S_IFDIR
#include <linux/fcntl.h>
/* abi/fcntl.h's open flags are Linux's values: checked below */
enum {
	LINUX_O_ACCMODE = O_ACCMODE, LINUX_O_CREAT = O_CREAT, LINUX_O_TRUNC = O_TRUNC,
	LINUX_O_APPEND = O_APPEND,
};
#undef O_RDONLY
#undef O_WRONLY
#undef O_RDWR
#undef O_ACCMODE
#undef O_CREAT
#undef O_TRUNC
#undef O_APPEND
#include <asm/termbits.h>
#include <asm/ioctls.h>
#include <asm-generic/termios.h>
#include <linux/utsname.h>
#include <linux/time_types.h>
#include <linux/time.h>
#include <linux/resource.h>
#include <linux/uio.h>
#include <linux/mman.h>
#include <linux/random.h>
#include <linux/sysinfo.h>
#include <linux/signal.h>

#include "abi/errno.h"
#include "abi/fcntl.h"
#include "abi/memlayout.h"
#include "abi/syscall.h"
#include "abi/version.h"
#include "arch.h"
#include "clock.h"
#include "cmdline.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "linux.h"
#include "proc.h"
#include "signal.h"
#include "syscall.h"
#include "uaccess.h"
#include "xorshift.h"

_Static_assert(LINUX_O_ACCMODE == O_ACCMODE && LINUX_O_CREAT == O_CREAT &&
	       LINUX_O_TRUNC == O_TRUNC && LINUX_O_APPEND == O_APPEND,
	       "abi/fcntl.h's open flags are Linux's");

/* The boot words that make a run repeatable: the generator's seed and
 * the wall clock at boot, in seconds since 1970 (default 2026-01-01). */
static uint32_t linux_seed = 1;
static uint32_t linux_epoch = 1767225600;
BOOTPARAM_NUM("linux.seed", linux_seed, 1, 0xFFFFFFFFu);
BOOTPARAM_NUM("linux.epoch", linux_epoch, 0, 0xFFFFFFFFu);
static uint32_t rng;

void linux_random(void *buf, uint32_t n)
{
	uint8_t *b = buf;

	if (!rng)
		rng = linux_seed;
	for (uint32_t i = 0; i < n; i++)
		b[i] = (uint8_t)xorshift32(&rng);
}

/* ---- files ---- */

static struct file *getfile(uint32_t fd)
{
	return fd < NOFILE ? curproc()->ofile[fd] : NULL;
}

/* the lowest free fd at or above min, given f; -EMFILE if none */
static int fdalloc(uint32_t min, struct file *f)
{
	struct proc *p = curproc();

	for (uint32_t fd = min; fd < NOFILE; fd++)
		if (!p->ofile[fd]) {
			p->ofile[fd] = f;
			p->lx.cloexec &= ~(1u << fd);
			return fd;
		}
	return -EMFILE;
}

/* A path relative to dirfd, made absolute: the cwd for AT_FDCWD, or a
 * directory of /tmp (the only one whose path the kernel can give back). */
static int atpath(int dirfd, uint32_t upath, char *abs)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct file *f;
	int r;

	if ((r = copyinstr(path, upath, sizeof path)) < 0)
		return r;
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return vfs_abspath(curproc()->cwd, path, abs);
	if (!(f = getfile(dirfd)))
		return -EBADF;
	if (f->vn->type != S_IFDIR)
		return -ENOTDIR;
	if ((r = tmpfs_dirpath(f->vn, dir, sizeof dir)) < 0)
		return r == -EROFS ? -EOPNOTSUPP : r;
	return vfs_abspath(dir, path, abs);
}

static int lx_openat(int dirfd, uint32_t upath, uint32_t flags, uint32_t mode)
{
	char abs[PATH_MAX];
	struct vnode *v;
	struct file *f;
	int fd, r;

	(void)mode;             /* no permissions here */
	if ((r = atpath(dirfd, upath, abs)) < 0)
		return r;
	if ((flags & O_CREAT) && (flags & O_EXCL) && vfs_lookup(abs, &v) == 0)
		return -EEXIST;
	if ((r = vfs_open(abs, flags & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND), &f)) < 0)
		return r;
	if ((flags & O_DIRECTORY) && f->vn->type != S_IFDIR) {
		file_close(f);
		return -ENOTDIR;
	}
	if ((fd = fdalloc(0, f)) < 0) {
		file_close(f);
		return fd;
	}
	if (flags & O_CLOEXEC)
		curproc()->lx.cloexec |= 1u << fd;
	return fd;
}

static int lx_read(uint32_t fd, uint32_t ubuf, uint32_t n)
{
	struct file *f = getfile(fd);

	/* the project's read of a directory gives its records; Linux's
	 * gives EISDIR (getdents64 reads them) */
	if (f && f->vn->type == S_IFDIR)
		return -EISDIR;
	return sys_read(fd, ubuf, n);
}

/* readv/writev: each buffer in turn, until one is short */
static int lx_rwv(uint32_t fd, uint32_t uiov, uint32_t n, bool write)
{
	struct iovec iov;
	uint32_t done = 0;

	if (n > UIO_MAXIOV)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		int r;
		if (copyin(&iov, uiov + i * sizeof iov, sizeof iov) < 0)
			return done ? (int)done : -EFAULT;
		if (iov.iov_len == 0)
			continue;
		r = write ? sys_write(fd, (uint32_t)iov.iov_base, iov.iov_len) :
			lx_read(fd, (uint32_t)iov.iov_base, iov.iov_len);
		if (r < 0)
			return done ? (int)done : r;
		done += r;
		if ((uint32_t)r < iov.iov_len)
			break;
	}
	return done;
}

/* pread/pwrite: at an offset, the file's own left as it was */
static int lx_prw(uint32_t fd, uint32_t ubuf, uint32_t n, uint32_t lo, uint32_t hi, bool write)
{
	struct file *f = getfile(fd);
	uint32_t saved;
	int r;

	if (!f)
		return -EBADF;
	if (!f->vn->ops->seekable)
		return -ESPIPE;
	if (hi != 0 || lo > 0x7FFFFFFF)
		return -EINVAL;
	saved = f->off;
	f->off = lo;
	r = write ? sys_write(fd, ubuf, n) : lx_read(fd, ubuf, n);
	f->off = saved;
	return r;
}

static int lx_llseek(uint32_t fd, uint32_t hi, uint32_t lo, uint32_t uresult, uint32_t whence)
{
	int64_t off = (int64_t)(((uint64_t)hi << 32) | lo);
	int r;

	if (off != (int32_t)off)
		return -EINVAL;
	if (!uvalid(uresult, sizeof(int64_t)))
		return -EFAULT;
	if ((r = sys_lseek(fd, (int32_t)off, whence)) < 0)
		return r;
	off = r;
	return copyout(uresult, &off, sizeof off);
}

/* A vnode as Linux's stat sees it. */
struct kstat {
	uint32_t mode, ino, dev, rdev, size;
};

static void kstat_of(struct vnode *v, struct file *f, struct kstat *k)
{
	struct stat st;

	vnode_stat(v, f, &st);
	k->ino = st.ino + 1;            /* 0 is no file to some programs */
	k->dev = st.dev + 1;
	k->size = st.size;
	k->rdev = 0;
	switch (st.type) {
	case S_IFDIR:
		k->mode = LINUX_S_IFDIR | 0755;
		break;
	case S_IFDEV:
		k->mode = S_IFCHR | 0666;
		k->rdev = k->ino;
		break;
	default:
		k->mode = S_IFREG | (st.dev == FS_INITRD ? 0755 : 0644);
	}
}

static int stat64_out(const struct kstat *k, uint32_t ust)
{
	struct stat64 s;

	memset(&s, 0, sizeof s);
	s.st_dev = k->dev;
	s.__st_ino = k->ino;
	s.st_ino = k->ino;
	s.st_mode = k->mode;
	s.st_nlink = 1;
	s.st_rdev = k->rdev;
	s.st_size = k->size;
	s.st_blksize = PGSIZE;
	s.st_blocks = (k->size + 511) / 512;
	s.st_atime = s.st_mtime = s.st_ctime = linux_epoch;
	return copyout(ust, &s, sizeof s);
}

static int statx_out(const struct kstat *k, uint32_t ust)
{
	struct statx s;

	memset(&s, 0, sizeof s);
	s.stx_mask = STATX_BASIC_STATS;
	s.stx_blksize = PGSIZE;
	s.stx_nlink = 1;
	s.stx_mode = k->mode;
	s.stx_ino = k->ino;
	s.stx_size = k->size;
	s.stx_blocks = (k->size + 511) / 512;
	s.stx_atime.tv_sec = s.stx_btime.tv_sec = s.stx_ctime.tv_sec = s.stx_mtime.tv_sec =
		linux_epoch;
	s.stx_rdev_major = k->rdev ? 1 : 0;
	s.stx_rdev_minor = k->rdev;
	s.stx_dev_major = 0;
	s.stx_dev_minor = k->dev;
	return copyout(ust, &s, sizeof s);
}

/* the file at dirfd/path, or dirfd itself for an empty path with
 * AT_EMPTY_PATH */
static int statat(int dirfd, uint32_t upath, uint32_t flags, struct kstat *k)
{
	char abs[PATH_MAX];
	struct vnode *v;
	struct file *f;
	char c;
	int r;

	if ((flags & AT_EMPTY_PATH) && copyin(&c, upath, 1) == 0 && c == 0) {
		if (dirfd == AT_FDCWD) {
			if ((r = vfs_lookup(curproc()->cwd, &v)) < 0)
				return r;
			kstat_of(v, NULL, k);
			return 0;
		}
		if (!(f = getfile(dirfd)))
			return -EBADF;
		kstat_of(f->vn, f, k);
		return 0;
	}
	if ((r = atpath(dirfd, upath, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	kstat_of(v, NULL, k);
	return 0;
}

static int lx_fstatat64(int dirfd, uint32_t upath, uint32_t ust, uint32_t flags)
{
	struct kstat k;
	int r = statat(dirfd, upath, flags, &k);
	return r < 0 ? r : stat64_out(&k, ust);
}

static int lx_fstat64(uint32_t fd, uint32_t ust)
{
	struct file *f = getfile(fd);
	struct kstat k;

	if (!f)
		return -EBADF;
	kstat_of(f->vn, f, &k);
	return stat64_out(&k, ust);
}

static int lx_statx(int dirfd, uint32_t upath, uint32_t flags, uint32_t mask, uint32_t ust)
{
	struct kstat k;
	int r;

	(void)mask;             /* the basic stats are all there is */
	if ((r = statat(dirfd, upath, flags, &k)) < 0)
		return r;
	return statx_out(&k, ust);
}

/* glibc's struct dirent64, as the kernel writes it (include/linux/dirent.h
 * is not UAPI): the name follows, NUL-terminated, the record 8-aligned */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};
#define DT_CHR 2
#define DT_DIR 4
#define DT_REG 8

static int lx_getdents64(uint32_t fd, uint32_t ubuf, uint32_t n)
{
	struct file *f = getfile(fd);
	struct dirent de;
	uint8_t *k;
	uint32_t got = 0;
	int r;

	if (!f)
		return -EBADF;
	if (f->vn->type != S_IFDIR)
		return -ENOTDIR;
	if (!uvalid(ubuf, n))
		return -EFAULT;
	if (!(k = kalloc()))
		return -ENOMEM;
	n = MIN(n, PGSIZE);
	for (;;) {
		struct linux_dirent64 *d = (struct linux_dirent64 *)(k + got);
		uint32_t len, reclen;
		memset(&de, 0, sizeof de);
		if (!f->vn->ops->readdir(f->vn, f->off, &de))
			break;
		len = strlen(de.name);
		reclen = ROUNDUP(sizeof *d + len + 1, 8);
		if (got + reclen > n)
			break;
		d->d_ino = de.ino + 1;
		d->d_off = f->off + 1;
		d->d_reclen = reclen;
		d->d_type = de.type == S_IFDIR ? DT_DIR : de.type == S_IFDEV ? DT_CHR : DT_REG;
		memcpy(d->d_name, de.name, len + 1);
		got += reclen;
		f->off++;
	}
	if (got == 0 && f->vn->ops->readdir(f->vn, f->off, &de))
		r = -EINVAL;            /* not even one record fits */
	else
		r = copyout(ubuf, k, got) < 0 ? -EFAULT : (int)got;
	kfree(k);
	return r;
}

static int lx_faccessat(int dirfd, uint32_t upath, uint32_t mode)
{
	char abs[PATH_MAX];
	struct vnode *v;
	int r;

	if ((r = atpath(dirfd, upath, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	/* root may do anything, but write to the initrd */
	if ((mode & 2 /* W_OK */) && v->dev == FS_INITRD)
		return -EROFS;
	return 0;
}

/* chmod, chown, utimes: the file system keeps no modes, owners or times
 * (stat shows fixed ones), so these succeed on any file that is there,
 * as they would for root on Linux, and change nothing. bzip2 and gzip
 * copy their input's attributes to their output this way. */
static int lx_attrat(int dirfd, uint32_t upath)
{
	char abs[PATH_MAX];
	struct vnode *v;
	int r;

	if (!upath && dirfd != AT_FDCWD)        /* utimensat(fd, NULL, ...) */
		return getfile((uint32_t)dirfd) ? 0 : -EBADF;
	if ((r = atpath(dirfd, upath, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	return v->dev == FS_INITRD ? -EROFS : 0;
}

static int lx_fattr(uint32_t fd)
{
	struct file *f = getfile(fd);

	if (!f)
		return -EBADF;
	return f->vn && f->vn->dev == FS_INITRD ? -EROFS : 0;
}

static int lx_readlinkat(int dirfd, uint32_t upath, uint32_t ubuf, uint32_t n)
{
	char abs[PATH_MAX];
	struct vnode *v;
	const char *exe = curproc()->lx.exe;
	uint32_t len = strlen(exe);
	int r;

	if ((r = atpath(dirfd, upath, abs)) < 0)
		return r;
	/* the one link: what glibc and Lua ask for to find themselves */
	if (strcmp(abs, "/proc/self/exe") == 0) {
		if ((int32_t)n <= 0)
			return -EINVAL;
		len = MIN(len, n);
		return copyout(ubuf, exe, len) < 0 ? -EFAULT : (int)len;
	}
	return vfs_lookup(abs, &v) == 0 ? -EINVAL : -ENOENT;
}

static int lx_mkdirat(int dirfd, uint32_t upath)
{
	char abs[PATH_MAX];
	int r;
	return (r = atpath(dirfd, upath, abs)) < 0 ? r : vfs_mkdir(abs);
}

static int lx_unlinkat(int dirfd, uint32_t upath, uint32_t flags)
{
	char abs[PATH_MAX];
	struct vnode *v;
	int r;

	if ((r = atpath(dirfd, upath, abs)) < 0 || (r = vfs_lookup(abs, &v)) < 0)
		return r;
	if ((flags & AT_REMOVEDIR) && v->type != S_IFDIR)
		return -ENOTDIR;
	if (!(flags & AT_REMOVEDIR) && v->type == S_IFDIR)
		return -EISDIR;
	return vfs_unlink(abs);
}

static int lx_renameat(int olddir, uint32_t uold, int newdir, uint32_t unew, uint32_t flags)
{
	char from[PATH_MAX], to[PATH_MAX];
	int r;

	if (flags)
		return -EINVAL;         /* no RENAME_NOREPLACE, RENAME_EXCHANGE */
	if ((r = atpath(olddir, uold, from)) < 0 || (r = atpath(newdir, unew, to)) < 0)
		return r;
	return vfs_rename(from, to);
}

static int lx_getcwd(uint32_t ubuf, uint32_t n)
{
	int r = sys_getcwd(ubuf, n);
	return r < 0 ? r : r + 1;       /* Linux counts the NUL */
}

static int lx_dup3(uint32_t oldfd, uint32_t newfd, uint32_t flags)
{
	int r;

	if (oldfd == newfd || (flags & ~O_CLOEXEC))
		return -EINVAL;
	if ((r = sys_dup2(oldfd, newfd)) < 0)
		return r;
	if (flags & O_CLOEXEC)
		curproc()->lx.cloexec |= 1u << newfd;
	else
		curproc()->lx.cloexec &= ~(1u << newfd);
	return r;
}

static int lx_dup2(uint32_t oldfd, uint32_t newfd)
{
	int r = sys_dup2(oldfd, newfd);
	if (r >= 0)
		curproc()->lx.cloexec &= ~(1u << newfd);
	return r;
}

static int lx_close(uint32_t fd)
{
	int r = sys_close(fd);
	if (r == 0)
		curproc()->lx.cloexec &= ~(1u << fd);
	return r;
}

static int lx_fcntl(uint32_t fd, uint32_t cmd, uint32_t arg)
{
	struct proc *p = curproc();
	struct file *f = getfile(fd);
	int r;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= NOFILE)
			return -EINVAL;
		if ((r = fdalloc(arg, file_dup(f))) < 0) {
			file_close(f);
			return r;
		}
		if (cmd == F_DUPFD_CLOEXEC)
			p->lx.cloexec |= 1u << r;
		return r;
	case F_GETFD:
		return p->lx.cloexec & (1u << fd) ? FD_CLOEXEC : 0;
	case F_SETFD:
		if (arg & FD_CLOEXEC)
			p->lx.cloexec |= 1u << fd;
		else
			p->lx.cloexec &= ~(1u << fd);
		return 0;
	case F_GETFL:
		return f->flags & (O_ACCMODE | O_APPEND);
	case F_SETFL:
		/* of the flags that can change, only O_APPEND means anything here */
		f->flags = (f->flags & ~O_APPEND) | (arg & O_APPEND);
		return 0;
	default:
		return -EINVAL;
	}
}

/* A terminal is a stream device (the console, the serial port): glibc's
 * isatty asks TCGETS, and a terminal's stdout is line buffered. */
static int lx_ioctl(uint32_t fd, uint32_t req, uint32_t arg)
{
	struct file *f = getfile(fd);
	struct termios t;
	struct winsize w;

	if (!f)
		return -EBADF;
	if (f->vn->type != S_IFDEV || f->vn->ops->seekable)
		return -ENOTTY;
	switch (req) {
	case TCGETS:
		memset(&t, 0, sizeof t);
		t.c_iflag = ICRNL;
		t.c_oflag = OPOST | ONLCR;
		t.c_cflag = B38400 | CS8 | CREAD;
		t.c_lflag = ICANON | ECHO | ECHOE | ISIG;
		t.c_cc[VINTR] = 3;
		t.c_cc[VERASE] = 127;
		t.c_cc[VEOF] = 4;
		t.c_cc[VMIN] = 1;
		return copyout(arg, &t, sizeof t);
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		return uvalid(arg, sizeof t) ? 0 : -EFAULT;    /* the line discipline is fixed */
	case TIOCGWINSZ:
		memset(&w, 0, sizeof w);
		w.ws_row = 24;
		w.ws_col = 80;
		return copyout(arg, &w, sizeof w);
	case TIOCGPGRP:
		return copyout(arg, &curproc()->pid, sizeof(int));
	default:
		return -ENOTTY;
	}
}

/* ---- memory ---- */

static bool mapped(uint32_t *pgdir, uint32_t va, uint32_t n)
{
	for (uint32_t pg = va; pg < va + n; pg += PGSIZE)
		if (arch_user_page(pgdir, pg))
			return true;
	return false;
}

static void unmap(uint32_t *pgdir, uint32_t va, uint32_t n)
{
	for (uint32_t pg = va; pg < va + n; pg += PGSIZE)
		arch_unmap_user(pgdir, pg);
}

/* zeroed pages over [va, va+n), none mapped there yet; all or nothing */
static int mapnew(uint32_t *pgdir, uint32_t va, uint32_t n)
{
	for (uint32_t pg = va; pg < va + n; pg += PGSIZE) {
		void *page = kalloc();
		if (!page || !arch_map_user(pgdir, pg, page)) {
			if (page)
				kfree(page);
			unmap(pgdir, va, pg - va);
			return -ENOMEM;
		}
	}
	return 0;
}

/* where mappings go: below the stack's reserve, down to the break */
static uint32_t mmap_top(void)
{
	return USER_TOP - LINUX_STACK_MAX - PGSIZE;     /* a guard page */
}

static bool mmap_range_ok(struct proc *p, uint32_t va, uint32_t n)
{
	return va % PGSIZE == 0 && va >= ROUNDUP(p->brk, PGSIZE) && va <= mmap_top() &&
	       n <= mmap_top() - va;
}

/* the highest free range of n bytes, top down as Linux's legacy layout;
 * 0 if none */
static uint32_t mmap_find(struct proc *p, uint32_t n)
{
	uint32_t lo = ROUNDUP(p->brk, PGSIZE), top = mmap_top(), run = 0;

	for (uint32_t pg = top; pg > lo && n <= top - lo; ) {
		pg -= PGSIZE;
		if (arch_user_page(p->pgdir, pg))
			run = 0;
		else if ((run += PGSIZE) == n)
			return pg;
	}
	return 0;
}

static int lx_mmap(uint32_t addr, uint32_t len, uint32_t prot, uint32_t flags, uint32_t fd,
		   uint32_t off)
{
	struct proc *p = curproc();
	struct file *f = NULL;
	uint32_t n = ROUNDUP(len, PGSIZE), va;
	int r;

	(void)prot;             /* not enforced: every page is read/write */
	if (len == 0 || n < len || off % PGSIZE)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		if (!(f = getfile(fd)))
			return -EBADF;
		if (!f->vn->ops->seekable || f->vn->type != S_IFILE)
			return -ENODEV;
		/* a shared mapping's writes would have to reach the file */
		if ((flags & MAP_TYPE) == MAP_SHARED && (prot & PROT_WRITE))
			return -ENODEV;
	}
	if (flags & MAP_FIXED) {
		if (!mmap_range_ok(p, addr, n))
			return -ENOMEM;
		unmap(p->pgdir, addr, n);
		va = addr;
	} else if (addr && mmap_range_ok(p, ROUNDDOWN(addr, PGSIZE), n) &&
		   !mapped(p->pgdir, ROUNDDOWN(addr, PGSIZE), n)) {
		va = ROUNDDOWN(addr, PGSIZE);
	} else if (!(va = mmap_find(p, n))) {
		return -ENOMEM;
	}
	if ((r = mapnew(p->pgdir, va, n)) < 0)
		return r;
	/* a private file mapping: a copy of the file as it is now */
	if (f) {
		uint32_t size = f->vn->ops->size(f->vn, f);
		for (uint32_t done = 0; done < len && off < size && done < size - off;
		     done += PGSIZE) {
			uint32_t chunk = MIN(PGSIZE, MIN(len - done, size - off - done));
			r = f->vn->ops->read(f->vn, f, arch_user_kptr(p->pgdir, va + done), chunk,
					     off + done);
			if (r < 0) {
				unmap(p->pgdir, va, n);
				return r;
			}
		}
	}
	return (int)va;
}

/* the old mmap (nr 90): its six arguments in a struct */
static int lx_old_mmap(uint32_t uargs)
{
	uint32_t a[6];

	if (copyin(a, uargs, sizeof a) < 0)
		return -EFAULT;
	return lx_mmap(a[0], a[1], a[2], a[3], a[4], a[5]);
}

static bool inuser(uint32_t va, uint32_t n)
{
	return va >= USER_BASE && va <= USER_TOP && n <= USER_TOP - va;
}

static int lx_munmap(uint32_t addr, uint32_t len)
{
	uint32_t n = ROUNDUP(len, PGSIZE);

	if (addr % PGSIZE || len == 0 || n < len || !inuser(addr, n))
		return -EINVAL;
	unmap(curproc()->pgdir, addr, n);
	return 0;
}

static int lx_mremap(uint32_t old, uint32_t oldlen, uint32_t newlen, uint32_t flags)
{
	struct proc *p = curproc();
	uint32_t on = ROUNDUP(oldlen, PGSIZE), nn = ROUNDUP(newlen, PGSIZE), va;

	if (old % PGSIZE || nn == 0 || nn < newlen || on < oldlen || !inuser(old, on) ||
	    (flags & ~MREMAP_MAYMOVE))
		return -EINVAL;
	if (nn <= on) {
		unmap(p->pgdir, old + nn, on - nn);
		return (int)old;
	}
	/* grow in place if the pages after it are free */
	if (mmap_range_ok(p, old + on, nn - on) && !mapped(p->pgdir, old + on, nn - on) &&
	    mapnew(p->pgdir, old + on, nn - on) == 0)
		return (int)old;
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	if (!(va = mmap_find(p, nn)) || mapnew(p->pgdir, va, nn) < 0)
		return -ENOMEM;
	for (uint32_t o = 0; o < on; o += PGSIZE) {
		void *src = arch_user_kptr(p->pgdir, old + o);
		if (src)
			memcpy(arch_user_kptr(p->pgdir, va + o), src, PGSIZE);
	}
	unmap(p->pgdir, old, on);
	return (int)va;
}

/* Linux's brk: the break moves if it can, and the answer is always where
 * it is; it may not reach a mapping */
static int lx_brk(uint32_t want)
{
	struct proc *p = curproc();
	uint32_t old = p->brk;

	if (want < p->heap_start || want > mmap_top())
		return (int)old;
	if (want > old && mapped(p->pgdir, ROUNDUP(old, PGSIZE), ROUNDUP(want, PGSIZE) - ROUNDUP(old, PGSIZE)))
		return (int)old;
	sys_sbrk((int32_t)(want - old));
	return (int)p->brk;
}

bool linux_stack_grow(struct proc *p, uint32_t va)
{
	void *page;

	if (!p || p->abi != ABI_LINUX || va < USER_TOP - LINUX_STACK_MAX || va >= USER_TOP)
		return false;
	va = ROUNDDOWN(va, PGSIZE);
	if (arch_user_page(p->pgdir, va))
		return true;
	if (!(page = kalloc()))
		return false;
	if (!arch_map_user(p->pgdir, va, page)) {
		kfree(page);
		return false;
	}
	return true;
}

/* ---- processes ---- */

static int lx_set_thread_area(uint32_t uinfo)
{
	struct proc *p = curproc();
	struct user_desc u;
	int r;

	if (copyin(&u, uinfo, sizeof u) < 0)
		return -EFAULT;
	if ((r = arch_tls_set(&p->tls, &u)) < 0)
		return r;
	arch_tls_load(&p->tls);
	return copyout(uinfo, &u, sizeof u);
}

static int lx_set_tid_address(uint32_t tidptr)
{
	curproc()->lx.clear_tid = tidptr;
	return curproc()->pid;
}

static int lx_uname(uint32_t ubuf)
{
	struct new_utsname u;

	memset(&u, 0, sizeof u);
	strlcpy(u.sysname, "Linux", sizeof u.sysname);
	strlcpy(u.nodename, "kprof-os", sizeof u.nodename);
	strlcpy(u.release, "6.1.0-kprof-os", sizeof u.release);
	strlcpy(u.version, KPROF_VERSION, sizeof u.version);
	strlcpy(u.machine, "i686", sizeof u.machine);
	strlcpy(u.domainname, "(none)", sizeof u.domainname);
	return copyout(ubuf, &u, sizeof u);
}

/* ---- signals (signal.c keeps them; these are Linux's calls on them) ---- */

#define UNCATCHABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* the kernel's struct sigaction for rt_sigaction (include/linux/signal_types.h
 * with SA_RESTORER, not UAPI: the UAPI's struct sigaction for i386 is the
 * old call's, below): the mask is 64 signals, last */
struct lx_rt_sigaction {
	uint32_t handler, flags, restorer;
	uint32_t mask[2];
};

static bool sig_ok(uint32_t sig)
{
	return sig >= 1 && sig <= NSIGNAL;
}

/* sig to one process: pid 1 is refused, as the project's kill refuses it
 * (init's end would power the machine off); 0 only checks */
static int signal_one(struct proc *q, uint32_t sig)
{
	if (!q)
		return -ESRCH;
	if (q->pid == 1 && q != curproc())
		return -EPERM;
	if (sig)
		signal_post(q, (int)sig);
	return 0;
}

/* kill: pid > 0 that process; 0 the caller's group, which is the caller
 * (there are no process groups); -1 every process but init and the
 * caller, as Linux's; any other negative pid a group, so none */
static int lx_kill(int pid, uint32_t sig)
{
	struct proc *p = curproc();
	int n = 0;

	if (sig > NSIGNAL)
		return -EINVAL;
	if (pid > 0)
		return signal_one(proc_lookup((uint32_t)pid), sig);
	if (pid == 0)
		return signal_one(p, sig);
	if (pid != -1)
		return -ESRCH;
	for (int i = 0; i < NPROC; i++) {
		struct proc *q = &procs[i];
		if (q == p || q->pid <= 1 || q->state == P_UNUSED || q->state == P_EMBRYO ||
		    q->state == P_ZOMBIE)
			continue;
		signal_one(q, sig);
		n++;
	}
	return n ? 0 : -ESRCH;
}

/* one thread a process: the thread is the process, and tgid, if given,
 * must be it */
static int lx_tgkill(int tgid, int tid, uint32_t sig)
{
	if (tid <= 0 || (tgid != -1 && tgid <= 0) || sig > NSIGNAL)
		return -EINVAL;
	if (tgid != -1 && tgid != tid)
		return -ESRCH;
	return signal_one(proc_lookup((uint32_t)tid), sig);
}

/* sets sig's action from *a (if a), the old one to *old; an ignored
 * signal's pending one is dropped, as Linux drops it */
static int setaction(uint32_t sig, const struct sigact *a, struct sigact *old)
{
	struct proc *p = curproc();

	if (!sig_ok(sig))
		return -EINVAL;
	*old = p->sig.act[sig];
	if (!a)
		return 0;
	if (SIGBIT(sig) & UNCATCHABLE)
		return -EINVAL;
	p->sig.act[sig] = *a;
	p->sig.act[sig].mask &= ~UNCATCHABLE;
	if (a->handler == (uint32_t)SIG_IGN ||
	    (a->handler == (uint32_t)SIG_DFL && (sig == SIGCHLD || sig == SIGCONT ||
						sig == SIGURG || sig == SIGWINCH)))
		p->sig.pending &= ~SIGBIT(sig);
	return 0;
}

static int lx_rt_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact, uint32_t size)
{
	struct lx_rt_sigaction k;
	struct sigact a = { 0 }, old;
	int r;

	if (size != 8)
		return -EINVAL;
	if (uact) {
		if (copyin(&k, uact, sizeof k) < 0)
			return -EFAULT;
		a = (struct sigact){ k.handler, k.flags, k.restorer,
			(uint64_t)k.mask[1] << 32 | k.mask[0] };
	}
	if ((r = setaction(sig, uact ? &a : NULL, &old)) < 0)
		return r;
	k = (struct lx_rt_sigaction){ old.handler, old.flags, old.restorer,
		{ (uint32_t)old.mask, (uint32_t)(old.mask >> 32) } };
	return uoact ? copyout(uoact, &k, sizeof k) : 0;
}

/* the old call: struct sigaction of the UAPI, a 32-signal mask */
static int lx_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact)
{
	struct sigaction k;
	struct sigact a = { 0 }, old;
	int r;

	if (uact) {
		if (copyin(&k, uact, sizeof k) < 0)
			return -EFAULT;
		a = (struct sigact){ (uint32_t)k.sa_handler, k.sa_flags,
			(uint32_t)k.sa_restorer, k.sa_mask };
	}
	if ((r = setaction(sig, uact ? &a : NULL, &old)) < 0)
		return r;
	memset(&k, 0, sizeof k);
	k.sa_handler = (__sighandler_t)old.handler;
	k.sa_flags = old.flags;
	k.sa_restorer = (__sigrestore_t)old.restorer;
	k.sa_mask = (uint32_t)old.mask;
	return uoact ? copyout(uoact, &k, sizeof k) : 0;
}

/* the mask changed by how; SIGKILL and SIGSTOP are never blocked */
static int setmask(uint32_t how, const uint64_t *set, uint64_t *old)
{
	struct proc *p = curproc();

	*old = p->sig.blocked;
	if (!set)
		return how <= SIG_SETMASK ? 0 : -EINVAL;
	switch (how) {
	case SIG_BLOCK:
		p->sig.blocked |= *set;
		break;
	case SIG_UNBLOCK:
		p->sig.blocked &= ~*set;
		break;
	case SIG_SETMASK:
		p->sig.blocked = *set;
		break;
	default:
		return -EINVAL;
	}
	p->sig.blocked &= ~UNCATCHABLE;
	signal_recheck(p);
	return 0;
}

static int lx_rt_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset, uint32_t size)
{
	uint64_t set, old;
	int r;

	if (size != 8)
		return -EINVAL;
	if (uset && copyin(&set, uset, sizeof set) < 0)
		return -EFAULT;
	if ((r = setmask(how, uset ? &set : NULL, &old)) < 0)
		return r;
	return uoset ? copyout(uoset, &old, sizeof old) : 0;
}

/* the old call: the low 32 signals, the others' bits kept */
static int lx_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset)
{
	uint32_t set32 = 0, old32;
	uint64_t set, old;
	int r;

	if (uset && copyin(&set32, uset, sizeof set32) < 0)
		return -EFAULT;
	set = set32;
	if (uset && how == SIG_SETMASK)
		set |= curproc()->sig.blocked & ~0xFFFFFFFFull;
	if ((r = setmask(how, uset ? &set : NULL, &old)) < 0)
		return r;
	old32 = (uint32_t)old;
	return uoset ? copyout(uoset, &old32, sizeof old32) : 0;
}

/* the pending signals that are blocked (the others are being acted on) */
static int lx_sigpending(uint32_t uset, uint32_t size)
{
	struct proc *p = curproc();
	uint64_t set = p->sig.pending & p->sig.blocked;

	if (size != 8 && size != 4)
		return -EINVAL;
	return copyout(uset, &set, size);
}

/* sleeps until a signal is to be acted on: pause and sigsuspend, which
 * always end with EINTR once its handler has run */
static int sigwait_any(void)
{
	struct proc *p = curproc();
	uint32_t s = splhi();

	while (!signal_interrupted(p))
		sleep_on(&p->sig);
	splx(s);
	return -EINTR;
}

/* the mask while waiting is set; the old one comes back after the
 * handler (signal.c's restore_saved: the handler's frame keeps it) */
static int lx_rt_sigsuspend(uint32_t umask, uint32_t size)
{
	struct proc *p = curproc();
	uint64_t mask;

	if (size != 8)
		return -EINVAL;
	if (copyin(&mask, umask, sizeof mask) < 0)
		return -EFAULT;
	p->sig.saved = p->sig.blocked;
	p->sig.restore_saved = true;
	p->sig.blocked = mask & ~UNCATCHABLE;
	signal_recheck(p);
	return sigwait_any();
}

/* the old call: sigsuspend(int, int, old_sigset_t mask) */
static int lx_sigsuspend(uint32_t mask)
{
	struct proc *p = curproc();

	p->sig.saved = p->sig.blocked;
	p->sig.restore_saved = true;
	p->sig.blocked = ((p->sig.blocked & ~0xFFFFFFFFull) | mask) & ~UNCATCHABLE;
	signal_recheck(p);
	return sigwait_any();
}

/* the handler's frame back into the registers and the mask; a bad frame
 * ends the process as a SIGSEGV (139), as on Linux. The result is the
 * restored eax, which the return path writes back as it is. */
static int lx_sigreturn(bool rt)
{
	struct proc *p = curproc();
	uint64_t mask;

	if (!arch_signal_return(p->tf, &mask, rt)) {
		kprintf("pid %d (%s): bad signal frame at sigreturn\n", p->pid, p->name);
		proc_exit(128 + SIGSEGV);
	}
	p->sig.blocked = mask & ~UNCATCHABLE;
	signal_recheck(p);
	return (int)p->tf->eax;
}

static int lx_sigaltstack(uint32_t uss, uint32_t uoss)
{
	struct proc *p = curproc();
	uint32_t sp = arch_frame_sp(p->tf);
	bool on = p->sig.ss_size && sp - p->sig.ss_sp < p->sig.ss_size;
	stack_t ss;

	if (uoss) {
		memset(&ss, 0, sizeof ss);
		ss.ss_sp = (void *)p->sig.ss_sp;
		ss.ss_size = p->sig.ss_size;
		ss.ss_flags = !p->sig.ss_size ? SS_DISABLE : on ? SS_ONSTACK : 0;
		if (copyout(uoss, &ss, sizeof ss) < 0)
			return -EFAULT;
	}
	if (!uss)
		return 0;
	if (copyin(&ss, uss, sizeof ss) < 0)
		return -EFAULT;
	if (on)
		return -EPERM;
	if (ss.ss_flags & ~(SS_DISABLE | SS_ONSTACK | SS_AUTODISARM))
		return -EINVAL;
	if (ss.ss_flags & SS_DISABLE) {
		p->sig.ss_sp = p->sig.ss_size = 0;
		return 0;
	}
	if (ss.ss_size < MINSIGSTKSZ)
		return -ENOMEM;
	p->sig.ss_sp = (uint32_t)ss.ss_sp;
	p->sig.ss_size = ss.ss_size;
	p->sig.ss_flags = 0;
	return 0;
}

/* ---- interval timers (signal.c fires them, from the clock) ---- */

/* microseconds to ticks at the present rate, rounded up (a timer set
 * fires no sooner than asked), at least 1; 0 is off */
static uint32_t us_to_ticks(uint64_t us)
{
	uint64_t t;

	if (!us)
		return 0;
	t = clock_muldiv(us, clock_hz_mhz(), 1000000000u, true);
	return (uint32_t)MIN(MAX(t, 1), 0xFFFFFFFFull);
}

static struct timeval ticks_to_tv(uint64_t t)
{
	uint64_t us = clock_muldiv(t, 1000000000u, clock_hz_mhz(), false);
	return (struct timeval){ (long)(us / 1000000), (long)(us % 1000000) };
}

static void itimer_get(uint32_t which, struct itimerval *v)
{
	struct sigstate *s = &curproc()->sig;

	switch (which) {
	case ITIMER_REAL:
		v->it_value = ticks_to_tv(s->real_at > ticks ? s->real_at - ticks : s->real_at ? 1 : 0);
		v->it_interval = ticks_to_tv(s->real_every);
		break;
	case ITIMER_VIRTUAL:
		v->it_value = ticks_to_tv(s->virt_left);
		v->it_interval = ticks_to_tv(s->virt_every);
		break;
	default:
		v->it_value = ticks_to_tv(s->prof_left);
		v->it_interval = ticks_to_tv(s->prof_every);
	}
}

static void itimer_set(uint32_t which, const struct itimerval *v)
{
	struct sigstate *s = &curproc()->sig;
	uint32_t value = us_to_ticks((uint64_t)v->it_value.tv_sec * 1000000 + v->it_value.tv_usec);
	uint32_t every = us_to_ticks((uint64_t)v->it_interval.tv_sec * 1000000 + v->it_interval.tv_usec);
	uint32_t sp = splhi();

	switch (which) {
	case ITIMER_REAL:
		s->real_at = value ? ticks + value : 0;
		s->real_every = every;
		if (s->real_at && s->real_at < next_wake)
			next_wake = s->real_at;
		break;
	case ITIMER_VIRTUAL:
		s->virt_left = value;
		s->virt_every = every;
		break;
	default:
		s->prof_left = value;
		s->prof_every = every;
	}
	signal_timers_changed(curproc());
	splx(sp);
}

static bool tv_ok(const struct timeval *t)
{
	return t->tv_sec >= 0 && t->tv_usec >= 0 && t->tv_usec < 1000000;
}

static int lx_setitimer(uint32_t which, uint32_t unew, uint32_t uold)
{
	struct itimerval v, old;

	if (which > ITIMER_PROF)
		return -EINVAL;
	if (unew) {
		if (copyin(&v, unew, sizeof v) < 0)
			return -EFAULT;
		if (!tv_ok(&v.it_value) || !tv_ok(&v.it_interval))
			return -EINVAL;
	}
	itimer_get(which, &old);
	if (uold && copyout(uold, &old, sizeof old) < 0)
		return -EFAULT;
	if (unew)
		itimer_set(which, &v);
	return 0;
}

static int lx_getitimer(uint32_t which, uint32_t uv)
{
	struct itimerval v;

	if (which > ITIMER_PROF)
		return -EINVAL;
	itimer_get(which, &v);
	return copyout(uv, &v, sizeof v);
}

/* alarm: ITIMER_REAL once, in seconds; the old one's seconds left,
 * rounded to the nearest, and at least 1 if one was set */
static int lx_alarm(uint32_t sec)
{
	struct itimerval v = { { 0, 0 }, { (long)MIN(sec, 0x7FFFFFFFu), 0 } }, old;

	itimer_get(ITIMER_REAL, &old);
	itimer_set(ITIMER_REAL, &v);
	if (!old.it_value.tv_sec && !old.it_value.tv_usec)
		return 0;
	return MAX(1, old.it_value.tv_sec + (old.it_value.tv_usec >= 500000));
}

static int rlimit_of(uint32_t res, struct rlimit64 *r)
{
	r->rlim_cur = r->rlim_max = RLIM64_INFINITY;
	switch (res) {
	case RLIMIT_STACK:
		r->rlim_cur = LINUX_STACK_MAX;
		break;
	case RLIMIT_NOFILE:
		r->rlim_cur = r->rlim_max = NOFILE;
		break;
	case RLIMIT_NPROC:
		r->rlim_cur = r->rlim_max = NPROC;
		break;
	case RLIMIT_CORE:
		r->rlim_cur = 0;
		break;
	default:
		if (res >= RLIM_NLIMITS)
			return -EINVAL;
	}
	return 0;
}

static int lx_prlimit64(int pid, uint32_t res, uint32_t unew, uint32_t uold)
{
	struct rlimit64 r;
	int e;

	if (pid != 0 && pid != curproc()->pid)
		return -ESRCH;
	if ((e = rlimit_of(res, &r)) < 0)
		return e;
	(void)unew;             /* limits cannot change: a new one is accepted, unused */
	return uold ? copyout(uold, &r, sizeof r) : 0;
}

static int lx_getrlimit(uint32_t res, uint32_t uold)
{
	struct rlimit64 r;
	struct rlimit o;
	int e;

	if ((e = rlimit_of(res, &r)) < 0)
		return e;
	o.rlim_cur = r.rlim_cur > RLIM_INFINITY ? RLIM_INFINITY : r.rlim_cur;
	o.rlim_max = r.rlim_max > RLIM_INFINITY ? RLIM_INFINITY : r.rlim_max;
	return copyout(uold, &o, sizeof o);
}

/* sysinfo: memory in pages (mem_unit PGSIZE), the uptime, the process
 * count; no swap, no load average. glibc's qsort asks it how much memory
 * there is (sysconf(_SC_PHYS_PAGES)) before it sorts a large array. */
static int lx_sysinfo(uint32_t uinfo)
{
	struct sysinfo si;

	memset(&si, 0, sizeof si);
	si.uptime = (long)(clock_unwaited_us() / 1000000);
	si.totalram = kalloc_total_pages();
	si.freeram = kalloc_free_pages();
	si.procs = (unsigned short)proc_count();
	si.mem_unit = PGSIZE;
	return copyout(uinfo, &si, sizeof si);
}

/* ---- time ---- */

static uint64_t clock_ns(uint32_t clk, int *err)
{
	uint64_t us = clock_unwaited_us();

	*err = 0;
	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		return (uint64_t)linux_epoch * 1000000000ull + us * 1000;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		return us * 1000;
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID: {
		struct proc *p = curproc();
		return clock_muldiv(p->uticks + p->kticks, 1000000000u, clock_hz_mhz() / 1000, false);
	}
	default:
		*err = -EINVAL;
		return 0;
	}
}

static int lx_clock_gettime(uint32_t clk, uint32_t uts, bool time64)
{
	int err;
	uint64_t ns = clock_ns(clk, &err);

	if (err)
		return err;
	if (time64) {
		struct __kernel_timespec t = { (int64_t)(ns / 1000000000u), (long long)(ns % 1000000000u) };
		return copyout(uts, &t, sizeof t);
	} else {
		struct timespec t = { (long)(ns / 1000000000u), (long)(ns % 1000000000u) };
		return copyout(uts, &t, sizeof t);
	}
}

static int lx_clock_getres(uint32_t clk, uint32_t uts, bool time64)
{
	int err;

	clock_ns(clk, &err);
	if (err || !uts)
		return err;
	if (time64) {
		struct __kernel_timespec t = { 0, 1000 };       /* microseconds */
		return copyout(uts, &t, sizeof t);
	} else {
		struct timespec t = { 0, 1000 };
		return copyout(uts, &t, sizeof t);
	}
}

static int lx_gettimeofday(uint32_t utv, uint32_t utz)
{
	int err;
	uint64_t ns = clock_ns(CLOCK_REALTIME, &err);
	struct __kernel_old_timeval tv = { (long)(ns / 1000000000u), (long)(ns % 1000000000u / 1000) };
	struct timezone tz = { 0, 0 };

	if (utv && copyout(utv, &tv, sizeof tv) < 0)
		return -EFAULT;
	if (utz && copyout(utz, &tz, sizeof tz) < 0)
		return -EFAULT;
	return 0;
}

static int lx_time(uint32_t ut)
{
	int err;
	uint32_t s = (uint32_t)(clock_ns(CLOCK_REALTIME, &err) / 1000000000u);

	if (ut && copyout(ut, &s, sizeof s) < 0)
		return -EFAULT;
	return (int)s;
}

/* sleeps for ns from now, in the kernel's milliseconds, rounded up */
static int sleep_ns(uint64_t ns)
{
	uint64_t ms = (ns + 999999) / 1000000;

	if (ms == 0)
		return 0;
	return proc_sleep_ms(ms > 0x7FFFFFFF ? 0x7FFFFFFF : (uint32_t)ms);
}

static int lx_clock_nanosleep(uint32_t clk, uint32_t flags, uint32_t ureq, bool time64)
{
	int64_t sec;
	int64_t nsec;
	uint64_t ns;
	int err;

	if (time64) {
		struct __kernel_timespec t;
		if (copyin(&t, ureq, sizeof t) < 0)
			return -EFAULT;
		sec = t.tv_sec;
		nsec = t.tv_nsec;
	} else {
		struct timespec t;
		if (copyin(&t, ureq, sizeof t) < 0)
			return -EFAULT;
		sec = t.tv_sec;
		nsec = t.tv_nsec;
	}
	if (sec < 0 || nsec < 0 || nsec >= 1000000000)
		return -EINVAL;
	ns = (uint64_t)sec * 1000000000u + (uint64_t)nsec;
	if (flags & TIMER_ABSTIME) {
		uint64_t now = clock_ns(clk, &err);
		if (err)
			return err;
		ns = ns > now ? ns - now : 0;
	} else {
		clock_ns(clk, &err);
		if (err)
			return err;
	}
	return sleep_ns(ns) < 0 ? -EINTR : 0;
}

static int lx_getrandom(uint32_t ubuf, uint32_t n, uint32_t flags)
{
	uint8_t k[64];
	uint32_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if (!uvalid(ubuf, n))
		return -EFAULT;
	while (done < n) {
		uint32_t chunk = MIN(n - done, sizeof k);
		linux_random(k, chunk);
		if (copyout(ubuf + done, k, chunk) < 0)
			return -EFAULT;
		done += chunk;
	}
	return (int)done;
}

static int lx_exit(int status)
{
	proc_exit(status & 0xFF);
}

/* ---- the table ---- */

#define LINUX_CALLS(X) \
	X(__NR_exit,               lx_exit((int)a[0])) \
	X(__NR_exit_group,         lx_exit((int)a[0])) \
	X(__NR_read,               lx_read(a[0], a[1], a[2])) \
	X(__NR_write,              sys_write(a[0], a[1], a[2])) \
	X(__NR_readv,              lx_rwv(a[0], a[1], a[2], false)) \
	X(__NR_writev,             lx_rwv(a[0], a[1], a[2], true)) \
	X(__NR_pread64,            lx_prw(a[0], a[1], a[2], a[3], a[4], false)) \
	X(__NR_pwrite64,           lx_prw(a[0], a[1], a[2], a[3], a[4], true)) \
	X(__NR_open,               lx_openat(AT_FDCWD, a[0], a[1], a[2])) \
	X(__NR_openat,             lx_openat((int)a[0], a[1], a[2], a[3])) \
	X(__NR_close,              lx_close(a[0])) \
	X(__NR_lseek,              sys_lseek(a[0], (int32_t)a[1], a[2])) \
	X(__NR__llseek,            lx_llseek(a[0], a[1], a[2], a[3], a[4])) \
	X(__NR_stat64,             lx_fstatat64(AT_FDCWD, a[0], a[1], 0)) \
	X(__NR_lstat64,            lx_fstatat64(AT_FDCWD, a[0], a[1], 0)) \
	X(__NR_fstat64,            lx_fstat64(a[0], a[1])) \
	X(__NR_fstatat64,          lx_fstatat64((int)a[0], a[1], a[2], a[3])) \
	X(__NR_statx,              lx_statx((int)a[0], a[1], a[2], a[3], a[4])) \
	X(__NR_getdents64,         lx_getdents64(a[0], a[1], a[2])) \
	X(__NR_access,             lx_faccessat(AT_FDCWD, a[0], a[1])) \
	X(__NR_faccessat,          lx_faccessat((int)a[0], a[1], a[2])) \
	X(__NR_faccessat2,         lx_faccessat((int)a[0], a[1], a[2])) \
	X(__NR_readlink,           lx_readlinkat(AT_FDCWD, a[0], a[1], a[2])) \
	X(__NR_readlinkat,         lx_readlinkat((int)a[0], a[1], a[2], a[3])) \
	X(__NR_getcwd,             lx_getcwd(a[0], a[1])) \
	X(__NR_chdir,              sys_chdir(a[0])) \
	X(__NR_mkdir,              lx_mkdirat(AT_FDCWD, a[0])) \
	X(__NR_mkdirat,            lx_mkdirat((int)a[0], a[1])) \
	X(__NR_unlink,             lx_unlinkat(AT_FDCWD, a[0], 0)) \
	X(__NR_unlinkat,           lx_unlinkat((int)a[0], a[1], a[2])) \
	X(__NR_rename,             lx_renameat(AT_FDCWD, a[0], AT_FDCWD, a[1], 0)) \
	X(__NR_renameat,           lx_renameat((int)a[0], a[1], (int)a[2], a[3], 0)) \
	X(__NR_renameat2,          lx_renameat((int)a[0], a[1], (int)a[2], a[3], a[4])) \
	X(__NR_rmdir,              lx_unlinkat(AT_FDCWD, a[0], AT_REMOVEDIR)) \
	X(__NR_dup,                lx_fcntl(a[0], F_DUPFD, 0)) \
	X(__NR_dup2,               lx_dup2(a[0], a[1])) \
	X(__NR_dup3,               lx_dup3(a[0], a[1], a[2])) \
	X(__NR_fcntl,              lx_fcntl(a[0], a[1], a[2])) \
	X(__NR_fcntl64,            lx_fcntl(a[0], a[1], a[2])) \
	X(__NR_ioctl,              lx_ioctl(a[0], a[1], a[2])) \
	X(__NR_fsync,              getfile(a[0]) ? 0 : -EBADF) \
	X(__NR_fdatasync,          getfile(a[0]) ? 0 : -EBADF) \
	X(__NR_umask,              022) \
	X(__NR_brk,                lx_brk(a[0])) \
	X(__NR_mmap,               lx_old_mmap(a[0])) \
	X(__NR_mmap2,              a[5] >= 1u << 20 ? -EINVAL : \
				   lx_mmap(a[0], a[1], a[2], a[3], a[4], a[5] * PGSIZE)) \
	X(__NR_munmap,             lx_munmap(a[0], a[1])) \
	X(__NR_mremap,             lx_mremap(a[0], a[1], a[2], a[3])) \
	X(__NR_mprotect,           a[0] % PGSIZE ? -EINVAL : 0) \
	X(__NR_madvise,            0) \
	X(__NR_set_thread_area,    lx_set_thread_area(a[0])) \
	X(__NR_set_tid_address,    lx_set_tid_address(a[0])) \
	X(__NR_getpid,             curproc()->pid) \
	X(__NR_gettid,             curproc()->pid) \
	X(__NR_getppid,            curproc()->ppid) \
	X(__NR_getuid,             0) \
	X(__NR_geteuid,            0) \
	X(__NR_getgid,             0) \
	X(__NR_getegid,            0) \
	X(__NR_getuid32,           0) \
	X(__NR_geteuid32,          0) \
	X(__NR_getgid32,           0) \
	X(__NR_getegid32,          0) \
	X(__NR_uname,              lx_uname(a[0])) \
	X(__NR_clock_gettime,      lx_clock_gettime(a[0], a[1], false)) \
	X(__NR_clock_gettime64,    lx_clock_gettime(a[0], a[1], true)) \
	X(__NR_clock_getres,       lx_clock_getres(a[0], a[1], false)) \
	X(__NR_clock_getres_time64, lx_clock_getres(a[0], a[1], true)) \
	X(__NR_gettimeofday,       lx_gettimeofday(a[0], a[1])) \
	X(__NR_time,               lx_time(a[0])) \
	X(__NR_nanosleep,          lx_clock_nanosleep(CLOCK_MONOTONIC, 0, a[0], false)) \
	X(__NR_clock_nanosleep,    lx_clock_nanosleep(a[0], a[1], a[2], false)) \
	X(__NR_clock_nanosleep_time64, lx_clock_nanosleep(a[0], a[1], a[2], true)) \
	X(__NR_getrandom,          lx_getrandom(a[0], a[1], a[2])) \
	X(__NR_ugetrlimit,         lx_getrlimit(a[0], a[1])) \
	X(__NR_getrlimit,          lx_getrlimit(a[0], a[1])) \
	X(__NR_setrlimit,          0) \
	X(__NR_prlimit64,          lx_prlimit64((int)a[0], a[1], a[2], a[3])) \
	X(__NR_sched_yield,        (yield(), 0)) \
	X(__NR_kill,               lx_kill((int)a[0], a[1])) \
	X(__NR_tkill,              lx_tgkill(-1, (int)a[0], a[1])) \
	X(__NR_tgkill,             lx_tgkill((int)a[0], (int)a[1], a[2])) \
	X(__NR_rt_sigaction,       lx_rt_sigaction(a[0], a[1], a[2], a[3])) \
	X(__NR_sigaction,          lx_sigaction(a[0], a[1], a[2])) \
	X(__NR_rt_sigprocmask,     lx_rt_sigprocmask(a[0], a[1], a[2], a[3])) \
	X(__NR_sigprocmask,        lx_sigprocmask(a[0], a[1], a[2])) \
	X(__NR_rt_sigpending,      lx_sigpending(a[0], a[1])) \
	X(__NR_sigpending,         lx_sigpending(a[0], 4)) \
	X(__NR_rt_sigsuspend,      lx_rt_sigsuspend(a[0], a[1])) \
	X(__NR_sigsuspend,         lx_sigsuspend(a[2])) \
	X(__NR_pause,              sigwait_any()) \
	X(__NR_rt_sigreturn,       lx_sigreturn(true)) \
	X(__NR_sigreturn,          lx_sigreturn(false)) \
	X(__NR_sigaltstack,        lx_sigaltstack(a[0], a[1])) \
	X(__NR_setitimer,          lx_setitimer(a[0], a[1], a[2])) \
	X(__NR_getitimer,          lx_getitimer(a[0], a[1])) \
	X(__NR_alarm,              lx_alarm(a[0])) \
	X(__NR_sysinfo,            lx_sysinfo(a[0])) \
	X(__NR_chmod,              lx_attrat(AT_FDCWD, a[0])) \
	X(__NR_fchmodat,           lx_attrat((int)a[0], a[1])) \
	X(__NR_fchmod,             lx_fattr(a[0])) \
	X(__NR_chown32,            lx_attrat(AT_FDCWD, a[0])) \
	X(__NR_lchown32,           lx_attrat(AT_FDCWD, a[0])) \
	X(__NR_fchownat,           lx_attrat((int)a[0], a[1])) \
	X(__NR_fchown32,           lx_fattr(a[0])) \
	X(__NR_utime,              lx_attrat(AT_FDCWD, a[0])) \
	X(__NR_utimes,             lx_attrat(AT_FDCWD, a[0])) \
	X(__NR_utimensat,          lx_attrat((int)a[0], a[1])) \
	X(__NR_utimensat_time64,   lx_attrat((int)a[0], a[1]))

/* what glibc asks at every start to see whether the kernel has it:
 * -ENOSYS without a console line */
static bool quiet_probe(uint32_t num)
{
	return num == __NR_set_robust_list || num == __NR_rseq;
}

static int linux_call(uint32_t num, const uint32_t *a);

/* A call a signal interrupted is noted for the way out (signal.c), but
 * for sigreturn's: its result is the interrupted code's eax, whatever
 * that was. */
int linux_syscall(uint32_t num, const uint32_t *a)
{
	int r = linux_call(num, a);

	if (num != __NR_sigreturn && num != __NR_rt_sigreturn)
		syscall_interrupted(num, r);
	return r;
}

static int linux_call(uint32_t num, const uint32_t *a)
{
	struct proc *p = curproc();
	const char *name;
	uint32_t slot;

	switch (num) {
#define CASE(n, call) case n: return call;
	LINUX_CALLS(CASE)
#undef CASE
	}
	if (quiet_probe(num))
		return -ENOSYS;
	/* one line per process and call; the numbers past the table, which
	 * no Linux has, share its last bit (no call has that number either) */
	slot = MIN(num, LINUX_NSYSCALL - 1);
	if (p->lx.enosys[slot / 32] & (1u << slot % 32))
		return -ENOSYS;
	p->lx.enosys[slot / 32] |= 1u << slot % 32;
	name = linux_syscall_name(num);
	kprintf("linux: %s (pid %d): %s (%u) not implemented\n", p->name, p->pid,
		name ? name : "unknown call", num);
	return -ENOSYS;
}
