/* test_parse.c: unit tests that call kprof's functions directly: kpinfo
 * and kpdata parsing, the ELF symbol list, the symbolizing merge and the
 * DWARF line table. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static void kpinfo_all_keys(void **state)
{
	const char text[] =
		"text_start 0x00101000\ntext_end 0x00101114\nres 2\nnbins 69\n"
		"hz 1000.151\nticks 1234\nkernel_ticks 1000\nstate on\nsaturated 7\n"
		"build_id ABCdef0123\nlast hz 1000: ok, achieved 1000.151\n"
		"future_key whatever it is\n\n# a comment\n";
	struct kpinfo ki;

	(void)state;
	assert_int_equal(kpinfo_parse(&ki, text, sizeof text - 1, "t"), 0);
	assert_int_equal(ki.text_start, 0x101000);
	assert_int_equal(ki.text_end, 0x101114);
	assert_int_equal(ki.res, 2);
	assert_int_equal(ki.nbins, 69);
	assert_true(ki.hz > 1000.150 && ki.hz < 1000.152);
	assert_int_equal(ki.ticks, 1234);
	assert_int_equal(ki.kernel_ticks, 1000);
	assert_string_equal(ki.state, "on");
	assert_int_equal(ki.saturated, 7);
	assert_string_equal(ki.build_id, "abcdef0123");
	assert_int_equal(ki.have, KI_TEXT_START | KI_TEXT_END | KI_RES | KI_NBINS | KI_HZ |
			 KI_TICKS | KI_KTICKS | KI_STATE | KI_SATURATED | KI_BUILD_ID);
}

static void kpinfo_bad_values(void **state)
{
	static const char *bad[] = {
		"res 9\n", "res -1\n", "res two\n", "text_start 0xZZ\n", "text_start 0x100000000\n",
		"text_end\n", "hz 0\n", "hz -5\n", "hz 10x\n", "hz nan\n", "nbins 12abc\n",
		"build_id abc\n", "build_id xyz0\n", "state maybe\n", "ticks +5\n",
	};
	struct kpinfo ki;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (kpinfo_parse(&ki, bad[i], strlen(bad[i]), "t") != -1)
			fail_msg("accepted %s", bad[i]);
		assert_non_null(strstr(kp_lasterror(), "bad "));
		assert_null(strchr(kp_lasterror(), '\n'));
	}
	assert_int_equal(kpinfo_parse(&ki, "res 1\0x", 8, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "NUL"));
	/* what the kernel writes beside the plain values */
	assert_int_equal(kpinfo_parse(&ki, "state off (stop while off: no change)\nbuild_id none\n",
				      52, "t"), 0);
	assert_string_equal(ki.state, "off");
	assert_false(ki.have & KI_BUILD_ID);
	assert_int_equal(kpinfo_parse(&ki, "state offish\n", 13, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "bad state"));
}

static void kpdata_words(void **state)
{
	const unsigned char buf[] = { 0, 0, 1, 0, 0, 0, 0, 0x80, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1 };
	struct kpdata kd;

	(void)state;
	assert_int_equal(kpdata_parse(&kd, buf, sizeof buf, "t"), 0);
	assert_int_equal(kd.total, 256);
	assert_int_equal(kd.kernel, 128);
	assert_int_equal(kd.nbins, 2);
	assert_int_equal(kd.bins[0], 0x12345678);
	assert_int_equal(kd.bins[1], 1);
	kpdata_free(&kd);
}

static void kpdata_bad(void **state)
{
	const unsigned char buf[16] = { 0, 0, 0, 1, 0, 0, 0, 2 };   /* kernel > total */
	struct kpdata kd;

	(void)state;
	assert_int_equal(kpdata_parse(&kd, buf, 0, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "truncated"));
	assert_int_equal(kpdata_parse(&kd, buf, 7, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "truncated"));
	assert_int_equal(kpdata_parse(&kd, buf, 10, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "multiple of 4"));
	assert_int_equal(kpdata_parse(&kd, buf, 8, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "exceed"));
}

static const struct ksym *ksym_named(const struct kelf *ke, const char *name)
{
	for (size_t i = 0; i < ke->nsyms; i++)
		if (strcmp(ke->syms[i].name, name) == 0)
			return &ke->syms[i];
	return NULL;
}

