/* wr_diff.c: kprof diff [--elf PROG.elf]... [--threshold PCT] [--top N]
 * [--force] [-o FLAME.svg] KERNEL.elf BASE NEW: what changed between two
 * stack dumps of the same command. Under QEMU's -icount two runs of the
 * same command line are the same run, so every difference is the code's:
 * no statistics are needed. It prints the functions whose share of the
 * samples moved most (a function's share: the stacks it is in), then the
 * stacks whose samples changed most, writes a differential flame graph
 * with -o (widths from NEW, red where a frame grew, blue where it shrank),
 * and exits 1 when any function's share moved by more than the threshold
 * (default 2 percentage points): a gate for a change in CI. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

struct share {
	const char *name;               /* the table's */
	double base, now;               /* shares, 0..1 */
	uint64_t nbase, nnow;           /* samples */
};

/* the shares by name: a name's index in the table is its share's, until
 * the shares are sorted (after the last lookup) */
struct shares {
	struct strtab names;
	struct share *v;
	size_t n, cap;
};

static struct share *share_of(struct shares *t, const char *name, size_t len)
{
	char *s = kp_calloc(len + 1, 1);
	size_t k;

	memcpy(s, name, len);
	k = strtab_index(&t->names, s);
	free(s);
	if (k == t->n) {
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 64;
			t->v = kp_reallocarray(t->v, t->cap, sizeof *t->v);
		}
		t->v[t->n++] = (struct share){ t->names.v[k], 0, 0, 0, 0 };
	}
	return &t->v[k];
}

/* each function's samples: the stacks it is in, once a stack (recursion) */
static uint64_t functions(const struct fline *l, size_t n, struct shares *t, int now)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		const char **seen = kp_calloc(STACK_NAMES_MAX, sizeof *seen);
		size_t nseen = 0;

		total += l[i].count;
		for (size_t j = 1; j < l[i].nframes; j++) {    /* past the root */
			struct share *f = share_of(t, l[i].frames[j], strlen(l[i].frames[j]));
			int dup = 0;

			for (size_t k = 0; k < nseen; k++)
				dup |= seen[k] == f->name;
			if (!dup && nseen < STACK_NAMES_MAX) {
				seen[nseen++] = f->name;
				*(now ? &f->nnow : &f->nbase) += l[i].count;
			}
		}
		free(seen);
	}
	return total;
}

