/* The Linux i386 system-call interface (linux.c), for programs built
 * against glibc: elf.c says which programs those are (enum abi), spawn.c
 * starts them as Linux would, and syscall.c hands their calls here. */
#ifndef LINUX_H
#define LINUX_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/fcntl.h"

/* A Linux program's stack: LINUX_STACK_MAX reserved below USER_TOP (what
 * `ulimit -s` says on Linux), of which LINUX_STACK_INIT is mapped at
 * spawn; the rest is mapped a page at a time as the stack grows into it
 * (a page fault, or a system call's buffer there). */
#define LINUX_STACK_MAX  (8u << 20)
#define LINUX_STACK_INIT (128u << 10)
#define LINUX_NSYSCALL   512    /* above every number in asm/unistd_32.h */

struct linux_proc {
	uint32_t clear_tid;     /* set_tid_address's pointer */
	uint32_t cloexec;       /* a bit per fd: FD_CLOEXEC (kept, for F_GETFD: no exec) */
	uint32_t enosys[LINUX_NSYSCALL / 32];   /* unimplemented calls already reported */
	char exe[PATH_MAX];     /* the program's path: /proc/self/exe */
};

struct proc;
int linux_syscall(uint32_t num, const uint32_t *a);
/* the name of Linux call num (build/kernel/linux_names.c, made from
 * asm/unistd_32.h), or NULL */
const char *linux_syscall_name(uint32_t num);
/* maps the page of the stack reserve holding va, if p is a Linux program
 * and va is in its reserve; true if the page is now there */
bool linux_stack_grow(struct proc *p, uint32_t va);
/* the 16 bytes of AT_RANDOM, from the boot's seed */
void linux_random(void *buf, uint32_t n);

#endif
