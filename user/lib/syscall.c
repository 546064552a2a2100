/* System-call stubs: one trap helper, and a thin wrapper per call that
 * turns the kernel's -errno into errno and -1. */
#include "ulib.h"

int usyscall(uint32_t num, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5)
{
	int ret;

	/* The kernel may write user memory through the pointer arguments. */
	asm volatile("int $0x80"
		: "=a"(ret)
		: "a"(num), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5)
		: "memory", "cc");
	return ret;
}

/* The one call with six arguments: the sixth goes in %ebp, which the
 * compiler keeps as the frame pointer, so this stub loads it by hand.
 * usyscall6(num, a1, a2, a3, a4, a5, a6) returns the raw %eax. */
__asm__(".globl usyscall6\n"
	"usyscall6:\n"
	"	pushl %ebp\n	pushl %ebx\n	pushl %esi\n	pushl %edi\n"
	"	movl 20(%esp), %eax\n	movl 24(%esp), %ebx\n	movl 28(%esp), %ecx\n"
	"	movl 32(%esp), %edx\n	movl 36(%esp), %esi\n	movl 40(%esp), %edi\n"
	"	movl 44(%esp), %ebp\n"
	"	int $0x80\n"
	"	popl %edi\n	popl %esi\n	popl %ebx\n	popl %ebp\n"
	"	ret\n");
int usyscall6(uint32_t num, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5,
	      uint32_t a6);

/* Only [-4095, -1] is an error: sbrk returns addresses above 2 GiB too. */
static int ret(int r)
{
	if ((unsigned)r >= (unsigned)-4095) {
		errno = -r;
		return -1;
	}
	return r;
}

#define U(x) ((uint32_t)(x))
#define SYS0(n)             ret(usyscall(n, 0, 0, 0, 0, 0))
#define SYS1(n, a)          ret(usyscall(n, U(a), 0, 0, 0, 0))
#define SYS2(n, a, b)       ret(usyscall(n, U(a), U(b), 0, 0, 0))
#define SYS3(n, a, b, c)    ret(usyscall(n, U(a), U(b), U(c), 0, 0))

void exit(int status)
{
	usyscall(SYS_exit, U(status), 0, 0, 0, 0);
	for (;;)
		;
}

void halt(int code)
{
	usyscall(SYS_halt, U(code), 0, 0, 0, 0);
	for (;;)
		;
}

void *sbrk(int incr)
{
	int r = usyscall(SYS_sbrk, U(incr), 0, 0, 0, 0);

	if ((unsigned)r >= (unsigned)-4095) {
		errno = -r;
		return (void *)-1;
	}
	return (void *)r;
}

int spawn(const char *path, char *const argv[], const int fdmap[3])
{
	return SYS3(SYS_spawn, path, argv, fdmap);
}

int wait(int pid, int *status, int options) { return SYS3(SYS_wait, pid, status, options); }
int getpid(void) { return SYS0(SYS_getpid); }
int sleep(unsigned ms) { return SYS1(SYS_sleep, ms); }
int kill(int pid) { return SYS1(SYS_kill, pid); }
int open(const char *path, int flags) { return SYS2(SYS_open, path, flags); }
int read(int fd, void *buf, unsigned n) { return SYS3(SYS_read, fd, buf, n); }
int write(int fd, const void *buf, unsigned n) { return SYS3(SYS_write, fd, buf, n); }
int close(int fd) { return SYS1(SYS_close, fd); }
int lseek(int fd, int off, int whence) { return SYS3(SYS_lseek, fd, off, whence); }
int fstat(int fd, struct stat *st) { return SYS2(SYS_fstat, fd, st); }
int stat(const char *path, struct stat *st) { return SYS2(SYS_stat, path, st); }
int dup2(int oldfd, int newfd) { return SYS2(SYS_dup2, oldfd, newfd); }
int chdir(const char *path) { return SYS1(SYS_chdir, path); }
int getcwd(char *buf, unsigned n) { return SYS2(SYS_getcwd, buf, n); }
int mkdir(const char *path) { return SYS1(SYS_mkdir, path); }
int unlink(const char *path) { return SYS1(SYS_unlink, path); }
int kwork(int mode, unsigned n) { return SYS2(SYS_kwork, mode, n); }
int profil(void *buf, unsigned buflen, unsigned samplesize, unsigned long offset,
	   unsigned scale, int dirfd)
{
	return ret(usyscall6(SYS_profil, U(buf), buflen, samplesize, offset, scale, U(dirfd)));
}

/* OS/2's codes are the result itself, never errno */
unsigned DosProfile(unsigned func, unsigned pid, PRFCMD *cmd, PRFRET *ret)
{
	return (unsigned)usyscall(SYS_DosProfile, func, pid, U(cmd), U(ret), 0);
}

/* Ticks are not an error code: the raw value, wrap-around included. */
unsigned uptime(void) { return (unsigned)usyscall(SYS_uptime, 0, 0, 0, 0, 0); }

/* Device writes may be short (a busy serial port); keep going. */
int writeall(int fd, const void *buf, unsigned n)
{
	const char *p = buf;
	unsigned done = 0;

	while (done < n) {
		int r = write(fd, p + done, n - done);
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		done += r;
	}
	return done;
}

int ProfileStart(unsigned usec, unsigned options, const struct profile_params *pp)
{
	return SYS3(SYS_ProfileStart, usec, options, pp);
}

int ProfileStop(char *path, unsigned n)
{
	return SYS2(SYS_ProfileStop, path, n);
}
