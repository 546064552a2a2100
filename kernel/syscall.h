/* System calls: the handlers (sysproc.c, sysfile.c, kwork.c), each taking
 * the arguments it needs, and the dispatch from a trap frame (syscall.c).
 * A handler returns its result or a negated errno. */
#ifndef SYSCALL_H
#define SYSCALL_H

#include <stdint.h>

struct trapframe;
void syscall(struct trapframe *tf);     /* from trap(), for int 0x80 */

/* the registers of a system call, read and written by arch code: the
 * number, up to SYSCALL_NARGS argument words, and the result */
#define SYSCALL_NARGS 6
uint32_t arch_syscall_num(const struct trapframe *tf);
void arch_syscall_args(const struct trapframe *tf, uint32_t args[SYSCALL_NARGS]);
void arch_syscall_return(struct trapframe *tf, int result);

/* sysproc.c */
void sys_exit(int status) __attribute__((noreturn));
int sys_spawn(uint32_t upath, uint32_t uargv, uint32_t ufdmap);
int sys_wait(int pid, uint32_t ustatus, int options);
int sys_getpid(void);
int sys_sleep(uint32_t ms);
int sys_kill(int pid);
int sys_uptime(void);
int sys_sbrk(int32_t incr);
void sys_halt(uint32_t code) __attribute__((noreturn));

/* sysfile.c: fds are unsigned, so a negative one is simply too large */
int sys_open(uint32_t upath, int flags);
int sys_close(uint32_t fd);
int sys_read(uint32_t fd, uint32_t ubuf, uint32_t n);
int sys_write(uint32_t fd, uint32_t ubuf, uint32_t n);
int sys_lseek(uint32_t fd, int32_t off, uint32_t whence);
int sys_fstat(uint32_t fd, uint32_t ust);
int sys_stat(uint32_t upath, uint32_t ust);
int sys_dup2(uint32_t oldfd, uint32_t newfd);
int sys_chdir(uint32_t upath);
int sys_getcwd(uint32_t ubuf, uint32_t n);
int sys_mkdir(uint32_t upath);
int sys_unlink(uint32_t upath);

/* kwork.c */
int sys_kwork(uint32_t mode, uint32_t n);
int sys_profil(uint32_t buf, uint32_t buflen, uint32_t samplesize, uint32_t offset,
	       uint32_t scale, int dirfd);       /* kernel/prof/profil.c */

/* prof/dosprof_call.c: OS/2's DosProfile; returns OS/2's codes */
int sys_dosprofile(uint32_t func, uint32_t pid, uint32_t ucmd, uint32_t uret);

/* prof/mc.c: Windows CE's ProfileStart and ProfileStop */
int sys_profile_start(uint32_t usec, uint32_t options, uint32_t uparams);
int sys_profile_stop(uint32_t upath, uint32_t n);

/* the address of system call num's handler, or 0 for no such call: a
 * profiler's hit for the call (syscall.c) */
uint32_t syscall_handler(uint32_t num);

#endif
