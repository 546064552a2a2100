/* callcost: a Linux system call's round trip through the Linux ABI
 * (kernel/linux.c), for make bench (tests/qemu/bench.py). A static glibc
 * program, read by the TSC, which under QEMU's -icount shift=0 counts
 * guest instructions exactly.
 *
 *   callcost getpid N   N getpid calls three ways, each line the TSC cycles:
 *                       raw: int $0x80 with eax = __NR_getpid in an asm
 *                       loop of three more instructions (mov, dec, jnz);
 *                       glibc: glibc's getpid(); syscall: syscall(SYS_getpid)
 *   callcost tsc        prints the TSC (a stamp between two commands)
 *   callcost exit       exit_group(0) first thing in main: glibc's start
 *                       and nothing else (its user-mode instructions, by
 *                       the heat engine, are what glibc does before main)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline unsigned long long rdtsc(void)
{
	unsigned lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

int main(int argc, char **argv)
{
	unsigned long long c0, c1;

	if (argc == 2 && argv[1][0] == 'e')             /* exit */
		__asm__ volatile("int $0x80" : : "a"(__NR_exit_group), "b"(0));
	if (argc == 2 && !strcmp(argv[1], "tsc")) {
		c0 = rdtsc();
		printf("callcost: tsc %llu\n", c0);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "getpid")) {
		unsigned n = strtoul(argv[2], NULL, 10), i;

		c0 = rdtsc();
		__asm__ volatile("1: mov %1, %%eax\n\t"
				 "int $0x80\n\t"
				 "dec %%ecx\n\t"
				 "jnz 1b"
				 : "+c"(n) : "i"(__NR_getpid) : "eax", "memory");
		c1 = rdtsc();
		n = strtoul(argv[2], NULL, 10);
		printf("callcost: raw %u getpid in %llu cycles\n", n, c1 - c0);
		c0 = rdtsc();
		for (i = n; i > 0; i--)
			getpid();
		c1 = rdtsc();
		printf("callcost: glibc %u getpid in %llu cycles\n", n, c1 - c0);
		c0 = rdtsc();
		for (i = n; i > 0; i--)
			syscall(SYS_getpid);
		c1 = rdtsc();
		printf("callcost: syscall %u getpid in %llu cycles\n", n, c1 - c0);
		return 0;
	}
	fprintf(stderr, "usage: callcost getpid N | callcost tsc | callcost exit\n");
	return 2;
}
