/* A glibc program, built by the ordinary cross compiler (static), that
 * runs on this kernel through the Linux system-call interface
 * (kernel/linux.c). It prints the same on Linux as here, so the test
 * (tests/qemu/test_linux.py) compares the two.
 *
 *   hello            printf, malloc, a file in /tmp, floating point; exit 3
 *   hello abort      abort(): killed by SIGABRT, wait status 134
 *   hello enosys     a call the kernel lacks: ENOSYS, asked twice
 *   hello args A B   argv, environment and auxv
 *   hello stack      2 MiB of stack, past what spawn maps (it grows)
 *   hello dir        the names in /bin that start with "hello"
 *   hello tty        whether stdout is a terminal
 *   hello random     getrandom's bytes, AT_RANDOM's, and the time
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread int tls_counter = 41;

static int files(void)
{
	const char *path = "/tmp/hello.txt";
	char buf[64];
	FILE *f = fopen(path, "w");
	struct stat st;
	int fd, n;

	if (!f) {
		perror("fopen");
		return 1;
	}
	fprintf(f, "line %d\n", 42);
	fclose(f);
	if (rename("/tmp/hello.tmp", path) == 0 || errno != ENOENT ||
	    rename(path, "/tmp/hello.tmp") < 0 || rename("/tmp/hello.tmp", path) < 0) {
		perror("rename");
		return 1;
	}
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		perror("stat");
		return 1;
	}
	if ((fd = open(path, O_RDONLY)) < 0) {
		perror("open");
		return 1;
	}
	n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("file: %ld bytes: %s", (long)st.st_size, buf);
	/* glibc's lseek is _llseek here */
	if (lseek(fd, 5, SEEK_SET) != 5 || read(fd, buf, 2) != 2 || memcmp(buf, "42", 2) != 0) {
		perror("lseek");
		return 1;
	}
	close(fd);
	unlink(path);
	printf("unlinked: %s\n", access(path, F_OK) < 0 && errno == ENOENT ? "yes" : "no");
	return 0;
}

/* a frame of 64 KiB a call, used, so the compiler keeps it */
static int deep(int n)
{
	volatile char frame[64 << 10];

	frame[0] = (char)n;
	frame[sizeof frame - 1] = (char)n;
	return n == 0 ? frame[0] : deep(n - 1) + frame[sizeof frame - 1] - n + 1;
}

static void dir(void)
{
	DIR *d = opendir("/bin");
	struct dirent *e;
	int n = 0;

	if (!d) {
		perror("opendir");
		return;
	}
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "hello", 5) == 0 && e->d_type == DT_REG)
			printf("dir: %s\n", e->d_name);
		else
			n++;
	closedir(d);
	printf("dir: %s others\n", n > 5 ? "and" : "no");
}

int main(int argc, char **argv)
{
	volatile double x = 2.0;
	char *big, *small;

	if (argc > 1 && strcmp(argv[1], "abort") == 0) {
		printf("aborting\n");
		fflush(stdout);
		abort();
	}
	if (argc > 1 && strcmp(argv[1], "segv") == 0) {
		printf("writing to NULL\n");
		fflush(stdout);
		*(volatile int *)0 = 1;
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "enosys") == 0) {
		/* fork is not there: the raw call, as glibc's fork uses clone */
		long r = syscall(SYS_fork);
		int e = errno;
		long r2 = syscall(SYS_fork);
		printf("fork: %ld %s, again %ld\n", r, strerror(e), r2);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "args") == 0) {
		for (int i = 0; i < argc; i++)
			printf("argv[%d] = %s\n", i, argv[i]);
		printf("PATH=%s\n", getenv("PATH") ? getenv("PATH") : "(none)");
		printf("pagesz %lu, entry %s, random %s, sse2 %s\n", getauxval(AT_PAGESZ),
		       getauxval(AT_ENTRY) ? "set" : "unset", getauxval(AT_RANDOM) ? "set" : "unset",
		       getauxval(AT_HWCAP) & (1 << 26) ? "yes" : "no");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "stack") == 0) {
		printf("stack: %d\n", deep(32));
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "dir") == 0) {
		dir();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "random") == 0) {
		unsigned char b[8], *at = (unsigned char *)getauxval(AT_RANDOM);
		struct timespec ts;
		if (getrandom(b, sizeof b, 0) != sizeof b)
			return 1;
		printf("getrandom:");
		for (size_t i = 0; i < sizeof b; i++)
			printf(" %02x", b[i]);
		printf("\nAT_RANDOM:");
		for (int i = 0; i < 16; i++)
			printf(" %02x", at[i]);
		clock_gettime(CLOCK_REALTIME, &ts);
		printf("\ntime: %lld\n", (long long)ts.tv_sec);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "tty") == 0) {
		printf("tty: %s\n", isatty(1) ? "yes" : "no");
		return 0;
	}
	printf("hello from glibc, argc %d\n", argc);
	tls_counter++;
	printf("tls %d\n", tls_counter);
	printf("sqrt(2) = %.6f\n", sqrt(x));
	small = malloc(100);
	big = malloc(1 << 20);         /* past the mmap threshold */
	if (!small || !big)
		return 1;
	memset(big, 'x', 1 << 20);
	strcpy(small, "malloc ok");
	printf("%s, big[%d] = %c\n", small, (1 << 20) - 1, big[(1 << 20) - 1]);
	/* a mapped chunk grows by mremap */
	if (!(big = realloc(big, 4 << 20)))
		return 1;
	big[(4 << 20) - 1] = 'y';
	printf("realloc: big[0] = %c, big[%d] = %c\n", big[0], (1 << 20) - 1, big[(1 << 20) - 1]);
	free(big);
	free(small);
	if (files())
		return 1;
	return 3;
}
