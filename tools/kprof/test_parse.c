/* test_parse.c: unit tests that call kprof's functions directly: kpinfo
 * and kpdata parsing, the ELF symbol list, the symbolizing merge and the
 * DWARF line table. */
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

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

/* Every KPINFO_ key of include/abi/kprof.h is in its KPINFO_KEYS list,
 * so the parser, built from the list, knows each key the kernel writes. */
static void kpinfo_keys_listed(void **state)
{
	char line[256];
	int defined = 0;
	FILE *f = fopen(KPROF_SRCDIR "/../../include/abi/kprof.h", "r");

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "#define KPINFO_", 15) == 0 && strncmp(line, "#define KPINFO_KEYS", 19) != 0)
			defined++;
	fclose(f);
	assert_int_equal(defined, KI_NKEYS);
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

/* The kpdata reader from memory: kpinfo text, a NUL, the kpdata words. */
static int kpdata_mem(struct sampleset *ss, const char *info, const unsigned char *data, size_t n)
{
	size_t il = strlen(info);
	unsigned char *buf = malloc(il + 1 + n);
	int r;

	memcpy(buf, info, il + 1);
	memcpy(buf + il + 1, data, n);
	memset(ss, 0, sizeof *ss);
	r = reader_named("kpdata")->parse(ss, buf, il + 1 + n, "t");
	free(buf);
	return r;
}

#define INFO2 "text_start 0x1000\ntext_end 0x1002\nres 0\nhz 100\n"

static void kpdata_words(void **state)
{
	const unsigned char buf[] = { 0, 0, 1, 0, 0, 0, 0, 0x80, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1 };
	struct sampleset ss;

	(void)state;
	assert_int_equal(kpdata_mem(&ss, INFO2, buf, sizeof buf), 0);
	assert_int_equal(ss.total, 256);
	assert_int_equal(ss.kernel, 128);
	assert_int_equal(ss.nbins, 2);
	assert_int_equal(ss.nflat, 2);
	assert_int_equal(ss.flat[0].addr, 0x1000);
	assert_int_equal(ss.flat[0].count, 0x12345678);
	assert_int_equal(ss.flat[1].addr, 0x1001);
	assert_int_equal(ss.flat[1].count, 1);
	sampleset_free(&ss);
}

static void kpdata_bad(void **state)
{
	const unsigned char buf[16] = { 0, 0, 0, 1, 0, 0, 0, 2 };   /* kernel > total */
	struct sampleset ss;

	(void)state;
	assert_int_equal(kpdata_mem(&ss, INFO2, buf, 0), -1);
	assert_non_null(strstr(kp_lasterror(), "truncated"));
	assert_int_equal(kpdata_mem(&ss, INFO2, buf, 7), -1);
	assert_non_null(strstr(kp_lasterror(), "truncated"));
	assert_int_equal(kpdata_mem(&ss, INFO2, buf, 10), -1);
	assert_non_null(strstr(kp_lasterror(), "multiple of 4"));
	assert_int_equal(kpdata_mem(&ss, INFO2, buf, 8), -1);
	assert_non_null(strstr(kp_lasterror(), "exceed"));
	sampleset_free(&ss);
}

static const struct ksym *ksym_named(const struct kelf *ke, const char *name)
{
	for (size_t i = 0; i < ke->nsyms; i++)
		if (strcmp(ke->syms[i].name, name) == 0)
			return &ke->syms[i];
	return NULL;
}

/* The one range a symbol owns, in the fixture where nothing nests. */
static const struct krange *range_of(const struct kelf *ke, const struct ksym *s)
{
	const struct krange *r = NULL;

	for (size_t i = 0; i < ke->nranges; i++)
		if (&ke->syms[ke->ranges[i].sym] == s) {
			assert_null(r);
			r = &ke->ranges[i];
		}
	assert_non_null(r);
	return r;
}

static void elf_symbols(void **state)
{
	static const char *names[] = { "helper", "spin_a", "spin_b", "spin_c", "far_fn",
				       "asm_sized", "_start" };
	struct kelf ke;
	const struct ksym *s;

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture.elf"), 0), 0);
	assert_string_equal(ke.build_id, fx()->build_id);
	for (size_t i = 1; i < ke.nranges; i++)
		assert_true(ke.ranges[i - 1].end <= ke.ranges[i].start);
	/* sized symbols own exactly their bytes (nm -S) */
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		s = ksym_named(&ke, names[i]);
		assert_non_null(s);
		assert_int_equal(range_of(&ke, s)->start, sym(names[i]));
		assert_int_equal(range_of(&ke, s)->end, sym(names[i]) + sym_size(names[i]));
	}
	/* the NOTYPE label of size 0 owns up to the next symbol */
	s = ksym_named(&ke, "asm_stub");
	assert_non_null(s);
	assert_int_equal(s->type, STT_NOTYPE);
	assert_int_equal(range_of(&ke, s)->end, sym("_start"));
	/* data symbols are not text */
	assert_null(ksym_named(&ke, "sink"));
	kelf_close(&ke);
}

