/* libctest: an ordinary glibc program of the project's own, built with a
 * plain `gcc -static -O2 -g ... -lm` (user/debian/debian.mk): printf's
 * conversions, malloc/realloc/calloc/free, a file written and read back
 * with stdio, qsort, strtod, libm, time(). Its output depends on nothing
 * but its arguments, so the guest's must equal the host's byte for byte
 * (tests/qemu/test_realprogs.py); time() is only checked, never printed.
 *
 * libctest [FILE]: FILE (default /tmp/libctest.dat) is written, read,
 * appended to and removed. Prints "libctest: all ok" and exits 0, or
 * names each failed check and exits 1. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;
char longer[] = "longer than eight";     /* not static: no truncation warning */

#define CHECK(cond) check((cond), #cond, __LINE__)

static void check(int ok, const char *what, int line)
{
	if (!ok) {
		printf("FAILED line %d: %s\n", line, what);
		failures++;
	}
}

/* The same pseudo-random numbers everywhere: a 32-bit LCG. */
static uint32_t seed = 12345;

static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 1;
}

static void formats(void)
{
	char buf[128];
	int n;

	printf("== printf\n");
	printf("[%d] [%5d] [%-5d] [%05d] [%+d] [%u]\n", 42, 42, 42, 42, 42, 4000000000u);
	printf("[%x] [%X] [%#x] [%o] [%#o] [%c%c]\n", 48879, 48879, 255, 8, 8, 'o', 'k');
	printf("[%lld] [%llu] [%zu] [%ld]\n", -9007199254740993LL, 18446744073709551615ULL,
	       sizeof(long long), -2147483647L - 1);
	printf("[%s] [%10s] [%-10s] [%.3s] [%%]\n", "str", "right", "left", "truncated");
	printf("[%f] [%.2f] [%e] [%.3E] [%g] [%g] [%g]\n", 3.14159265, 2.675, 123456.789,
	       0.000123456, 1e-5, 123456789.0, 0.5);
	printf("[%a] [%.1f] [%.0f] [%.0f]\n", 1.0, 0.05, 0.5, 1.5);
	n = snprintf(buf, sizeof buf, "%s-%04d-%.1f", "snprintf", 7, 9.25);
	printf("[%s] %d\n", buf, n);
	n = snprintf(buf, 8, "%s", longer);
	CHECK(n == 17 && strcmp(buf, "longer ") == 0);
	printf("[%*d] [%-*d] [%.*f]\n", 6, 12, 6, 12, 3, 2.0 / 3.0);
}

static void memory(void)
{
	enum { NBLK = 2000 };
	static unsigned char *blk[NBLK];
	static size_t len[NBLK];
	uint32_t sum = 0;
	size_t total = 0;

	printf("== malloc\n");
	for (int i = 0; i < NBLK; i++) {
		len[i] = 1 + rnd() % (i % 100 == 0 ? 200000 : 2000);
		blk[i] = malloc(len[i]);
		CHECK(blk[i] != NULL);
		if (!blk[i])
			return;
		memset(blk[i], i & 0xff, len[i]);
		total += len[i];
	}
	/* free every other one, then grow the rest with realloc */
	for (int i = 0; i < NBLK; i += 2) {
		free(blk[i]);
		blk[i] = NULL;
	}
	for (int i = 1; i < NBLK; i += 2) {
		size_t old = len[i];
		len[i] = old * 3 + 17;
		blk[i] = realloc(blk[i], len[i]);
		CHECK(blk[i] != NULL);
		if (!blk[i])
			return;
		for (size_t k = 0; k < old; k++)
			if (blk[i][k] != (i & 0xff)) {
				CHECK(!"realloc kept the contents");
				break;
			}
		memset(blk[i] + old, 0x5a, len[i] - old);
	}
	for (int i = 1; i < NBLK; i += 2) {
		for (size_t k = 0; k < len[i]; k += 97)
			sum = sum * 31 + blk[i][k];
		free(blk[i]);
	}
	unsigned *z = calloc(100000, sizeof *z);
	CHECK(z != NULL);
	if (z) {
		unsigned nz = 0;
		for (int i = 0; i < 100000; i++)
			nz += z[i] != 0;
		CHECK(nz == 0);
		free(z);
	}
	void *big = malloc(8 << 20);          /* glibc's mmap threshold: past it */
	CHECK(big != NULL);
	if (big) {
		memset(big, 1, 8 << 20);
		free(big);
	}
	printf("blocks %d, bytes %zu, checksum %08x\n", NBLK, total, (unsigned)sum);
}

