/* Signals and interval timers through glibc, for tests/qemu/test_signals.py:
 *     sigtest default SIG      kill(getpid(), SIG) with the default action;
 *                              "survived SIG" if it was ignored
 *     sigtest handlers         each handler runs and the program goes on:
 *                              one "ok NAME" line each, then "handlers done"
 *     sigtest wait             a SIGINT handler; waits for ^C, then exits 0
 *     sigtest spin             no handler; loops until ^C
 *     sigtest read restart|intr  a SIGINT handler with SA_RESTART or
 *                              without; reads a console line, which ^C
 *                              interrupts: restarted, or EINTR
 *     sigtest hostile MODE     a handler in the kernel or unmapped, a forged
 *                              sigreturn frame: the kernel ends the process
 *     sigtest others           signals to other processes, pid 0 and -1
 *     sigtest storm MS         ITIMER_PROF at every tick, for MS ms of
 *                              ITIMER_REAL, whose SIGALRM ends it (142)
 *     sigtest cost N           what a signal costs: an asm loop of N
 *                              iterations timed by the TSC (under QEMU's
 *                              -icount shift=0 it counts instructions)
 *                              without a timer, then with ITIMER_PROF at
 *                              every tick and a handler that returns at
 *                              once; the difference a signal
 *     sigtest profcost N       the same loop under glibc's profil(3)
 *                              (setitimer(ITIMER_PROF) at its 100 Hz and
 *                              glibc's SIGPROF handler): the difference
 *                              a sample
 * A failed check prints "FAIL ..." and exits 1. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t hits[65];
static sigjmp_buf jb;
static volatile uint32_t seen_eip;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __func__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); exit(1); } } while (0)

static void count(int sig)
{
	hits[sig]++;
}

static void jump(int sig)
{
	hits[sig]++;
	siglongjmp(jb, sig);
}

/* SA_SIGINFO: the interrupted eip from the ucontext, as glibc reads it */
static void info_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	CHECK(si->si_signo == sig, "si_signo %d", si->si_signo);
	seen_eip = uc->uc_mcontext.gregs[REG_EIP];
	hits[sig]++;
}

/* no SA_SIGINFO: the old sigframe, whose sigcontext follows sig on the
 * stack (what glibc's profil read before SA_SIGINFO) */
static void old_handler(int sig, struct sigcontext sc)
{
	seen_eip = sc.eip;
	hits[sig]++;
}

static void on(int sig, void (*h)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(sig, &sa, NULL) == 0, "sigaction %d: %s", sig, strerror(errno));
}

static char altstack[16384];
static volatile uintptr_t alt_sp;

/* SA_ONSTACK: the handler's own frame is on the alternate stack */
static void alt_handler(int sig)
{
	volatile char here;

	alt_sp = (uintptr_t)&here;
	hits[sig]++;
}

static void on_info(int sig, void (*h)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO;
	CHECK(sigaction(sig, &sa, NULL) == 0, "sigaction %d: %s", sig, strerror(errno));
}

static void timer(int which, long us, long every)
{
	struct itimerval v = { { every / 1000000, every % 1000000 }, { us / 1000000, us % 1000000 } };
	CHECK(setitimer(which, &v, NULL) == 0, "setitimer %d: %s", which, strerror(errno));
}

extern char raise_here[];

