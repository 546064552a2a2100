/* Checked access to user memory. Every user pointer goes through these,
 * where it is used: a bad pointer gives -EFAULT, never a kernel fault. */
#ifndef UACCESS_H
#define UACCESS_H

#include <stdbool.h>
#include <stdint.h>

/* [va, va+n) lies in user space, without wrap-around, and every page is
 * mapped user-accessible in the current process */
bool uvalid(uint32_t va, uint32_t n);
int copyin(void *dst, uint32_t va, uint32_t n);           /* 0 or -EFAULT */
int copyout(uint32_t va, const void *src, uint32_t n);    /* 0 or -EFAULT */
/* copies n elements of size bytes each (an array of user structs) into
 * dst, which holds n * size bytes: 0; -EINVAL if size is 0; -E2BIG if
 * n * size does not fit in 32 bits; -EFAULT for a bad range. n == 0 copies
 * nothing and succeeds. */
int copyin_array(void *dst, uint32_t uaddr, uint32_t n, uint32_t size);
/* the same from the address space pgdir, which need not be the current one */
int copyin_array_pgdir(uint32_t *pgdir, void *dst, uint32_t uaddr, uint32_t n, uint32_t size);
/* copies a NUL-terminated string of at most max-1 chars; its length,
 * -EFAULT, or -ENAMETOOLONG */
int copyinstr(char *dst, uint32_t va, uint32_t max);

#endif
