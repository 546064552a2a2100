/* test_bugs.c: one regression test per bug that review and fuzzing found,
 * each named after its bug and each failing on the code before its fix:
 * damaged or huge ELFs, nested and aliased symbols, kpinfo's long lines
 * and repeated keys, readprofile's byte-order guess, a huge kpdata, many
 * sections, an empty kpinfo, counts that are not ticks shown as time. */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <linux/perf_event.h>

#include "test_util.h"
#include "profile.pb-c.h"

#define ELF fixture("fixture.elf")

static void assert_one_error(const struct run *r, const char *expect)
{
	if (r->status != 2 || nlines(r->err) != 1 || strncmp(r->err, "kprof: ", 7) != 0 ||
	    r->out[0] != '\0' || (expect && strstr(r->err, expect) == NULL))
		fail_msg("want exit 2 and one line with '%s'; got status %d, stderr:\n%s\nstdout:\n%.500s",
			 expect ? expect : "", r->status, r->err, r->out);
}

static unsigned char *load(const char *path, size_t *len)
{
	unsigned char *buf;

	assert_int_equal(kp_readfile(path, 1 << 24, &buf, len), 0);
	return buf;
}

static void save(const char *path, const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static Elf32_Shdr *section(unsigned char *elf, const char *name)
{
	Elf32_Ehdr *eh = (Elf32_Ehdr *)elf;
	Elf32_Shdr *sh = (Elf32_Shdr *)(elf + eh->e_shoff);
	const char *names = (const char *)elf + sh[eh->e_shstrndx].sh_offset;

	for (int i = 0; i < eh->e_shnum; i++)
		if (strcmp(names + sh[i].sh_name, name) == 0)
			return &sh[i];
	fail_msg("fixture has no section %s", name);
	return NULL;
}

/* a plain dump for the fixture, so only the ELF is wrong */
static const char *plain_dump(const char *name)
{
	const char *dir = tmp_path(name);
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins);

	bins[sym("spin_a") - fx()->ts] = 10;
	write_dump(dir, 0, 10, 10, bins, n, NULL);
	free(bins);
	return path_in(dir, "kpdata");
}

/* A heat dump read while the engine still traced was summed as if it
 * were whole: the heatinfo beside it says tracing, and the report says
 * the counts are partial. */
static void heat_read_while_tracing_noted(void **state)
{
	char dir[4096], text[256], path[4096 + 16];
	struct run r;

	(void)state;
	snprintf(dir, sizeof dir, "%s", tmp_path("heattracing"));
	mkdir(dir, 0777);
	snprintf(text, sizeof text, "PROF 0x%08X 5 9 CALLED\n", sym("spin_a"));
	snprintf(path, sizeof path, "%s/heat", dir);
	write_text(path, text);
	snprintf(path, sizeof path, "%s/heatinfo", dir);
	write_text(path, "state tracing\n");
	snprintf(path, sizeof path, "%s/heat", dir);
	run_kprof(&r, "heat", "--force", ELF, path, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "tracing was still on when it was read"));
	run_free(&r);
	snprintf(path, sizeof path, "%s/heatinfo", dir);
	write_text(path, "state stopped: the process exited\n");
	snprintf(path, sizeof path, "%s/heat", dir);
	run_kprof(&r, "heat", "--force", ELF, path, NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "still on"));
	run_free(&r);
}

/* A kpdata beside another profile's kpinfo (ticks differ, profiling off)
 * was read with a note, and every millisecond figure was off: it is
 * refused, --force reads it with a warning; while profiling is on the
 * two may differ (read at different times), and a note says so. */
static void kpdata_kpinfo_mixed_refused(void **state)
{
	const char *dir = tmp_path("mixed"), *on = tmp_path("mixed-on");
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins);
	struct run r;

	(void)state;
	bins[sym("spin_a") - fx()->ts] = 10;
	write_dump(dir, 0, 10, 10, bins, n, "ticks 100\n");
	run_kprof(&r, ELF, path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "holds 10 ticks and its kpinfo 100, with profiling off"));
	assert_non_null(strstr(r.err, "--force"));
	run_free(&r);
	run_kprof(&r, "--force", ELF, path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "warning: kpdata's 10 ticks are not its kpinfo's 100"));
	run_free(&r);
	write_dump(on, 0, 10, 10, bins, n, "ticks 100\nstate on\n");
	run_kprof(&r, ELF, path_in(on, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "read at different times"));
	run_free(&r);
	free(bins);
}

/* hex of a build-id wrote 2 * n_descsz bytes into 129 after a 32-bit check
 * that n_descsz = 0x80000000 passed; a 2 GiB note crashed kprof. */
