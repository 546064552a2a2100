/* The virtual address layout, the one place it is written down.
 *
 *   0 .. USER_BASE            nothing, in every address space: a NULL
 *                             pointer, kernel's or user's, faults
 *   USER_BASE .. USER_TOP     one process: its program where its ELF says
 *                             (Linux programs at 0x08048000, the project's
 *                             own at USER_LINK), then its heap upward, and
 *                             its stack downward from USER_TOP
 *   KERNBASE .. KERN_TOP      the kernel: all of RAM mapped at pa + KERNBASE
 *                             (the kernel image at KERN_LINK, loaded at
 *                             1 MiB), supervisor only, the same page tables
 *                             in every process
 *
 * A user pointer p of n bytes is good when USER_BASE <= p, p + n <= USER_TOP
 * without wrap-around, and every page it touches is mapped user-accessible.
 * The kernel is mapped above USER_TOP in every address space, so whatever
 * reads memory on behalf of a user address (a copy, a stack walk) checks
 * the range first: the page tables alone would let the kernel read itself.
 */
#ifndef ABI_MEMLAYOUT_H
#define ABI_MEMLAYOUT_H

#define PGSIZE          4096
#define USER_BASE       0x00010000u   /* lowest user address (Linux's mmap_min_addr) */
#define USER_LINK       0x40000000u   /* the project's programs are linked here (user/user.ld) */
#define USER_TOP        0xC0000000u   /* one past the last user byte */
#define KERNBASE        USER_TOP      /* va = pa + KERNBASE for all of RAM */
#define KERN_LINK       (KERNBASE + 0x100000u)   /* the kernel image (kernel/kernel.ld) */
#define KERN_TOP        0xF8000000u   /* so at most 896 MiB of RAM is used */
#define USER_STACK_SIZE (64 * 1024)   /* mapped at spawn, just below USER_TOP */
#define USER_HEAP_MAX   (64u << 20)   /* sbrk limit per process */
#define NPROC           64            /* process table size (spawn gives EAGAIN) */

#endif
