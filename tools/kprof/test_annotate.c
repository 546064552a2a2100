/* test_annotate.c: kprof annotate, run as a subprocess (build/kprof-asan)
 * on made-up dumps of the fixture kernel: each instruction's samples and
 * share, a count inside an instruction charged to it, the source lines
 * over the instructions, the heat column, the marks of the hottest, --top,
 * a kpdata's bins, and the errors (one line, exit status 2). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

#define ELF fixture("fixture.elf")

/* an instruction's row: its mark, samples ('.' 0, ':' in a counted bin
 * as 0), share, and with heat its exact count and share */
struct arow {
	char mark;
	unsigned long samples, exact;
	double pct, xpct;
	char text[128];
	int found;
};

static struct arow insn_row(const char *out, uint32_t addr, int heat)
{
	char key[32], buf[512];
	const char *at, *bol;
	struct arow a;

	memset(&a, 0, sizeof a);
	snprintf(key, sizeof key, "    %08x: ", addr);
	if ((at = strstr(out, key)) == NULL)
		return a;
	for (bol = at; bol > out && bol[-1] != '\n'; bol--)
		;
	snprintf(buf, sizeof buf, "%.*s", (int)strcspn(bol, "\n"), bol);
	a.found = 1;
	a.mark = buf[0];
	snprintf(a.text, sizeof a.text, "%s", strstr(buf, key) + strlen(key));
	if (sscanf(buf + 1, "%lu %lf", &a.samples, &a.pct) != 2)
		a.samples = 0, a.pct = 0;
	if (heat) {
		char c[32], x[32], xp[32];

		/* the first column may be "." or ":" with no share */
		if (a.samples ? sscanf(buf + 1, "%*s %*s %31s %31s", x, xp) == 2 :
		    sscanf(buf + 1, "%31s %31s %31s", c, x, xp) == 3) {
			a.exact = strtoul(x, NULL, 10);
			a.xpct = strtod(xp, NULL);
		}
	}
	return a;
}

static const char *usample(const char *name, const char *text)
{
	const char *path = tmp_path(name);

	write_text(path, text);
	return path;
}

static void assert_one_error(const struct run *r, const char *expect)
{
	if (r->status != 2 || nlines(r->err) != 1 || strncmp(r->err, "kprof: ", 7) != 0 ||
	    r->out[0] != '\0' || (expect && strstr(r->err, expect) == NULL))
		fail_msg("want exit 2 and one line with '%s'; got status %d, stderr:\n%s\nstdout:\n%s",
			 expect ? expect : "", r->status, r->err, r->out);
}

/* spin_a: 10 at its push ebp, 30 inside its next instruction (mov ebp,
 * esp is 2 bytes: +2 is its second), spin_b 60 */
static const char *three_counts(void)
{
	char text[256];
	uint32_t a = sym("spin_a"), b = sym("spin_b");

	snprintf(text, sizeof text, "0x%08x 10\n0x%08x 30\n0x%08x 60\n", a, a + 2, b);
	return usample("ann.usample", text);
}

static void per_instruction_counts(void **state)
{
	uint32_t a = sym("spin_a");
	struct arow r0, r1, r2;
	char want[160];
	struct run r;

	(void)state;
	run_kprof(&r, "annotate", ELF, three_counts(), "spin_a", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	snprintf(want, sizeof want, "fixture.elf!spin_a  %08x-%08x  40 ticks  40.00%% "
		 "of the profile\n", a, a + sym_size("spin_a"));
	assert_non_null(strstr(r.out, want));
	r0 = insn_row(r.out, a, 0);
	r1 = insn_row(r.out, a + 1, 0);
	r2 = insn_row(r.out, a + 3, 0);
	assert_true(r0.found && r1.found && r2.found);
	assert_int_equal(r0.samples, 10);
	assert_true(r0.pct == 25.0);
	assert_string_equal(r0.text, "push ebp");
	assert_int_equal(r1.samples, 30);           /* at +2, inside the instruction at +1 */
	assert_true(r1.pct == 75.0);
	assert_int_equal(r1.mark, '>');             /* the hottest instruction */
	assert_int_equal(r0.mark, ' ');
	assert_string_equal(r1.text, "mov ebp, esp");
	assert_int_equal(r2.samples, 0);
	assert_null(strstr(r.out, "spin_b"));       /* only the function asked for */
	/* the source line over its instructions, with its text from the file,
	 * the hottest one marked '*' */
	snprintf(want, sizeof want, "fixture.c:%d  int spin_a(int n) {", source_line("spin_a"));
	assert_non_null(strstr(r.out, want));
	assert_non_null(strstr(r.out, "\n*       40 100.00  "));
	assert_true(strstr(r.out, want) < strstr(r.out, "push ebp"));
	run_free(&r);
}

static void heat_beside(void **state)
{
	const char *dir = tmp_path("annheat");
	uint32_t a = sym("spin_a");
	char text[256], path[4200], heat[4200];
	struct arow r0, r1, r2;
	struct run r;

	(void)state;
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/heat", dir);
	snprintf(text, sizeof text, "PROF 0x%08X 5 5 CALLED\nPROF 0x%08X 15 15\nPROF 0x%08X 80 80\n", a, a + 1,
		 sym("spin_b"));
	write_text(path, text);
	snprintf(heat, sizeof heat, "%s", path);
	run_kprof(&r, "annotate", "--heat", heat, ELF, three_counts(), "spin_a", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "heat    20 instructions executed here (exact)\n"));
	r0 = insn_row(r.out, a, 1);
	r1 = insn_row(r.out, a + 1, 1);
	r2 = insn_row(r.out, a + 3, 1);
	assert_int_equal(r0.samples, 10);
	assert_int_equal(r0.exact, 5);
	assert_true(r0.xpct == 25.0);
	assert_int_equal(r1.samples, 30);
	assert_int_equal(r1.exact, 15);
	assert_true(r1.xpct == 75.0);
	assert_true(r2.found && r2.exact == 0);
	run_free(&r);

	/* a heat dump whose heatinfo names another build: refused, or --force */
	snprintf(path, sizeof path, "%s/heatinfo", dir);
	write_text(path, "build_id 00112233aabb\n");
	run_kprof(&r, "annotate", "--heat", heat, ELF, three_counts(), "spin_a", NULL);
	assert_one_error(&r, "build-id mismatch");
	run_free(&r);
	run_kprof(&r, "annotate", "--force", "--heat", heat, ELF, three_counts(), "spin_a", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "warning: build-id mismatch"));
	run_free(&r);
}

