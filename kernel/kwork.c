/* Kernel workloads with known names, for the profiler's tests: the
 * kwork(mode, n) system call spends its time in exactly one of these
 * functions, so a kernel profile of it has a known answer. They are static
 * but kept out of line, so each keeps its name in the symbol table. */
#include "abi/errno.h"
#include "abi/syscall.h"
#include "arch.h"
#include "clock.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "syscall.h"
#include "uaccess.h"

/* an arithmetic loop the compiler cannot fold away */
static __attribute__((noinline)) uint32_t kwork_loop(uint32_t n)
{
	volatile uint32_t x = 1;
	for (uint32_t i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	return x;
}

/* the same loop with interrupts off: the clock ticks that arrive are held
 * until splx(), and splpc charges them back here */
static __attribute__((noinline)) uint32_t kwork_cli(uint32_t n)
{
	volatile uint32_t x = 1;
	uint32_t s = splhi();
	for (uint32_t i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	splx(s);
	return x;
}

/* round trips of a page through copyin/copyout at the user's stack */
static __attribute__((noinline)) int kwork_copy(uint32_t n, uint32_t ubuf)
{
	char *k = kalloc();
	int r = 0;
	if (!k)
		return -ENOMEM;
	for (uint32_t i = 0; i < n && r == 0; i++) {
		r = copyin(k, ubuf, PGSIZE);
		if (r == 0)
			r = copyout(ubuf, k, PGSIZE);
	}
	kfree(k);
	return r;
}

int sys_kwork(uint32_t mode, uint32_t n)
{
	switch (mode) {
	case KWORK_LOOP:
		return (int)(kwork_loop(n) & 0x7FFFFFFF);
	case KWORK_CLI:
		/* interrupts off for at most about 0.1 s of guest time a call */
		if (n > KWORK_CLI_MAX)
			return -EINVAL;
		return (int)(kwork_cli(n) & 0x7FFFFFFF);
	case KWORK_COPY:
		/* the page just below the top of the stack is always mapped */
		return kwork_copy(n, USER_TOP - PGSIZE);
	default:
		return -EINVAL;
	}
}
