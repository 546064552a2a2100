/* test_util.h: what the kprof unit tests share: where the fixtures and the
 * sanitized CLI are, running the CLI, writing dumps, reading its reports. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kprof.h"

/* paths: beside build/kprof-unit, or $KPROF_BUILD */
const char *build_path(const char *rel);      /* e.g. "kprof-asan" */
const char *fixture(const char *name);        /* build/tools/kprof/NAME */
const char *tmp_path(const char *name);       /* in this run's scratch dir */
const char *path_in(const char *dir, const char *name);
void tmp_cleanup(void);

/* one run of build/kprof-asan (args NULL-terminated), killed after 60 s */
struct run {
	int status;                    /* exit status, or 128 + signal */
	char *out, *err;
	long maxrss_kb;                /* the child's peak resident memory */
	double seconds;                /* its wall-clock time */
};
void run_kprof(struct run *r, ...);
void run_cmd(struct run *r, const char *const *argv);
void run_free(struct run *r);
int nlines(const char *s);

/* the fixture ELF, read independently of kprof (nm, readelf, libelf) */
struct fx {
	uint32_t ts, te;               /* .text */
	char build_id[129];
};
const struct fx *fx(void);
uint32_t sym(const char *name);               /* address from nm */
uint32_t sym_size(const char *name);
int source_line(const char *marker);         /* line of "L:marker" in fixture.c */
void elf_facts(const char *path, struct fx *f);  /* the same for any ELF */
uint32_t sym_of(const char *path, const char *name);  /* nm, for any ELF */

/* a dump for the fixture: kpdata and kpinfo in dir; extra is appended to kpinfo */
void write_kpdata(const char *path, uint32_t total, uint32_t kernel, const uint32_t *bins, size_t n);
void write_text(const char *path, const char *text);
void write_dump(const char *dir, unsigned res, uint32_t total, uint32_t kernel,
		const uint32_t *bins, size_t n, const char *extra);
size_t fx_nbins(unsigned res);

/* a report's rows: ms % samples name */
struct prow {
	double ms, pct;
	unsigned long samples;
	char name[160];
};
int parse_rows(const char *out, struct prow *rows, int max);
const struct prow *find_row(const struct prow *rows, int n, const char *name);

int test_parse_group(void);
int test_cli_group(void);
int test_export_group(void);
int test_bugs_group(void);
int test_fuzz_group(void);
int test_annotate_group(void);

#endif