static void elf_symbols(void **state)
{
	static const char *names[] = { "helper", "spin_a", "spin_b", "spin_c", "far_fn",
				       "asm_sized", "_start" };
	struct kelf ke;
	const struct ksym *s;

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture.elf")), 0);
	assert_string_equal(ke.build_id, fx()->build_id);
	for (size_t i = 1; i < ke.nsyms; i++)
		assert_true(ke.syms[i - 1].end <= ke.syms[i].start);
	/* sized symbols own exactly their bytes (nm -S) */
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		s = ksym_named(&ke, names[i]);
		assert_non_null(s);
		assert_int_equal(s->start, sym(names[i]));
		assert_int_equal(s->end, sym(names[i]) + sym_size(names[i]));
	}
	/* the NOTYPE label of size 0 owns up to the next symbol */
	s = ksym_named(&ke, "asm_stub");
	assert_non_null(s);
	assert_int_equal(s->type, STT_NOTYPE);
	assert_int_equal(s->end, sym("_start"));
	/* data symbols are not text */
	assert_null(ksym_named(&ke, "sink"));
	kelf_close(&ke);
}

static void elf_refusals(void **state)
{
	struct kelf ke;

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture64.elf")), -1);
	assert_non_null(strstr(kp_lasterror(), "64-bit"));
	assert_int_equal(kelf_open(&ke, fixture("fixture-stripped.elf")), -1);
	assert_non_null(strstr(kp_lasterror(), "no symbol table"));
	assert_int_equal(kelf_open(&ke, KPROF_SRCDIR "/kprof.h"), -1);
	assert_non_null(strstr(kp_lasterror(), "not an ELF"));
	assert_int_equal(kelf_open(&ke, fixture("fixture-noid.elf")), 0);
	assert_string_equal(ke.build_id, "");
	kelf_close(&ke);
}

/* Bins at res 0 in several functions, the gap and asm_stub; bins at res > 0
 * straddling symbols go to the symbol owning the bin's first byte, or to
 * none when that byte is in a hole. */
static void merge_res0_and_res4(void **state)
{
	struct kelf ke;
	struct kpdata kd = { 0 };
	struct profile p;
	uint32_t ts = fx()->ts, gap = sym("spin_c") + sym_size("spin_c");
	const struct ksym *a, *b, *stub, *helper;

	(void)state;
	assert_true(gap < sym("far_fn"));
	assert_int_equal(kelf_open(&ke, fixture("fixture.elf")), 0);
	a = ksym_named(&ke, "spin_a");
	b = ksym_named(&ke, "spin_b");
	stub = ksym_named(&ke, "asm_stub");
	helper = ksym_named(&ke, "helper");

	kd.nbins = fx_nbins(0);
	kd.bins = calloc(kd.nbins, sizeof *kd.bins);
	kd.bins[sym("spin_a") - ts] = 5;
	kd.bins[sym("spin_a") + sym_size("spin_a") - 1 - ts] = 6;   /* last byte */
	kd.bins[sym("spin_b") - ts] = 7;                           /* next first byte */
	kd.bins[sym("asm_stub") + 3 - ts] = 2;
	kd.bins[gap - ts] = 4;
	kd.total = 100;
	kd.kernel = 30;
	assert_int_equal(symbolize(&p, &ke, &kd, ts, 0), 0);
	assert_int_equal(p.symcount[a - ke.syms], 11);
	assert_int_equal(p.symcount[b - ke.syms], 7);
	assert_int_equal(p.symcount[stub - ke.syms], 2);
	assert_int_equal(p.unknown, 4);
	assert_int_equal(p.outside, 30 - 24);
	assert_int_equal(p.nhits, 5);
	profile_free(&p);
	free(kd.bins);

	/* res 4: helper is [0x..000, 0x..011), spin_a starts at +0x11, so bin 1
	 * [+0x10, +0x20) starts in helper and is charged to helper */
	assert_int_equal(sym("helper"), ts);
	assert_true(sym("spin_a") - ts > 0x10 && sym("spin_a") - ts < 0x20);
	kd.nbins = fx_nbins(4);
	kd.bins = calloc(kd.nbins, sizeof *kd.bins);
	kd.bins[1] = 9;
	kd.bins[2] = 3;
	kd.total = kd.kernel = 12;
	assert_int_equal(symbolize(&p, &ke, &kd, ts, 4), 0);
	assert_int_equal(p.symcount[helper - ke.syms], 9);
	assert_int_equal(p.symcount[a - ke.syms], 3);
	assert_int_equal(p.outside, 0);
	profile_free(&p);
	free(kd.bins);

	/* res 3: the bin holding asm_stub's first byte starts in the hole
	 * before it, so it is charged to no symbol */
	uint32_t hole = sym("asm_sized") + sym_size("asm_sized"), hb = (sym("asm_stub") - ts) >> 3;
	assert_true(ts + 8 * hb >= hole && ts + 8 * hb < sym("asm_stub"));
	kd.nbins = fx_nbins(3);
	kd.bins = calloc(kd.nbins, sizeof *kd.bins);
	kd.bins[hb] = 6;
	kd.bins[hb + 1] = 1;
	kd.total = kd.kernel = 7;
	assert_int_equal(symbolize(&p, &ke, &kd, ts, 3), 0);
	assert_int_equal(p.unknown, 6);
	assert_int_equal(p.symcount[stub - ke.syms], 1);
	profile_free(&p);
	free(kd.bins);
	kelf_close(&ke);
}

