/* The Linux system-call fuzzer: random calls by Linux's numbers with
 * arguments from a pool of edge values (small numbers, fds, good and bad
 * pointers, kernel addresses), through glibc's syscall(). The kernel must
 * answer every one without a fault of its own; the calls that would end
 * or wreck this process (exit, signals to itself, unmapping its own
 * memory, a new TLS segment, blocking on the console, closing its output,
 * sigreturn, pause and sigsuspend) are left out, so a run reaches its end
 * line. The signal calls (sigaction, the masks, sigaltstack, the interval
 * timers, alarm) are fuzzed too: every action is SIG_IGN, no signal blocked
 * and no timer armed before each call (calm()), so whatever a call sets,
 * a signal that comes of it is dropped, never a jump to a random handler:
 *     lfuzz N SEED    ->  "lfuzz: N calls, E errors, S ok"
 * The user/sysfuzz.c fuzzer does the same for the project's calls. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint32_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* The buffer the good pointers point into: a mapping of its own, with
 * nothing mapped above it, so a call that writes past it faults in the
 * kernel's check (EFAULT) instead of overwriting this program's state. */
#define BUFSIZE (3 * 4096)
static char *buf;

static uint32_t arg(void)
{
	static const uint32_t edge[] = {
		0, 1, 2, 3, 4, 5, 15, 16, 64, 4096, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
		0xFFFFF000, 0x100000, 0xC0000000, 0xBFFFFFFF, (uint32_t)-100 /* AT_FDCWD */,
	};
	switch (next() % 4) {
	case 0:
		return edge[next() % (sizeof edge / sizeof edge[0])];
	case 1:
		return (uint32_t)(uintptr_t)buf + next() % BUFSIZE;
	case 2:
		return next() % 32;
	default:
		return next();
	}
}

static int excluded(long nr, const uint32_t *a)
{
	switch (nr) {
	case SYS_exit: case SYS_exit_group: case SYS_kill: case SYS_tkill: case SYS_tgkill:
	case SYS_munmap: case SYS_mremap: case SYS_mmap: case SYS_mmap2: case SYS_brk:
	case SYS_set_thread_area: case SYS_nanosleep: case SYS_clock_nanosleep:
	case SYS_clock_nanosleep_time64: case SYS_set_tid_address:
	case SYS_sigreturn: case SYS_rt_sigreturn: case SYS_pause: case SYS_sigsuspend:
	case SYS_rt_sigsuspend:
		return 1;
	case SYS_read: case SYS_readv: case SYS_pread64:
		return isatty(a[0]);    /* the console waits for a line */
	case SYS_write: case SYS_writev: case SYS_pwrite64: case SYS_close:
	case SYS_ioctl: case SYS_fcntl: case SYS_fcntl64:
		return a[0] <= 2;
	case SYS_dup2: case SYS_dup3:
		return a[1] <= 2;
	default:
		return 0;
	}
}

/* the calls that change what a signal does, or make one come */
static int signal_call(long nr)
{
	switch (nr) {
	case SYS_rt_sigaction: case SYS_sigaction: case SYS_signal: case SYS_rt_sigprocmask:
	case SYS_sigprocmask: case SYS_sigaltstack: case SYS_setitimer: case SYS_alarm:
	case SYS_ssetmask:
		return 1;
	default:
		return 0;
	}
}

/* every signal ignored and unblocked, every timer off */
static void calm(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	sigset_t none;

	for (int which = ITIMER_REAL; which <= ITIMER_PROF; which++)
		setitimer(which, &off, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, errs = 0, oks = 0;
	int verbose = argc > 3;         /* lfuzz N SEED v: each call before it is made */

	buf = mmap(NULL, BUFSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	calm();
	rng = argc > 2 ? (uint32_t)atol(argv[2]) : 1;
	if (!rng)
		rng = 1;
	for (long i = 0; i < n; i++) {
		uint32_t a[6];
		long nr = next() % 460, r;
		for (int k = 0; k < 6; k++)
			a[k] = arg();
		if (excluded(nr, a)) {
			i--;
			continue;
		}
		if (verbose)
			fprintf(stderr, "%ld: %ld(%#x, %#x, %#x, %#x, %#x, %#x)\n", i, nr,
				a[0], a[1], a[2], a[3], a[4], a[5]);
		r = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (signal_call(nr))
			calm();
		if (r == -1)
			errs++;
		else
			oks++;
		/* its own fds beyond the standard three are closed again */
		if (i % 64 == 0)
			for (int fd = 3; fd < 16; fd++)
				close(fd);
	}
	printf("lfuzz: %ld calls, %ld errors, %ld ok\n", n, errs, oks);
	return 0;
}
