/* System-call dispatch: the number picks the handler, which gets the
 * argument words it takes, typed (include/abi/syscall.h lists them). Arch
 * code says which registers hold them. */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "lib.h"
#include "linux.h"
#include "proc.h"
#include "prof/prof.h"
#include "syscall.h"

/* Each call: its number, its handler, and the handler's arguments, typed.
 * N marks the two that do not return. The one list makes the dispatch and
 * the handlers' addresses (for the profiler's system-call hits). */
#define SYSCALLS(X, N) \
	N(SYS_exit,   sys_exit,   ((int)a[0])) \
	X(SYS_spawn,  sys_spawn,  (a[0], a[1], a[2])) \
	X(SYS_wait,   sys_wait,   ((int)a[0], a[1], (int)a[2])) \
	X(SYS_getpid, sys_getpid, ()) \
	X(SYS_sleep,  sys_sleep,  (a[0])) \
	X(SYS_sbrk,   sys_sbrk,   ((int32_t)a[0])) \
	X(SYS_kill,   sys_kill,   ((int)a[0])) \
	X(SYS_open,   sys_open,   (a[0], (int)a[1])) \
	X(SYS_read,   sys_read,   (a[0], a[1], a[2])) \
	X(SYS_write,  sys_write,  (a[0], a[1], a[2])) \
	X(SYS_close,  sys_close,  (a[0])) \
	X(SYS_lseek,  sys_lseek,  (a[0], (int32_t)a[1], a[2])) \
	X(SYS_fstat,  sys_fstat,  (a[0], a[1])) \
	X(SYS_stat,   sys_stat,   (a[0], a[1])) \
	X(SYS_dup2,   sys_dup2,   (a[0], a[1])) \
	X(SYS_chdir,  sys_chdir,  (a[0])) \
	X(SYS_getcwd, sys_getcwd, (a[0], a[1])) \
	X(SYS_mkdir,  sys_mkdir,  (a[0])) \
	X(SYS_unlink, sys_unlink, (a[0])) \
	N(SYS_halt,   sys_halt,   (a[0])) \
	X(SYS_uptime, sys_uptime, ()) \
	X(SYS_kwork,  sys_kwork,  (a[0], a[1]))

/* the calls declared elsewhere (SYSCALL_ENTRY): a few, looked up in turn */
extern const struct syscall_entry _syscalls_start[], _syscalls_end[];

static const struct syscall_entry *entry(uint32_t num)
{
	for (const struct syscall_entry *e = _syscalls_start; e < _syscalls_end; e++)
		if (e->num == num)
			return e;
	return NULL;
}

static int dispatch(uint32_t num, const uint32_t *a)
{
	const struct syscall_entry *e;

	switch (num) {
#define CALL(n, fn, args)   case n: return fn args;
#define NORET(n, fn, args)  case n: fn args;
	SYSCALLS(CALL, NORET)
#undef CALL
#undef NORET
	default:
		return (e = entry(num)) ? e->call(a) : -ENOSYS;
	}
}

static const uint32_t handlers[NSYSCALL] = {
#define ADDR(n, fn, args)   [n] = (uint32_t)fn,
	SYSCALLS(ADDR, ADDR)
#undef ADDR
};

uint32_t syscall_handler(uint32_t num)
{
	const struct syscall_entry *e;

	if (num >= NSYSCALL)
		return 0;
	return handlers[num] ? handlers[num] : (e = entry(num)) ? e->handler : 0;
}

/* A call a signal interrupted (-ERESTARTSYS): signal_userret restarts
 * it or makes it -EINTR on the way out (signal.c) */
void syscall_interrupted(uint32_t num, int r)
{
	if (r == -ERESTARTSYS) {
		curproc()->sig.restart = true;
		curproc()->sig.work |= SIGWORK_CHECK;
		curproc()->sig.sysnum = num;
	}
}

/* The profilers' system-call hook runs around the handler, and costs a
 * load and a branch each side while nobody wants it. */
void syscall(struct trapframe *tf)
{
	uint32_t args[SYSCALL_NARGS], num = arch_syscall_num(tf);
	int r;

	arch_syscall_args(tf, args);
	/* A Linux program's numbers are Linux's (elf.c says which programs
	 * those are); the profilers' hook knows the project's numbers only */
	if (curproc()->abi == ABI_LINUX) {
		arch_syscall_return(tf, linux_syscall(num, args));
		return;
	}
	prof_syscall(curproc(), num, false);
	r = dispatch(num, args);
	prof_syscall(curproc(), num, true);
	syscall_interrupted(num, r);
	arch_syscall_return(tf, r);
}
