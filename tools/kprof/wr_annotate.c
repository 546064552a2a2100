/* wr_annotate.c: kprof annotate [--heat HEAT] [--top N] [--elf PROG.elf]...
 * [--force] ELF DUMP [FUNC]: a function's instructions (Capstone, disasm.c)
 * under its source lines (the DWARF line table, lines.c), as perf annotate
 * and pprof's list show them: each instruction's samples and its share of
 * the function's, with HEAT the exact count (the heat engine's) beside it,
 * and the hottest source line (*) and instruction (>) marked. DUMP is any
 * dump with counts at PCs: sampled PCs (usample, a buffered Monte Carlo
 * dump, a DosProfile hit table, a stack dump's leaves) or bins (a kpdata,
 * a gmon file: a bin's count goes to the instruction that holds its first
 * byte, the rule the symbol's count follows). FUNC is a function's name,
 * MODULE!NAME, or a name before a GCC clone's suffix (mix_a for
 * mix_a.constprop.0); without it the --top N hottest, the hottest one by
 * default. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define WIDTH 100                  /* the columns a row keeps to */
#define INSN_MAX 65536             /* instructions shown of one function */
#define SRC_MAX_BYTES (8u << 20)   /* a source file read to show its lines */

/* one function of one module of the dump */
struct target {
	uint32_t mod;
	uint32_t sym;
	uint64_t count;
};

struct insn {
	uint64_t addr, end;
	char text[128];
	uint64_t count, exact;
	int shared;                    /* in a bin counted at an instruction above it */
	const char *file;              /* libdwfl's; NULL: no line */
	int line;
	const char *inlined;           /* the innermost inlined function here, or NULL */
	uint64_t lcount, lexact;       /* its source line's, over the function */
};

/* a source file's lines, read once */
struct src {
	const char *name;              /* libdwfl's string */
	char *text;                    /* NULL: not readable */
	char **line;                   /* line[i]: line i + 1 */
	size_t nlines;
};

struct annotator {
	FILE *out;
	struct symbolizer *sy;
	const struct sampleset *ss;
	const struct profile *p;
	const struct symbolizer *hsy;  /* the heat's pipe, or NULL */
	const struct sampleset *heat;
	struct linetab *lt;            /* [ELF], loaded the first time: mod NULL and tried */
	int *lt_tried;
	struct src *srcs;
	size_t nsrcs;
	struct disasm d;
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int by_count(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static const struct src *source(struct annotator *an, const char *name)
{
	struct src *s;
	unsigned char *buf;
	size_t len, n = 1;

	for (size_t i = 0; i < an->nsrcs; i++)
		if (an->srcs[i].name == name || strcmp(an->srcs[i].name, name) == 0)
			return &an->srcs[i];
	an->srcs = kp_reallocarray(an->srcs, an->nsrcs + 1, sizeof *an->srcs);
	s = &an->srcs[an->nsrcs++];
	memset(s, 0, sizeof *s);
	s->name = name;
	if (kp_readfile(name, SRC_MAX_BYTES, &buf, &len) < 0)
		return s;               /* not on this disk: file:line only */
	if (memchr(buf, '\0', len)) {
		free(buf);              /* not text */
		return s;
	}
	s->text = kp_calloc(len + 1, 1);
	memcpy(s->text, buf, len);
	free(buf);
	for (size_t i = 0; i < len; i++)
		n += s->text[i] == '\n';
	s->line = kp_calloc(n, sizeof *s->line);
	for (char *at = s->text; at; ) {
		char *nl = strchr(at, '\n');

		s->line[s->nlines++] = at;
		if (nl)
			*nl = '\0';
		at = nl ? nl + 1 : NULL;
	}
	return s;
}

/* the ELF's line table, loaded the first time; NULL when it has none */
static const struct linetab *lines_of(struct annotator *an, long e)
{
	if (!an->lt_tried[e]) {
		an->lt_tried[e] = 1;
		if (linetab_load(&an->lt[e], &an->sy->elfs[e]) < 0)
			memset(&an->lt[e], 0, sizeof an->lt[e]);
	}
	return an->lt[e].mod ? &an->lt[e] : NULL;
}

/* the instruction holding addr, or -1 */
static long insn_at(const struct insn *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < v[mid].addr)
			hi = mid;
		else if (addr >= v[mid].end)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

/* The function's instructions, range by range in address order; what
 * cannot be decoded is one row of "(bad)" to its range's end. */
static struct insn *decode(struct annotator *an, const struct kelf *ke, uint32_t sym, size_t *n,
			   uint64_t *lo, uint64_t *hi, size_t *cut)
{
	struct insn *v = NULL;
	size_t cap = 0;

	*n = *cut = 0;
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t k = 0; k < ke->nranges; k++) {
		const struct krange *r = &ke->ranges[k];
		uint64_t at = r->start;

		if (r->sym != sym)
			continue;
		*lo = r->start < *lo ? r->start : *lo;
		*hi = r->end > *hi ? r->end : *hi;
		while (at < r->end) {
			struct insn *i;
			uint64_t next = at;

			if (*n == INSN_MAX) {
				*cut += r->end - at;
				break;
			}
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				v = kp_reallocarray(v, cap, sizeof *v);
			}
			i = &v[(*n)++];
			memset(i, 0, sizeof *i);
			i->addr = at;
			if (!disasm_one(&an->d, ke, &next, i->text, sizeof i->text) || next > r->end) {
				snprintf(i->text, sizeof i->text, "(bad)");
				next = r->end;
			}
			i->end = next;
			at = next;
		}
	}
	return v;
}

