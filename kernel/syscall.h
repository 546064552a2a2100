/* System-call plumbing shared by syscall.c and the sys*.c files. */
#ifndef SYSCALL_H
#define SYSCALL_H

#include <stdint.h>

/* a handler takes the five raw argument words, returns the result or -errno */
typedef int (*sysfn)(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4);

struct trapframe;
void syscall(struct trapframe *tf);     /* from trap(), for int 0x80 */

#define SYSARGS uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4
#define UNUSED_ARGS(...) (void)a0, (void)a1, (void)a2, (void)a3, (void)a4

#endif