static void build_id_note_size_overflow(void **state)
{
	static const unsigned char byte = 0xab;
	const char *path = tmp_path("hugenote.elf");
	char out[129] = "x";
	unsigned char *elf, note[16] = { 4, 0, 0, 0, 0, 0, 0, 0x80, NT_GNU_BUILD_ID, 0, 0, 0, 'G', 'N', 'U', 0 };
	Elf32_Shdr *sh;
	size_t len, off;
	struct run r;
	int fd;

	(void)state;
	kp_hex(out, sizeof out, &byte, 0x80000000u);
	assert_string_equal(out, "");
	kp_hex(out, sizeof out, &byte, 1);
	assert_string_equal(out, "ab");

	elf = load(ELF, &len);
	sh = section(elf, ".note.gnu.build-id");
	off = (len + 15) & ~(size_t)15;
	sh->sh_offset = (Elf32_Off)off;
	sh->sh_size = sizeof note + 0x80000000u;
	save(path, elf, len);
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, note, sizeof note, (off_t)off), (ssize_t)sizeof note);
	assert_int_equal(ftruncate(fd, (off_t)(off + sh->sh_size)), 0);   /* sparse */
	close(fd);
	free(elf);
	run_kprof(&r, path, plain_dump("hugenote"), NULL);
	assert_one_error(&r, "too large");
	run_free(&r);
	unlink(path);
}

/* libelf read each section of an ELF of any size into memory. */
static void elf_size_limited(void **state)
{
	const char *path = tmp_path("big.elf");
	unsigned char *elf;
	size_t len;
	struct run r;

	(void)state;
	elf = load(ELF, &len);
	save(path, elf, len);
	free(elf);
	assert_int_equal(truncate(path, (off_t)KELF_MAX_BYTES + 1), 0);
	run_kprof(&r, path, plain_dump("bigelf"), NULL);
	assert_one_error(&r, "too large");
	run_free(&r);
	unlink(path);
}

/* --lines read past an unterminated .debug_line_str when its SHF_STRINGS
 * flag was cleared or it was compressed: both were skipped by the check. */
static void debug_line_str_unterminated(void **state)
{
	const char *flags = tmp_path("nostrings.elf"), *src = tmp_path("unterm.elf");
	const char *zipped = tmp_path("zipped.elf"), *kpd = plain_dump("unterm");
	unsigned char *elf;
	Elf32_Shdr *sh;
	size_t len;
	struct run r;

	(void)state;
	elf = load(ELF, &len);
	sh = section(elf, ".debug_line_str");
	assert_int_equal(elf[sh->sh_offset + sh->sh_size - 1], '\0');
	elf[sh->sh_offset + sh->sh_size - 1] = 'x';
	save(src, elf, len);
	sh->sh_flags &= ~(Elf32_Word)(SHF_STRINGS | SHF_MERGE);
	save(flags, elf, len);
	free(elf);
	run_kprof(&r, "--lines", flags, kpd, NULL);
	assert_one_error(&r, "damaged DWARF");
	run_free(&r);

	const char *argv[] = { "objcopy", "--compress-debug-sections=zlib-gabi", src, zipped, NULL };
	run_cmd(&r, argv);
	assert_int_equal(r.status, 0);
	run_free(&r);
	run_kprof(&r, "--lines", zipped, kpd, NULL);
	assert_one_error(&r, "damaged DWARF");
	run_free(&r);
}

/* The hand-made symbol list gave the bytes of `outer` after `inner`, and
 * those of weak `wk` past global `gl`'s 8, to <unknown>. */
static void nested_and_aliased_symbols(void **state)
{
	const char *elf = fixture("fixture-nested.elf"), *dir = tmp_path("nested");
	struct fx f;
	uint32_t outer, gl, *bins;
	size_t n;
	char text[512];
	struct prow rows[16];
	struct run r;

	(void)state;
	elf_facts(elf, &f);
	outer = sym_of(elf, "outer");
	gl = sym_of(elf, "gl");
	n = f.te - f.ts;
	bins = calloc(n, sizeof *bins);
	bins[outer + 4 - f.ts] = 1;
	bins[outer + 0x12 - f.ts] = 3;          /* inner+0x2 */
	bins[outer + 0x18 - f.ts] = 5;          /* in outer, past inner */
	bins[gl + 2 - f.ts] = 2;                /* both: the global wins */
	bins[gl + 8 - f.ts] = 7;                /* only wk */
	mkdir(dir, 0777);
	write_kpdata(path_in(dir, "kpdata"), 18, 18, bins, n);
	free(bins);
	snprintf(text, sizeof text, "text_start 0x%x\ntext_end 0x%x\nres 0\nhz 1000\nbuild_id %s\n",
		 f.ts, f.te, f.build_id);
	write_text(path_in(dir, "kpinfo"), text);

	run_kprof(&r, elf, path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 16), 4);
	assert_string_equal(rows[0].name, "wk");
	assert_int_equal(rows[0].samples, 7);
	assert_string_equal(rows[1].name, "outer");
	assert_int_equal(rows[1].samples, 6);
	assert_string_equal(rows[2].name, "inner");
	assert_int_equal(rows[2].samples, 3);
	assert_string_equal(rows[3].name, "gl");
	assert_int_equal(rows[3].samples, 2);
	run_free(&r);

	run_kprof(&r, "--addr", elf, path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "outer+0x18 "));
	assert_non_null(strstr(r.out, "wk+0x8 "));
	assert_non_null(strstr(r.out, "inner+0x2 "));
	assert_null(strstr(r.out, "<unknown>"));
	run_free(&r);
}

/* A line was cut at 511 bytes, so "res 000...03" read as res 0; a key given
 * twice was taken from its last line. */