/* each count of the dump the symbol has, at the instruction that holds its
 * address (a bin's first byte: the instructions after it in the bin are
 * marked shared); and the exact counts of the heat in the same ELF */
static void charge(struct annotator *an, const struct target *t, long e, struct insn *v, size_t n,
		   uint64_t *unplaced, uint64_t *exact)
{
	const struct sampleset *ss = an->ss;
	uint64_t step = ss->bin ? ss->bin : (uint64_t)1 << ss->res;

	*unplaced = *exact = 0;
	for (size_t i = 0; i < ss->nflat; i++) {
		const struct flat *f = &ss->flat[i];
		long k;

		if (f->mod != t->mod || an->p->hits[i].sym != (int32_t)t->sym)
			continue;
		if ((k = insn_at(v, n, f->addr)) < 0) {
			*unplaced += f->count;
			continue;
		}
		v[k].count = add_sat(v[k].count, f->count);
		for (size_t j = (size_t)k + 1; step > 1 && j < n && v[j].addr < f->addr + step; j++)
			v[j].shared = 1;
	}
	if (!an->heat)
		return;
	for (size_t i = 0; i < an->heat->nflat; i++) {
		const struct flat *f = &an->heat->flat[i];
		long k;

		if (f->mod >= an->hsy->nof || an->hsy->of[f->mod] != e || (k = insn_at(v, n, f->addr)) < 0)
			continue;
		v[k].exact = add_sat(v[k].exact, f->count);
		*exact = add_sat(*exact, f->count);
	}
}

static void counts(FILE *out, char mark, uint64_t n, uint64_t whole, int shared, int heat, uint64_t x,
		   uint64_t xwhole)
{
	if (n)
		fprintf(out, "%c%9ju %6.2f", mark, (uintmax_t)n, pct(n, whole));
	else
		fprintf(out, "%c%9s %6s", mark, shared ? ":" : ".", "");
	if (heat && x)
		fprintf(out, " %12ju %6.2f", (uintmax_t)x, pct(x, xwhole));
	else if (heat)
		fprintf(out, " %12s %6s", ".", "");
}