static void handlers(void)
{
	volatile int zero = 0;
	struct timespec ts = { 2, 0 };
	sigset_t set, old;
	volatile double x = 1.5;
	int r;

	on(SIGINT, count, 0);
	raise(SIGINT);
	CHECK(hits[SIGINT] == 1, "SIGINT hits %d", hits[SIGINT]);
	printf("ok SIGINT\n");

	/* SIGUSR1 blocked: pending, then delivered when unblocked */
	on(SIGUSR1, count, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	kill(getpid(), SIGUSR1);
	CHECK(hits[SIGUSR1] == 0, "delivered while blocked");
	sigpending(&set);
	CHECK(sigismember(&set, SIGUSR1), "not pending");
	sigprocmask(SIG_SETMASK, &old, NULL);
	CHECK(hits[SIGUSR1] == 1, "not delivered at unblock: %d", hits[SIGUSR1]);
	printf("ok sigprocmask\n");

	/* the interrupted pc, from either frame */
	on_info(SIGUSR2, info_handler);
	__asm__ volatile("int $0x80\n.globl raise_here\nraise_here:"
			 : "=a"(r) : "a"(SYS_tgkill), "b"(getpid()), "c"(getpid()), "d"(SIGUSR2)
			 : "memory");
	CHECK(hits[SIGUSR2] == 1 && seen_eip == (uint32_t)raise_here,
	      "SA_SIGINFO eip %#x, want %p", seen_eip, (void *)raise_here);
	on(SIGUSR2, (void (*)(int))old_handler, 0);
	seen_eip = 0;
	__asm__ volatile("int $0x80\n.globl raise_here2\nraise_here2:"
			 : "=a"(r) : "a"(SYS_tgkill), "b"(getpid()), "c"(getpid()), "d"(SIGUSR2)
			 : "memory");
	extern char raise_here2[];
	CHECK(hits[SIGUSR2] == 2 && seen_eip == (uint32_t)raise_here2,
	      "sigcontext eip %#x, want %p", seen_eip, (void *)raise_here2);
	printf("ok frames\n");

	/* SIGALRM from ITIMER_REAL; pause returns EINTR after the handler */
	on(SIGALRM, count, 0);
	timer(ITIMER_REAL, 20000, 0);
	r = pause();
	CHECK(r == -1 && errno == EINTR && hits[SIGALRM] == 1, "pause %d %s", r, strerror(errno));
	printf("ok SIGALRM\n");

	/* EINTR from a nanosleep a handled SIGALRM cuts short, SA_RESTART or not */
	on(SIGALRM, count, SA_RESTART);
	timer(ITIMER_REAL, 30000, 0);
	r = nanosleep(&ts, NULL);
	CHECK(r == -1 && errno == EINTR && hits[SIGALRM] == 2, "nanosleep %d %s", r, strerror(errno));
	printf("ok EINTR\n");

	/* alarm(): the old one's seconds back */
	CHECK(alarm(5) == 0 && alarm(0) == 5, "alarm");
	printf("ok alarm\n");

	/* SIGPROF and SIGVTALRM: the program's own time */
	on(SIGPROF, count, SA_RESTART);
	on(SIGVTALRM, count, SA_RESTART);
	timer(ITIMER_PROF, 1000, 1000);
	timer(ITIMER_VIRTUAL, 1000, 1000);
	while (hits[SIGPROF] < 5 || hits[SIGVTALRM] < 5)
		x = x * 1.0000001;
	timer(ITIMER_PROF, 0, 0);
	timer(ITIMER_VIRTUAL, 0, 0);
	CHECK(x > 1.5, "x87 state");
	printf("ok SIGPROF\n");

	/* the faults, each caught and left by siglongjmp */
	on(SIGSEGV, jump, 0);
	if (sigsetjmp(jb, 1) == 0)
		*(volatile int *)0 = 1;
	CHECK(hits[SIGSEGV] == 1, "SIGSEGV");
	if (sigsetjmp(jb, 1) == 0)      /* again: the mask came back with the jump */
		*(volatile int *)0 = 1;
	CHECK(hits[SIGSEGV] == 2, "SIGSEGV twice");
	printf("ok SIGSEGV\n");
	on(SIGFPE, jump, 0);
	if (sigsetjmp(jb, 1) == 0)
		__asm__ volatile("divl %0" : : "r"(zero), "a"(1), "d"(0));
	CHECK(hits[SIGFPE] == 1, "SIGFPE");
	printf("ok SIGFPE\n");
	on(SIGILL, jump, 0);
	if (sigsetjmp(jb, 1) == 0)
		__asm__ volatile("ud2");
	CHECK(hits[SIGILL] == 1, "SIGILL");
	printf("ok SIGILL\n");
	on(SIGTRAP, count, 0);
	__asm__ volatile("int3");
	CHECK(hits[SIGTRAP] == 1, "SIGTRAP");
	printf("ok SIGTRAP\n");

	/* sigaltstack: a SA_ONSTACK handler runs on it */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 }, oss;
	CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack: %s", strerror(errno));
	on(SIGWINCH, alt_handler, SA_ONSTACK);
	raise(SIGWINCH);
	CHECK(hits[SIGWINCH] == 1 && alt_sp - (uintptr_t)altstack < sizeof altstack,
	      "handler's stack %#lx, the alternate one at %p", (unsigned long)alt_sp, (void *)altstack);
	CHECK(sigaltstack(NULL, &oss) == 0 && oss.ss_sp == altstack && oss.ss_flags == 0,
	      "sigaltstack's old stack");
	ss.ss_size = 100;
	CHECK(sigaltstack(&ss, NULL) == -1 && errno == ENOMEM, "a small alternate stack");
	printf("ok sigaltstack\n");

	/* SIG_IGN drops it; the default of SIGCHLD is to ignore */
	on(SIGTERM, SIG_IGN, 0);
	raise(SIGTERM);
	raise(SIGCHLD);
	printf("ok ignored\n");
	printf("handlers done\n");
}

