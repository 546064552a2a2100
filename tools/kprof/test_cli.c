/* test_cli.c: the command line, run as a subprocess (build/kprof-asan):
 * the reports' numbers and order, --top, --lines, --addr, res > 0, the
 * build-id check, and every bad input giving one line and exit status 2. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#define ELF fixture("fixture.elf")

/* the dump most tests use: known counts in several functions */
static const char *standard_dump(const char *name, const char *extra)
{
	const char *dir = tmp_path(name);
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins), ts = fx()->ts;

	bins[sym("spin_a") - ts] = 100;          /* 300 over three bins */
	bins[sym("spin_a") + 5 - ts] = 150;
	bins[sym("spin_a") + sym_size("spin_a") - 1 - ts] = 50;
	bins[sym("spin_b") - ts] = 100;
	bins[sym("helper") + 2 - ts] = 50;
	bins[sym("asm_stub") - ts] = 20;         /* ties with _start: by name */
	bins[sym("_start") + 1 - ts] = 20;
	write_dump(dir, 0, 600, 500, bins, n, extra);   /* 500 - 490: outside text */
	free(bins);
	return dir;
}

static const char *kpdata_in(const char *dir)
{
	return path_in(dir, "kpdata");
}

static void function_rows(void **state)
{
	static const struct { const char *name; unsigned long n; } want[] = {
		{ "spin_a", 300 }, { "spin_b", 100 }, { "helper", 50 }, { "_start", 20 },
		{ "asm_stub", 20 }, { "<outside text>", 10 },
	};
	struct prow rows[32];
	struct run r;
	int n;

	(void)state;
	run_kprof(&r, ELF, kpdata_in(standard_dump("fn", NULL)), NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "total          600 ticks  100.00%       0.600 s\n"));
	assert_non_null(strstr(r.out, "kernel         500 ticks   83.33%       0.500 s\n"));
	assert_non_null(strstr(r.out, "user           100 ticks   16.67%       0.100 s\n"));
	assert_non_null(strstr(r.out, "% of the 500 kernel ticks"));
	assert_null(strstr(r.out, "saturated"));
	n = parse_rows(r.out, rows, 32);
	assert_int_equal(n, 6);
	for (int i = 0; i < n; i++) {
		assert_string_equal(rows[i].name, want[i].name);
		assert_int_equal(rows[i].samples, want[i].n);
		assert_true(rows[i].ms == (double)want[i].n);             /* hz 1000 */
		assert_true(abs((int)(rows[i].pct * 100) - (int)(want[i].n * 100 * 100 / 500)) <= 1);
	}
	run_free(&r);
}

static void ms_follows_hz(void **state)
{
	struct prow rows[32];
	struct run r;

	(void)state;
	run_kprof(&r, ELF, kpdata_in(standard_dump("hz", "hz 250\nsaturated 3\n")), NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 32), 6);
	assert_string_equal(rows[0].name, "spin_a");
	assert_true(rows[0].ms == 1200.0);        /* 300 ticks at 250 Hz */
	assert_true(rows[0].pct == 60.0);
	assert_non_null(strstr(r.out, "total          600 ticks  100.00%       2.400 s\n"));
	assert_non_null(strstr(r.out, "saturated 3 samples"));
	run_free(&r);
}

static void saturation_noted(void **state)
{
	const char *dir = tmp_path("sat");
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins);
	struct prow rows[8];
	struct run r;

	(void)state;
	bins[sym("spin_c") - fx()->ts] = KPDATA_MAX;
	write_dump(dir, 0, KPDATA_MAX, KPDATA_MAX, bins, n, "saturated 12\n");
	free(bins);
	run_kprof(&r, ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "saturated 12 samples hit a full counter"));
	assert_non_null(strstr(r.out, "saturated 1 bins are full"));
	assert_int_equal(parse_rows(r.out, rows, 8), 1);
	assert_int_equal(rows[0].samples, KPDATA_MAX);
	assert_true(rows[0].pct == 100.0);
	run_free(&r);
}

static void top_limits_rows(void **state)
{
	struct prow rows[32];
	struct run r;

	(void)state;
	run_kprof(&r, "--top", "2", ELF, kpdata_in(standard_dump("top", NULL)), NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 32), 2);
	assert_string_equal(rows[0].name, "spin_a");
	assert_string_equal(rows[1].name, "spin_b");
	assert_non_null(strstr(r.out, "(4 more rows; --top 2"));
	run_free(&r);
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