static void kpinfo_long_line_and_repeated_key(void **state)
{
	char text[700];
	struct kpinfo ki;

	(void)state;
	memcpy(text, "res ", 4);
	memset(text + 4, '0', 600);
	memcpy(text + 604, "3\n", 3);
	assert_int_equal(kpinfo_parse(&ki, text, strlen(text), "t"), 0);
	assert_int_equal(ki.res, 3);
	assert_int_equal(kpinfo_parse(&ki, "res 1\nhz 100\nres 2\n", 19, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "t:3: res given twice (first on line 1)"));
	assert_int_equal(kpinfo_parse(&ki, "build_id none\nbuild_id 00aa\n", 28, "t"), -1);
	assert_non_null(strstr(kp_lasterror(), "given twice"));
}

/* The printed readprofile command lacked -n, and readprofile's byte-order
 * guess then took a lone bin of 131072 (0x00020000) for a swapped 512. */
static void readprofile_command_has_n(void **state)
{
	const char *dir = tmp_path("rpn"), *out = tmp_path("rpn-out");
	static const char *where[] = { "/usr/sbin/readprofile", "/sbin/readprofile",
				       "/usr/bin/readprofile" };
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins);
	const char *argv[16];
	char *line, *save, *tok;
	unsigned long count = 0;
	int argc = 0;
	struct run r;

	(void)state;
	bins[sym("spin_b") - fx()->ts] = 131072;
	write_dump(dir, 0, 131072, 131072, bins, n, NULL);
	free(bins);
	run_kprof(&r, "--format", "readprofile", "-o", out, ELF, path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	line = strstr(r.out, "read them with: ");
	assert_non_null(line);
	line = strdup(line + strlen("read them with: "));
	line[strcspn(line, "\n")] = '\0';
	run_free(&r);
	for (tok = strtok_r(line, " ", &save); tok && argc < 15; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	assert_string_equal(argv[0], "readprofile");
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (access(where[i], X_OK) == 0)
			argv[0] = where[i];
	run_cmd(&r, argv);
	assert_int_equal(r.status, 0);
	for (const char *p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned long c;
		char name[128];

		if (sscanf(p, "%lu %127s", &c, name) == 2 && strcmp(name, "spin_b") == 0)
			count = c;
	}
	if (count != 131072)
		fail_msg("readprofile with the printed command: spin_b %lu, not 131072\n%s", count, r.out);
	run_free(&r);
	free(line);
}

/* A 256 MiB kpdata was read whole before its bin count was checked. */
static void huge_kpdata_not_read(void **state)
{
	const char *dir = tmp_path("hugekpdata");
	size_t n = fx_nbins(0);
	uint32_t *bins = calloc(n, sizeof *bins);
	struct run r;

	(void)state;
	write_dump(dir, 0, 0, 0, bins, n, NULL);
	free(bins);
	assert_int_equal(truncate(path_in(dir, "kpdata"), 256 << 20), 0);
	run_kprof(&r, ELF, path_in(dir, "kpdata"), NULL);
	assert_one_error(&r, "nbins");
	if (r.maxrss_kb > 128 * 1024)
		fail_msg("kprof peaked at %ld KiB for a kpdata it refuses", r.maxrss_kb);
	run_free(&r);
	unlink(path_in(dir, "kpdata"));
}

/* An ELF of many small executable sections, one function each. */
#define NSECT 60000
#define SECT_BYTES 16
#define SECT_BASE 0x100000u

static void many_sections_elf(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0666);
	Elf *e;
	Elf32_Ehdr *eh;
	Elf32_Phdr *ph;
	Elf_Scn *scn, *first = NULL;
	Elf_Data *d;
	Elf32_Shdr *sh;
	static unsigned char code[SECT_BYTES];
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	char *strtab = calloc(NSECT, 8);
	Elf32_Sym *syms = calloc(NSECT + 1, sizeof *syms);
	size_t strlen_ = 1;

	assert_true(fd >= 0);
	memset(code, 0x90, sizeof code);
	code[SECT_BYTES - 1] = 0xc3;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	eh = elf32_newehdr(e);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_386;
	eh->e_version = EV_CURRENT;
	eh->e_entry = SECT_BASE;
	ph = elf32_newphdr(e, 1);
	for (int i = 0; i < NSECT; i++) {
		scn = elf_newscn(e);
		if (first == NULL)
			first = scn;
		d = elf_newdata(scn);
		d->d_buf = code;
		d->d_size = SECT_BYTES;
		d->d_align = 1;
		sh = elf32_getshdr(scn);
		sh->sh_name = 1;
		sh->sh_type = SHT_PROGBITS;
		sh->sh_flags = SHF_ALLOC | SHF_EXECINSTR;
		sh->sh_addr = SECT_BASE + (Elf32_Addr)i * SECT_BYTES;
		sh->sh_addralign = 1;
		syms[i + 1].st_name = (Elf32_Word)strlen_;
		syms[i + 1].st_value = sh->sh_addr;
		syms[i + 1].st_size = SECT_BYTES;
		syms[i + 1].st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
		syms[i + 1].st_shndx = (Elf32_Half)elf_ndxscn(scn);
		strlen_ += (size_t)sprintf(strtab + strlen_, "f%d", i) + 1;
	}
	scn = elf_newscn(e);                          /* .symtab */
	d = elf_newdata(scn);
	d->d_buf = syms;
	d->d_size = (NSECT + 1) * sizeof *syms;
	d->d_type = ELF_T_SYM;
	d->d_align = 4;
	sh = elf32_getshdr(scn);
	sh->sh_name = 7;
	sh->sh_type = SHT_SYMTAB;
	sh->sh_entsize = sizeof *syms;
	sh->sh_link = (Elf32_Word)elf_ndxscn(scn) + 1;
	sh->sh_info = 1;
	scn = elf_newscn(e);                          /* .strtab */
	d = elf_newdata(scn);
	d->d_buf = strtab;
	d->d_size = strlen_;
	d->d_align = 1;
	sh = elf32_getshdr(scn);
	sh->sh_name = 15;
	sh->sh_type = SHT_STRTAB;
	scn = elf_newscn(e);                          /* .shstrtab */
	d = elf_newdata(scn);
	d->d_buf = (void *)shstr;
	d->d_size = sizeof shstr;
	d->d_align = 1;
	sh = elf32_getshdr(scn);
	sh->sh_name = 23;
	sh->sh_type = SHT_STRTAB;
	eh->e_shstrndx = (Elf32_Half)elf_ndxscn(scn);
	/* lay out, then one PT_LOAD over the code */
	assert_true(elf_update(e, ELF_C_NULL) > 0);
	ph->p_type = PT_LOAD;
	ph->p_offset = elf32_getshdr(first)->sh_offset;
	ph->p_vaddr = ph->p_paddr = SECT_BASE;
	ph->p_filesz = ph->p_memsz = NSECT * SECT_BYTES;
	ph->p_flags = PF_R | PF_X;
	ph->p_align = 1;
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
	assert_true(elf_update(e, ELF_C_WRITE) > 0);
	elf_end(e);
	close(fd);
	free(strtab);
	free(syms);
}

