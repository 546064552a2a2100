/* System-call numbers and the calling convention, shared by kernel and libc.
 *
 * Convention: `int $0x80` with the number in %eax and up to five arguments in
 * %ebx, %ecx, %edx, %esi, %edi (profil's sixth in %ebp). The result comes
 * back in %eax; a value in [-4095, -1] is a negated errno
 * (include/abi/errno.h). An unknown number returns -ENOSYS. Every user pointer is checked by the kernel: -EFAULT.
 */
#ifndef ABI_SYSCALL_H
#define ABI_SYSCALL_H

#define T_SYSCALL     0x80      /* interrupt vector */

#define SYS_exit      1   /* exit(int status)                        -> no return */
#define SYS_spawn     2   /* spawn(path, argv, const int fdmap[3])   -> pid */
#define SYS_wait      3   /* wait(int pid or -1, int *status, int options) -> pid, 0 if WNOHANG and none ended */
#define SYS_getpid    4   /* getpid()                                -> pid */
#define SYS_sleep     5   /* sleep(unsigned ms)                      -> 0 */
#define SYS_sbrk      6   /* sbrk(int incr)                          -> old break */
#define SYS_kill      7   /* kill(int pid)                           -> 0 */
#define SYS_open      8   /* open(path, flags)                       -> fd */
#define SYS_read      9   /* read(fd, buf, n)                        -> bytes */
#define SYS_write    10   /* write(fd, buf, n)                       -> bytes */
#define SYS_close    11   /* close(fd)                               -> 0 */
#define SYS_lseek    12   /* lseek(fd, off, whence)                  -> new offset */
#define SYS_fstat    13   /* fstat(fd, struct stat *)                -> 0 */
#define SYS_stat     14   /* stat(path, struct stat *)               -> 0 */
#define SYS_dup2     15   /* dup2(oldfd, newfd)                      -> newfd */
#define SYS_chdir    16   /* chdir(path)                             -> 0 */
#define SYS_getcwd   17   /* getcwd(buf, n)                          -> length */
#define SYS_mkdir    18   /* mkdir(path)                             -> 0 */
#define SYS_unlink   19   /* unlink(path)                            -> 0 */
#define SYS_halt     20   /* halt(int code): power the machine off   -> no return */
#define SYS_uptime   21   /* uptime()                                -> PIT ticks since boot */
#define SYS_kwork    22   /* kwork(int mode, unsigned n): kernel workload (KWORK_*) -> result */
#define SYS_profil   23   /* profil(buf, buflen, samplesize, offset, scale, dirfd) -> 0 (include/abi/gmon.h) */
#define SYS_DosProfile 24 /* DosProfile(func, pid, PRFCMD *, PRFRET *) -> OS/2 code (abi/dosprof.h) */
#define SYS_ProfileStart 25 /* ProfileStart(usec, options, struct profile_params *) -> 0 (abi/mcprof.h) */
#define SYS_ProfileStop  26 /* ProfileStop(char *path, n): the report, its file's name -> 0 */
#define NSYSCALL     27   /* one past the highest number */

/* spawn: the fd map gives, for child fd 0, 1 and 2, the parent's fd to copy
 * (or -1 to leave it closed). A NULL map copies the parent's 0, 1 and 2. */
#define SPAWN_MAXARGS 32
#define SPAWN_ARGMAX  4096  /* bytes of argument strings, all together */

#define WNOHANG       1     /* wait option: do not block */

/* wait status: the low byte of exit(), or one of these for a killed process */
#define WSTATUS_INTERRUPTED 130  /* 128 + 2, SIGINT: ^C */
#define WSTATUS_KILLED  137  /* 128 + 9, as a shell shows SIGKILL */
#define WSTATUS_FAULT   139  /* 128 + 11, as a shell shows SIGSEGV */

/* kwork modes: kernel-side loops with known names, for profiling tests */
#define KWORK_LOOP     0     /* kwork_loop(): n iterations of an arithmetic loop */
#define KWORK_CLI      1     /* kwork_cli(): the same, with interrupts off */
#define KWORK_COPY     2     /* kwork_copy(): n round trips of a 4 KiB copyin/copyout */
#define KWORK_CLI_MAX  20000000  /* larger n for KWORK_CLI: -EINVAL */

#endif
