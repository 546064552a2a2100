/* test_export.c: --format readprofile, checked with the real util-linux
 * readprofile(8): its per-function counts must equal kprof's, at res 0 and
 * at res > 0 where bins straddle symbols. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static const char *readprofile(void)
{
	static const char *where[] = { "/usr/sbin/readprofile", "/sbin/readprofile",
				       "/usr/bin/readprofile" };

	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	fail_msg("readprofile not found: apt-get install util-linux");
	return NULL;
}

struct rp {
	char name[128];
	unsigned long n;
};

/* readprofile's rows: "count name per-byte", then "*unknown*" and "total" */
static int parse_readprofile(const char *out, struct rp *rows, int max,
			     unsigned long *unknown, unsigned long *total)
{
	const char *p = out;
	int n = 0;

	*unknown = *total = ~0ul;
	while (*p) {
		struct rp row;

		if (sscanf(p, "%lu %127s", &row.n, row.name) == 2) {
			if (strcmp(row.name, "*unknown*") == 0)
				*unknown = row.n;
			else if (strcmp(row.name, "total") == 0)
				*total = row.n;
			else if (n < max)
				rows[n++] = row;
		}
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		p++;
	}
	return n;
}

static void compare(const char *dir, unsigned res)
{
	const char *out = path_in(dir, "rp");
	struct prow k[64];
	struct rp rp[64];
	unsigned long unknown, total, sum = 0, kunknown = 0;
	unsigned int head[2];
	struct run r;
	int nk, nr, named = 0;
	FILE *f;

	run_kprof(&r, fixture("fixture.elf"), path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	nk = parse_rows(r.out, k, 64);
	run_free(&r);
	assert_true(nk >= 2);

	run_kprof(&r, "--format", "readprofile", "-o", out, fixture("fixture.elf"),
		  path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "readprofile -p"));
	run_free(&r);

	/* the Linux layout: native step word, then the bins, then *unknown* */
	f = fopen(path_in(out, "profile"), "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, sizeof head[0], 2, f), 2);
	fseek(f, 0, SEEK_END);
	assert_int_equal(ftell(f), 4 * (fx_nbins(res) + 2));
	fclose(f);
	assert_int_equal(head[0], 1u << res);

	const char *argv[] = { readprofile(), "-p", path_in(out, "profile"), "-m",
			       path_in(out, "System.map"), NULL };
	run_cmd(&r, argv);
	if (r.status != 0)
		fail_msg("readprofile: %d %s", r.status, r.err);
	nr = parse_readprofile(r.out, rp, 64, &unknown, &total);
	run_free(&r);

	/* every kprof symbol row is a readprofile row with the same count */
	for (int i = 0; i < nk; i++) {
		int found = 0;

		if (k[i].name[0] == '<') {
			kunknown += k[i].samples;
			continue;
		}
		named++;
		sum += k[i].samples;
		for (int j = 0; j < nr; j++)
			if (strcmp(rp[j].name, k[i].name) == 0) {
				if (rp[j].n != k[i].samples)
					fail_msg("res %u %s: kprof %lu, readprofile %lu", res, k[i].name,
						 k[i].samples, rp[j].n);
				found = 1;
			}
		if (!found)
			fail_msg("res %u: readprofile has no %s", res, k[i].name);
	}
	assert_int_equal(nr, named);            /* and no others */
	assert_int_equal(total, sum);
	assert_int_equal(unknown, kunknown);
}

/* res 0: the first and last byte of functions, the gap, a NOTYPE label */
static void export_res0(void **state)
{
	const char *dir = tmp_path("rp0");
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins), ts = fx()->ts, k = 0;

	(void)state;
	bins[0] = 3;                                            /* helper's first byte */
	bins[sym("spin_a") - 1 - ts] = 4;                       /* helper's last byte */
	bins[sym("spin_a") - ts] = 5;
	bins[sym("spin_b") - 1 - ts] = 6;
	bins[sym("spin_b") - ts] = 7;
	bins[sym("spin_c") + sym_size("spin_c") - ts] = 8;      /* the gap: unknown */
	bins[sym("far_fn") - ts] = 9;
	bins[sym("asm_stub") + 2 - ts] = 10;
	bins[n - 1] = 11;                                       /* _start's last byte */
	for (size_t i = 0; i < n; i++)
		k += bins[i];
	write_dump(dir, 0, k + 50, k + 2, bins, n, NULL);
	free(bins);
	compare(dir, 0);
}

/* res > 0: every bin counted, so each straddling bin is tested */
static void export_res_straddling(void **state)
{
	static const unsigned res[] = { 1, 2, 3, 5, 8 };

	(void)state;
	for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
		char name[16];
		size_t n = fx_nbins(res[i]);
		uint32_t *bins = calloc(n, sizeof *bins), k = 0;

		for (size_t b = 0; b < n; b++)
			k += bins[b] = (uint32_t)(b % 7 + 1);
		snprintf(name, sizeof name, "rp%u", res[i]);
		write_dump(tmp_path(name), res[i], k, k, bins, n, NULL);
		free(bins);
		compare(tmp_path(name), res[i]);
	}
}

int test_export_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(export_res0),
		cmocka_unit_test(export_res_straddling),
	};

	return cmocka_run_group_tests_name("kprof-readprofile", tests, NULL, NULL);
}
