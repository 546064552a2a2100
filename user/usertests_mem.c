/* usertests: user pointers at the edges of user space, unknown system
 * calls, sbrk and malloc. Every bad pointer must give EFAULT, and the
 * process must live on to report it. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"
#include "usertests.h"

#define P(x) ((void *)(uintptr_t)(x))
#define WILD (USER_LINK + 0x20000000)   /* unmapped: far above any heap */

/* Addresses no n-byte buffer may start at (for small n >= 1). */
static const uintptr_t badaddrs[] = {
	0,                                      /* null */
	KERN_LINK,                              /* kernel, supervisor-only */
	USER_BASE - 1,                          /* straddles the NULL guard and user */
	USER_TOP,                               /* one past the end */
	USER_TOP + 1,
	0xFFFFFFF0,                             /* wraps around with n > 16 */
	WILD,                                   /* user range, unmapped */
	USER_TOP - USER_STACK_SIZE - 1,         /* just below the stack */
};
#define NBAD (int)(sizeof(badaddrs) / sizeof(badaddrs[0]))

void t_badptr_write(void)
{
	struct stat st;
	int fd = open("/tmp/ut_ptr", O_CREAT | O_RDWR | O_TRUNC);

	CHECK(fd >= 0);
	/* The stack's last byte is a good buffer. */
	CHECK(write(fd, P(USER_TOP - 1), 1) == 1);
	CHECK_ERR(write(fd, P(USER_TOP - 1), 2), EFAULT);       /* runs off the end */
	CHECK_ERR(write(fd, P(0xFFFFFFF0), 0x20), EFAULT);      /* wraps around */
	CHECK_ERR(write(fd, P(USER_TOP - 0x100), 0xFFFFFFFF), EFAULT);
	for (int i = 0; i < NBAD; i++)
		if (write(fd, P(badaddrs[i]), 2) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "write(%p, 2): want EFAULT, errno %d", P(badaddrs[i]), errno);
	/* The console must not print kernel memory either. */
	CHECK_ERR(write(2, P(KERN_LINK), 1), EFAULT);
	CHECK(fstat(fd, &st) == 0 && st.size == 1);
	close(fd);
	CHECK(unlink("/tmp/ut_ptr") == 0);
}

void t_badptr_read(void)
{
	volatile char *top = P(USER_TOP - 1);
	char c = *top, data[64];
	int fd;

	/* The file holds the byte already at the top of the stack, so the one
	 * good read below changes nothing there (it may be an argv string). */
	memset(data, c, sizeof(data));
	makefile("/tmp/ut_ptr", data, sizeof(data));
	CHECK((fd = open("/tmp/ut_ptr", O_RDONLY)) >= 0);
	CHECK(read(fd, P(USER_TOP - 1), 1) == 1 && *top == c);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_ERR(read(fd, P(USER_TOP - 1), 2), EFAULT);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_ERR(read(fd, P(0xFFFFFFF0), 0x20), EFAULT);
	for (int i = 0; i < NBAD; i++) {
		CHECK(lseek(fd, 0, SEEK_SET) == 0);
		if (read(fd, P(badaddrs[i]), 2) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "read(%p, 2): want EFAULT, errno %d", P(badaddrs[i]), errno);
	}
	close(fd);
	CHECK(unlink("/tmp/ut_ptr") == 0);
}

void t_badptr_path(void)
{
	char *argv[] = { "x", 0 };
	volatile char *top = P(USER_TOP - 1);
	char *page = lastpage(), *runoff = page + PGSIZE - 8, save;
	struct stat st;

	/* A string with no NUL before the unmapped page above the break. */
	memset(page, 'a', PGSIZE);
	for (int i = 0; i <= NBAD; i++) {
		const char *p = i < NBAD ? P(badaddrs[i]) : runoff;

		if (open(p, O_RDONLY) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "open(%p): want EFAULT, errno %d", p, errno);
		if (open(p, O_CREAT | O_WRONLY) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "open(%p, O_CREAT): want EFAULT, errno %d", p, errno);
		if (stat(p, &st) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "stat(%p): want EFAULT, errno %d", p, errno);
		if (chdir(p) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "chdir(%p): want EFAULT, errno %d", p, errno);
		if (mkdir(p) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "mkdir(%p): want EFAULT, errno %d", p, errno);
		if (unlink(p) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "unlink(%p): want EFAULT, errno %d", p, errno);
		if (spawn(p, argv, 0) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "spawn(%p): want EFAULT, errno %d", p, errno);
	}
	/* A string that ends at the very end of user space, without its NUL. */
	save = *top;
	*top = 'a';
	errno = 0;
	int r = open(P(USER_TOP - 1), O_RDONLY);
	int err = errno;
	*top = save;
	if (r != -1 || err != EFAULT)
		fail(__FILE__, __LINE__, "open(USER_TOP-1 'a' no NUL) = %d errno %d, want EFAULT", r, err);
}