static void lines_report(void **state)
{
	const char *dir = tmp_path("lines");
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins), ts = fx()->ts;
	char want[64];
	struct prow rows[32];
	struct run r;

	(void)state;
	bins[sym("spin_b") - ts] = 40;           /* function entries: their L: lines */
	bins[sym("helper") - ts] = 30;
	bins[sym("far_fn") - ts] = 20;
	write_dump(dir, 0, 90, 90, bins, n, NULL);
	free(bins);
	run_kprof(&r, "--lines", ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(parse_rows(r.out, rows, 32), 3);
	snprintf(want, sizeof want, "fixture.c:%d", source_line("spin_b"));
	assert_true(ends_with(rows[0].name, want));
	snprintf(want, sizeof want, "fixture.c:%d", source_line("helper"));
	assert_true(ends_with(rows[1].name, want));
	snprintf(want, sizeof want, "fixture.c:%d", source_line("far_fn"));
	assert_true(ends_with(rows[2].name, want));
	assert_int_equal(rows[2].samples, 20);
	run_free(&r);
}

static void addr_report(void **state)
{
	const char *dir = tmp_path("addr");
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins), ts = fx()->ts;
	char want[64];
	struct prow rows[32];
	struct run r;

	(void)state;
	bins[sym("spin_b") - ts] = 7;
	bins[sym("asm_stub") + 1 - ts] = 5;
	write_dump(dir, 0, 12, 12, bins, n, NULL);
	free(bins);
	run_kprof(&r, "--addr", ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 32), 2);
	/* name column: address, symbol+offset, instruction */
	snprintf(want, sizeof want, "%08x  spin_b+0x0", sym("spin_b"));
	assert_true(strncmp(rows[0].name, want, strlen(want)) == 0);
	assert_non_null(strstr(rows[0].name, "push ebp"));       /* -O0 prologue */
	snprintf(want, sizeof want, "%08x  asm_stub+0x1", sym("asm_stub") + 1);
	assert_true(strncmp(rows[1].name, want, strlen(want)) == 0);
	assert_non_null(strstr(rows[1].name, "nop"));
	run_free(&r);
}

/* res 4: bin 1 = [ts+0x10, ts+0x20) holds helper's last byte and spin_a's
 * first ones; it is charged to helper, whose byte is the bin's first.
 * A bin whose first byte is in a hole is charged to no symbol. */
static void res4_straddle(void **state)
{
	const char *dir = tmp_path("res4");
	size_t n = fx_nbins(4);
	uint32_t *bins = calloc(n, sizeof *bins);
	struct prow rows[32];
	struct run r;

	(void)state;
	assert_true(sym("spin_a") - fx()->ts == 0x11);
	bins[1] = 9;
	bins[2] = 4;
	write_dump(dir, 4, 13, 13, bins, n, NULL);
	free(bins);
	run_kprof(&r, ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "res 4 (16 bytes per bin)"));
	assert_int_equal(parse_rows(r.out, rows, 32), 2);
	assert_string_equal(rows[0].name, "helper");
	assert_int_equal(rows[0].samples, 9);
	assert_string_equal(rows[1].name, "spin_a");
	assert_int_equal(rows[1].samples, 4);
	run_free(&r);

	/* res 3: the bin with asm_stub's first byte starts in the hole before it */
	n = fx_nbins(3);
	bins = calloc(n, sizeof *bins);
	bins[(sym("asm_stub") - fx()->ts) >> 3] = 6;
	bins[((sym("asm_stub") - fx()->ts) >> 3) + 1] = 2;
	write_dump(dir, 3, 8, 8, bins, n, NULL);
	free(bins);
	run_kprof(&r, ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 32), 2);
	assert_string_equal(rows[0].name, "<unknown>");
	assert_int_equal(rows[0].samples, 6);
	assert_string_equal(rows[1].name, "asm_stub");
	assert_int_equal(rows[1].samples, 2);
	run_free(&r);
}

static void assert_one_error(const struct run *r, const char *expect)
{
	if (r->status != 2 || nlines(r->err) != 1 || strncmp(r->err, "kprof: ", 7) != 0 ||
	    r->out[0] != '\0' || (expect && strstr(r->err, expect) == NULL))
		fail_msg("want exit 2 and one line with '%s'; got status %d, stderr:\n%s\nstdout:\n%s",
			 expect ? expect : "", r->status, r->err, r->out);
}