/* Finding a symbol's section and an address's bytes walked every section:
 * 100k sections took seconds. */
static void many_sections_linear(void **state)
{
	const char *elf = tmp_path("many.elf"), *dir = tmp_path("many");
	uint32_t *bins = calloc(NSECT, sizeof *bins);
	char text[256];
	struct run r;

	(void)state;
	many_sections_elf(elf);
	for (size_t i = 0; i < NSECT; i++)
		bins[i] = 1;
	mkdir(dir, 0777);
	write_kpdata(path_in(dir, "kpdata"), NSECT, NSECT, bins, NSECT);
	free(bins);
	snprintf(text, sizeof text, "text_start 0x%x\ntext_end 0x%x\nres 4\nhz 1000\n", SECT_BASE,
		 SECT_BASE + NSECT * SECT_BYTES);
	write_text(path_in(dir, "kpinfo"), text);
	run_kprof(&r, "--force", "--addr", "--top", "3", elf, path_in(dir, "kpdata"), NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "f0+0x0 "));
	if (r.seconds > 4.0)
		fail_msg("%d sections took %.1f s", NSECT, r.seconds);
	run_free(&r);
}

/* An empty kpinfo was reported as a build-id mismatch. */
static void empty_kpinfo_named(void **state)
{
	const char *kpd = plain_dump("emptyinfo");
	char info[4096];
	struct run r;

	(void)state;
	snprintf(info, sizeof info, "%s", kpd);
	strcpy(strrchr(info, '/') + 1, "kpinfo");
	write_text(info, "");
	run_kprof(&r, ELF, kpd, NULL);
	assert_one_error(&r, "it is empty");
	assert_null(strstr(r.err, "build-id"));
	run_free(&r);
}

/* A heat dump whose counts are all 0 made kprof accuracy print nan and
 * exit 0. */
static void heat_all_zero_refused(void **state)
{
	const char *heat = tmp_path("zero.heat"), *smp = tmp_path("zero.samples");
	char text[256];
	struct run r;

	(void)state;
	snprintf(text, sizeof text, "PROF 0x%08X 0 0\nPROF 0x%08X 0 0\n", sym("spin_a"), sym("spin_b"));
	write_text(heat, text);
	snprintf(text, sizeof text, "0x%08x 5\n", sym("spin_a"));
	write_text(smp, text);
	run_kprof(&r, "accuracy", ELF, heat, smp, NULL);
	assert_one_error(&r, "every count is 0");
	assert_null(strstr(r.out, "nan"));
	run_free(&r);
}

/* Counts near 2^64 wrapped in the per-function sums: a huge function
 * came out small. Now the dump is refused when its counts pass 2^64. */
static void heat_counts_past_2_64_refused(void **state)
{
	const char *heat = tmp_path("big.heat");
	char text[256];
	struct run r;

	(void)state;
	snprintf(text, sizeof text, "PROF 0x%08X 18446744073709551615 1\nPROF 0x%08X 2 1\n",
		 sym("spin_a"), sym("spin_a") + 1);
	write_text(heat, text);
	run_kprof(&r, "heat", ELF, heat, NULL);
	assert_one_error(&r, "past 2^64");
	run_free(&r);
}

/* A dump with CRLF line ends was refused after a mark ("CALLED\r"), while
 * text after a '\r' elsewhere was ignored. One rule now for every line:
 * one '\r' may end it, and a '\r' anywhere else is an error. */