/* a source line's row: its totals, file:line and as much of its text as fits */
static void line_row(struct annotator *an, const struct insn *v, size_t at, uint64_t total,
		     uint64_t xtotal, uint64_t hottest)
{
	uint64_t c = v[at].lcount, x = v[at].lexact;
	const struct src *s;
	const char *text = "";
	int col, left;

	counts(an->out, c && c == hottest ? '*' : ' ', c, total, 0, an->heat != NULL, x, xtotal);
	col = 17 + (an->heat ? 20 : 0);
	col += fprintf(an->out, "  %s:%d", linetab_relpath(v[at].file), v[at].line);
	s = source(an, v[at].file);
	if (s->text && v[at].line > 0 && (size_t)v[at].line <= s->nlines)
		text = s->line[v[at].line - 1];
	while (*text == ' ' || *text == '\t')
		text++;
	left = WIDTH - col - 2;
	if (v[at].inlined)
		left -= (int)strlen(v[at].inlined) + 12;
	if (*text && left > 8) {
		int len = (int)strcspn(text, "\r");

		fprintf(an->out, "  %.*s%s", len > left ? left - 3 : len, text, len > left ? "..." : "");
	}
	if (v[at].inlined)
		fprintf(an->out, "  [inlined %s]", v[at].inlined);
	fputc('\n', an->out);
}

static int by_line(const void *a, const void *b)
{
	const struct insn *x = *(const struct insn *const *)a, *y = *(const struct insn *const *)b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* each instruction's source line's sums over the function (a line's
 * instructions need not be together); returns the most samples a line has */
static uint64_t line_totals(struct insn *v, size_t n)
{
	struct insn **by = kp_calloc(n ? n : 1, sizeof *by);
	size_t nb = 0;
	uint64_t hottest = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].file)
			by[nb++] = &v[i];
	qsort(by, nb, sizeof *by, by_line);
	for (size_t i = 0, j; i < nb; i = j) {
		uint64_t c = 0, x = 0;

		for (j = i; j < nb && by[j]->line == by[i]->line && strcmp(by[j]->file, by[i]->file) == 0; j++) {
			c = add_sat(c, by[j]->count);
			x = add_sat(x, by[j]->exact);
		}
		for (size_t k = i; k < j; k++)
			by[k]->lcount = c, by[k]->lexact = x;
		hottest = c > hottest ? c : hottest;
	}
	free(by);
	return hottest;
}

static void annotate_one(struct annotator *an, const struct target *t)
{
	const struct sampleset *ss = an->ss;
	long e = an->sy->of[t->mod];
	const struct kelf *ke = &an->sy->elfs[e];
	const struct unit *u = sampleset_unit(ss);
	const struct linetab *lt = lines_of(an, e);
	uint64_t lo, hi, unplaced, xtotal, hot_insn = 0, hot_line = 0, step;
	size_t n, cut;
	struct insn *v = decode(an, ke, t->sym, &n, &lo, &hi, &cut);
	FILE *out = an->out;

	charge(an, t, e, v, n, &unplaced, &xtotal);
	for (size_t i = 0; i < n; i++) {
		struct frame f = { t->mod, v[i].addr };
		const struct kchain *c = frame_chain(an->sy, &f, 1);

		if (lt)
			v[i].file = linetab_at(lt, v[i].addr, &v[i].line);
		if (c->n > 1)
			v[i].inlined = c->f[c->n - 1].name;
		if (v[i].count > hot_insn)
			hot_insn = v[i].count;
	}
	hot_line = line_totals(v, n);
	fprintf(out, "\n%s!%s  %08jx-%08jx  %ju %s  %.2f%% of the profile\n",
		module_name(an->sy, ss, t->mod), ke->syms[t->sym].name, (uintmax_t)lo, (uintmax_t)hi,
		(uintmax_t)t->count, u->count, pct(t->count, an->p->kernel));
	step = ss->bin ? ss->bin : (uint64_t)1 << ss->res;
	if (step > 1)
		fprintf(out, "bins    %ju bytes a count (%s): per-bin granularity, each bin's count at the\n"
			"        instruction holding its first byte; ':' the others in a counted bin\n",
			(uintmax_t)step, ss->format);
	else if (ss->binned)
		fprintf(out, "bins    1 byte a count (%s): each bin a PC, the instruction's own count\n",
			ss->format);
	if (an->heat)
		fprintf(out, "heat    %ju instructions executed here (exact)\n", (uintmax_t)xtotal);
	if (!lt)
		fprintf(out, "note    no DWARF line table: instructions only\n");
	if (unplaced)
		fprintf(out, "note    %ju %s at no instruction decoded here\n", (uintmax_t)unplaced, u->column);
	if (an->heat)
		fprintf(out, "%10s %6s %12s %6s  %s\n", u->column, "%", "exact", "%", "source line / address: instruction");
	else
		fprintf(out, "%10s %6s  %s\n", u->column, "%", "source line / address: instruction");
	for (size_t i = 0; i < n; i++) {
		if (v[i].file && (i == 0 || !v[i - 1].file || v[i - 1].line != v[i].line ||
				  strcmp(v[i - 1].file, v[i].file) != 0 || v[i - 1].inlined != v[i].inlined))
			line_row(an, v, i, t->count, xtotal, hot_line);
		counts(out, v[i].count && v[i].count == hot_insn ? '>' : ' ', v[i].count, t->count,
		       v[i].shared, an->heat != NULL, v[i].exact, xtotal);
		fprintf(out, "    %08jx: %s\n", (uintmax_t)v[i].addr, v[i].text);
	}
	if (cut)
		fprintf(out, "(%zu more bytes; the first %d instructions shown)\n", cut, INSN_MAX);
	free(v);
}