static void build_id_checked(void **state)
{
	const char *dir = standard_dump("bid", "build_id 00112233aabb\n");
	struct prow rows[32];
	struct run r;

	(void)state;
	run_kprof(&r, ELF, kpdata_in(dir), NULL);
	assert_one_error(&r, "build-id mismatch");
	assert_non_null(strstr(r.err, fx()->build_id));
	assert_non_null(strstr(r.err, "00112233aabb"));
	run_free(&r);

	run_kprof(&r, "--force", ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(nlines(r.err), 1);
	assert_non_null(strstr(r.err, "kprof: warning: build-id mismatch"));
	assert_int_equal(parse_rows(r.out, rows, 32), 6);
	run_free(&r);

	/* a kernel without a build-id cannot be matched either */
	run_kprof(&r, fixture("fixture-noid.elf"), kpdata_in(standard_dump("noid", NULL)), NULL);
	assert_one_error(&r, "build-id missing: ");
	assert_non_null(strstr(r.err, "has none"));
	assert_null(strstr(r.err, "another kernel"));
	run_free(&r);
}

static void kpinfo_elsewhere(void **state)
{
	const char *dir = standard_dump("elsewhere", NULL);
	char from[4096], to[4096];
	struct run r;

	(void)state;
	snprintf(from, sizeof from, "%s/kpinfo", dir);
	snprintf(to, sizeof to, "%s", tmp_path("moved-kpinfo"));
	assert_int_equal(rename(from, to), 0);
	run_kprof(&r, ELF, kpdata_in(dir), NULL);
	assert_one_error(&r, "no kpinfo beside");
	run_free(&r);
	run_kprof(&r, "--kpinfo", to, ELF, kpdata_in(dir), NULL);
	assert_int_equal(r.status, 0);
	run_free(&r);
}

/* Each case: a dump made by `make`, then the arguments; exit 2, one line. */
static void bad_inputs(void **state)
{
	const struct fx *f = fx();
	size_t n0 = fx_nbins(0);
	uint32_t *bins = calloc(n0 + 64, sizeof *bins);
	char kpd[4200], kpi[4200], text[1024], dir[4096];
	struct run r;

	(void)state;
	snprintf(dir, sizeof dir, "%s", standard_dump("bad", NULL));
	snprintf(kpd, sizeof kpd, "%s/kpdata", dir);
	snprintf(kpi, sizeof kpi, "%s/kpinfo", dir);

	/* kpdata shorter than its header, or not whole words */
	static const size_t sizes[] = { 0, 4, 7 };
	for (size_t i = 0; i < 3; i++) {
		FILE *fp = fopen(kpd, "wb");
		fwrite("\0\0\0\1\0\0\0", 1, sizes[i], fp);
		fclose(fp);
		run_kprof(&r, ELF, kpd, NULL);
		assert_one_error(&r, "truncated");
		run_free(&r);
	}
	write_text(kpd, "0123456789");
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "not a multiple of 4");
	run_free(&r);

	/* kernel ticks above total */
	write_kpdata(kpd, 5, 6, bins, n0);
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "exceed");
	run_free(&r);

	/* kpinfo nbins disagrees with the file's size */
	write_kpdata(kpd, 5, 5, bins, n0 - 1);
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "nbins");
	run_free(&r);

	/* no nbins line, and the bins do not cover the text */
	snprintf(text, sizeof text, "text_start 0x%x\ntext_end 0x%x\nres 0\nhz 100\nbuild_id %s\n",
		 f->ts, f->te, f->build_id);
	write_text(kpi, text);
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "needs");
	run_free(&r);

	/* the text range is not inside the ELF's executable sections */
	write_kpdata(kpd, 5, 5, bins, n0 + 16);
	snprintf(text, sizeof text, "text_start 0x%x\ntext_end 0x%x\nres 0\nhz 100\nbuild_id %s\n",
		 f->ts, f->te + 16, f->build_id);
	write_text(kpi, text);
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "not inside");
	run_free(&r);
	write_kpdata(kpd, 5, 5, bins, n0);
	snprintf(text, sizeof text, "text_start 0x%x\ntext_end 0x%x\nres 0\nhz 100\nbuild_id %s\n",
		 f->ts + 0x100000, f->te + 0x100000, f->build_id);
	write_text(kpi, text);
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "not inside");
	run_free(&r);

	/* kpinfo: a key missing, a bad value, binary junk */
	snprintf(text, sizeof text, "text_start 0x%x\ntext_end 0x%x\nres 0\nbuild_id %s\n",
		 f->ts, f->te, f->build_id);
	write_text(kpi, text);
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "no hz");
	run_free(&r);
	write_text(kpi, "res 12\n");
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "bad res");
	run_free(&r);
	{
		FILE *fp = fopen(kpi, "wb");
		fwrite("hz 100\0\1\2\n", 1, 10, fp);
		fclose(fp);
	}
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "NUL");
	run_free(&r);

	/* kernels that are not ours */
	run_kprof(&r, kpi, kpd, NULL);
	assert_one_error(&r, "not an ELF");
	run_free(&r);
	run_kprof(&r, fixture("fixture64.elf"), kpd, NULL);
	assert_one_error(&r, "64-bit");
	run_free(&r);
	run_kprof(&r, fixture("fixture-stripped.elf"), kpd, NULL);
	assert_one_error(&r, "no symbol table");
	run_free(&r);
	run_kprof(&r, dir, kpd, NULL);
	assert_one_error(&r, "not a regular file");
	run_free(&r);

	/* missing files */
	run_kprof(&r, ELF, tmp_path("nonexistent/kpdata"), NULL);
	assert_one_error(&r, "No such file");
	run_free(&r);
	run_kprof(&r, tmp_path("no.elf"), kpd, NULL);
	assert_one_error(&r, "No such file");
	run_free(&r);
	run_kprof(&r, "--kpinfo", tmp_path("no-kpinfo"), ELF, kpd, NULL);
	assert_one_error(&r, "No such file");
	run_free(&r);
	run_kprof(&r, ELF, dir, NULL);
	assert_one_error(&r, "is a directory");
	run_free(&r);

	/* bad usage */
	run_kprof(&r, NULL);
	assert_one_error(&r, "usage:");
	run_free(&r);
	run_kprof(&r, ELF, NULL);
	assert_one_error(&r, "usage:");
	run_free(&r);
	run_kprof(&r, ELF, kpd, kpd, NULL);
	assert_one_error(&r, "too many");
	run_free(&r);
	run_kprof(&r, "--bogus", ELF, kpd, NULL);
	assert_one_error(&r, "unknown option --bogus");
	run_free(&r);
	run_kprof(&r, "-q", ELF, kpd, NULL);
	assert_one_error(&r, "unknown option -q");
	run_free(&r);
	run_kprof(&r, "--top", "-1", ELF, kpd, NULL);
	assert_one_error(&r, "--top");
	run_free(&r);
	run_kprof(&r, ELF, kpd, "--top", NULL);
	assert_one_error(&r, "needs a value");
	run_free(&r);
	run_kprof(&r, "--lines", "--addr", ELF, kpd, NULL);
	assert_one_error(&r, "pick one");
	run_free(&r);
	run_kprof(&r, "--format", "xml", ELF, kpd, NULL);
	assert_one_error(&r, "unknown --format");
	run_free(&r);
	run_kprof(&r, "--format", "readprofile", ELF, kpd, NULL);
	assert_one_error(&r, "needs -o");
	run_free(&r);
	run_kprof(&r, "-o", dir, ELF, kpd, NULL);
	assert_one_error(&r, "goes with --format");
	run_free(&r);
	free(bins);
}