static void heat_crlf_one_rule(void **state)
{
	const char *heat = tmp_path("crlf.heat");
	char text[256];
	struct run r;

	(void)state;
	snprintf(text, sizeof text, "PROF 0x%08X 5 9 CALLED\r\nPROF 0x%08X 7 3\r\n", sym("spin_a"),
		 sym("spin_b"));
	write_text(heat, text);
	run_kprof(&r, "heat", ELF, heat, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "12 instructions executed"));
	run_free(&r);
	snprintf(text, sizeof text, "PROF 0x%08X 5 9\rjunk\n", sym("spin_a"));
	write_text(heat, text);
	run_kprof(&r, "heat", ELF, heat, NULL);
	assert_one_error(&r, "not a heat line");
	run_free(&r);
	snprintf(text, sizeof text, "0x%08x 5\r\n0x%08x 6\r7\n", sym("spin_a"), sym("spin_b"));
	write_text(heat, text);
	snprintf(text, sizeof text, "PROF 0x%08X 5 9\n", sym("spin_a"));
	write_text(tmp_path("crlf2.heat"), text);
	run_kprof(&r, "accuracy", ELF, tmp_path("crlf2.heat"), heat, NULL);
	assert_one_error(&r, "not an \"address count\" line");
	run_free(&r);
}

/* A Monte Carlo dump of a "kernel" (the ELF of facts f): counts at pcs
 * (an unbuffered session's routines, or any addresses), options as
 * ProfileStart had them. */
static void write_mc(const char *path, uint32_t options, const struct fx *f, const uint32_t *pcs,
		     const uint32_t *counts, size_t n)
{
	size_t cap = 1024 + n * sizeof(struct mc_dumprec), off = sizeof(struct dump_header);
	unsigned char *buf = calloc(1, cap);
	struct dump_header h = { .version = DUMP_VERSION, .engine = DUMP_ENGINE_MONTE,
				 .rate_mhz = 1000000, .nmodules = 1 };
	struct dump_module m = { .path_len = sizeof DUMP_PATH_KERNEL - 1 };
	struct mc_dump d = { .options = options, .nrecs = (uint32_t)n, .ticks = 2 };

	memcpy(h.magic, DUMP_MAGIC, DUMP_MAGIC_LEN);
	m.build_id_len = (uint16_t)(strlen(f->build_id) / 2);
	memcpy(buf + off, &m, sizeof m);
	off += sizeof m;
	for (size_t i = 0; i < m.build_id_len; i++) {
		unsigned v;
		sscanf(f->build_id + 2 * i, "%2x", &v);
		buf[off++] = (unsigned char)v;
	}
	memcpy(buf + off, DUMP_PATH_KERNEL, m.path_len);
	off = (off + m.path_len + DUMP_ALIGN - 1) / DUMP_ALIGN * DUMP_ALIGN;
	h.size = (uint32_t)off;
	memcpy(buf, &h, sizeof h);
	memcpy(buf + off, &d, sizeof d);
	off += sizeof d;
	for (size_t i = 0; i < n; i++) {
		struct mc_dumprec r = { .pc = pcs[i], .mod = 0, .count = counts[i] };

		memcpy(buf + off, &r, sizeof r);
		off += sizeof r;
	}
	save(path, buf, off);
	free(buf);
}

/* The pprof profile a dump makes, unpacked (gunzipped by zlib) */
static Perftools__Profiles__Profile *pprof_of(const char *dump)
{
	const char *elfs[] = { ELF }, *out = tmp_path("units.pb.gz");
	struct ropen ro = { .path = dump };
	struct pipe pp;
	unsigned char *buf = malloc(1 << 20);
	Perftools__Profiles__Profile *pr;
	FILE *f = fopen(out, "wb");
	gzFile z;
	int n;

	assert_non_null(f);
	assert_int_equal(pipe_open(&pp, elfs, 1, &ro, NULL, 0), 0);
	assert_int_equal(writer_named("pprof")->write(f, &(struct wopts){ 0 }, &pp.sy, &pp.ss, &pp.p), 0);
	fclose(f);
	pipe_close(&pp);
	z = gzopen(out, "rb");
	assert_non_null(z);
	n = gzread(z, buf, 1 << 20);
	gzclose(z);
	assert_true(n > 0);
	pr = perftools__profiles__profile__unpack(NULL, (size_t)n, buf);
	free(buf);
	assert_non_null(pr);
	return pr;
}

/* The event attribute of the perf.data a dump makes (its file header's
 * attrs section: the first perf_event_attr) */
static struct perf_event_attr perf_attr_of(const char *dump)
{
	const char *elfs[] = { ELF }, *out = tmp_path("units.perf");
	struct ropen ro = { .path = dump };
	struct pipe pp;
	struct perf_event_attr a;
	uint64_t hdr[5];
	FILE *f = fopen(out, "wb");