static volatile sig_atomic_t got_int;

static void int_handler(int sig)
{
	(void)sig;
	got_int = 1;
}

/* ---- hostile use: each ends the process, never the kernel ---- */

static int forge;

static void forger(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	switch (forge) {
	case 0: g[REG_CS] = 0x08; break;                /* the kernel's code segment */
	case 1: g[REG_SS] = 0x10; break;                /* the kernel's data segment */
	case 2: g[REG_DS] = 0x10; break;
	case 3: g[REG_GS] = 0x10; break;
	case 4: g[REG_EIP] = 0xC0100000; break;         /* the kernel's text */
	case 5: g[REG_EFL] = (g[REG_EFL] | 0x3000) & ~0x200; break;    /* IOPL 3, IF off */
	}
}

static void segv_out(int sig)
{
	printf("cli faulted: %d\n", sig);
	exit(0);
}

static void hostile(const char *mode)
{
	static const char *const forges[] = { "cs", "ss", "ds", "gs", "eip", "flags" };
	struct sigaction sa;
	uint32_t fl;

	memset(&sa, 0, sizeof sa);
	if (strcmp(mode, "kernel-handler") == 0 || strcmp(mode, "unmapped-handler") == 0) {
		sa.sa_handler = (void (*)(int))(mode[0] == 'k' ? 0xC0100000 : 0x1000);
		CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
		raise(SIGUSR1);
		printf("FAIL survived a handler at %p\n", (void *)sa.sa_handler);
		exit(1);
	}
	if (strcmp(mode, "bad-frame") == 0 || strcmp(mode, "bad-frame-old") == 0) {
		int nr = mode[9] ? SYS_sigreturn : SYS_rt_sigreturn;
		__asm__ volatile("movl $0x10, %%esp\n\tint $0x80" : : "a"(nr) : "memory");
		printf("FAIL sigreturn with no frame returned\n");
		exit(1);
	}
	for (forge = 0; forge < 6; forge++)
		if (strcmp(mode, forges[forge]) == 0)
			break;
	CHECK(forge < 6, "unknown mode %s", mode);
	sa.sa_sigaction = forger;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	/* only the flags come back: without IOPL and with IF */
	__asm__ volatile("pushfl; popl %0" : "=r"(fl));
	printf("flags after sigreturn: iopl %u if %u\n", (fl >> 12) & 3, (fl >> 9) & 1);
	signal(SIGSEGV, segv_out);
	__asm__ volatile("cli");
	printf("FAIL cli ran in user mode\n");
	exit(1);
}

static void others(void)
{
	CHECK(kill(1, SIGTERM) == -1 && errno == EPERM, "kill(1): %s", strerror(errno));
	CHECK(kill(1, 0) == -1 && errno == EPERM, "kill(1, 0): %s", strerror(errno));
	CHECK(kill(getppid(), SIGKILL) == -1 && errno == EPERM, "kill(parent)");
	CHECK(kill(30000, SIGTERM) == -1 && errno == ESRCH, "kill(30000)");
	CHECK(kill(-5, SIGTERM) == -1 && errno == ESRCH, "kill(-5)");
	CHECK(kill(getpid(), 65) == -1 && errno == EINVAL, "signal 65");
	CHECK(kill(0, 0) == 0, "kill(0, 0)");
	CHECK(syscall(SYS_tgkill, 30000, getpid(), SIGTERM) == -1 && errno == ESRCH, "tgkill");
	CHECK(syscall(SYS_tgkill, getpid(), 0, SIGTERM) == -1 && errno == EINVAL, "tgkill tid 0");
	CHECK(sigaction(SIGKILL, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL) == -1 &&
	      errno == EINVAL, "SIGKILL caught");
	/* -1: every process but init and this one, so only the others alive */
	printf("kill(-1, 0): %d\n", kill(-1, 0));
	printf("others done\n");
}

