/* usertests: the kernel's system-call regression tests, in the manner of
 * xv6's. Each test runs in a child ("usertests -child NAME", as there is no
 * fork) and its exit status is the verdict; the free-page count before and
 * after the whole run catches leaks. "usertests NAME..." runs only those. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "usertests.h"

#define TEST_TIMEOUT_MS 60000

static const struct test {
	void (*fn)(void);
	const char *name;
	int expect;             /* exit status that means it passed */
} tests[] = {
	{ t_badptr_write, "badptr_write", 0 },
	{ t_badptr_read, "badptr_read", 0 },
	{ t_badptr_path, "badptr_path", 0 },
	{ t_badptr_stat, "badptr_stat", 0 },
	{ t_badptr_spawn, "badptr_spawn", 0 },
	{ t_badptr_wait, "badptr_wait", 0 },
	{ t_nosys, "nosys", 0 },
	{ t_exitstatus, "exitstatus", 0 },
	{ t_faultchild, "faultchild", 0 },
	{ t_killchild, "killchild", 0 },
	{ t_manyproc, "manyproc", 0 },
	{ t_args, "args", 0 },
	{ t_sleep, "sleep", 0 },
	{ t_sbrk, "sbrk", 0 },
	{ t_sbrkfault, "sbrkfault", WSTATUS_FAULT },
	{ t_malloc, "malloc", 0 },
	{ t_files, "files", 0 },
	{ t_bigfile, "bigfile", 0 },
	{ t_dirs, "dirs", 0 },
	{ t_cwd, "cwd", 0 },
	{ t_dup2, "dup2", 0 },
	{ t_fdmap, "fdmap", 0 },
	{ t_rofs, "rofs", 0 },
	{ t_badfd, "badfd", 0 },
	{ t_badelf, "badelf", 0 },
	{ t_spawnbomb, "spawnbomb", 0 },
	{ t_kwork, "kwork", 0 },
	{ t_kpdata, "kpdata", 0 },
	{ t_sbrkstack, "sbrkstack", 0 },
	{ t_dirflag, "dirflag", 0 },
};

#define NTESTS (int)(sizeof(tests) / sizeof(tests[0]))

const char *testname = "?";

void fail(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(2, "usertests: %s: %s:%d: %s\n", testname, file, line, msg);
	exit(1);
}

int helper(const char *name, const char *arg)
{
	char *argv[] = { "usertests", "-helper", (char *)name, (char *)arg, 0 };
	int pid = spawn("/bin/usertests", argv, 0);

	if (pid < 0)
		fail(__FILE__, __LINE__, "spawn helper %s: %s", name, strerror(errno));
	return pid;
}

int reap(int pid)
{
	int status, r = wait(pid, &status, 0);

	if (r != pid)
		fail(__FILE__, __LINE__, "wait(%d) = %d: %s", pid, r, strerror(errno));
	return status;
}

unsigned freepages(void)
{
	return sysstat_get("freepages", 0);
}

/* The kernel may free some pages just after wait returns (a dead process's
 * last pages): give it a moment before calling it a leak. */
unsigned freepages_settled(unsigned want)
{
	unsigned f = freepages();

	for (int i = 0; i < 20 && f < want; i++) {
		sleep(10);
		f = freepages();
	}
	return f;
}

void makefile(const char *path, const void *data, unsigned n)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC);

	if (fd < 0)
		fail(__FILE__, __LINE__, "create %s: %s", path, strerror(errno));
	if (writeall(fd, data, n) != (int)n)
		fail(__FILE__, __LINE__, "write %s: %s", path, strerror(errno));
	close(fd);
}

char *lastpage(void)
{
	uintptr_t brk = (uintptr_t)sbrk(0);
	char *p;

	if (brk % PGSIZE)
		sbrk(PGSIZE - brk % PGSIZE);
	p = sbrk(PGSIZE);
	if (p == (char *)-1)
		fail(__FILE__, __LINE__, "sbrk: %s", strerror(errno));
	return p;
}

