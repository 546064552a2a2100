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

/* Steps between preemption points in kwork_loop: about 0.1 ms of work, so
 * a point costs nothing a profile could see. */
#define KWORK_LOOP_STEP 65536

/* an arithmetic loop the compiler cannot fold away; it may run for hours
 * (n = 2^32 - 1), so it stops at a kill and yields at a slice's end */
static __attribute__((noinline)) int kwork_loop(uint32_t n, uint32_t *out)
{
	volatile uint32_t x = 1;
	for (uint32_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (i % KWORK_LOOP_STEP == KWORK_LOOP_STEP - 1 && proc_preempt() < 0)
			return -EINTR;
	}
	*out = x;
	return 0;
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
		if ((r = proc_preempt()) < 0)
			break;
		r = copyin(k, ubuf, PGSIZE);
		if (r == 0)
			r = copyout(ubuf, k, PGSIZE);
	}
	kfree(k);
	return r;
}

int sys_kwork(uint32_t mode, uint32_t n)
{
	uint32_t x;
	int r;

	switch (mode) {
	case KWORK_LOOP:
		r = kwork_loop(n, &x);
		return r < 0 ? r : (int)(x & 0x7FFFFFFF);
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