static void top_in_turn(void **state)
{
	const char *a, *b;
	struct run r;

	(void)state;
	run_kprof(&r, "annotate", "--top", "2", ELF, three_counts(), NULL);
	assert_int_equal(r.status, 0);
	a = strstr(r.out, "fixture.elf!spin_b  ");
	b = strstr(r.out, "fixture.elf!spin_a  ");
	assert_true(a && b && a < b);               /* the hottest first */
	assert_non_null(strstr(r.out, "60 ticks  60.00% of the profile"));
	run_free(&r);
	run_kprof(&r, "annotate", ELF, three_counts(), NULL);      /* the hottest alone */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "fixture.elf!spin_b  "));
	assert_null(strstr(r.out, "fixture.elf!spin_a  "));
	assert_non_null(strstr(r.out, "(1 more functions with samples; --top 2 shows them all)"));
	run_free(&r);
	run_kprof(&r, "annotate", ELF, three_counts(), "fixture.elf!spin_a", NULL);   /* MODULE!NAME */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "fixture.elf!spin_a  "));
	assert_null(strstr(r.out, "fixture.elf!spin_b  "));
	run_free(&r);
}

/* res 4: a bin's count goes to the instruction holding its first byte,
 * and the others starting in it are marked ':' */
static void kpdata_bins(void **state)
{
	const char *dir = tmp_path("annbins");
	size_t n = fx_nbins(4);
	uint32_t *bins = calloc(n, sizeof *bins), a = sym("spin_a"), bin = (a - fx()->ts + 0xf) >> 4;
	uint32_t at = fx()->ts + (bin << 4);
	char path[4200];
	struct run r;

	(void)state;
	bins[bin] = 7;
	write_dump(dir, 4, 7, 7, bins, n, NULL);
	free(bins);
	snprintf(path, sizeof path, "%s/kpdata", dir);
	run_kprof(&r, "annotate", ELF, path, "spin_a", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "bins    16 bytes a count (kpdata): per-bin granularity"));
	assert_non_null(strstr(r.out, "7 ticks  100.00% of the profile"));
	assert_non_null(strstr(r.out, "\n>        7 100.00  "));
	assert_non_null(strstr(r.out, "\n         :         "));
	/* the row with the count holds the bin's first byte */
	{
		const char *mark = strstr(r.out, "\n>        7 100.00  ");
		unsigned long addr = strtoul(strchr(mark + 1, ':') - 8, NULL, 16);

		assert_true(addr <= at && at - addr < 16);
	}
	run_free(&r);
}

static void errors(void **state)
{
	char u[4096], path[4096];
	struct run r;

	(void)state;
	snprintf(u, sizeof u, "%s", three_counts());     /* tmp_path's ring is reused */
	run_kprof(&r, "annotate", ELF, u, "no_such_fn", NULL);
	assert_one_error(&r, "no function no_such_fn in ");
	run_free(&r);
	run_kprof(&r, "annotate", ELF, u, "nomod!spin_a", NULL);
	assert_one_error(&r, "no function nomod!spin_a");
	run_free(&r);
	run_kprof(&r, "annotate", ELF, usample("ann-none.usample", "0x00000010 5\n"), NULL);
	assert_one_error(&r, "no samples in any function");
	run_free(&r);
	/* an unbuffered Monte Carlo dump: each routine's hits at its first byte */
	snprintf(path, sizeof path, "%s/fuzz/mc/unbuffered", KPROF_SRCDIR);
	run_kprof(&r, "annotate", "--force", ELF, path, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "holds no sampled PCs"));
	assert_string_equal(r.out, "");
	run_free(&r);
	/* a kpdata of another build */
	{
		const char *dir = tmp_path("annbid");
		size_t n = fx_nbins(0);
		uint32_t *bins = calloc(n, sizeof *bins);

		bins[sym("spin_a") - fx()->ts] = 3;
		write_dump(dir, 0, 3, 3, bins, n, "build_id 00112233aabb\n");
		free(bins);
		run_kprof(&r, "annotate", ELF, path_in(dir, "kpdata"), "spin_a", NULL);
		assert_one_error(&r, "build-id mismatch");
		run_free(&r);
	}
	run_kprof(&r, "annotate", ELF, u, "spin_a", "extra", NULL);
	assert_one_error(&r, "usage: kprof annotate");
	run_free(&r);
	run_kprof(&r, "annotate", "--heat", tmp_path("no-heat"), ELF, u, NULL);
	assert_one_error(&r, "No such file");
	run_free(&r);
	run_kprof(&r, "annotate", "--heat", u, ELF, u, NULL);
	assert_one_error(&r, "not a heat one");
	run_free(&r);
}

int test_annotate_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_instruction_counts),
		cmocka_unit_test(heat_beside),
		cmocka_unit_test(top_in_turn),
		cmocka_unit_test(kpdata_bins),
		cmocka_unit_test(errors),
	};

	return cmocka_run_group_tests_name("kprof-annotate", tests, NULL, NULL);
}
