/* copyin/copyout/copyinstr: the range is checked against the user bounds
 * and translated page by page through the process's page table, so a bad
 * address is caught before the kernel touches it. */
#include "uaccess.h"
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "lib.h"
#include "proc.h"

/* the kernel address of user va, or 0 */
static uint8_t *uaddr(uint32_t va)
{
	struct proc *p = curproc();
	uint32_t pa;

	if (!p || !p->pgdir)
		return NULL;
	pa = arch_user_page(p->pgdir, ROUNDDOWN(va, PGSIZE));
	return pa ? (uint8_t *)(pa + va % PGSIZE) : NULL;
}

bool uvalid(uint32_t va, uint32_t n)
{
	/* both tests needed: va + n can wrap around */
	if (va < USER_BASE || va > USER_TOP || n > USER_TOP - va)
		return false;
	for (uint32_t pg = ROUNDDOWN(va, PGSIZE); pg < va + n; pg += PGSIZE)
		if (!uaddr(pg))
			return false;
	return true;
}

static int copy(uint32_t va, void *kbuf, uint32_t n, bool out)
{
	uint8_t *k = kbuf;

	if (!uvalid(va, n))
		return -EFAULT;
	while (n) {
		uint32_t chunk = MIN(n, PGSIZE - va % PGSIZE);
		uint8_t *u = uaddr(va);
		if (out)
			memcpy(u, k, chunk);
		else
			memcpy(k, u, chunk);
		va += chunk;
		k += chunk;
		n -= chunk;
	}
	return 0;
}

int copyin(void *dst, uint32_t va, uint32_t n)
{
	return copy(va, dst, n, false);
}

int copyout(uint32_t va, const void *src, uint32_t n)
{
	return copy(va, (void *)src, n, true);
}

int copyinstr(char *dst, uint32_t va, uint32_t max)
{
	for (uint32_t i = 0; i < max; i++, va++) {
		uint8_t *u;
		if (va < USER_BASE || va >= USER_TOP || !(u = uaddr(va)))
			return -EFAULT;
		dst[i] = *u;
		if (*u == 0)
			return i;
	}
	return -ENAMETOOLONG;
}
