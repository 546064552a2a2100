/* System-call dispatch: the number picks the handler, which gets the
 * argument words it takes, typed (include/abi/syscall.h lists them). Arch
 * code says which registers hold them. */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "syscall.h"

static int dispatch(uint32_t num, const uint32_t *a)
{
	switch (num) {
	case SYS_exit:   sys_exit((int)a[0]);
	case SYS_spawn:  return sys_spawn(a[0], a[1], a[2]);
	case SYS_wait:   return sys_wait((int)a[0], a[1], (int)a[2]);
	case SYS_getpid: return sys_getpid();
	case SYS_sleep:  return sys_sleep(a[0]);
	case SYS_sbrk:   return sys_sbrk((int32_t)a[0]);
	case SYS_kill:   return sys_kill((int)a[0]);
	case SYS_open:   return sys_open(a[0], (int)a[1]);
	case SYS_read:   return sys_read(a[0], a[1], a[2]);
	case SYS_write:  return sys_write(a[0], a[1], a[2]);
	case SYS_close:  return sys_close(a[0]);
	case SYS_lseek:  return sys_lseek(a[0], (int32_t)a[1], a[2]);
	case SYS_fstat:  return sys_fstat(a[0], a[1]);
	case SYS_stat:   return sys_stat(a[0], a[1]);
	case SYS_dup2:   return sys_dup2(a[0], a[1]);
	case SYS_chdir:  return sys_chdir(a[0]);
	case SYS_getcwd: return sys_getcwd(a[0], a[1]);
	case SYS_mkdir:  return sys_mkdir(a[0]);
	case SYS_unlink: return sys_unlink(a[0]);
	case SYS_halt:   sys_halt(a[0]);
	case SYS_uptime: return sys_uptime();
	case SYS_kwork:  return sys_kwork(a[0], a[1]);
	case SYS_profil: return sys_profil(a[0], a[1], a[2], a[3], a[4], (int)a[5]);
	case SYS_DosProfile: return sys_dosprofile(a[0], a[1], a[2], a[3]);
	default:         return -ENOSYS;        /* also any number >= NSYSCALL */
	}
}

void syscall(struct trapframe *tf)
{
	uint32_t args[SYSCALL_NARGS];

	arch_syscall_args(tf, args);
	arch_syscall_return(tf, dispatch(arch_syscall_num(tf), args));
}