void t_badptr_stat(void)
{
	volatile uint32_t *top = P(USER_TOP - sizeof(struct stat));
	uint32_t save[sizeof(struct stat) / 4];
	char *page = lastpage();
	int fd, r, type;

	CHECK((fd = open("/bin/usertests", O_RDONLY)) >= 0);
	for (int i = 0; i < NBAD; i++) {
		if (stat("/bin/usertests", P(badaddrs[i])) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "stat(, %p): want EFAULT, errno %d", P(badaddrs[i]), errno);
		if (fstat(fd, P(badaddrs[i])) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "fstat(, %p): want EFAULT, errno %d", P(badaddrs[i]), errno);
		if (getcwd(P(badaddrs[i]), 64) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "getcwd(%p): want EFAULT, errno %d", P(badaddrs[i]), errno);
	}
	/* A struct that starts in the last mapped bytes and runs off the end. */
	CHECK_ERR(stat("/bin/usertests", P(USER_TOP - 8)), EFAULT);
	CHECK_ERR(fstat(fd, P(page + PGSIZE - 8)), EFAULT);
	CHECK_ERR(getcwd(page + PGSIZE - 1, 64), EFAULT);

	/* The last 16 bytes of the stack are a good struct stat; put back what
	 * was there (argv strings) straight after. */
	for (int i = 0; i < (int)(sizeof(save) / 4); i++)
		save[i] = top[i];
	r = stat("/bin/usertests", (struct stat *)top);
	type = top[0];
	for (int i = 0; i < (int)(sizeof(save) / 4); i++)
		top[i] = save[i];
	if (r != 0 || type != S_IFILE)
		fail(__FILE__, __LINE__, "stat into the stack's top = %d type %d", r, type);
	close(fd);
}

void t_badptr_spawn(void)
{
	char *page = lastpage();
	char **runoff = (char **)(page + PGSIZE - 2 * sizeof(char *));
	char *badstr[] = { "echo", P(KERN_LINK), 0 };
	char *badstr2[] = { P(USER_TOP), 0 };
	char *good[] = { "usertests", "-helper", "exit", "0", 0 };
	int status;

	/* The probes run echo: should the kernel wrongly accept one, echo
	 * prints something and ends, where usertests might start the whole
	 * suite again. From 1: a NULL argv may fairly mean "no arguments". */
	for (int i = 1; i < NBAD; i++)
		if (spawn("/bin/echo", P(badaddrs[i]), 0) != -1 || errno != EFAULT)
			fail(__FILE__, __LINE__, "spawn(argv %p): want EFAULT, errno %d", P(badaddrs[i]), errno);
	CHECK_ERR(spawn("/bin/echo", P(USER_TOP - 2), 0), EFAULT);
	CHECK_ERR(spawn("/bin/echo", badstr, 0), EFAULT);
	CHECK_ERR(spawn("/bin/echo", badstr2, 0), EFAULT);
	/* An argv array with no NULL before the end of the heap. */
	runoff[0] = runoff[1] = "echo";
	CHECK_ERR(spawn("/bin/echo", runoff, 0), EFAULT);
	/* A bad fd map: the three ints must be readable. */
	CHECK_ERR(spawn("/bin/usertests", good, P(KERN_LINK)), EFAULT);
	CHECK_ERR(spawn("/bin/usertests", good, P(USER_TOP - 4)), EFAULT);
	CHECK_ERR(spawn("/bin/usertests", good, P(page + PGSIZE - 4)), EFAULT);

	/* Still able to spawn, and no failed spawn left a child behind. */
	CHECK(reap(spawn("/bin/usertests", good, 0)) == 0);
	CHECK_ERR(wait(-1, &status, 0), ECHILD);
}