static int name_is(const char *sym, const char *func)
{
	size_t n = strlen(func);

	/* a GCC clone answers to its function's name: mix_a.constprop.0 to mix_a */
	return strcmp(sym, func) == 0 || (strncmp(sym, func, n) == 0 && sym[n] == '.');
}

/* The functions to show: those named func (MODULE!NAME, NAME, or NAME of
 * a clone), else every one with samples; most samples first. */
static size_t targets(struct annotator *an, const char *func, struct target **out)
{
	const struct sampleset *ss = an->ss;
	struct target *t = NULL;
	size_t n = 0, cap = 0;
	const char *bang = func ? strchr(func, '!') : NULL, *name = bang ? bang + 1 : func;

	for (int exact = 1; exact >= 0 && n == 0; exact--)
		for (uint32_t m = 0; m < ss->nmods && m < an->sy->nof; m++) {
			long e = an->sy->of[m];
			const struct kelf *ke;

			if (e < 0)
				continue;
			if (bang && (strlen(module_name(an->sy, ss, m)) != (size_t)(bang - func) ||
				     strncmp(module_name(an->sy, ss, m), func, (size_t)(bang - func)) != 0))
				continue;
			ke = &an->sy->elfs[e];
			for (uint32_t s = 0; s < ke->nsyms; s++) {
				uint64_t c = an->p->symcount[m][s];

				if (func ? !(exact ? strcmp(ke->syms[s].name, name) == 0 :
					     name_is(ke->syms[s].name, name)) : !c)
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					t = kp_reallocarray(t, cap, sizeof *t);
				}
				t[n++] = (struct target){ m, s, c };
			}
		}
	if (n)
		qsort(t, n, sizeof *t, by_count);
	*out = t;
	return n;
}