static void files(const char *path)
{
	FILE *f;
	char line[256], *all;
	long size;
	size_t got;
	uint32_t h = 2166136261u;         /* FNV-1a */
	int lines = 0;

	printf("== stdio files\n");
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f) {
		printf("fopen %s: %s\n", path, strerror(errno));
		return;
	}
	for (int i = 0; i < 5000; i++)
		fprintf(f, "line %d: %08x %.3f\n", i, (unsigned)rnd(), i / 7.0);
	CHECK(fclose(f) == 0);

	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fseek(f, 0, SEEK_END) == 0);
	size = ftell(f);
	rewind(f);
	all = malloc(size + 1);
	got = fread(all, 1, size + 1, f);
	CHECK(got == (size_t)size && feof(f));
	for (size_t i = 0; i < got; i++)
		h = (h ^ (unsigned char)all[i]) * 16777619u;
	free(all);
	CHECK(fseek(f, 10, SEEK_SET) == 0 && fgets(line, sizeof line, f) != NULL);
	printf("size %ld, fnv %08x, from 10: %s", size, (unsigned)h, line);
	fclose(f);

	f = fopen(path, "a");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("appended\n", f);
	fclose(f);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		lines++;
	fclose(f);
	printf("lines %d, last %s", lines, line);
	CHECK(remove(path) == 0);
	CHECK(fopen(path, "r") == NULL && errno == ENOENT);
}

static int intcmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int strpcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void sorting(void)
{
	enum { N = 20000 };
	static int v[N];
	const char *words[] = { "pear", "apple", "fig", "banana", "cherry", "date", "kiwi",
				"apricot", "lime", "grape" };
	int sorted = 1;

	printf("== qsort\n");
	for (int i = 0; i < N; i++)
		v[i] = (int)(rnd() % 1000000) - 500000;
	qsort(v, N, sizeof v[0], intcmp);
	for (int i = 1; i < N; i++)
		sorted &= v[i - 1] <= v[i];
	CHECK(sorted);
	printf("min %d, median %d, max %d\n", v[0], v[N / 2], v[N - 1]);
	qsort(words, sizeof words / sizeof words[0], sizeof words[0], strpcmp);
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		printf("%s%s", i ? " " : "", words[i]);
	printf("\n");
	int key = v[1234], *hit = bsearch(&key, v, N, sizeof v[0], intcmp);
	CHECK(hit && *hit == key);
}

static void numbers(void)
{
	const char *in[] = { "3.14159", "  -2.5E+3", "1e-10", "0x1p-2", "6.02214076e23",
			     "inf", "12abc", "1e400", "", "0.1" };
	char *end;

	printf("== strtod\n");
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		errno = 0;
		double d = strtod(in[i], &end);
		printf("'%s' -> %.17g, rest '%s'%s\n", in[i], d, end, errno == ERANGE ? ", ERANGE" : "");
	}
	printf("strtol %ld %ld %lu\n", strtol("-0x7f", NULL, 16), strtol("0777", NULL, 0),
	       strtoul("4294967295", NULL, 10));
	printf("atoi %d, atof %.3f\n", atoi("  -123xyz"), atof("2.5e1"));
}

static void math(void)
{
	double s = 0, c = 0;

	printf("== libm\n");
	for (int i = 1; i <= 1000; i++) {
		s += sin(i * 0.001);
		c += sqrt((double)i);
	}
	/* 10 digits: QEMU's x87 is not bit-exact with the host's CPU in the last ones */
	printf("sum sin %.10g, sum sqrt %.10g\n", s, c);
	printf("pow %.10g %.10g %.10g\n", pow(2, 10), pow(2.5, 3.5), pow(10, -3));
	printf("exp %.10g log %.10g atan2 %.10g fmod %.10g\n", exp(1), log(10), atan2(1, 1) * 4,
	       fmod(10.5, 3));
	printf("floor %g ceil %g round %g trunc %g hypot %g\n", floor(-2.5), ceil(-2.5), round(2.5),
	       trunc(-2.7), hypot(3, 4));
	printf("sqrt(-1) %s, 1/0 %s\n", isnan(sqrt(-1.0)) ? "nan" : "?",
	       isinf(1.0 / (s - s)) ? "inf" : "?");
}

static void clock_check(void)
{
	time_t t0, t1, t2;

	printf("== time\n");
	t0 = time(NULL);
	t1 = time(&t2);
	CHECK(t1 == t2);
	CHECK(t1 >= t0);
	/* after 2020-01-01: the clock was set, whatever it says exactly */
	if (t0 != (time_t)-1 && t0 > 1577836800 && t1 >= t0)
		printf("time ok\n");
	else
		printf("time bad: %lld\n", (long long)t0);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/tmp/libctest.dat";

	printf("libctest\n");
	formats();
	memory();
	files(path);
	sorting();
	numbers();
	math();
	clock_check();
	if (failures) {
		printf("libctest: %d failures\n", failures);
		return 1;
	}
	printf("libctest: all ok\n");
	return 0;
}