	assert_non_null(f);
	assert_int_equal(pipe_open(&pp, elfs, 1, &ro, NULL, 0), 0);
	assert_int_equal(writer_named("perf")->write(f, &(struct wopts){ 0 }, &pp.sy, &pp.ss, &pp.p), 0);
	fclose(f);
	pipe_close(&pp);
	f = fopen(out, "rb");
	assert_non_null(f);
	/* magic, header size, attr size, the attrs section's offset, size */
	assert_int_equal(fread(hdr, sizeof hdr[0], 5, f), 5);
	assert_int_equal(fseek(f, (long)hdr[3], SEEK_SET), 0);
	assert_int_equal(fread(&a, sizeof a, 1, f), 1);
	fclose(f);
	return a;
}

static const char *pp_str(const Perftools__Profiles__Profile *pr, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < pr->n_string_table);
	return pr->string_table[i];
}

/* A Monte Carlo dump of prof on -s holds system-call hits, which every
 * writer called ticks and turned into time: "total 132 ticks 0.132 s",
 * "100.0 ms sys_getpid", pprof's cpu nanoseconds, perf's cpu-clock. Now
 * the sample set carries its unit, and a count that is no clock's is
 * shown as what it is, never as seconds; ticks stay time. */
static void mc_syscall_hits_not_seconds(void **state)
{
	static const uint32_t hits[] = { 100, 32 };
	uint32_t pcs[] = { sym("spin_a"), sym("spin_b") };
	char hitdump[PATH_MAX], tickdump[PATH_MAX];     /* tmp_path's buffer is reused */
	Perftools__Profiles__Profile *pr;
	struct perf_event_attr a;
	struct run r;

	(void)state;
	snprintf(hitdump, sizeof hitdump, "%s", tmp_path("hits.mc"));
	snprintf(tickdump, sizeof tickdump, "%s", tmp_path("ticks.mc"));
	write_mc(hitdump, PROFILE_OBJCALL, fx(), pcs, hits, 2);
	write_mc(tickdump, 0, fx(), pcs, hits, 2);

	/* the same counts, as clock ticks: time */
	run_kprof(&r, ELF, tickdump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "total          132 ticks  100.00%       0.132 s\n"));
	assert_non_null(strstr(r.out, "     100.0   75.76       100  spin_a\n"));
	run_free(&r);

	run_kprof(&r, ELF, hitdump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "counts  system-call hits  (mc): not time\n"));
	assert_non_null(strstr(r.out, "total          132 hits  100.00%\n"));
	assert_non_null(strstr(r.out, "\n      %      hits  symbol\n  75.76       100  spin_a\n"));
	assert_null(strstr(r.out, "ticks"));
	assert_null(strstr(r.out, " s\n"));
	assert_null(strstr(r.out, "ms"));
	run_free(&r);
	run_kprof(&r, "--lines", ELF, hitdump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "      %      hits  file:line\n  75.76       100  "));
	run_free(&r);

	/* pprof: the one value, its type the hits' */
	pr = pprof_of(hitdump);
	assert_int_equal(pr->n_sample_type, 1);
	assert_string_equal(pp_str(pr, pr->sample_type[0]->type), "syscalls");
	assert_string_equal(pp_str(pr, pr->sample_type[0]->unit), "count");
	assert_string_equal(pp_str(pr, pr->period_type->type), "syscalls");
	assert_int_equal(pr->period, 1);
	for (size_t i = 0; i < pr->n_sample; i++)
		assert_int_equal(pr->sample[i]->n_value, 1);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	pr = pprof_of(tickdump);
	assert_int_equal(pr->n_sample_type, 2);
	assert_string_equal(pp_str(pr, pr->sample_type[0]->type), "samples");
	assert_string_equal(pp_str(pr, pr->sample_type[1]->unit), "nanoseconds");
	assert_int_equal(pr->period, 1000000);
	perftools__profiles__profile__free_unpacked(pr, NULL);

	/* perf: no cpu-clock of a tick's nanoseconds, a count of period 1 */
	a = perf_attr_of(hitdump);
	assert_int_equal(a.sample_period, 1);
	assert_false(a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_CPU_CLOCK);
	a = perf_attr_of(tickdump);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(a.sample_period, 1000000);

	/* the flame graph and speedscope say what they count */
	run_kprof(&r, "--format", "flamegraph", ELF, hitdump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Flame graph: 132 system-call hits</text>"));
	assert_non_null(strstr(r.out, "<title>spin_a (100 hits, 75.76%)</title>"));
	assert_null(strstr(r.out, "samples"));
	run_free(&r);
	run_kprof(&r, "--format", "speedscope", ELF, hitdump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"name\":\"kprof mc (system-call hits)\""));
	assert_non_null(strstr(r.out, "\"unit\":\"none\""));
	run_free(&r);
	run_kprof(&r, "--format", "flamegraph", ELF, tickdump, NULL);
	assert_non_null(strstr(r.out, "Flame graph: 132 samples</text>"));
	run_free(&r);
}

/* A heat dump's counts are instructions executed, and the report called
 * them ticks at a clock of 0 Hz: "total 12 ticks ... inf s". */
static void heat_instructions_not_seconds(void **state)
{
	const char *heat = tmp_path("insns.heat");
	char text[256];
	struct run r;

	(void)state;
	snprintf(text, sizeof text, "PROF 0x%08X 5 9\nPROF 0x%08X 7 3\n", sym("spin_a"), sym("spin_b"));
	write_text(heat, text);
	run_kprof(&r, ELF, heat, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "counts  instructions executed  (heat): not time\n"));
	assert_non_null(strstr(r.out, "total           12 instructions  100.00%\n"));
	assert_non_null(strstr(r.out, "  58.33            7  spin_b\n"));
	assert_null(strstr(r.out, "inf"));
	assert_null(strstr(r.out, "ticks"));
	run_free(&r);
}

