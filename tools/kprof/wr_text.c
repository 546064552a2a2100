/* wr_text.c: the writer of the text reports, Plan 9 kprof style: a header
 * with the tick totals, then `ms  %  samples  what` rows, most samples
 * first: a row per frame as every writer names it (a symbol, and apart
 * from it the code inlined into it, "main;bubble"; --no-inline: symbols
 * only), per source line (--lines) or per bin (--addr).
 * Counts that are not clock ticks (system-call hits, instructions) are
 * shown in their unit, with no time: `%  hits  what`. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define UNKNOWN ROW_UNKNOWN        /* kernel bins no symbol (or line) owns */
#define OUTSIDE "<outside text>"   /* kernel ticks with no bin at all */

struct row {
	uint64_t count;
	const char *k1;                /* ties: by k1, then k2 */
	uint64_t k2;
	char *label;                   /* the last column */
	uint64_t addr;                 /* --addr only */
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
/* A total's line: its count in the set's unit, its share, and for clock
 * ticks their time; counts of anything else are never made seconds. */
static void total_line(FILE *out, const char *what, uint64_t n, const struct sampleset *ss)
{
	const struct unit *u = sampleset_unit(ss);

	if (u->timed)
		fprintf(out, "%-7s %10ju %s  %6.2f%%  %10.3f s\n", what, (uintmax_t)n, u->count,
			pct(n, ss->total), (double)n / ss->hz);
	else
		fprintf(out, "%-7s %10ju %s  %6.2f%%\n", what, (uintmax_t)n, u->count, pct(n, ss->total));
}

static void header(FILE *out, const struct symbolizer *sy, const struct sampleset *ss,
		   const struct profile *p)
{
	uint64_t user = ss->total - ss->kernel;
	double hz = ss->hz;

	for (size_t m = 0; m < ss->nmods; m++) {
		const struct kelf *ke;

		if (sy->of[m] < 0)
			continue;
		ke = &sy->elfs[sy->of[m]];
		fprintf(out, "elf     %s  build-id %s", ke->path, ke->build_id[0] ? ke->build_id : "none");
		if (ss->nmods > 1 && ss->mods[m].path)
			fprintf(out, "  for %s", ss->mods[m].path);
		fputc('\n', out);
	}
	if (ss->binned)
		fprintf(out, "text    0x%08jx-0x%08jx  res %u (%u byte%s per bin)  %ju bins  clock %.3f Hz\n",
			(uintmax_t)ss->text_start, (uintmax_t)ss->text_end, ss->res, 1u << ss->res,
			ss->res ? "s" : "", (uintmax_t)ss->nbins, hz);
	else if (sampleset_unit(ss)->timed)
		fprintf(out, "clock   %.3f Hz  (%s)\n", hz, ss->format);
	else
		fprintf(out, "counts  %s  (%s): not time\n", sampleset_unit(ss)->what, ss->format);
	total_line(out, "total", ss->total, ss);
	total_line(out, "kernel", ss->kernel - ss->idle, ss);
	if (ss->has_idle)
		total_line(out, "idle", ss->idle, ss);
	total_line(out, "user", user, ss);
	if (ss->has_saturated && ss->saturated > 0)
		fprintf(out, "saturated %ju samples hit a full counter (%#x): those counts are lower bounds\n",
			(uintmax_t)ss->saturated, KPDATA_MAX);
	if (ss->full_bins)
		fprintf(out, "saturated %ju bins are full (%#x): their counts are lower bounds\n",
			(uintmax_t)ss->full_bins, KPDATA_MAX);
	if (p->kernel > ss->kernel && !ss->scope)
		fprintf(out, "note    the bins hold %ju ticks, more than the kernel total: %% is of the bins\n",
			(uintmax_t)p->kernel);
	if (ss->running)
		fprintf(out, "note    profiling was on when the dump was read (state on)\n");
	if (ss->note[0])
		fprintf(out, "note    %s\n", ss->note);
	if (ss->has_ticks && ss->info_ticks != ss->total)
		fprintf(out, "note    kpinfo ticks %ju differ from kpdata's %ju: read at different times\n",
			(uintmax_t)ss->info_ticks, (uintmax_t)ss->total);
	fprintf(out, "\n");
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

/* a count charged to a symbol, by the name of its frame there */
struct named {
	uint32_t mod;
	int32_t sym;
	const char *name;              /* frame_name's: one pointer per string */
	uint64_t count;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : (uintptr_t)x->name > (uintptr_t)y->name;
}

/* A row per frame name, as every writer names the frame (frame_name):
 * a symbol's counts, and apart from them those in code inlined into it,
 * "main;bubble" (unless --no-inline); rows of two symbols of one name
 * stay two. */
static size_t rows_by_symbol(struct row *rows, struct symbolizer *sy, const struct sampleset *ss,
			     const struct profile *p)
{
	struct named *v = kp_calloc(p->nhits ? p->nhits : 1, sizeof *v);
	size_t n = 0, nv = 0;

	for (size_t i = 0; i < p->nhits; i++) {
		const struct flat *h = &ss->flat[i];

		if (p->hits[i].sym < 0 || !h->count)
			continue;               /* p->unknown has it */
		v[nv++] = (struct named){ h->mod, p->hits[i].sym,
					  frame_name(sy, &(struct frame){ h->mod, h->addr }, 1), h->count };
	}
	qsort(v, nv, sizeof *v, cmp_named);
	for (size_t i = 0; i < nv; ) {
		size_t j = i;
		uint64_t c = 0;

		while (j < nv && !cmp_named(&v[i], &v[j]))
			c += v[j++].count;
		add(rows, &n, c, v[i].name, sy->elfs[sy->of[v[i].mod]].syms[v[i].sym].value,
		    frame_label(sy, ss, v[i].mod, v[i].name));
		i = j;
	}
	free(v);
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
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static size_t rows_by_line(struct row *rows, const struct linetab *lt, const struct symbolizer *sy,
			   const struct sampleset *ss, const struct profile *p)
{
	struct lhit *lh = kp_calloc(p->nhits, sizeof *lh);
	size_t nl = 0, n = 0;
	uint64_t unknown = 0;

	for (size_t i = 0; i < p->nhits; i++) {
		const struct flat *h = &ss->flat[i];
		const char *file = NULL;
		int line = 0;

		if (sy->of[h->mod] >= 0)
			file = linetab_at(&lt[sy->of[h->mod]], h->addr, &line);
		if (file == NULL) {
			unknown += h->count;
			continue;
		}
		file = linetab_relpath(file);
		/* bins in address order: a line's bins come together, and
		 * libdwfl gives one file its one string */
		if (nl && lh[nl - 1].file == file && lh[nl - 1].line == line) {
			lh[nl - 1].count += h->count;
			continue;
		}
		lh[nl].file = file;
		lh[nl].line = line;
		lh[nl].count = h->count;
		nl++;
	}
	qsort(lh, nl, sizeof *lh, cmp_lhit);
	for (size_t i = 0; i < nl; ) {
		size_t j = i;
		uint64_t c = 0;

		while (j < nl && cmp_lhit(&lh[i], &lh[j]) == 0)
			c += lh[j++].count;
		/* the file string is libdwfl's, alive until the module is closed */
		add(rows, &n, c, lh[i].file, (uint64_t)lh[i].line,
		    kp_fmt("%s:%d", lh[i].file, lh[i].line));
		i = j;
	}
	if (unknown)
		add(rows, &n, unknown, UNKNOWN, 0, kp_strdup(UNKNOWN));
	free(lh);
	return n;
}

static size_t rows_by_addr(struct row *rows, const struct symbolizer *sy,
			   const struct sampleset *ss, const struct profile *p)
{
	struct disasm d;
	size_t n = 0;

	disasm_open(&d);
	for (size_t i = 0; i < p->nhits; i++) {
		const struct hit *hh = &p->hits[i];
		const struct flat *h = &ss->flat[i];
		const struct kelf *ke = sy->of[h->mod] >= 0 ? &sy->elfs[sy->of[h->mod]] : NULL;
		const struct krange *rg = ke && hh->range >= 0 ? &ke->ranges[hh->range] : NULL;
		const struct ksym *s = rg ? &ke->syms[hh->sym] : NULL;
		char insn[160], *name;
		struct row *r;

		insn[0] = '\0';
		if (ke)
			disasm_bin(&d, ke, rg, h->addr, ss->bin ? ss->bin : (uint64_t)1 << ss->res, insn,
				   sizeof insn);
		if (s) {
			char *sn = frame_label(sy, ss, h->mod, s->name);

			name = kp_fmt("%s+0x%jx", sn, (uintmax_t)(h->addr - s->value));
			free(sn);
		} else {
			name = kp_strdup(UNKNOWN);
		}
		r = add(rows, &n, h->count, "", h->addr, name);
		r->addr = h->addr;
		r->insn = kp_strdup(insn);
	}
	disasm_close(&d);
	return n;
}

static void free_linetabs(struct linetab *lt, size_t n)
{
	if (lt == NULL)
		return;
	for (size_t e = 0; e < n; e++)
		linetab_free(&lt[e]);
	free(lt);
}

static int text_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
		      const struct sampleset *ss, const struct profile *p)
{
	struct linetab *lt = NULL;
	struct row *rows;
	size_t n = 0, shown, nrows = p->nhits + 2, width = sizeof "symbol+offset" - 1;
	double hz = ss->hz;
	const struct unit *u = sampleset_unit(ss);
	int cw = strlen(u->column) > 9 ? (int)strlen(u->column) : 9;    /* the count column */

	/* before any output, so a failure leaves no half report */
	if (wo->by == BY_LINE) {
		lt = kp_calloc(sy->n, sizeof *lt);
		for (size_t m = 0; m < ss->nmods; m++)
			if (sy->of[m] >= 0 && lt[sy->of[m]].mod == NULL &&
			    linetab_load(&lt[sy->of[m]], &sy->elfs[sy->of[m]]) < 0) {
				free_linetabs(lt, sy->n);
				return -1;
			}
	}
	header(out, sy, ss, p);
	for (size_t e = 0; e < sy->n; e++)
		nrows += sy->elfs[e].nsyms;
	rows = kp_calloc(nrows, sizeof *rows);
	if (wo->by == BY_SYMBOL)
		n = rows_by_symbol(rows, sy, ss, p);
	else if (wo->by == BY_LINE)
		n = rows_by_line(rows, lt, sy, ss, p);
	else
		n = rows_by_addr(rows, sy, ss, p);
	if (p->outside) {
		const char *label = ss->outside_label ? ss->outside_label : OUTSIDE;
		struct row *r = add(rows, &n, p->outside, label, 0, kp_strdup(label));
		r->insn = kp_strdup("");
	}
	qsort(rows, n, sizeof *rows, cmp_row);
	shown = wo->top > 0 && (size_t)wo->top < n ? (size_t)wo->top : n;

	/* clock ticks are time too (ms); any other count only its number */
	if (u->timed)
		fprintf(out, "rows: ms = samples * 1000 / %.3f Hz; %% of the %ju %s ticks\n",
			hz, (uintmax_t)p->kernel, ss->scope ? ss->scope : "kernel");
	else
		fprintf(out, "rows: %s; %% of the %ju %s %s\n", u->what, (uintmax_t)p->kernel,
			ss->scope ? ss->scope : "kernel", u->count);
	if (u->timed)
		fprintf(out, "%10s ", "ms");
	if (wo->by == BY_ADDR) {
		for (size_t i = 0; i < shown; i++)
			if (strlen(rows[i].label) > width)
				width = strlen(rows[i].label);
		fprintf(out, "%7s %*s  %-8s  %-*s  %s\n", "%", cw, u->column, "address",
			(int)width, "symbol+offset", "instruction");
	} else {
		fprintf(out, "%7s %*s  %s\n", "%", cw, u->column, wo->by == BY_LINE ? "file:line" : "symbol");
	}
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		if (u->timed)
			fprintf(out, "%10.1f ", (double)r->count * 1000.0 / hz);
		fprintf(out, "%7.2f %*ju  ", pct(r->count, p->kernel), cw, (uintmax_t)r->count);
		if (wo->by != BY_ADDR)
			fprintf(out, "%s\n", r->label);
		else if (r->k1[0] == '\0')
			fprintf(out, "%08jx  %-*s  %s\n", (uintmax_t)r->addr, (int)width, r->label, r->insn);
		else
			fprintf(out, "%-8s  %s\n", "-", r->label);
	}
	if (n == 0)
		fprintf(out, "(no %s samples)\n", ss->scope ? ss->scope : "kernel");
	if (shown < n)
		fprintf(out, "(%zu more rows; --top %ld shows the first %zu)\n", n - shown, wo->top, shown);

	for (size_t i = 0; i < n; i++) {
		free(rows[i].label);
		free(rows[i].insn);
	}
	free(rows);
	free_linetabs(lt, sy->n);
	return 0;
}

const struct writer writer_text = { .name = "text", .write = text_write, .ninputs = 1 };
