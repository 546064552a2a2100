/* report.c: the text reports, Plan 9 kprof style: a header with the tick
 * totals, then `ms  %  samples  what` rows, most samples first. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define UNKNOWN "<unknown>"        /* kernel bins no symbol (or line) owns */
#define OUTSIDE "<outside text>"   /* kernel ticks with no bin at all */

struct row {
	uint64_t count;
	const char *k1;                /* ties: by k1, then k2 */
	uint64_t k2;
	char *label;                   /* the last column */
	uint32_t addr;                 /* --addr only */
	char *insn;                    /* --addr only */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(x->k1, y->k1);
	if (c)
		return c;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void header(FILE *out, const struct kelf *ke, const struct kpinfo *ki,
		   const struct kpdata *kd, const struct profile *p)
{
	uint64_t user = kd->total - kd->kernel;
	size_t full = 0;

	for (size_t i = 0; i < kd->nbins; i++)
		full += kd->bins[i] == KPDATA_MAX;
	fprintf(out, "elf     %s  build-id %s\n", ke->path, ke->build_id[0] ? ke->build_id : "none");
	fprintf(out, "text    0x%08x-0x%08x  res %u (%u byte%s per bin)  %zu bins  clock %.3f Hz\n",
		ki->text_start, ki->text_end, ki->res, 1u << ki->res, ki->res ? "s" : "",
		kd->nbins, ki->hz);
	fprintf(out, "total   %10u ticks  %6.2f%%  %10.3f s\n", kd->total, pct(kd->total, kd->total),
		kd->total / ki->hz);
	fprintf(out, "kernel  %10u ticks  %6.2f%%  %10.3f s\n", kd->kernel, pct(kd->kernel, kd->total),
		kd->kernel / ki->hz);
	fprintf(out, "user    %10ju ticks  %6.2f%%  %10.3f s\n", (uintmax_t)user, pct(user, kd->total),
		(double)user / ki->hz);
	if ((ki->have & KI_SATURATED) && ki->saturated > 0)
		fprintf(out, "saturated %ju samples hit a full counter (%#x): those counts are lower bounds\n",
			(uintmax_t)ki->saturated, KPDATA_MAX);
	if (full)
		fprintf(out, "saturated %zu bins are full (%#x): their counts are lower bounds\n",
			full, KPDATA_MAX);
	if (p->kernel > kd->kernel)
		fprintf(out, "note    the bins hold %ju ticks, more than the kernel total: %% is of the bins\n",
			(uintmax_t)p->kernel);
	if ((ki->have & KI_STATE) && strcmp(ki->state, "on") == 0)
		fprintf(out, "note    profiling was on when the dump was read (state on)\n");
	if ((ki->have & KI_TICKS) && ki->ticks != kd->total)
		fprintf(out, "note    kpinfo ticks %ju differ from kpdata's %u: read at different times\n",
			(uintmax_t)ki->ticks, kd->total);
	fprintf(out, "\n");
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	s = kp_calloc((size_t)n + 1, 1);
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

static struct row *add(struct row *rows, size_t *n, uint64_t count, const char *k1, uint64_t k2,
		       char *label)
{
	struct row *r = &rows[(*n)++];

	r->count = count;
	r->k1 = k1;
	r->k2 = k2;
	r->label = label;
	return r;
}

static size_t rows_by_symbol(struct row *rows, const struct kelf *ke, const struct profile *p)
{
	size_t n = 0;

	for (size_t i = 0; i < ke->nsyms; i++)
		if (p->symcount[i])
			add(rows, &n, p->symcount[i], ke->syms[i].name, ke->syms[i].start,
			    kp_strdup(ke->syms[i].name));
	if (p->unknown)
		add(rows, &n, p->unknown, UNKNOWN, 0, kp_strdup(UNKNOWN));
	return n;
}

struct lhit {
	const char *file;
	int line;
	uint64_t count;
};

static int cmp_lhit(const void *a, const void *b)
{
	const struct lhit *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static size_t rows_by_line(struct row *rows, const struct linetab *lt, const struct profile *p)
{
	struct lhit *lh = kp_calloc(p->nhits, sizeof *lh);
	size_t nl = 0, n = 0, cursor = 0;
	uint64_t unknown = 0;

	for (size_t i = 0; i < p->nhits; i++) {
		const struct lrow *r = linetab_next(lt, &cursor, p->hits[i].addr);

		if (r == NULL) {
			unknown += p->hits[i].count;
			continue;
		}
		lh[nl].file = linetab_relpath(r->file);
		lh[nl].line = r->line;
		lh[nl].count = p->hits[i].count;
		nl++;
	}
	qsort(lh, nl, sizeof *lh, cmp_lhit);
	for (size_t i = 0; i < nl; ) {
		size_t j = i;
		uint64_t c = 0;

		while (j < nl && cmp_lhit(&lh[i], &lh[j]) == 0)
			c += lh[j++].count;
		/* the file string is libdw's, alive until linetab_free */
		add(rows, &n, c, lh[i].file, (uint64_t)lh[i].line,
		    fmt("%s:%d", lh[i].file, lh[i].line));
		i = j;
	}
	if (unknown)
		add(rows, &n, unknown, UNKNOWN, 0, kp_strdup(UNKNOWN));
	free(lh);
	return n;
}

static size_t rows_by_addr(struct row *rows, const struct kelf *ke, const struct profile *p)
{
	struct disasm d;
	size_t n = 0;

	disasm_open(&d);
	for (size_t i = 0; i < p->nhits; i++) {
		const struct hit *h = &p->hits[i];
		const struct ksym *s = h->sym >= 0 ? &ke->syms[h->sym] : NULL;
		char insn[160];
		struct row *r;

		disasm_bin(&d, ke, s, h->addr, 1u << p->res, insn, sizeof insn);
		r = add(rows, &n, h->count, "", h->addr,
			s ? fmt("%s+0x%x", s->name, h->addr - s->start) : kp_strdup(UNKNOWN));
		r->addr = h->addr;
		r->insn = kp_strdup(insn);
	}
	disasm_close(&d);
	return n;
}

int report(FILE *out, const struct ropts *ro, struct kelf *ke, const struct kpinfo *ki,
	   const struct kpdata *kd, const struct profile *p)
{
	struct linetab lt = { 0 };
	struct row *rows;
	size_t n = 0, shown, width = sizeof "symbol+offset" - 1;

	/* before any output, so a failure leaves no half report */
	if (ro->by == BY_LINE && linetab_load(&lt, ke) < 0)
		return -1;
	header(out, ke, ki, kd, p);
	rows = kp_calloc(p->nhits + ke->nsyms + 2, sizeof *rows);
	if (ro->by == BY_SYMBOL)
		n = rows_by_symbol(rows, ke, p);
	else if (ro->by == BY_LINE)
		n = rows_by_line(rows, &lt, p);
	else
		n = rows_by_addr(rows, ke, p);
	if (p->outside) {
		struct row *r = add(rows, &n, p->outside, OUTSIDE, 0, kp_strdup(OUTSIDE));
		r->insn = kp_strdup("");
	}
	qsort(rows, n, sizeof *rows, cmp_row);
	shown = ro->top > 0 && (size_t)ro->top < n ? (size_t)ro->top : n;

	fprintf(out, "rows: ms = samples * 1000 / %.3f Hz; %% of the %ju kernel ticks\n",
		ki->hz, (uintmax_t)p->kernel);
	if (ro->by == BY_ADDR) {
		for (size_t i = 0; i < shown; i++)
			if (strlen(rows[i].label) > width)
				width = strlen(rows[i].label);
		fprintf(out, "%10s %7s %9s  %-8s  %-*s  %s\n", "ms", "%", "samples", "address",
			(int)width, "symbol+offset", "instruction");
	} else {
		fprintf(out, "%10s %7s %9s  %s\n", "ms", "%", "samples",
			ro->by == BY_LINE ? "file:line" : "symbol");
	}
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		fprintf(out, "%10.1f %7.2f %9ju  ", (double)r->count * 1000.0 / ki->hz,
			pct(r->count, p->kernel), (uintmax_t)r->count);
		if (ro->by != BY_ADDR)
			fprintf(out, "%s\n", r->label);
		else if (r->k1[0] == '\0')
			fprintf(out, "%08x  %-*s  %s\n", r->addr, (int)width, r->label, r->insn);
		else
			fprintf(out, "%-8s  %s\n", "-", r->label);
	}
	if (n == 0)
		fprintf(out, "(no kernel samples)\n");
	if (shown < n)
		fprintf(out, "(%zu more rows; --top %ld shows the first %zu)\n", n - shown, ro->top, shown);

	for (size_t i = 0; i < n; i++) {
		free(rows[i].label);
		free(rows[i].insn);
	}
	free(rows);
	linetab_free(&lt);
	return 0;
}
