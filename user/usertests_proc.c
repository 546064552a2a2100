/* usertests: processes. spawn and wait, exit statuses, children that
 * fault or are killed, many children, a spawn bomb, bad executables, and
 * the helpers those tests run ("usertests -helper NAME ARG"). */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"
#include "usertests.h"

#define WILD (USER_LINK + 0x20000000)

/* Deep enough to need far more than the 64 KiB stack. */
static unsigned recurse(unsigned n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	if (n > 1000000)
		return 0;
	return recurse(n + 1) + pad[0];
}

/* The helpers. argv[0] is the helper's name. Those meant to die return 1
 * if they get back to main at all. */
int run_helper(int argc, char **argv)
{
	const char *name = argv[0];
	uintptr_t addr = argc > 1 ? strtoul(argv[1], 0, 0) : 0;

	if (strcmp(name, "exit") == 0 && argc == 2)
		exit(atoi(argv[1]));
	if (strcmp(name, "sleep") == 0 && argc == 2)
		return sleep(atoi(argv[1])) < 0;
	if (strcmp(name, "pid") == 0)
		return getpid() & 0xff;
	if (strcmp(name, "spin") == 0)
		for (volatile unsigned i = 0;; i++)
			;
	if (strcmp(name, "write") == 0)
		*(volatile uint32_t *)addr = 1;
	else if (strcmp(name, "read") == 0)
		return *(volatile uint32_t *)addr == 0x12345678;
	else if (strcmp(name, "jump") == 0)
		((void (*)(void))addr)();
	else if (strcmp(name, "divzero") == 0)
		/* In asm: the compiler may turn a C division by zero into no trap. */
		asm volatile("divl %0" : : "r"(0), "a"(1), "d"(0));
	else if (strcmp(name, "ud2") == 0)
		asm volatile("ud2");
	else if (strcmp(name, "cli") == 0)
		asm volatile("cli");             /* IOPL 0: #GP in user mode */
	else if (strcmp(name, "int") == 0)
		asm volatile("int $0x20");       /* the timer's gate is not for users */
	else if (strcmp(name, "stack") == 0)
		return recurse(0) == 0;          /* runs off the 64 KiB stack */
	else if (strcmp(name, "args") == 0) {
		/* argv[i] must be i - 1 'x's; the status is how many there were. */
		for (int i = 1; i < argc; i++) {
			if ((int)strlen(argv[i]) != i - 1)
				return 100 + i;
			for (int k = 0; k < i - 1; k++)
				if (argv[i][k] != 'x')
					return 100 + i;
		}
		return argc - 1;
	} else if (strcmp(name, "arglen") == 0 && argc == 3)
		return (int)strlen(argv[2]) != atoi(argv[1]);
	else {
		fprintf(2, "usertests: no helper %s\n", name);
		return 2;
	}
	return 1;
}

void t_exitstatus(void)
{
	static const struct { const char *arg; int want; } cases[] = {
		{ "0", 0 }, { "1", 1 }, { "42", 42 }, { "255", 255 }, { "263", 7 }, { "-1", 255 },
	};
	int pid, status;

	for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		int st = reap(helper("exit", cases[i].arg));
		if (st != cases[i].want)
			fail(__FILE__, __LINE__, "exit(%s): status %d, want %d", cases[i].arg, st, cases[i].want);
	}
	pid = helper("pid", 0);
	CHECK(reap(pid) == (pid & 0xff));

	/* WNOHANG: 0 while the child runs, then the real thing. */
	pid = helper("sleep", "300");
	CHECK(wait(pid, &status, WNOHANG) == 0);
	CHECK(wait(-1, &status, WNOHANG) == 0);
	CHECK(reap(pid) == 0);

	/* Not our children, or none at all. */
	CHECK_ERR(wait(pid, &status, 0), ECHILD);
	CHECK_ERR(wait(99999, &status, 0), ECHILD);
	CHECK_ERR(wait(1, &status, 0), ECHILD);
	CHECK_ERR(wait(-1, &status, 0), ECHILD);
	CHECK_ERR(wait(-1, &status, WNOHANG), ECHILD);
}