/* name count pairs: a report's rows, or folded lines less their root */
struct nc {
	char name[160];
	unsigned long n;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct nc *)a)->name, ((const struct nc *)b)->name);
}

static int folded_frames(const char *out, struct nc *v, int max)
{
	int n = 0;

	for (const char *p = out; *p && n < max; p = strchr(p, '\n') + 1) {
		const char *semi = strchr(p, ';'), *nl = strchr(p, '\n'), *sp = nl;

		while (sp && sp > p && *sp != ' ')
			sp--;
		if (!semi || !nl || semi > sp)
			fail_msg("not a folded line: %.200s", p);
		snprintf(v[n].name, sizeof v[n].name, "%.*s", (int)(sp - semi - 1), semi + 1);
		v[n++].n = strtoul(sp + 1, NULL, 10);
	}
	qsort(v, (size_t)n, sizeof *v, by_name);
	return n;
}

/* The flat report named a sample in an inlined function by the function
 * it is inlined into ("main 16") where the folded stacks, the flame
 * graph and speedscope named it "main;bubble 16". One rule now, in
 * every format: the frame's name is frame_name's, inlined frames shown,
 * and --no-inline shows none, in every format alike. */
static void flat_report_names_inlined_frames(void **state)
{
	const char *elf = fixture("fixture-inline.elf");
	char dump[2][PATH_MAX], extra[256];
	uint32_t total = 0;
	struct fx f;
	uint32_t *pcs, *counts;
	size_t n;
	struct prow rows[64];
	struct nc flat[64], folded[64];
	struct run r;

	(void)state;
	/* a count of 1..3 at every byte of the text: every frame name there is */
	elf_facts(elf, &f);
	n = f.te - f.ts;
	pcs = calloc(n, sizeof *pcs);
	counts = calloc(n, sizeof *counts);
	for (size_t i = 0; i < n; i++) {
		pcs[i] = f.ts + (uint32_t)i;
		counts[i] = 1 + i % 3;
	}
	/* as a Monte Carlo dump, and as a kpdata (whose report sums the bins
	 * of a function as it reads them, but not those of inlined code) */
	snprintf(dump[0], sizeof dump[0], "%s", tmp_path("inline.mc"));
	write_mc(dump[0], 0, &f, pcs, counts, n);
	for (size_t i = 0; i < n; i++)
		total += counts[i];
	snprintf(extra, sizeof extra, "text_start 0x%08x\ntext_end 0x%08x\nbuild_id %s\n", f.ts, f.te,
		 f.build_id);
	write_dump(tmp_path("inline"), 0, total, total, counts, n, extra);
	snprintf(dump[1], sizeof dump[1], "%s", path_in(tmp_path("inline"), "kpdata"));
	free(pcs);
	free(counts);
	for (int k = 0; k < 4; k++) {
		int no_inline = k & 1;
		const char *opt = no_inline ? "--no-inline" : "(inlined frames)", *d = dump[k >> 1];
		int nr, nf, inlined = 0;

		if (no_inline)
			run_kprof(&r, "--no-inline", elf, d, NULL);
		else
			run_kprof(&r, elf, d, NULL);
		assert_int_equal(r.status, 0);
		nr = parse_rows(r.out, rows, 64);
		run_free(&r);
		for (int i = 0; i < nr; i++) {
			/* the report's row of counts no symbol owns is its own */
			snprintf(flat[i].name, sizeof flat[i].name, "%s",
				 strcmp(rows[i].name, ROW_UNKNOWN) ? rows[i].name : FRAME_UNKNOWN);
			flat[i].n = rows[i].samples;
			inlined += strchr(rows[i].name, ';') != NULL;
		}
		qsort(flat, (size_t)nr, sizeof *flat, by_name);
		if (no_inline)
			run_kprof(&r, "--no-inline", "--format", "folded", elf, d, NULL);
		else
			run_kprof(&r, "--format", "folded", elf, d, NULL);
		assert_int_equal(r.status, 0);
		nf = folded_frames(r.out, folded, 64);
		run_free(&r);
		/* the inlined function is there, as a frame of its own or not at all */
		assert_int_equal(inlined > 0, !no_inline);
		assert_int_equal(nr, nf);
		for (int i = 0; i < nr; i++) {
			if (strcmp(flat[i].name, folded[i].name) || flat[i].n != folded[i].n)
				fail_msg("%s %s: the report's row %s %lu, the folded line's %s %lu", d,
					 opt, flat[i].name, flat[i].n, folded[i].name, folded[i].n);
		}
	}
}

/* A stack dump of the kernel ELF path alone: each record its frames
 * (kernel ones, leaf first), the two words at the leaf's stack pointer */
struct srec {
	uint32_t n, f[4], ret, ret1;
};