static void elf_refusals(void **state)
{
	struct kelf ke;

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture64.elf"), 0), -1);
	assert_non_null(strstr(kp_lasterror(), "64-bit"));
	assert_int_equal(kelf_open(&ke, fixture("fixture-stripped.elf"), 0), -1);
	assert_non_null(strstr(kp_lasterror(), "no symbol table"));
	assert_int_equal(kelf_open(&ke, KPROF_SRCDIR "/kprof.h", 0), -1);
	assert_non_null(strstr(kp_lasterror(), "not an ELF"));
	assert_int_equal(kelf_open(&ke, fixture("fixture-noid.elf"), 0), 0);
	assert_string_equal(ke.build_id, "");
	kelf_close(&ke);
}

/* A sample set of one module from a bins array, as the kpdata reader makes. */
static void set_from_bins(struct sampleset *ss, const uint32_t *bins, size_t n, unsigned res,
			  uint32_t total, uint32_t kernel)
{
	memset(ss, 0, sizeof *ss);
	ss->mods = calloc(1, sizeof *ss->mods);
	ss->nmods = 1;
	ss->flat = calloc(n, sizeof *ss->flat);
	for (size_t i = 0; i < n; i++)
		if (bins[i]) {
			ss->flat[ss->nflat].addr = fx()->ts + (i << res);
			ss->flat[ss->nflat++].count = bins[i];
		}
	ss->total = total;
	ss->kernel = kernel;
	ss->res = res;
}

static void open_fixture(struct symbolizer *sy)
{
	const char *path = fixture("fixture.elf");

	assert_int_equal(symbolizer_open(sy, &path, 1), 0);
	sy->of = calloc(1, sizeof *sy->of);
	sy->nof = 1;
}

/* Bins at res 0 in several functions, the gap and asm_stub; bins at res > 0
 * straddling symbols go to the symbol owning the bin's first byte, or to
 * none when that byte is in a hole. */
static void merge_res0_and_res4(void **state)
{
	struct symbolizer sy;
	struct kelf *ke;
	struct sampleset ss;
	struct profile p;
	uint32_t ts = fx()->ts, gap = sym("spin_c") + sym_size("spin_c"), *bins;
	size_t n;
	const struct ksym *a, *b, *stub, *helper;

	(void)state;
	assert_true(gap < sym("far_fn"));
	open_fixture(&sy);
	ke = &sy.elfs[0];
	a = ksym_named(ke, "spin_a");
	b = ksym_named(ke, "spin_b");
	stub = ksym_named(ke, "asm_stub");
	helper = ksym_named(ke, "helper");

	n = fx_nbins(0);
	bins = calloc(n, sizeof *bins);
	bins[sym("spin_a") - ts] = 5;
	bins[sym("spin_a") + sym_size("spin_a") - 1 - ts] = 6;   /* last byte */
	bins[sym("spin_b") - ts] = 7;                           /* next first byte */
	bins[sym("asm_stub") + 3 - ts] = 2;
	bins[gap - ts] = 4;
	set_from_bins(&ss, bins, n, 0, 100, 30);
	assert_int_equal(symbolize(&p, &sy, &ss), 0);
	assert_int_equal(p.symcount[0][a - ke->syms], 11);
	assert_int_equal(p.symcount[0][b - ke->syms], 7);
	assert_int_equal(p.symcount[0][stub - ke->syms], 2);
	assert_int_equal(p.unknown, 4);
	assert_int_equal(p.outside, 30 - 24);
	assert_int_equal(p.nhits, 5);
	profile_free(&p);
	sampleset_free(&ss);
	free(bins);

	/* res 4: helper is [0x..000, 0x..011), spin_a starts at +0x11, so bin 1
	 * [+0x10, +0x20) starts in helper and is charged to helper */
	assert_int_equal(sym("helper"), ts);
	assert_true(sym("spin_a") - ts > 0x10 && sym("spin_a") - ts < 0x20);
	n = fx_nbins(4);
	bins = calloc(n, sizeof *bins);
	bins[1] = 9;
	bins[2] = 3;
	set_from_bins(&ss, bins, n, 4, 12, 12);
	assert_int_equal(symbolize(&p, &sy, &ss), 0);
	assert_int_equal(p.symcount[0][helper - ke->syms], 9);
	assert_int_equal(p.symcount[0][a - ke->syms], 3);
	assert_int_equal(p.outside, 0);
	profile_free(&p);
	sampleset_free(&ss);
	free(bins);

	/* res 3: the bin holding asm_stub's first byte starts in the hole
	 * before it, so it is charged to no symbol */
	uint32_t hole = sym("asm_sized") + sym_size("asm_sized"), hb = (sym("asm_stub") - ts) >> 3;
	assert_true(ts + 8 * hb >= hole && ts + 8 * hb < sym("asm_stub"));
	n = fx_nbins(3);
	bins = calloc(n, sizeof *bins);
	bins[hb] = 6;
	bins[hb + 1] = 1;
	set_from_bins(&ss, bins, n, 3, 7, 7);
	assert_int_equal(symbolize(&p, &sy, &ss), 0);
	assert_int_equal(p.unknown, 6);
	assert_int_equal(p.symcount[0][stub - ke->syms], 1);
	profile_free(&p);
	sampleset_free(&ss);
	free(bins);
	symbolizer_close(&sy);
}