void t_faultchild(void)
{
	char wild[16], kern[16];
	static const struct { const char *name, *arg; } cases[] = {
		{ "write", "0" }, { "write", "kernel" }, { "write", "wild" },
		{ "read", "kernel" }, { "read", "0" }, { "jump", "kernel" }, { "jump", "wild" },
		{ "divzero", 0 }, { "ud2", 0 }, { "cli", 0 }, { "int", 0 }, { "stack", 0 },
	};

	snprintf(wild, sizeof(wild), "0x%x", WILD);
	snprintf(kern, sizeof(kern), "0x%x", KERN_LINK);
	for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		const char *arg = cases[i].arg && strcmp(cases[i].arg, "wild") == 0 ? wild :
				  cases[i].arg && strcmp(cases[i].arg, "kernel") == 0 ? kern : cases[i].arg;
		int st = reap(helper(cases[i].name, arg));
		if (st != WSTATUS_FAULT)
			fail(__FILE__, __LINE__, "helper %s %s: status %d, want %d", cases[i].name,
				arg ? arg : "", st, WSTATUS_FAULT);
	}
	/* And we carry on. */
	CHECK(reap(helper("exit", "0")) == 0);
}

void t_killchild(void)
{
	unsigned t0;
	int pid, status;

	/* A child busy in user mode. */
	pid = helper("spin", 0);
	sleep(50);
	CHECK(kill(pid) == 0);
	CHECK(reap(pid) == WSTATUS_KILLED);

	/* A sleeping child is woken to die, not left until its sleep ends. */
	pid = helper("sleep", "100000");
	sleep(20);
	t0 = uptime();
	CHECK(kill(pid) == 0);
	CHECK(reap(pid) == WSTATUS_KILLED);
	if (uptime() - t0 > ms_to_ticks(2000))
		fail(__FILE__, __LINE__, "killing a sleeper took %u ticks", uptime() - t0);

	/* No such process, or one already gone; never the first shell. */
	CHECK_ERR(kill(1), EPERM);
	CHECK_ERR(kill(99999), ESRCH);
	CHECK_ERR(kill(pid), ESRCH);
	CHECK_ERR(wait(-1, &status, 0), ECHILD);
}

void t_manyproc(void)
{
	enum { N = 20 };
	int pids[N], status;

	for (int i = 0; i < N; i++)
		pids[i] = helper("sleep", "100");
	for (int i = 0; i < N; i++) {
		int pid = wait(-1, &status, 0);
		int k;
		for (k = 0; k < N && pids[k] != pid; k++)
			;
		if (k == N)
			fail(__FILE__, __LINE__, "wait returned %d, not one of ours (errno %d)", pid, errno);
		pids[k] = 0;
		CHECK(status == 0);
	}
	CHECK_ERR(wait(-1, &status, 0), ECHILD);
}

void t_spawnbomb(void)
{
	static int pids[NPROC + 1];
	char *argv[] = { "usertests", "-helper", "sleep", "30000", 0 };
	unsigned f0, f1;
	int n = 0, pid, err = 0, status;

	f0 = freepages();
	/* Fill the process table; the kernel must say EAGAIN, not fall over. */
	while (n <= NPROC) {
		pid = spawn("/bin/usertests", argv, 0);
		if (pid < 0) {
			err = errno;
			break;
		}
		pids[n++] = pid;
	}
	for (int i = 0; i < n; i++)
		kill(pids[i]);
	for (int i = 0; i < n; i++) {
		if (wait(pids[i], &status, 0) != pids[i] || status != WSTATUS_KILLED)
			fail(__FILE__, __LINE__, "child %d: status %d (errno %d)", pids[i], status, errno);
	}
	if (n > NPROC || err != EAGAIN)
		fail(__FILE__, __LINE__, "%d spawns, then errno %d; want EAGAIN before %d", n, err, NPROC);
	if (n < NPROC / 2)
		fail(__FILE__, __LINE__, "only %d spawns before EAGAIN", n);
	f1 = freepages_settled(f0);
	if (f1 < f0)
		fail(__FILE__, __LINE__, "freepages %u before, %u after %d children: leak", f0, f1, n);
	/* The table has room again. */
	CHECK(reap(helper("exit", "0")) == 0);
}

