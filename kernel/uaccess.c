/* copyin/copyout/copyinstr: the range is checked against the user bounds
 * and translated page by page through the process's page table, so a bad
 * address is caught before the kernel touches it. */
#include "uaccess.h"
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "lib.h"
#include "linux.h"
#include "proc.h"

/* the current process's page table, or NULL (at boot, in the scheduler) */
static uint32_t *curpgdir(void)
{
	struct proc *p = curproc();
	return p ? p->pgdir : NULL;
}

/* the kernel address of user va in pgdir, or 0 */
static uint8_t *uaddr_in(uint32_t *pgdir, uint32_t va)
{
	return pgdir ? arch_user_kptr(pgdir, va) : NULL;
}

static uint8_t *uaddr(uint32_t va)
{
	return uaddr_in(curpgdir(), va);
}

/* A Linux program's stack is mapped as it is touched: by the program (a
 * page fault, trap.c) or by a call that writes a buffer there. */
static bool grow(uint32_t *pgdir, uint32_t va)
{
	return pgdir && pgdir == curpgdir() && linux_stack_grow(curproc(), va);
}

static bool uvalid_in(uint32_t *pgdir, uint32_t va, uint32_t n)
{
	/* both tests needed: va + n can wrap around */
	if (va < USER_BASE || va > USER_TOP || n > USER_TOP - va)
		return false;
	for (uint32_t pg = ROUNDDOWN(va, PGSIZE); pg < va + n; pg += PGSIZE)
		if (!uaddr_in(pgdir, pg) && !grow(pgdir, pg))
			return false;
	return true;
}

bool uvalid(uint32_t va, uint32_t n)
{
	return uvalid_in(curpgdir(), va, n);
}

/* memcpy, a word at a time when both ends are word-aligned: the kernel's
 * memcpy goes a byte at a time, and a signal's frame and FPU state (1.5
 * KiB out and back each signal) made that most of a signal's cost */
static void ucopy(void *d, const void *s, uint32_t n)
{
	if ((((uint32_t)d | (uint32_t)s) & 3) == 0) {
		uint32_t *dw = d;
		const uint32_t *sw = s;
		for (uint32_t i = n / 4; i; i--)
			*dw++ = *sw++;
		d = dw;
		s = sw;
		n %= 4;
	}
	memcpy(d, s, n);
}

static int copy(uint32_t *pgdir, uint32_t va, void *kbuf, uint32_t n, bool out)
{
	uint8_t *k = kbuf;

	if (!uvalid_in(pgdir, va, n))
		return -EFAULT;
	while (n) {
		uint32_t chunk = MIN(n, PGSIZE - va % PGSIZE);
		uint8_t *u = uaddr_in(pgdir, va);
		if (out)
			ucopy(u, k, chunk);
		else
			ucopy(k, u, chunk);
		va += chunk;
		k += chunk;
		n -= chunk;
	}
	return 0;
}

int copyin(void *dst, uint32_t va, uint32_t n)
{
	return copy(curpgdir(), va, dst, n, false);
}

int copyout(uint32_t va, const void *src, uint32_t n)
{
	return copy(curpgdir(), va, (void *)src, n, true);
}

int copyin_array_pgdir(uint32_t *pgdir, void *dst, uint32_t uaddr, uint32_t n, uint32_t size)
{
	if (size == 0)
		return -EINVAL;
	/* n * size must not wrap: a wrapped product would check and copy a
	 * few bytes where the caller asked for gigabytes */
	if (n > UINT32_MAX / size)
		return -E2BIG;
	return copy(pgdir, uaddr, dst, n * size, false);
}

int copyin_array(void *dst, uint32_t uaddr, uint32_t n, uint32_t size)
{
	return copyin_array_pgdir(curpgdir(), dst, uaddr, n, size);
}

int copyinstr(char *dst, uint32_t va, uint32_t max)
{
	for (uint32_t i = 0; i < max; i++, va++) {
		uint8_t *u;
		if (va < USER_BASE || va >= USER_TOP ||
		    (!(u = uaddr(va)) && !(grow(curpgdir(), va) && (u = uaddr(va)))))
			return -EFAULT;
		dst[i] = *u;
		if (*u == 0)
			return i;
	}
	return -ENAMETOOLONG;
}