static void check_ranges(void **state)
{
	struct symbolizer sy;
	struct sampleset ss;
	unsigned char *data;
	size_t n = fx_nbins(2), len = 4 * (n + 2);
	char info[512];

	(void)state;
	open_fixture(&sy);
	data = calloc(len + 4, 1);
	snprintf(info, sizeof info, "text_start 0x%x\ntext_end 0x%x\nres 2\nhz 1000\n",
		 fx()->ts, fx()->te);
	assert_int_equal(kpdata_mem(&ss, info, data, len), 0);
	assert_int_equal(kp_check_bins(&ss, &sy.elfs[0]), 0);
	sampleset_free(&ss);
	assert_int_equal(kpdata_mem(&ss, info, data, len - 4), -1);
	assert_non_null(strstr(kp_lasterror(), "needs"));
	sampleset_free(&ss);
	snprintf(info, sizeof info, "text_start 0x%x\ntext_end 0x%x\nres 2\nhz 1000\nnbins %zu\n",
		 fx()->ts, fx()->te, n + 1);
	assert_int_equal(kpdata_mem(&ss, info, data, len), -1);
	assert_non_null(strstr(kp_lasterror(), "nbins"));
	sampleset_free(&ss);
	snprintf(info, sizeof info, "text_start 0x%x\ntext_end 0x%x\nres 2\nhz 1000\nnbins %zu\n",
		 fx()->ts - 0x1000, fx()->te - 0x1000, n);
	assert_int_equal(kpdata_mem(&ss, info, data, len), 0);
	assert_int_equal(kp_check_bins(&ss, &sy.elfs[0]), -1);
	assert_non_null(strstr(kp_lasterror(), "executable sections"));
	sampleset_free(&ss);
	snprintf(info, sizeof info, "text_start 0x%x\ntext_end 0x%x\nres 2\n", fx()->ts, fx()->te);
	assert_int_equal(kpdata_mem(&ss, info, data, len), -1);
	assert_non_null(strstr(kp_lasterror(), "no hz"));
	sampleset_free(&ss);
	free(data);
	symbolizer_close(&sy);
}

/* The ranges answer as libdwfl itself does, at every byte of text: the
 * shortcut for bytes one sized symbol covers must never differ. */
static void ranges_agree_with_libdwfl(void **state)
{
	const char *paths[] = { fixture("fixture.elf"), fixture("fixture-nested.elf"),
				fixture("fixture-noid.elf") };

	(void)state;
	for (size_t f = 0; f < sizeof paths / sizeof paths[0]; f++) {
		struct kelf ke;
		size_t checked = 0;

		assert_int_equal(kelf_open(&ke, paths[f], 0), 0);
		for (size_t t = 0; t < ke.ntext; t++)
			for (uint64_t a = ke.text[t].addr; a < ke.text[t].addr + ke.text[t].size; a++) {
				const struct krange *r = kelf_range(&ke, a, NULL);
				GElf_Off off;
				GElf_Sym sy;
				const char *name = dwfl_module_addrinfo(ke.mod, a, &off, &sy, NULL, NULL, NULL);

				if (name == NULL || name[0] == '\0') {
					if (r)
						fail_msg("%s 0x%jx: kprof %s, libdwfl none", paths[f],
							 (uintmax_t)a, ke.syms[r->sym].name);
					continue;
				}
				if (r == NULL || strcmp(ke.syms[r->sym].name, name) != 0 ||
				    ke.syms[r->sym].value != a - off)
					fail_msg("%s 0x%jx: kprof %s, libdwfl %s+0x%jx", paths[f], (uintmax_t)a,
						 r ? ke.syms[r->sym].name : "none", name, (uintmax_t)off);
				checked++;
			}
		assert_true(checked >= 65);         /* nested.c has 65 bytes */
		kelf_close(&ke);
	}
}