void t_badptr_wait(void)
{
	int pid, status, r;

	/* Whether the kernel reaps before it finds the pointer bad is its
	 * choice; either way the child must be gone afterwards, not stuck. */
	pid = helper("exit", "0");
	CHECK_ERR(wait(pid, P(KERN_LINK), 0), EFAULT);
	r = wait(pid, &status, 0);
	CHECK(r == pid ? status == 0 : errno == ECHILD);

	pid = helper("exit", "0");
	CHECK_ERR(wait(-1, P(USER_TOP - 2), 0), EFAULT);
	r = wait(pid, &status, 0);
	CHECK(r == pid ? status == 0 : errno == ECHILD);

	pid = helper("exit", "0");
	CHECK_ERR(wait(pid, P(WILD), 0), EFAULT);
	r = wait(pid, &status, 0);
	CHECK(r == pid ? status == 0 : errno == ECHILD);

	CHECK_ERR(wait(-1, &status, 0), ECHILD);
}

void t_nosys(void)
{
	static const uint32_t nums[] = { NSYSCALL, NSYSCALL + 1, 999, 0xFFFFFFFF, 0x80000000, 0 };

	for (int i = 0; i < (int)(sizeof(nums) / sizeof(nums[0])); i++) {
		int r = usyscall(nums[i], KERN_LINK, 0, 0, 0, 0);
		if (r != -ENOSYS)
			fail(__FILE__, __LINE__, "system call 0x%x returned %d, want -ENOSYS", nums[i], r);
	}
	/* And the calls still work. */
	CHECK(getpid() > 0);
}

void t_sbrk(void)
{
	const int grow = 8 << 20;
	unsigned f0, f1, f2;
	char *old, *p;

	f0 = freepages();
	old = sbrk(0);
	CHECK(old != (char *)-1);
	p = sbrk(grow);
	CHECK(p == old);
	CHECK(sbrk(0) == old + grow);
	for (int off = 0; off < grow; off += PGSIZE)
		p[off] = (char)off;
	for (int off = 0; off < grow; off += PGSIZE)
		if (p[off] != (char)(off))
			fail(__FILE__, __LINE__, "heap byte at %p changed", p + off);
	f1 = freepages();
	if (f1 + grow / PGSIZE > f0)
		fail(__FILE__, __LINE__, "freepages %u -> %u after touching %d pages", f0, f1, grow / PGSIZE);

	CHECK(sbrk(-grow) == old + grow);
	CHECK(sbrk(0) == old);
	f2 = freepages_settled(f0);
	/* A page table or two may stay behind; the data pages must not. */
	if (f2 + 4 < f0)
		fail(__FILE__, __LINE__, "freepages %u before, %u after shrinking back", f0, f2);

	/* Odd sizes are fine; the break moves by exactly that much. */
	CHECK(sbrk(1) == old);
	CHECK(sbrk(PGSIZE - 1) == old + 1);
	CHECK(sbrk(0) == old + PGSIZE);
	old[PGSIZE - 1] = 1;
	CHECK(sbrk(-PGSIZE) == old + PGSIZE);

	/* Past the limit: ENOMEM, and the break stays put. */
	CHECK(sbrk(USER_HEAP_MAX + PGSIZE) == (void *)-1 && errno == ENOMEM);
	CHECK(sbrk(0x7FFFFFFF) == (void *)-1 && errno == ENOMEM);
	CHECK(sbrk(0) == old);
	/* Below where the heap started: an error of some kind. */
	CHECK(sbrk(-(int)(USER_HEAP_MAX * 2)) == (void *)-1);
	CHECK(sbrk(0) == old);
}

