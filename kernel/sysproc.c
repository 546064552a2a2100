/* Process system calls: spawn, exit, wait, kill, sleep, sbrk, and the small
 * ones. User pointers are checked here, where they are used. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "abi/qemu_exit.h"
#include "abi/syscall.h"
#include "clock.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "syscall.h"
#include "uaccess.h"

void sys_exit(int status)
{
	proc_exit(status);
}

/* spawn(path, argv, fdmap): the strings are copied into one kernel page
 * before anything else happens. */
int sys_spawn(uint32_t upath, uint32_t uargv, uint32_t ufdmap)
{
	struct proc *me = curproc();
	char path[PATH_MAX], abs[PATH_MAX];
	char *argv[SPAWN_MAXARGS + 1];
	struct file *files[3] = { NULL, NULL, NULL };
	char *strs;
	uint32_t used = 0;
	int argc = 0, r;

	if ((r = copyinstr(path, upath, sizeof path)) < 0)
		return r;
	if ((r = vfs_abspath(me->cwd, path, abs)) < 0)
		return r;
	if (ufdmap) {
		int fdmap[3];
		if ((r = copyin(fdmap, ufdmap, sizeof fdmap)) < 0)
			return r;
		for (int i = 0; i < 3; i++) {
			if (fdmap[i] == -1)
				continue;
			if (fdmap[i] < 0 || fdmap[i] >= NOFILE || !me->ofile[fdmap[i]])
				return -EBADF;
			files[i] = me->ofile[fdmap[i]];
		}
	} else {
		for (int i = 0; i < 3; i++)
			files[i] = me->ofile[i];
	}
	if (!(strs = kalloc()))
		return -ENOMEM;
	for (;; argc++) {
		uint32_t uarg;
		if ((r = copyin(&uarg, uargv + 4 * argc, 4)) < 0)
			goto out;
		if (!uarg)
			break;
		if (argc == SPAWN_MAXARGS) {
			r = -E2BIG;
			goto out;
		}
		if ((r = copyinstr(strs + used, uarg, SPAWN_ARGMAX - used)) < 0) {
			if (r == -ENAMETOOLONG)
				r = -E2BIG;
			goto out;
		}
		argv[argc] = strs + used;
		used += r + 1;
	}
	argv[argc] = NULL;
	r = proc_spawn(abs, argc, argv, files);
out:
	kfree(strs);
	return r;
}

int sys_wait(int pid, uint32_t ustatus, int options)
{
	/* check the status pointer first, so a bad one loses no child */
	if (ustatus && !uvalid(ustatus, sizeof(int)))
		return -EFAULT;
	return proc_wait(pid, ustatus, options);
}

int sys_getpid(void)
{
	return curproc()->pid;
}

int sys_sleep(uint32_t ms)
{
	return proc_sleep_ms(ms);
}

/* pid 1, the first shell, cannot be killed (EPERM, as Unix refuses to
 * kill init): its end would power the machine off. */
int sys_kill(int pid)
{
	if (pid == 1)
		return -EPERM;
	return proc_kill(pid);
}

int sys_uptime(void)
{
	return (int)ticks;
}

/* sbrk(incr): grows by mapping zeroed pages, shrinks by unmapping them;
 * returns the old break. A growth that runs out of memory is undone. */
int sys_sbrk(int32_t incr)
{
	struct proc *p = curproc();
	uint32_t old = p->brk, new = old + incr;

	if (incr > 0) {
		/* neither past the heap limit nor into the stack below USER_TOP */
		if (new < old || new > p->heap_start + USER_HEAP_MAX ||
		    new > USER_TOP - USER_STACK_SIZE)
			return -ENOMEM;
		for (uint32_t pg = ROUNDUP(old, PGSIZE); pg < new; pg += PGSIZE) {
			void *page = kalloc();
			if (!page || !arch_map_user(p->pgdir, pg, page)) {
				if (page)
					kfree(page);
				for (uint32_t q = ROUNDUP(old, PGSIZE); q < pg; q += PGSIZE)
					arch_unmap_user(p->pgdir, q);
				return -ENOMEM;
			}
		}
	} else if (incr < 0) {
		if (new > old || new < p->heap_start)
			return -EINVAL;
		for (uint32_t pg = ROUNDUP(new, PGSIZE); pg < ROUNDUP(old, PGSIZE); pg += PGSIZE)
			arch_unmap_user(p->pgdir, pg);
	}
	p->brk = new;
	return (int)old;
}

void sys_halt(uint32_t code)
{
	kprintf("halt: powering off (status %u)\n", code ? KEXIT_FAIL : KEXIT_OK);
	arch_poweroff(code ? KEXIT_FAIL : KEXIT_OK);
}