/* Damaged inputs of every length: exit 0 or 2, never a crash or a
 * sanitizer report, never a hang (run_kprof kills after 60 s). */
static void damaged_inputs_never_crash(void **state)
{
	const char *dir = standard_dump("damaged", NULL);
	char kpd[4096], cut[4096];
	unsigned char *elf;
	size_t len;
	struct run r;
	FILE *fp;

	(void)state;
	snprintf(kpd, sizeof kpd, "%s/kpdata", dir);
	snprintf(cut, sizeof cut, "%s", tmp_path("cut.elf"));
	assert_int_equal(kp_readfile(ELF, 1 << 24, &elf, &len), 0);
	for (size_t at = 0; at < len; at += len / 23 + 1) {
		fp = fopen(cut, "wb");
		fwrite(elf, 1, at, fp);
		fclose(fp);
		run_kprof(&r, cut, kpd, NULL);
		if ((r.status != 0 && r.status != 2) || strstr(r.err, "Sanitizer") ||
		    strstr(r.err, "runtime error") || (r.status == 2 && nlines(r.err) != 1))
			fail_msg("ELF cut at %zu: status %d\n%s", at, r.status, r.err);
		run_free(&r);
	}
	/* flip bytes anywhere in the ELF */
	srand(1);
	for (int i = 0; i < 40; i++) {
		unsigned char *copy = malloc(len);

		memcpy(copy, elf, len);
		for (int k = 0; k < 4; k++)
			copy[(size_t)rand() % len] ^= (unsigned char)(1 + rand() % 255);
		fp = fopen(cut, "wb");
		fwrite(copy, 1, len, fp);
		fclose(fp);
		free(copy);
		run_kprof(&r, "--addr", "--force", cut, kpd, NULL);
		if ((r.status != 0 && r.status != 2) || strstr(r.err, "Sanitizer") ||
		    strstr(r.err, "runtime error"))
			fail_msg("flipped ELF %d: status %d\n%s", i, r.status, r.err);
		run_free(&r);
	}
	free(elf);
}

