/* System calls: the handlers (sysproc.c, sysfile.c, kwork.c), each taking
 * the arguments it needs, and the dispatch from a trap frame (syscall.c).
 * A handler returns its result or a negated errno. */
#ifndef SYSCALL_H
#define SYSCALL_H

#include <stdint.h>

struct trapframe;
void syscall(struct trapframe *tf);     /* from trap(), for the system-call trap */
/* notes a call's -ERESTARTSYS for the return to user mode */
void syscall_interrupted(uint32_t num, int r);

/* the registers of a system call, read and written by arch code: the
 * number, up to SYSCALL_NARGS argument words, and the result */
#define SYSCALL_NARGS 6
uint32_t arch_syscall_num(const struct trapframe *tf);
void arch_syscall_args(const struct trapframe *tf, uint32_t args[SYSCALL_NARGS]);
void arch_syscall_return(struct trapframe *tf, int result);
/* makes the call again on the return to user mode (signal.c's restart) */
void arch_syscall_restart(struct trapframe *tf, uint32_t num);

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

/* A system call declared beside its handler instead of in syscall.c's
 * list, so that a subsystem that brings its own calls (a profiling
 * engine: profil(2), DosProfile, ProfileStart) is one file: after the
 * handler's definition,
 *     SYSCALL_ENTRY(SYS_profil, sys_profil, (a[0], a[1], (int)a[2]));
 * gives number SYS_profil to the handler, with its argument words typed
 * as the list's are. The linker gathers the entries in .syscalls. */
struct syscall_entry {
	uint32_t num;
	int (*call)(const uint32_t *a);         /* unpacks a, calls the handler */
	uint32_t handler;                       /* its address, for the profilers' hits */
};
#define SYSCALL_ENTRY(n, fn, args) \
	static int fn##_entry(const uint32_t *a) { (void)a; return fn args; } \
	static const struct syscall_entry syscall_entry_##fn \
	__attribute__((used, section(".syscalls"), aligned(4))) = { n, fn##_entry, (uint32_t)fn }

/* the address of system call num's handler, or 0 for no such call: a
 * profiler's hit for the call (syscall.c) */
uint32_t syscall_handler(uint32_t num);

#endif
