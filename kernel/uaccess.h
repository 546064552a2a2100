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
/* copies a NUL-terminated string of at most max-1 chars; its length,
 * -EFAULT, or -ENAMETOOLONG */
int copyinstr(char *dst, uint32_t va, uint32_t max);

#endif