/* Reads a whole file into a malloc'd buffer. */
static char *slurp(const char *path, int *size)
{
	struct stat st;
	char *buf;
	int fd;

	CHECK(stat(path, &st) == 0);
	CHECK((buf = malloc(st.size)) != 0);
	CHECK((fd = open(path, O_RDONLY)) >= 0);
	CHECK(read(fd, buf, st.size) == (int)st.size);
	close(fd);
	*size = st.size;
	return buf;
}

static void expect_noexec(const char *what, const void *data, int n)
{
	char *argv[] = { "ut_bad", 0 };

	makefile("/tmp/ut_bad", data, n);
	if (spawn("/tmp/ut_bad", argv, 0) != -1 || errno != ENOEXEC)
		fail(__FILE__, __LINE__, "spawn of %s: want ENOEXEC, errno %d", what, errno);
	CHECK(unlink("/tmp/ut_bad") == 0);
}

void t_badelf(void)
{
	char garbage[1000];
	char *elf, *copy;
	int size, status;
	uint32_t phoff;

	for (int i = 0; i < (int)sizeof(garbage); i++)
		garbage[i] = (char)(i * 13 + 5);
	expect_noexec("garbage", garbage, sizeof(garbage));
	expect_noexec("an empty file", "", 0);

	elf = slurp("/bin/echo", &size);
	CHECK(size > 200 && memcmp(elf, "\177ELF", 4) == 0);
	expect_noexec("the first 200 bytes of /bin/echo", elf, 200);
	expect_noexec("the ELF header alone", elf, 52);
	CHECK((copy = malloc(size)) != 0);

	memcpy(copy, elf, size);
	copy[4] = 2;                            /* ELFCLASS64 */
	expect_noexec("a 64-bit ELF", copy, size);

	memcpy(copy, elf, size);
	copy[18] = 62;                          /* e_machine: x86-64 */
	expect_noexec("an x86-64 ELF", copy, size);

	/* A segment that asks to be loaded into the kernel. */
	memcpy(copy, elf, size);
	memcpy(&phoff, copy + 28, 4);
	CHECK(phoff + 32 <= (uint32_t)size);
	*(uint32_t *)(copy + phoff + 8) = KERN_LINK;    /* p_vaddr */
	expect_noexec("an ELF loaded at KERN_LINK", copy, size);

	/* A segment that runs past the end of the file. */
	memcpy(copy, elf, size);
	*(uint32_t *)(copy + phoff + 16) = size * 4;    /* p_filesz */
	*(uint32_t *)(copy + phoff + 20) = size * 4;    /* p_memsz */
	expect_noexec("an ELF with p_filesz past the end", copy, size);

	/* A directory is not a program either (whatever the error). */
	{
		char *argv[] = { "tmp", 0 };
		CHECK(spawn("/tmp", argv, 0) == -1);
	}

	/* The good copy still runs, and nothing was left half-made. */
	memcpy(copy, elf, size);
	makefile("/tmp/ut_echo", copy, size);
	{
		/* -n and no words: echo writes nothing to its closed fds. */
		char *argv[] = { "echo", "-n", 0 };
		int map[3] = { -1, -1, -1 };
		CHECK(reap(spawn("/tmp/ut_echo", argv, map)) == 0);
	}
	CHECK(unlink("/tmp/ut_echo") == 0);
	CHECK_ERR(wait(-1, &status, 0), ECHILD);
	free(copy);
	free(elf);
}

void t_args(void)
{
	char *argv[SPAWN_MAXARGS + 16];
	char xs[SPAWN_MAXARGS + 16];
	char *big;
	int n;

	memset(xs, 'x', sizeof(xs));
	/* argv[3 + j] holds j 'x's: the helper checks each one. */
	argv[0] = "usertests";
	argv[1] = "-helper";
	argv[2] = "args";
	for (n = 0; n < 5; n++)
		argv[3 + n] = xs + sizeof(xs) - 1 - n;
	xs[sizeof(xs) - 1] = 0;
	argv[3 + n] = 0;
	CHECK(reap(spawn("/bin/usertests", argv, 0)) == 5);

	/* Too many arguments. */
	for (n = 0; n < SPAWN_MAXARGS + 8; n++)
		argv[3 + n] = "x";
	argv[3 + n] = 0;
	CHECK_ERR(spawn("/bin/usertests", argv, 0), E2BIG);

	/* A long argument is fine; one longer than all of SPAWN_ARGMAX is not. */
	CHECK((big = malloc(SPAWN_ARGMAX + 16)) != 0);
	memset(big, 'y', 1000);
	big[1000] = 0;
	argv[2] = "arglen";
	argv[3] = "1000";
	argv[4] = big;
	argv[5] = 0;
	CHECK(reap(spawn("/bin/usertests", argv, 0)) == 0);
	memset(big, 'y', SPAWN_ARGMAX + 10);
	big[SPAWN_ARGMAX + 10] = 0;
	CHECK_ERR(spawn("/bin/usertests", argv, 0), E2BIG);
	free(big);
}

