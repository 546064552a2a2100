/* The virtual address layout, the one place it is written down.
 *
 *   0x00000000 .. KERN_TOP    kernel: all of RAM identity-mapped, supervisor
 *                             only, the same page tables in every process
 *   USER_BASE .. USER_TOP     one process: text, data, bss, heap (sbrk) upward
 *                             from USER_BASE; the stack downward from USER_TOP
 *   USER_TOP .. 4 GiB         nothing, in every address space: a user frame
 *                             chain that climbs past USER_TOP faults there
 *
 * A user pointer p of n bytes is good when USER_BASE <= p, p + n <= USER_TOP
 * without wrap-around, and every page it touches is mapped user-accessible.
 */
#ifndef ABI_MEMLAYOUT_H
#define ABI_MEMLAYOUT_H

#define PGSIZE          4096
#define KERN_TOP        0x40000000u   /* at most 1 GiB of RAM is used */
#define USER_BASE       0x40000000u   /* programs are linked here (user/user.ld) */
#define USER_TOP        0xC0000000u   /* one past the last user byte */
#define USER_STACK_SIZE (64 * 1024)   /* mapped at spawn, just below USER_TOP */
#define USER_HEAP_MAX   (64u << 20)   /* sbrk limit per process */
#define NPROC           64            /* process table size (spawn gives EAGAIN) */

#endif