static const struct test *find(const char *name)
{
	for (int i = 0; i < NTESTS; i++)
		if (strcmp(tests[i].name, name) == 0)
			return &tests[i];
	return 0;
}

/* Runs one test in a child; returns 1 if it passed. */
static int run(const struct test *t)
{
	char *argv[] = { "usertests", "-child", (char *)t->name, 0 };
	unsigned start = uptime(), limit = ms_to_ticks(TEST_TIMEOUT_MS);
	int pid, r, status;

	if ((pid = spawn("/bin/usertests", argv, 0)) < 0) {
		printf("test %s: FAILED (spawn: %s)\n", t->name, strerror(errno));
		return 0;
	}
	/* Poll, so that a test that hangs is killed and reported, not waited
	 * for until the harness gives up on the whole run. */
	while ((r = wait(pid, &status, WNOHANG)) == 0) {
		if (uptime() - start > limit) {
			kill(pid);
			wait(pid, &status, 0);
			printf("test %s: FAILED (timed out after %d ms)\n", t->name, TEST_TIMEOUT_MS);
			return 0;
		}
		sleep(5);
	}
	if (r != pid) {
		printf("test %s: FAILED (wait: %s)\n", t->name, strerror(errno));
		return 0;
	}
	if (status != t->expect) {
		printf("test %s: FAILED (exit status %d, want %d)\n", t->name, status, t->expect);
		return 0;
	}
	printf("test %s: OK\n", t->name);
	return 1;
}

/* Things the kernel allocates once, on first use, are not leaks: make it
 * allocate them before the first count. */
static void warmup(void)
{
	int pid = helper("exit", "0");

	char info[512];
	int fd, n = 0;

	reap(pid);
	makefile("/tmp/ut_warmup", "x", 1);
	unlink("/tmp/ut_warmup");
	/* devkprof keeps its counter buffer from the first start on (the kpdata
	 * test starts it); a start and stop makes it now, unless it is on */
	if ((fd = open("/dev/kpinfo", O_RDONLY)) >= 0) {
		n = read(fd, info, sizeof info - 1);
		close(fd);
	}
	info[n > 0 ? n : 0] = 0;
	if (strstr(info, "\nstate off") && (fd = open("/dev/kpctl", O_WRONLY)) >= 0) {
		write(fd, "start", 5);
		write(fd, "stop", 4);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	const struct test *t;
	unsigned before, after;
	int failed = 0;

	/* Started without arguments by a confused spawn: running the whole
	 * suite here would spawn itself without end. */
	if (argc < 1)
		return 2;
	if (argc == 3 && strcmp(argv[1], "-child") == 0) {
		if ((t = find(argv[2])) == 0) {
			fprintf(2, "usertests: no test %s\n", argv[2]);
			return 1;
		}
		testname = t->name;
		t->fn();
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "-helper") == 0)
		return run_helper(argc - 2, argv + 2);

	for (int i = 1; i < argc; i++) {
		if (find(argv[i]) == 0) {
			fprintf(2, "usertests: no test %s\nusage: usertests [NAME...]\ntests:", argv[i]);
			for (int k = 0; k < NTESTS; k++)
				fprintf(2, " %s", tests[k].name);
			fprintf(2, "\n");
			return 1;
		}
	}

	printf("usertests starting\n");
	warmup();
	if ((before = freepages()) == 0) {
		printf("usertests: no freepages in /dev/sysstat\n");
		failed++;
	}
	for (int i = 0; i < NTESTS; i++) {
		int wanted = argc == 1;
		for (int k = 1; k < argc; k++)
			wanted |= strcmp(argv[k], tests[i].name) == 0;
		if (wanted && !run(&tests[i]))
			failed++;
	}
	after = freepages_settled(before);
	if (after < before) {
		printf("test leaks: FAILED (freepages %u before, %u after: %u pages lost)\n",
			before, after, before - after);
		failed++;
	} else {
		printf("test leaks: OK (freepages %u before, %u after)\n", before, after);
	}
	if (failed) {
		printf("SOME TESTS FAILED\n");
		return 1;
	}
	printf("ALL TESTS PASSED\n");
	return 0;
}