void t_sleep(void)
{
	unsigned t0, el;

	CHECK(sleep(0) == 0);
	t0 = uptime();
	CHECK(sleep(100) == 0);
	el = uptime() - t0;
	/* One tick of slack for where in a tick the sleep began. */
	if (el + 1 < ms_to_ticks(100) || el > ms_to_ticks(5000))
		fail(__FILE__, __LINE__, "sleep(100) took %u ticks, want about %u", el, ms_to_ticks(100));
	/* Time moves on by itself too. */
	t0 = uptime();
	for (volatile int i = 0; i < 1000000 && uptime() == t0; i++)
		;
	CHECK(uptime() != t0);
}

void t_kwork(void)
{
	CHECK(kwork(KWORK_LOOP, 10000) >= 0);
	CHECK(kwork(KWORK_CLI, 10000) >= 0);
	CHECK(kwork(KWORK_COPY, 4) >= 0);
	CHECK(kwork(KWORK_COPY, 0) >= 0);
	CHECK_ERR(kwork(KWORK_CLI, KWORK_CLI_MAX + 1), EINVAL);
	CHECK_ERR(kwork(99, 1), EINVAL);
	CHECK_ERR(kwork(-1, 1), EINVAL);
}

/* /dev/kpdata and /dev/kpctl from the system-call side: reads at offsets
 * that are not a multiple of 4 fail, the header words are consistent, and
 * kpctl takes one command per write, copied in with its length. */
void t_kpdata(void)
{
	unsigned char hdr[8], buf[12];
	struct stat st;
	unsigned total, kernel;
	int fd, ctl;

	CHECK((ctl = open("/dev/kpctl", O_WRONLY)) >= 0);
	CHECK(write(ctl, "startclr", 8) == 8);
	CHECK(kwork(KWORK_LOOP, 3000000) >= 0);
	CHECK(write(ctl, "stop\n", 5) == 5);
	CHECK_ERR(write(ctl, "", 0), EINVAL);
	CHECK_ERR(write(ctl, "stop\n\n", 6), EINVAL);
	CHECK_ERR(write(ctl, "st\0p", 4), EINVAL);
	CHECK_ERR(write(ctl, (char *)0x100000, 4), EFAULT);        /* kernel address */
	CHECK_ERR(write(ctl, (char *)(USER_TOP - 2), 4), EFAULT);  /* runs off the end */
	CHECK(close(ctl) == 0);

	CHECK((fd = open("/dev/kpdata", O_RDONLY)) >= 0);
	CHECK(fstat(fd, &st) == 0 && st.size >= 8 && st.size % 4 == 0);
	CHECK(read(fd, hdr, 8) == 8);
	total = (unsigned)hdr[0] << 24 | hdr[1] << 16 | hdr[2] << 8 | hdr[3];
	kernel = (unsigned)hdr[4] << 24 | hdr[5] << 16 | hdr[6] << 8 | hdr[7];
	CHECK(total >= kernel && kernel > 0);
	CHECK(lseek(fd, 2, SEEK_SET) == 2);
	CHECK_ERR(read(fd, buf, 4), EINVAL);
	CHECK(lseek(fd, 4, SEEK_SET) == 4);
	CHECK(read(fd, buf, 4) == 4 && memcmp(buf, hdr + 4, 4) == 0);
	CHECK(lseek(fd, 0, SEEK_END) == (int)st.size);
	CHECK(read(fd, buf, 4) == 0);
	CHECK(close(fd) == 0);
}