/* Two ELFs linked at one address, as every user program is: the dump's
 * modules say which is which, by build-id, in either order. */
static void modules_by_build_id(void **state)
{
	const char *paths[] = { fixture("fixture.elf"), fixture("fixture-nested.elf") };
	struct symbolizer sy;
	struct sampleset ss = { 0 };
	struct profile p;
	struct fx nf;
	char warning[256] = "";
	uint32_t at = sym("helper");

	(void)state;
	elf_facts(paths[1], &nf);
	assert_int_equal(sym_of(paths[1], "outer"), at);     /* the same address */
	assert_int_equal(symbolizer_open(&sy, paths, 2), 0);
	ss.nmods = 2;
	ss.mods = calloc(2, sizeof *ss.mods);
	strcpy(ss.mods[0].build_id, nf.build_id);            /* nested first */
	strcpy(ss.mods[1].build_id, fx()->build_id);
	ss.mods[1].path = strdup("/somewhere/fixture.elf");
	ss.nflat = 2;
	ss.flat = calloc(2, sizeof *ss.flat);
	ss.flat[0] = (struct flat){ 0, at + 0x18, 5 };
	ss.flat[1] = (struct flat){ 1, at + 2, 3 };
	ss.total = ss.kernel = 8;
	assert_int_equal(kp_match(&sy, &ss, 0, warning, sizeof warning), 0);
	assert_int_equal(sy.of[0], 1);
	assert_int_equal(sy.of[1], 0);
	assert_int_equal(symbolize(&p, &sy, &ss), 0);
	assert_string_equal(sy.elfs[1].syms[p.hits[0].sym].name, "outer");
	assert_string_equal(sy.elfs[0].syms[p.hits[1].sym].name, "helper");
	assert_int_equal(p.unknown, 0);
	profile_free(&p);

	/* no build-id to go by: the file name decides; no match: unknown */
	ss.mods[1].build_id[0] = '\0';
	ss.mods[0].build_id[0] = '\0';
	assert_int_equal(kp_match(&sy, &ss, 0, warning, sizeof warning), 0);
	assert_int_equal(sy.of[0], -1);
	assert_int_equal(sy.of[1], 0);
	assert_int_equal(symbolize(&p, &sy, &ss), 0);
	assert_int_equal(p.unknown, 5);
	profile_free(&p);
	sampleset_free(&ss);
	symbolizer_close(&sy);
}

/* The common dump header: a good one, then each field broken. */
static void dump_header(void **state)
{
	unsigned char *good, *b;
	size_t len;
	struct dumphdr dh;
	static const struct { size_t off; unsigned char val; const char *want; } bad[] = {
		{ 0, 'X', "no dump header" },              /* magic */
		{ 8, 9, "version" },                       /* version 9 */
		{ 12, 0, NULL },                           /* rate low byte: still nonzero */
		{ 16, 99, "module table" },                /* nmodules 99 > table */
		{ 17, 1, "at most" },                      /* nmodules 355 > DUMP_MODULES_MAX */
		{ 20, 0xff, "does not fit" },              /* size past the file */
		{ 32 + 8, 0xff, "build-id of" },           /* build_id_len 255 */
	};

	(void)state;
	assert_int_equal(kp_readfile(KPROF_SRCDIR "/fuzz/dump/two-modules", 4096, &good, &len), 0);
	assert_int_equal(dump_engine(good, len), DUMP_ENGINE_GMON);
	assert_int_equal(dump_parse(&dh, good, len, "t"), 0);
	assert_int_equal(dh.nmods, 2);
	assert_true(dh.hz > 1000.152 && dh.hz < 1000.154);
	assert_int_equal(dh.mods[1].load, 0x40000000);
	assert_string_equal(dh.mods[1].path, "/bin/kwork");
	assert_int_equal(strlen(dh.mods[0].build_id), 40);
	size_t hdr = dh.size;
	dump_free(&dh);
	/* cut short: refused until the whole header and table are there */
	for (size_t cut = 0; cut < len; cut++) {
		int r = dump_parse(&dh, good, cut, "t");

		assert_int_equal(r, cut < hdr ? -1 : 0);
		if (r == 0)
			dump_free(&dh);
	}
	b = malloc(len);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memcpy(b, good, len);
		b[bad[i].off] = bad[i].val;
		if (bad[i].want == NULL) {
			assert_int_equal(dump_parse(&dh, b, len, "t"), 0);
			dump_free(&dh);
			continue;
		}
		assert_int_equal(dump_parse(&dh, b, len, "t"), -1);
		if (strstr(kp_lasterror(), bad[i].want) == NULL)
			fail_msg("byte %zu: '%s' lacks '%s'", bad[i].off, kp_lasterror(), bad[i].want);
	}
	free(b);
	free(good);
}