/* Every subcommand takes --help (exit 0), --top N and --force; kprof
 * --help lists them all, --version names the formats. */
static void subcommands_uniform(void **state)
{
	static const char *const subs[] = { "gmon", "dosprof", "heat", "accuracy", "diff", "annotate" };
	char heat[4096], text[128];
	struct run r;

	(void)state;
	snprintf(heat, sizeof heat, "%s", tmp_path("uniform.heat"));  /* the ring is reused below */
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
		char want[64];

		run_kprof(&r, subs[i], "--help", NULL);
		snprintf(want, sizeof want, "usage: kprof %s ", subs[i]);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, want));
		assert_non_null(strstr(r.out, "--top N"));
		assert_non_null(strstr(r.out, "--force"));
		run_free(&r);
		run_kprof(&r, "--help", NULL);
		snprintf(want, sizeof want, "kprof %s ", subs[i]);
		assert_non_null(strstr(r.out, want));
		run_free(&r);
	}
	run_kprof(&r, "--version", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "kprof " KPROF_VERSION "\n"));
	for (size_t i = 0; readers[i]; i++)
		assert_non_null(strstr(r.out, readers[i]->name));
	run_free(&r);
	snprintf(text, sizeof text, "PROF 0x%08X 5 9 CALLED\nPROF 0x%08X 7 3\n", sym("spin_a"), sym("spin_b"));
	write_text(heat, text);
	run_kprof(&r, "heat", "--top", "1", "--force", ELF, heat, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "spin_b"));
	assert_null(strstr(r.out, "spin_a"));         /* the second row, cut */
	run_free(&r);
	run_kprof(&r, "heat", "--top", "x", ELF, heat, NULL);
	assert_int_equal(r.status, 2);
	run_free(&r);
}

/* An option that does not apply to the dump given is an error, not
 * silently ignored: --kpinfo with anything but a kpdata, --elf with one. */
static void options_that_do_not_apply(void **state)
{
	const char *heat = tmp_path("na.usample");
	char text[128];
	struct run r;

	(void)state;
	snprintf(text, sizeof text, "0x%08x 5\n", sym("spin_a"));
	write_text(heat, text);
	run_kprof(&r, "--kpinfo", heat, ELF, heat, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--kpinfo goes with a kpdata"));
	run_free(&r);
	run_kprof(&r, "--elf", ELF, ELF, kpdata_in(standard_dump("na", NULL)), NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--elf names a program's ELF"));
	run_free(&r);
}

int test_cli_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(function_rows),
		cmocka_unit_test(ms_follows_hz),
		cmocka_unit_test(saturation_noted),
		cmocka_unit_test(top_limits_rows),
		cmocka_unit_test(lines_report),
		cmocka_unit_test(addr_report),
		cmocka_unit_test(res4_straddle),
		cmocka_unit_test(build_id_checked),
		cmocka_unit_test(kpinfo_elsewhere),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(damaged_inputs_never_crash),
		cmocka_unit_test(subcommands_uniform),
		cmocka_unit_test(options_that_do_not_apply),
	};

	return cmocka_run_group_tests_name("kprof-cli", tests, NULL, NULL);
}
