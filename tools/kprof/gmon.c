/* gmon.c: `kprof gmon PROG.elf FILE` prints a gmon file's flat profile
 * with each function's calls from its arcs (rd_gmon.c parses the file):
 * the same samples per function GNU gprof finds, since each bin is charged
 * to the symbol holding its first byte and the bins are 2 bytes, never
 * split between functions. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"
#include "abi/gmon.h"

struct grow {                   /* a row of the flat profile */
	const struct ksym *sym;
	uint64_t samples, calls;
};

/* the symbol libdwfl names for addr (the symbolizer's ranges); NULL for none */
static const struct ksym *sym_at(const struct kelf *ke, uint32_t addr)
{
	const struct krange *r = kelf_range(ke, addr, NULL);

	return r ? &ke->syms[r->sym] : NULL;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->sym->name, y->sym->name);
}

static void flat(FILE *out, const struct gmon *g, const struct kelf *ke)
{
	struct grow *rows = kp_calloc(ke->nsyms, sizeof *rows);
	uint64_t total = 0, unknown = 0, calls_unknown = 0;
	size_t n = 0;

	for (size_t i = 0; i < ke->nsyms; i++)
		rows[i].sym = &ke->syms[i];
	for (size_t i = 0; i < g->nbins; i++) {
		uint32_t c = g->bins[2 * i] | g->bins[2 * i + 1] << 8;
		const struct ksym *s;
		if (!c)
			continue;
		total += c;
		s = sym_at(ke, (uint32_t)gmon_bin_addr(g, i));
		if (s)
			rows[s - ke->syms].samples += c;
		else
			unknown += c;
	}
	for (size_t i = 0; i < g->narcs; i++) {
		const unsigned char *a = g->arcs + i * sizeof(struct gmon_arc);
		const struct ksym *s = sym_at(ke, kp_le32(a + 4));
		if (s)
			rows[s - ke->syms].calls += kp_le32(a + 8);
		else
			calls_unknown += kp_le32(a + 8);
	}
	qsort(rows, ke->nsyms, sizeof *rows, cmp_rows);
	fprintf(out, "gmon: %llu samples at %u Hz, %zu arcs", (unsigned long long)total,
		g->h.profrate, g->narcs);
	if (g->h.lost_bins || g->h.lost_arcs)
		fprintf(out, "; lost %u samples to full bins, %u calls to a full arc table",
			g->h.lost_bins, g->h.lost_arcs);
	fprintf(out, "\n  %%time    samples      calls  name\n");
	for (n = 0; n < ke->nsyms && (rows[n].samples || rows[n].calls); n++)
		fprintf(out, "%7.2f %10llu %10llu  %s\n",
			total ? 100.0 * rows[n].samples / total : 0.0,
			(unsigned long long)rows[n].samples, (unsigned long long)rows[n].calls,
			rows[n].sym->name);
	if (unknown || calls_unknown)
		fprintf(out, "%7.2f %10llu %10llu  (no symbol)\n",
			total ? 100.0 * unknown / total : 0.0, (unsigned long long)unknown,
			(unsigned long long)calls_unknown);
	free(rows);
}

/* argv: "gmon", PROG.elf, FILE. Exit status 0, or 2 after one "kprof: " line. */
int gmon_main(int argc, char **argv)
{
	struct kelf ke = { 0 };
	unsigned char *data = NULL;
	size_t len;
	struct gmon g;
	int status = 2;

	if (argc != 3) {
		fprintf(stderr, "kprof: usage: kprof gmon PROG.elf GMONFILE\n");
		return 2;
	}
	if (kelf_open(&ke, argv[1], 0) < 0 || kp_readfile(argv[2], GMON_MAX_BYTES, &data, &len) < 0 ||
	    gmon_parse(&g, data, len, argv[2]) < 0) {
		fprintf(stderr, "kprof: %s\n", kp_lasterror());
		goto out;
	}
	flat(stdout, &g, &ke);
	status = fflush(stdout) == 0 ? 0 : 2;
out:
	free(data);
	kelf_close(&ke);
	return status;
}