void t_sbrkfault(void)
{
	char *p = sbrk(4 * PGSIZE);
	int fd;

	CHECK(p != (char *)-1);
	for (int i = 0; i < 4; i++)
		p[i * PGSIZE] = 1;
	CHECK(sbrk(-4 * PGSIZE) == p + 4 * PGSIZE);
	/* The kernel no longer lets us use the page ... */
	CHECK((fd = open("/dev/null", O_WRONLY)) >= 0);
	CHECK_ERR(write(fd, p + PGSIZE, 1), EFAULT);
	/* ... nor may the program itself: this must kill it (status 139). */
	p[PGSIZE] = 2;
	fail(__FILE__, __LINE__, "writing to freed heap at %p did not fault", p + PGSIZE);
}

static unsigned rng_state = 12345;

static unsigned rnd(void)
{
	rng_state = rng_state * 1103515245 + 12345;
	return rng_state >> 8;
}

void t_malloc(void)
{
	enum { N = 300 };
	static char *p[N];
	static unsigned sz[N];
	char *brk0 = 0;
	char *big;
	int *z;

	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < N; i++) {
			sz[i] = rnd() % 8 == 0 ? rnd() % 40000 + 1 : rnd() % 300 + 1;
			CHECK((p[i] = malloc(sz[i])) != 0);
			CHECK(((uintptr_t)p[i] & 7) == 0);
			memset(p[i], i, sz[i]);
		}
		/* Free every other block, then grow the rest with realloc. */
		for (int i = 0; i < N; i += 2) {
			free(p[i]);
			p[i] = 0;
		}
		for (int i = 1; i < N; i += 2) {
			char *q = realloc(p[i], sz[i] * 2 + 10);
			CHECK(q != 0);
			for (unsigned k = 0; k < sz[i]; k++)
				if (q[k] != (char)i)
					fail(__FILE__, __LINE__, "block %d byte %u changed by realloc", i, k);
			p[i] = q;
			sz[i] = sz[i] * 2 + 10;
			memset(p[i], i, sz[i]);
		}
		/* No block was overwritten by another. */
		for (int i = 1; i < N; i += 2)
			for (unsigned k = 0; k < sz[i]; k++)
				if (p[i][k] != (char)i)
					fail(__FILE__, __LINE__, "block %d byte %u overwritten", i, k);
		for (int i = 1; i < N; i += 2)
			free(p[i]);
		/* Each round reuses what the last freed: the heap must not creep. */
		if (round == 0)
			brk0 = sbrk(0);
		else if ((char *)sbrk(0) > brk0 + (1 << 20))
			fail(__FILE__, __LINE__, "heap grew from %p to %p over the rounds", brk0, sbrk(0));
	}

	CHECK((z = calloc(1000, sizeof(int))) != 0);
	for (int i = 0; i < 1000; i++)
		CHECK(z[i] == 0);
	free(z);
	CHECK(calloc(0x10000, 0x10000) == 0);
	CHECK(malloc(USER_HEAP_MAX * 2) == 0 && errno == ENOMEM);

	/* A big block is handed back to the kernel when freed. */
	brk0 = sbrk(0);
	CHECK((big = malloc(4 << 20)) != 0);
	memset(big, 1, 4 << 20);
	free(big);
	if ((char *)sbrk(0) > brk0 + (256 << 10))
		fail(__FILE__, __LINE__, "break %p after freeing 4 MB, was %p", sbrk(0), brk0);
}

/* The heap may not grow into the stack below USER_TOP: that would map over
 * live stack pages (and once lost the pages that were there). */
void t_sbrkstack(void)
{
	char *brk = sbrk(0);
	unsigned gap = (USER_TOP - USER_STACK_SIZE) - (unsigned)brk;
	volatile char marker = 42;

	CHECK_ERR((int)sbrk(USER_TOP - (unsigned)brk), ENOMEM);
	CHECK_ERR((int)sbrk(gap + PGSIZE), ENOMEM);
	CHECK(sbrk(0) == brk && marker == 42);
}

/* A user program that leaves the direction flag set must not confuse the
 * kernel's string copies (the kernel clears it on every entry). */
void t_dirflag(void)
{
	static const char msg[] = "dirflag ok\n";
	int r;

	__asm__ volatile("std\n\tint $0x80\n\tcld"
			 : "=a"(r)
			 : "a"(SYS_write), "b"(1), "c"(msg), "d"(sizeof msg - 1)
			 : "memory", "cc");
	CHECK(r == (int)sizeof msg - 1);
}