static void check_ranges(void **state)
{
	struct kelf ke;
	struct kpdata kd = { 0 };
	struct kpinfo ki = { 0 };

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture.elf")), 0);
	ki.have = KI_TEXT_START | KI_TEXT_END | KI_RES | KI_HZ;
	ki.text_start = fx()->ts;
	ki.text_end = fx()->te;
	ki.hz = 1000;
	ki.res = 2;
	kd.nbins = fx_nbins(2);
	assert_int_equal(kp_check(&kd, &ki, &ke), 0);
	kd.nbins--;
	assert_int_equal(kp_check(&kd, &ki, &ke), -1);
	assert_non_null(strstr(kp_lasterror(), "needs"));
	kd.nbins++;
	ki.have |= KI_NBINS;
	ki.nbins = kd.nbins + 1;
	assert_int_equal(kp_check(&kd, &ki, &ke), -1);
	assert_non_null(strstr(kp_lasterror(), "nbins"));
	ki.nbins = kd.nbins;
	ki.text_start -= 0x1000;
	ki.text_end -= 0x1000;
	assert_int_equal(kp_check(&kd, &ki, &ke), -1);
	assert_non_null(strstr(kp_lasterror(), "executable sections"));
	ki.text_start += 0x1000;
	ki.text_end += 0x1000;
	ki.have &= ~(unsigned)KI_HZ;
	assert_int_equal(kp_check(&kd, &ki, &ke), -1);
	assert_non_null(strstr(kp_lasterror(), "no hz"));
	kelf_close(&ke);
}

static void line_table(void **state)
{
	static const char *fns[] = { "helper", "spin_a", "spin_b", "spin_c", "far_fn", "_start" };
	struct kelf ke;
	struct linetab lt;
	size_t cursor = 0;

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture.elf")), 0);
	assert_int_equal(linetab_load(&lt, &ke), 0);
	/* in address order, as the merge walks it */
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		const struct lrow *r = linetab_next(&lt, &cursor, sym(fns[i]));

		assert_non_null(r);
		assert_int_equal(r->line, source_line(fns[i]));
		assert_non_null(strstr(r->file, "fixture.c"));
	}
	linetab_free(&lt);
	kelf_close(&ke);
}

int test_parse_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kpinfo_all_keys),
		cmocka_unit_test(kpinfo_bad_values),
		cmocka_unit_test(kpdata_words),
		cmocka_unit_test(kpdata_bad),
		cmocka_unit_test(elf_symbols),
		cmocka_unit_test(elf_refusals),
		cmocka_unit_test(merge_res0_and_res4),
		cmocka_unit_test(check_ranges),
		cmocka_unit_test(line_table),
	};

	return cmocka_run_group_tests_name("kprof-parse", tests, NULL, NULL);
}
