/* System calls and errno for user programs: the unistd.h of kprof-os.
 * Each call returns -1 and sets errno on failure (sbrk: (void *)-1). */
#ifndef ULIB_H
#define ULIB_H

#include <stdint.h>
#include <stddef.h>
#include "abi/syscall.h"
#include "abi/errno.h"
#include "abi/fcntl.h"
#include "abi/memlayout.h"
#include "abi/dosprof.h"
#include "abi/mcprof.h"

extern int errno;
const char *strerror(int err);

/* The raw trap: returns what the kernel put in %eax (-errno on failure)
 * and leaves errno alone. usertests uses it to pass arbitrary values. */
int usyscall(uint32_t num, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5);

void exit(int status) __attribute__((noreturn));
int spawn(const char *path, char *const argv[], const int fdmap[3]);
int wait(int pid, int *status, int options);
int getpid(void);
int sleep(unsigned ms);
void *sbrk(int incr);
int kill(int pid);
int open(const char *path, int flags);
int read(int fd, void *buf, unsigned n);
int write(int fd, const void *buf, unsigned n);
int close(int fd);
int lseek(int fd, int off, int whence);
int fstat(int fd, struct stat *st);
int stat(const char *path, struct stat *st);
int dup2(int oldfd, int newfd);
int chdir(const char *path);
int getcwd(char *buf, unsigned n);
int mkdir(const char *path);
int unlink(const char *path);
void halt(int code) __attribute__((noreturn));
unsigned uptime(void);
int kwork(int mode, unsigned n);
/* profil(2): only in a program linked for profiling (include/abi/gmon.h) */
int profil(void *buf, unsigned buflen, unsigned samplesize, unsigned long offset,
	   unsigned scale, int dirfd);
void moncontrol(int on);        /* gmon.c: stop (0) and restart profiling */
uint16_t *monbins(unsigned *nbins);     /* gmon.c: the program's own bins, or NULL */
/* gmon.c, for gcrt0.S and mcount.S only */
void monstartup(void);
__attribute__((regparm(2))) void _mcount_arc(uint32_t frompc, uint32_t selfpc);
int profdir(int dirfd);         /* gmon.c: write the gmon file into dirfd's directory */

/* The TSC: under QEMU's -icount shift=0 a cycle is one guest instruction,
 * which is what the benchmarks count. */
static inline unsigned long long rdtsc(void)
{
	unsigned lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
}

/* OS/2's DosProfile: 0 or an OS/2 return code (abi/dosprof.h) */
unsigned DosProfile(unsigned func, unsigned pid, PRFCMD *cmd, PRFRET *ret);

/* Windows CE's Monte Carlo profiler (abi/mcprof.h): pp may be NULL.
 * ProfileStop prints the report and puts its file's name in path. */
int ProfileStart(unsigned usec, unsigned options, const struct profile_params *pp);
int ProfileStop(char *path, unsigned n);

/* Helpers built on the calls above. */
int writeall(int fd, const void *buf, unsigned n);     /* loops over short writes */
unsigned sysstat_get(const char *key, unsigned dflt);  /* one number from /dev/sysstat */
unsigned sysstat_hz_milli(void);                       /* hz * 1000, e.g. 1000151 */
unsigned ms_to_ticks(unsigned ms);                     /* at the achieved PIT rate */
int sysstat_proc(int pid, unsigned *uticks, unsigned *kticks);  /* a proc line; -1 if none */

/* the number of elements of an array */
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