static void storm(long ms)
{
	on(SIGPROF, count, SA_RESTART);
	timer(ITIMER_PROF, 1, 1);
	timer(ITIMER_REAL, ms * 1000, 0);
	for (;;)
		if (hits[SIGPROF] % 1000 == 999)
			;
}

static inline unsigned long long rdtsc(void)
{
	unsigned lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

static volatile unsigned nprof;

static void empty(int sig)
{
	(void)sig;
	nprof++;
}

__attribute__((noinline)) static unsigned long long timed_loop(unsigned n)
{
	unsigned long long t = rdtsc();
	__asm__ volatile("1: decl %0\n\tjnz 1b" : "+r"(n));
	return rdtsc() - t;
}

/* the loop's instructions are the same both times: what the second run
 * took more is its signals', each a tick's delivery, the handler's
 * call and return (glibc's restorer) and sigreturn */
static void cost(unsigned n)
{
	unsigned long long plain, with;
	unsigned s;

	timed_loop(n / 10);             /* every page touched first */
	plain = timed_loop(n);
	on(SIGPROF, empty, SA_RESTART);
	timer(ITIMER_PROF, 1, 1);
	with = timed_loop(n);
	timer(ITIMER_PROF, 0, 0);
	s = nprof;
	printf("cost: plain %llu, with SIGPROF %llu, %u signals, %.1f a signal\n",
	       plain, with, s, s ? (double)(with - plain) / s : 0.0);
}

/* glibc's profil over the loop's own code: every sample lands in buf */
static void profcost(unsigned n)
{
	static unsigned short bins[65536];
	unsigned long long plain, with;
	unsigned samples = 0;

	timed_loop(n / 10);
	plain = timed_loop(n);
	CHECK(profil(bins, sizeof bins, (unsigned long)timed_loop, 65536) == 0, "profil: %s",
	      strerror(errno));
	with = timed_loop(n);
	profil(NULL, 0, 0, 0);
	for (unsigned i = 0; i < sizeof bins / sizeof bins[0]; i++)
		samples += bins[i];
	printf("profcost: plain %llu, with profil %llu, %u samples, %.1f a sample\n",
	       plain, with, samples, samples ? (double)(with - plain) / samples : 0.0);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 3 && strcmp(argv[1], "default") == 0) {
		int sig = atoi(argv[2]);
		kill(getpid(), sig);
		printf("survived %d\n", sig);
	} else if (argc == 2 && strcmp(argv[1], "handlers") == 0) {
		handlers();
	} else if (argc == 2 && strcmp(argv[1], "wait") == 0) {
		on(SIGINT, int_handler, 0);
		printf("waiting\n");
		while (!got_int)
			pause();
		printf("got SIGINT\n");
	} else if (argc == 3 && strcmp(argv[1], "read") == 0) {
		char line[64];
		ssize_t n;
		on(SIGINT, int_handler, strcmp(argv[2], "restart") == 0 ? SA_RESTART : 0);
		printf("reading\n");
		n = read(0, line, sizeof line - 1);
		if (n < 0) {
			printf("read -1 %s, handler ran %d\n", strerror(errno), got_int);
		} else {
			line[n] = 0;
			printf("read %zd: %s, handler ran %d\n", n, strtok(line, "\n"), got_int);
		}
	} else if (argc == 2 && strcmp(argv[1], "spin") == 0) {
		printf("spinning\n");
		for (;;)
			;
	} else if (argc == 3 && strcmp(argv[1], "hostile") == 0) {
		hostile(argv[2]);
	} else if (argc == 2 && strcmp(argv[1], "others") == 0) {
		others();
	} else if (argc == 3 && strcmp(argv[1], "storm") == 0) {
		storm(atol(argv[2]));
	} else if (argc == 3 && strcmp(argv[1], "profcost") == 0) {
		profcost((unsigned)atol(argv[2]));
	} else if (argc == 3 && strcmp(argv[1], "cost") == 0) {
		cost((unsigned)atol(argv[2]));
	} else {
		fprintf(stderr, "usage: sigtest default SIG | handlers | wait | spin | "
			"hostile MODE | others | storm MS | cost N | profcost N\n");
		return 2;
	}
	return 0;
}