static void write_stacks(const char *path, const char *elf, const struct srec *recs, size_t n)
{
	unsigned char buf[4096], id[64];
	struct fx f;
	uint32_t idlen, mlen;
	struct dump_header h;
	struct stk_dump d = { .nrecs = (uint32_t)n, .depth = 64, .samples = (uint32_t)n };
	size_t off;

	elf_facts(elf, &f);
	for (idlen = 0; idlen < sizeof id && f.build_id[2 * idlen]; idlen++) {
		unsigned v;
		sscanf(f.build_id + 2 * idlen, "%2x", &v);
		id[idlen] = (unsigned char)v;
	}
	mlen = dump_module_encode(buf + sizeof(struct dump_header), id, idlen, DUMP_PATH_KERNEL,
				  sizeof DUMP_PATH_KERNEL - 1);
	off = sizeof(struct dump_header) + mlen;
	h = dump_header_make(DUMP_ENGINE_STACKS, 1000000, 1, mlen);
	memcpy(buf, &h, sizeof h);
	memcpy(buf + off, &d, sizeof d);
	off += sizeof d;
	for (size_t i = 0; i < n; i++) {
		struct stk_rec r = { .count = 1, .pid = 1, .umod = 0xFFFF, .nk = (uint8_t)recs[i].n,
				     .ret = recs[i].ret, .ret1 = recs[i].ret1 };

		memcpy(buf + off, &r, sizeof r);
		off += sizeof r;
		memcpy(buf + off, recs[i].f, 4 * recs[i].n);
		off += 4 * recs[i].n;
	}
	save(path, buf, off);
}

/* The repair follows a leaf's code to its PC (tests/frames.S): a leaf
 * with no frame that pushed nothing gets its caller from the word at the
 * stack pointer, one that pushed a word (its loop after a ret, reached by
 * a jump) from the word above; a leaf whose stack was realigned, or whose
 * word is no return address, is marked truncated, not given a caller; a
 * leaf with its frame set up is exact, and at its first instruction
 * repaired. */
static void frameless_leaf_repair(void **state)
{
	const char *elf = fixture("fixture-frames.elf"), *dump = tmp_path("frames.stacks");
	uint32_t start = sym_of(elf, "_start"), top = sym_of(elf, "top"), caller = sym_of(elf, "caller");
	uint32_t l0 = sym_of(elf, "leaf0"), lj = sym_of(elf, "leafj"), la = sym_of(elf, "leafand");
	uint32_t lf = sym_of(elf, "leaff");
	const struct srec recs[] = {
		{ 3, { l0 + 4, top + 8, start + 7 }, caller + 8, 0x12345678 },
		{ 3, { lj + 7, top + 8, start + 7 }, 0x12345678, caller + 13 },
		{ 3, { la + 6, top + 8, start + 7 }, caller + 18, caller + 18 },
		{ 3, { l0 + 5, top + 8, start + 7 }, top + 1, 0 },      /* no return address */
		{ 4, { lf + 3, caller + 23, top + 8, start + 7 }, 0, 0 },
		{ 3, { lf, top + 8, start + 7 }, caller + 23, 0 },
	};
	struct run r;

	(void)state;
	write_stacks(dump, elf, recs, sizeof recs / sizeof recs[0]);
	run_kprof(&r, "--format", "folded", elf, dump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "[unknown];_start_[k];top_[k];caller_[k];leaf0_[k] 1\n"));
	assert_non_null(strstr(r.out, "[unknown];_start_[k];top_[k];caller_[k];leafj_[k] 1\n"));
	assert_non_null(strstr(r.out, "[unknown];[truncated];_start_[k];top_[k];leafand_[k] 1\n"));
	assert_non_null(strstr(r.out, "[unknown];[truncated];_start_[k];top_[k];leaf0_[k] 1\n"));
	assert_non_null(strstr(r.out, "[unknown];_start_[k];top_[k];caller_[k];leaff_[k] 2\n"));
	assert_int_equal(nlines(r.out), 5);
	run_free(&r);
	run_kprof(&r, elf, dump, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "stacks: 1 exact, 3 repaired (a caller put back), 2 truncated"));
	run_free(&r);
}

int test_bugs_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_id_note_size_overflow),
		cmocka_unit_test(elf_size_limited),
		cmocka_unit_test(debug_line_str_unterminated),
		cmocka_unit_test(nested_and_aliased_symbols),
		cmocka_unit_test(kpinfo_long_line_and_repeated_key),
		cmocka_unit_test(readprofile_command_has_n),
		cmocka_unit_test(huge_kpdata_not_read),
		cmocka_unit_test(many_sections_linear),
		cmocka_unit_test(empty_kpinfo_named),
		cmocka_unit_test(heat_all_zero_refused),
		cmocka_unit_test(heat_counts_past_2_64_refused),
		cmocka_unit_test(heat_crlf_one_rule),
		cmocka_unit_test(kpdata_kpinfo_mixed_refused),
		cmocka_unit_test(heat_read_while_tracing_noted),
		cmocka_unit_test(mc_syscall_hits_not_seconds),
		cmocka_unit_test(heat_instructions_not_seconds),
		cmocka_unit_test(flat_report_names_inlined_frames),
		cmocka_unit_test(frameless_leaf_repair),
	};

	return cmocka_run_group_tests_name("kprof-bugs", tests, NULL, NULL);
}
