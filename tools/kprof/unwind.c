/* kprof unwind: the unwind table the kernel makes for a program, made here
 * from the program's .eh_frame by the same code (kernel/prof/
 * unwind_build.c), and printed: a row per address range, with where the
 * caller's frame is there. For a function, beside `objdump -d` and
 * `readelf --debug-dump=frames`, it shows what the stack engine does at
 * each of its instructions. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"
#include "unwtab.h"

#define UNWIND_USAGE "kprof unwind ELF [FUNC]"

static void *env_alloc(void *ctx, uint32_t n)
{
	(void)ctx;
	return malloc(n ? n : 1);
}

static void env_free(void *ctx, void *p, uint32_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

const struct unw_env unw_host_env = { env_alloc, env_free, qsort, NULL };

/* A rule as the docs write it: "cfa=esp+8 ebp=cfa-8" */
void unw_format(char *buf, size_t n, const struct unw_rule *r)
{
	switch (r->how) {
	case UNW_NONE: snprintf(buf, n, "no CFI: frame pointer"); return;
	case UNW_END: snprintf(buf, n, "end: the outermost frame"); return;
	case UNW_BAD: snprintf(buf, n, "CFI not kept: the walk stops"); return;
	}
	if (r->how == UNW_DEREF) {
		snprintf(buf, n, "cfa=*(ebp%+d) ra=cfa-4 ebp=*(ebp%+d)", (int32_t)r->off, 4 * r->ebp);
		return;
	}
	if (r->ebp)
		snprintf(buf, n, "cfa=%s+%u ra=cfa-4 ebp=cfa-%d", r->how == UNW_ESP ? "esp" : "ebp",
			 r->off, -4 * r->ebp);
	else
		snprintf(buf, n, "cfa=%s+%u ra=cfa-4 ebp=same", r->how == UNW_ESP ? "esp" : "ebp", r->off);
}

struct show {
	FILE *out;
	uint32_t rows;
};

static void show_row(void *arg, uint32_t start, uint32_t end, const struct unw_rule *r)
{
	struct show *s = arg;
	char rule[64];

	unw_format(rule, sizeof rule, r);
	fprintf(s->out, "  0x%08x..0x%08x  %s\n", start, end, rule);
	s->rows++;
}

/* the section named name: its bytes and address; 0, or -1 after kp_error */
static int section(Elf *e, const char *path, const char *name, Elf_Data **d, GElf_Shdr *sh)
{
	size_t shstr;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstr) != 0) {
		kp_error("%s: no section names: %s", path, elf_errmsg(-1));
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || !(n = elf_strptr(e, shstr, sh->sh_name)) || strcmp(n, name))
			continue;
		if (sh->sh_type == SHT_NOBITS || !(*d = elf_getdata(scn, NULL)) || (*d)->d_size != sh->sh_size) {
			kp_error("%s: %s has no bytes in the file", path, name);
			return -1;
		}
		return 0;
	}
	kp_error("%s: no %s section (built with -fno-asynchronous-unwind-tables?): "
		 "the stack engine walks it by frame pointers", path, name);
	return -1;
}

/* func's [lo, hi) from the symbol table; 0, or -1 after kp_error */
static int function(Elf *e, const char *path, const char *func, uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !(n = elf_strptr(e, sh.sh_link, s.st_name)) || strcmp(n, func))
				continue;
			*lo = s.st_value;
			*hi = s.st_value + (s.st_size ? s.st_size : 1);
			return 0;
		}
	}
	kp_error("%s: no function %s in its symbol table", path, func);
	return -1;
}

static int unwind(FILE *out, const char *path, const char *func)
{
	int fd = open(path, O_RDONLY), rc = -1, err;
	Elf *e = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	struct unw_table *t = NULL;
	struct unw_stats st;
	uint64_t lo = 0, hi = UINT32_MAX;

	if (fd < 0) {
		kp_error("%s: %s", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || !gelf_getehdr(e, &eh)) {
		kp_error("%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_machine != EM_386) {
		kp_error("%s: not an i386 ELF: the kernel runs only those", path);
		goto out;
	}
	if (section(e, path, ".eh_frame", &d, &sh) < 0 || (func && function(e, path, func, &lo, &hi) < 0))
		goto out;
	if ((err = unw_build(d->d_buf, (uint32_t)d->d_size, (uint32_t)sh.sh_addr, &unw_host_env, &t, &st)) < 0) {
		kp_error("%s: %s", path, unw_strerror(err));
		goto out;
	}
	if (func) {
		struct show s = { out, 0 };

		fprintf(out, "%s: 0x%08" PRIx64 "..0x%08" PRIx64 "\n", func, lo, hi);
		unw_rows(t, (uint32_t)lo, (uint32_t)hi, show_row, &s);
		if (!s.rows)
			fprintf(out, "  no row: the function is outside the table\n");
	} else {
		struct show s = { out, 0 };

		unw_rows(t, t->lo, t->lo + t->span, show_row, &s);
	}
	fprintf(out, "table: %u rows, %u rules, %u blocks of %u bytes: %u bytes (.eh_frame %u); "
		"%u FDEs, %u left out, %u with CFI not kept\n",
		t->nrows, t->nrules, t->nblocks, 1u << t->shift, t->bytes, (uint32_t)d->d_size,
		st.fdes, st.skipped, st.bad);
	rc = 0;
out:
	unw_free(t, &unw_host_env);
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static void count_row(void *arg, uint32_t start, uint32_t end, const struct unw_rule *r)
{
	uint32_t *last = arg;

	(void)r;
	if (start >= end || start < *last)
		abort();                        /* rows are sorted and not empty */
	*last = end;
}

int unw_fuzz(const unsigned char *buf, size_t len)
{
	struct unw_table *t;
	struct unw_stats st;
	uint32_t last = 0;

	if (len > UINT32_MAX || unw_build(buf, (uint32_t)len, 0x08048000, &unw_host_env, &t, &st) < 0)
		return -1;
	/* every lookup lands on a rule of the table; a few thousand of them,
	 * spread over the span and its edges */
	for (uint32_t i = 0, step = t->span / 4096 + 1; i <= t->span + 16; i += step)
		if (unw_find(t, t->lo - 8 + i) >= t->nrules)
			abort();
	unw_rows(t, 0, UINT32_MAX, count_row, &last);
	unw_free(t, &unw_host_env);
	return 0;
}

int unwind_main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n\nThe unwind table the kernel makes from ELF's .eh_frame at its spawn, a\n"
		       "row per address range: where the caller's frame is (the CFA, from esp or\n"
		       "ebp), and where its return address and ebp were saved. With FUNC, that\n"
		       "function's rows only. The last line sizes the table.\n", UNWIND_USAGE);
		return 0;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "kprof unwind: %s; usage: %s\n", argc < 2 ? "missing ELF" : "too many arguments",
			UNWIND_USAGE);
		return 2;
	}
	if (unwind(stdout, argv[1], argc == 3 ? argv[2] : NULL) < 0) {
		fprintf(stderr, "kprof unwind: %s\n", kp_lasterror());
		return 2;
	}
	return 0;
}