static void line_table(void **state)
{
	static const char *fns[] = { "helper", "spin_a", "spin_b", "spin_c", "far_fn", "_start" };
	struct kelf ke;
	struct linetab lt;

	(void)state;
	assert_int_equal(kelf_open(&ke, fixture("fixture.elf"), 0), 0);
	assert_int_equal(linetab_load(&lt, &ke), 0);
	/* each function's first address is on its L: line */
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		int line = 0;
		const char *file = linetab_at(&lt, sym(fns[i]), &line);

		assert_non_null(file);
		assert_int_equal(line, source_line(fns[i]));
		assert_non_null(strstr(file, "fixture.c"));
	}
	linetab_free(&lt);
	kelf_close(&ke);
}

/* A frame's chain is structured: the function, then the one inlined
 * there (bubble into main, in tests/inline.c), each with its module and
 * whether it is inlined, and with sy->lines where each is: main at its
 * call of bubble, bubble at the address's line in its body. */
static void frame_chain_structured(void **state)
{
	const char *path = fixture("fixture-inline.elf");
	struct symbolizer sy;
	struct fx f;
	int inlined = 0;

	(void)state;
	elf_facts(path, &f);
	for (int lines = 0; lines < 2; lines++) {
		assert_int_equal(symbolizer_open(&sy, &path, 1), 0);
		sy.of = calloc(1, sizeof *sy.of);
		sy.nof = 1;
		sy.lines = lines;
		for (uint32_t a = f.ts; a < f.te; a++) {
			const struct kchain *c = frame_chain(&sy, &(struct frame){ 0, a }, 1);

			assert_true(c->n >= 1);
			assert_int_equal(c->f[0].inlined, 0);
			assert_string_equal(frame_name(&sy, &(struct frame){ 0, a }, 1),
					    c->n == 1 ? c->f[0].name : "main;bubble");
			if (c->n == 1) {
				if (lines && strcmp(c->f[0].name, FRAME_UNKNOWN))
					assert_true(c->f[0].file && c->f[0].line > 0);
				continue;
			}
			inlined++;
			assert_int_equal(c->n, 2);
			assert_string_equal(c->f[0].name, "main");
			assert_string_equal(c->f[1].name, "bubble");
			assert_int_equal(c->f[1].inlined, 1);
			assert_int_equal(c->f[1].mod, 0);
			if (!lines) {
				assert_null(c->f[0].file);
				assert_null(c->f[1].file);
				continue;
			}
			assert_non_null(strstr(c->f[0].file, "inline.c"));
			assert_non_null(strstr(c->f[1].file, "inline.c"));
			assert_int_equal(c->f[0].line, 19);                 /* bubble(16); */
			assert_in_range(c->f[1].line, 7, 16);               /* bubble's body */
		}
		symbolizer_close(&sy);
	}
	assert_true(inlined > 0);
}

int test_parse_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kpinfo_all_keys),
		cmocka_unit_test(kpinfo_keys_listed),
		cmocka_unit_test(kpinfo_bad_values),
		cmocka_unit_test(kpdata_words),
		cmocka_unit_test(kpdata_bad),
		cmocka_unit_test(elf_symbols),
		cmocka_unit_test(elf_refusals),
		cmocka_unit_test(merge_res0_and_res4),
		cmocka_unit_test(check_ranges),
		cmocka_unit_test(line_table),
		cmocka_unit_test(frame_chain_structured),
		cmocka_unit_test(ranges_agree_with_libdwfl),
		cmocka_unit_test(modules_by_build_id),
		cmocka_unit_test(dump_header),
	};

	return cmocka_run_group_tests_name("kprof-parse", tests, NULL, NULL);
}