/* the largest growth first, the largest shrinkage last */
static int by_change(const void *a, const void *b)
{
	const struct share *x = a, *y = b;
	double dx = x->now - x->base, dy = y->now - y->base;

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* the stacks whose samples changed most, either way */
static int by_samples(const void *a, const void *b)
{
	const struct share *x = a, *y = b;
	uint64_t dx = x->nnow > x->nbase ? x->nnow - x->nbase : x->nbase - x->nnow;
	uint64_t dy = y->nnow > y->nbase ? y->nnow - y->nbase : y->nbase - y->nnow;

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int moved_row(const struct share *s)
{
	return fabs(s->now - s->base) >= 5e-7;          /* shows as +-0.00 below that */
}

static void function_row(FILE *out, const struct share *s)
{
	fprintf(out, "%9.2f %9.2f %+9.2f  %s\n", 100 * s->base, 100 * s->now, 100 * (s->now - s->base), s->name);
}

static const struct wopt diff_opts[] = {
	{ .name = "elf", .value = "PROG.elf" },            /* these three in the help's text */
	{ .name = "threshold", .value = "PCT", .number = "percentage points", .def = 2, .lo = 0, .hi = 100 },
	{ .name = "output", .value = "FLAME.svg", .letter = 'o' },
	{ .name = "top", .value = "N", .help = "rows of each table (default 10; 0: all)" },
	{ .name = "force", .help = "go on when an ELF's build-id is not a dump's" },
	{ .name = NULL },
};

/* in[0]: BASE, in[1]: NEW, both stack dumps of the same ELFs; 1 when a
 * function's share moved by more than the threshold */
static int diff_view(FILE *out, const struct wopts *wo, struct pipe *in)
{
	const char *svg = wopt_arg(diff_opts, wo, "output");
	size_t nb = 0, nn = 0, nv, ns;
	struct pipe *base = &in[0], *now = &in[1];
	struct fline *lb, *ln;
	struct shares fs = { 0 }, ss = { 0 };
	struct share *v, *st;
	double threshold = wopt_num(diff_opts, wo, "threshold");
	uint64_t tb, tn;
	long top = wo->top;
	int status = -1, moved = 0;

	lb = folded_lines(&base->sy, &base->ss, &nb);
	ln = folded_lines(&now->sy, &now->ss, &nn);
	tb = functions(lb, nb, &fs, 0);
	tn = functions(ln, nn, &fs, 1);
	v = fs.v, nv = fs.n;
	for (size_t i = 0; i < nv; i++) {
		v[i].base = tb ? (double)v[i].nbase / tb : 0;
		v[i].now = tn ? (double)v[i].nnow / tn : 0;
		moved |= fabs(v[i].now - v[i].base) * 100 > threshold;
	}
	qsort(v, nv, sizeof *v, by_change);
	/* the stacks, as shares too */
	for (size_t i = 0; i < nb; i++)
		share_of(&ss, lb[i].text, lb[i].len)->nbase = lb[i].count;
	for (size_t i = 0; i < nn; i++)
		share_of(&ss, ln[i].text, ln[i].len)->nnow = ln[i].count;
	st = ss.v, ns = ss.n;
	for (size_t i = 0; i < ns; i++) {
		st[i].base = tb ? (double)st[i].nbase / tb : 0;
		st[i].now = tn ? (double)st[i].nnow / tn : 0;
	}
	qsort(st, ns, sizeof *st, by_samples);
	fprintf(out, "diff: %ju samples in BASE, %ju in NEW; threshold %.2f points\n", (uintmax_t)tb,
		(uintmax_t)tn, threshold);
	fprintf(out, "%9s %9s %9s  %s\n", "base%", "new%", "change", "function (share of the stacks it is in)");
	for (size_t i = 0; i < nv && (!top || (long)i < top) && v[i].now > v[i].base; i++)
		if (moved_row(&v[i]))
			function_row(out, &v[i]);               /* grew, the most first */
	for (size_t i = 0; i < nv && (!top || (long)i < top) && v[nv - 1 - i].now < v[nv - 1 - i].base; i++)
		if (moved_row(&v[nv - 1 - i]))
			function_row(out, &v[nv - 1 - i]);      /* shrank, the most first */
	fprintf(out, "\n%9s %9s %9s  %s\n", "base", "new", "change", "stack");
	for (size_t i = 0; i < ns && (!top || (long)i < top) && st[i].nbase != st[i].nnow; i++)
		fprintf(out, "%9ju %9ju %+9jd  %s\n", (uintmax_t)st[i].nbase, (uintmax_t)st[i].nnow,
			(intmax_t)st[i].nnow - (intmax_t)st[i].nbase, st[i].name);
	if (svg) {
		FILE *f = fopen(svg, "w");
		if (!f) {
			kp_error("%s: cannot write", svg);
			goto out;
		}
		flame_svg(f, ln, nn, lb, nb, sampleset_unit(&now->ss));
		if (fclose(f) != 0) {
			kp_error("%s: cannot write", svg);
			goto out;
		}
		fprintf(out, "\ndiff: the differential flame graph is in %s\n", svg);
	}
	status = moved;
out:
	strtab_free(&fs.names);
	strtab_free(&ss.names);
	free(fs.v);
	free(ss.v);
	folded_free(lb, nb);
	folded_free(ln, nn);
	return status;
}

const struct writer writer_diff = {
	.name = "diff",
	.ninputs = 2,
	.formats = { "stacks", "stacks" },
	.opts = diff_opts,
	.top = 10,
	.usage = "kprof diff [--elf PROG.elf]... [--threshold PCT] [--top N] [--force] "
		 "[-o FLAME.svg] KERNEL.elf BASE NEW",
	.wants = "KERNEL.elf, BASE and NEW",
	.about = "What changed between two stack dumps of the same command (under -icount\n"
		 "the same run, so every difference is the code's): the functions whose share of\n"
		 "the samples moved most, the stacks whose samples changed most, and with -o a\n"
		 "differential flame graph (widths from NEW; red grew, blue shrank). Exit status\n"
		 "1 when a function's share moved by more than --threshold percentage points\n"
		 "(default 2), 0 when none did, 2 on an error.\n",
	.view = diff_view,
};