int annotate_functions(FILE *out, struct symbolizer *sy, const struct sampleset *ss, const struct profile *p,
	     const struct symbolizer *hsy, const struct sampleset *heat, const char *func, long top,
	     const char *what)
{
	struct annotator an = { out, sy, ss, p, hsy, heat, NULL, NULL, NULL, 0, { 0 } };
	struct target *t;
	size_t n, shown;

	if (ss->nopc) {
		kp_error("%s holds no sampled PCs (%s: counts at each routine's or range's first byte): "
			 "nothing to annotate", what, ss->format);
		return -1;
	}
	n = targets(&an, func, &t);
	if (n == 0) {
		free(t);
		if (func)
			kp_error("no function %s in %s%s (of those paired with %s's modules)", func,
				 sy->n ? sy->elfs[0].path : "", sy->n > 1 ? " or the --elf files" : "", what);
		else
			kp_error("%s: no samples in any function to annotate", what);
		return -1;
	}
	shown = top > 0 && (size_t)top < n ? (size_t)top : n;
	an.lt = kp_calloc(sy->n, sizeof *an.lt);
	an.lt_tried = kp_calloc(sy->n, sizeof *an.lt_tried);
	disasm_open(&an.d);
	fprintf(out, "annotate: %s: %ju %s (%s); %% of the profile: of the %ju %s %s\n", what,
		(uintmax_t)ss->total, sampleset_unit(ss)->count, ss->format, (uintmax_t)p->kernel,
		ss->scope ? ss->scope : "kernel", sampleset_unit(ss)->count);
	if (ss->note[0])
		fprintf(out, "note    %s\n", ss->note);
	for (size_t i = 0; i < shown; i++)
		annotate_one(&an, &t[i]);
	if (shown < n)
		fprintf(out, "\n(%zu more functions%s; --top %zu shows them all)\n", n - shown,
			func ? " of that name" : " with samples", n);
	disasm_close(&an.d);
	for (size_t i = 0; i < sy->n; i++)
		linetab_free(&an.lt[i]);
	for (size_t i = 0; i < an.nsrcs; i++) {
		free(an.srcs[i].text);
		free(an.srcs[i].line);
	}
	free(an.srcs);
	free(an.lt);
	free(an.lt_tried);
	free(t);
	return 0;
}

static const struct wopt annotate_opts[] = {
	{ .name = "heat", .value = "HEAT", .help = "a heat dump of the same program: each instruction's exact count\n"
	  "beside its samples" },
	{ .name = "top", .value = "N", .help = "the N hottest functions, one after another (default 1)" },
	{ .name = "elf", .value = "PROG.elf", .help = "another module (a user program) to find FUNC in" },
	{ .name = "force", .help = "go on when an ELF's build-id is not a dump's" },
	{ .name = NULL },
};

static int annotate_view(FILE *out, const struct wopts *wo, struct pipe *in)
{
	const char *hpath = wopt_arg(annotate_opts, wo, "heat");
	struct pipe heat;
	struct ropen ro = { 0 };
	long top = wo->extra && !wopt_arg(annotate_opts, wo, "top") ? 0 : wo->top;
	int r;

	if (hpath) {
		ro.path = hpath;
		if (pipe_open(&heat, wo->elfs, wo->nelfs, &ro, "heat",
			      wopt_arg(annotate_opts, wo, "force") != NULL) < 0) {
			pipe_close(&heat);
			return -1;
		}
		if (heat.warning[0])
			fprintf(stderr, "kprof: warning: %s\n", heat.warning);
	}
	r = annotate_functions(out, &in[0].sy, &in[0].ss, &in[0].p, hpath ? &heat.sy : NULL, hpath ? &heat.ss : NULL,
		     wo->extra, top, wo->dumps[0]);
	if (hpath)
		pipe_close(&heat);
	return r;
}

const struct writer writer_annotate = {
	.name = "annotate",
	.ninputs = 1,
	.formats = { NULL },
	.opts = annotate_opts,
	.top = 1,
	.extra = "FUNC",
	.usage = "kprof annotate [--heat HEAT] [--top N] [--elf PROG.elf]... [--force] ELF DUMP [FUNC]",
	.wants = "ELF, DUMP and maybe FUNC",
	.about = "A function's instructions (Capstone) under its source lines (DWARF), as\n"
		 "perf annotate shows them: each instruction's samples and its share of the\n"
		 "function's, the hottest source line marked '*' and the hottest instruction '>'.\n"
		 "DUMP is any dump with counts at PCs: sampled PCs (usample, a buffered Monte\n"
		 "Carlo dump, a DosProfile hit table, a stack dump's leaves, a heat dump) or bins\n"
		 "(a kpdata, a gmon file: per-bin granularity, a bin's count at the instruction\n"
		 "holding its first byte). FUNC is a name, MODULE!NAME, or a name before a GCC\n"
		 "clone's suffix (mix_a for mix_a.constprop.0); without it the --top N hottest\n"
		 "functions, the hottest by default. Exit status 0, or 2 after one line on an\n"
		 "error (no such function, a dump without PCs, an ELF that is not the dump's).\n",
	.view = annotate_view,
};
