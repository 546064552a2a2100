/* wr_gmon.c: the view `kprof gmon PROG.elf FILE` prints a gmon file's flat profile
 * with each function's calls from its arcs (rd_gmon.c parses the file):
 * the same samples per function GNU gprof finds, since each bin is charged
 * to the symbol holding its first byte and the bins are 2 bytes, never
 * split between functions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"
#include "abi/gmon.h"

struct grow {                   /* a row of the flat profile */
	const struct ksym *sym;
	uint64_t samples, calls;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->sym->name, y->sym->name);
}

/* The pipeline has charged the bins to symbols (pp->p); the arcs' calls
 * go to the symbol at each arc's callee. */
static void flat(FILE *out, const struct pipe *pp, long top)
{
	const struct kelf *ke = pipe_elf(pp, 0);
	const struct sampleset *ss = &pp->ss;
	struct grow *rows = kp_calloc(ke->nsyms + 1, sizeof *rows);
	uint64_t total = 0, calls_unknown = 0;
	size_t n = 0;

	for (size_t i = 0; i < ke->nsyms; i++) {
		rows[i].sym = &ke->syms[i];
		rows[i].samples = pp->p.symcount[0][i];
		total += rows[i].samples;
	}
	total += pp->p.unknown;
	for (size_t i = 0; i < ss->narcs; i++) {
		const struct krange *r = kelf_range(ke, ss->arcs[i].self, NULL);
		if (r)
			rows[r->sym].calls += ss->arcs[i].count;
		else
			calls_unknown += ss->arcs[i].count;
	}
	qsort(rows, ke->nsyms, sizeof *rows, cmp_rows);
	fprintf(out, "gmon: %llu samples at %u Hz, %zu arcs", (unsigned long long)total,
		(unsigned)ss->hz, ss->narcs);
	if (ss->lost_samples || ss->lost_arcs)
		fprintf(out, "; lost %ju samples to full bins, %ju calls to a full arc table",
			(uintmax_t)ss->lost_samples, (uintmax_t)ss->lost_arcs);
	fputc('\n', out);
	/* arcs come from mcount, which only a -pg build calls: the program
	 * sampled is that build, and gcc -pg compiles differently (a call in
	 * every prologue, other inlining), so its shares are not the plain
	 * build's under the other engines (a fib 2.4 % here was 24.9 % there) */
	if (ss->narcs)
		fprintf(out, "note: the samples are of %s, a -pg build (mcount in every function): "
			"compiled differently from the plain program, its shares can differ from "
			"what the other engines measure of that (docs/profil.md)\n", ke->path);
	fprintf(out, "  %%time    samples      calls  name\n");
	for (n = 0; n < ke->nsyms && (rows[n].samples || rows[n].calls) && (!top || (long)n < top); n++)
		fprintf(out, "%7.2f %10llu %10llu  %s\n",
			total ? 100.0 * rows[n].samples / total : 0.0,
			(unsigned long long)rows[n].samples, (unsigned long long)rows[n].calls,
			rows[n].sym->name);
	if (pp->p.unknown || calls_unknown)
		fprintf(out, "%7.2f %10llu %10llu  (no symbol)\n",
			total ? 100.0 * pp->p.unknown / total : 0.0, (unsigned long long)pp->p.unknown,
			(unsigned long long)calls_unknown);
	free(rows);
}

static int gmon_view(FILE *out, const struct wopts *wo, struct pipe *in)
{
	flat(out, &in[0], wo->top);
	return 0;
}

static const struct wopt gmon_opts[] = {
	{ .name = "top", .value = "N", .help = "only the N functions with the most samples" },
	{ .name = "force", .help = "go on when PROG.elf does not look like the program" },
	{ .name = NULL },
};

const struct writer writer_gmon = {
	.name = "gmon",
	.ninputs = 1,
	.formats = { "gmon" },
	.opts = gmon_opts,
	.usage = "kprof gmon [--top N] [--force] PROG.elf GMONFILE",
	.wants = "PROG.elf and GMONFILE",
	.about = "A profil(2) gmon file's flat profile, as GNU gprof counts it: the\n"
		 "samples each function's bins hold, and its calls from the arcs.\n"
		 "PROG.elf must be the program that wrote the file (the -pg build):\n"
		 "its text must hold the file's and its functions the arcs.\n",
	.view = gmon_view,
};
