/* System-call dispatch: a table indexed by number, bounds-checked.
 * Arguments come in %ebx, %ecx, %edx, %esi, %edi; the result goes back in
 * %eax (include/abi/syscall.h). */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch.h"
#include "lib.h"
#include "syscall.h"

#define X(name) int sys_##name(SYSARGS);
X(exit) X(spawn) X(wait) X(getpid) X(sleep) X(sbrk) X(kill) X(open) X(read)
X(write) X(close) X(lseek) X(fstat) X(stat) X(dup2) X(chdir) X(getcwd)
X(mkdir) X(unlink) X(halt) X(uptime) X(kwork) X(profil)
#undef X

static const sysfn table[NSYSCALL] = {
	[SYS_exit] = sys_exit,     [SYS_spawn] = sys_spawn,   [SYS_wait] = sys_wait,
	[SYS_getpid] = sys_getpid, [SYS_sleep] = sys_sleep,   [SYS_sbrk] = sys_sbrk,
	[SYS_kill] = sys_kill,     [SYS_open] = sys_open,     [SYS_read] = sys_read,
	[SYS_write] = sys_write,   [SYS_close] = sys_close,   [SYS_lseek] = sys_lseek,
	[SYS_fstat] = sys_fstat,   [SYS_stat] = sys_stat,     [SYS_dup2] = sys_dup2,
	[SYS_chdir] = sys_chdir,   [SYS_getcwd] = sys_getcwd, [SYS_mkdir] = sys_mkdir,
	[SYS_unlink] = sys_unlink, [SYS_halt] = sys_halt,     [SYS_uptime] = sys_uptime,
	[SYS_kwork] = sys_kwork,   [SYS_profil] = sys_profil,
};

void syscall(struct trapframe *tf)
{
	uint32_t num = tf->eax;

	if (num < NSYSCALL && table[num])
		tf->eax = table[num](tf->ebx, tf->ecx, tf->edx, tf->esi, tf->edi);
	else
		tf->eax = -ENOSYS;
}
