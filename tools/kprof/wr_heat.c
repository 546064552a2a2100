/* wr_heat.c: kprof heat PROGRAM.elf DUMP [--annotate] [--top N]: the heat
 * engine's exact per-instruction counts, summed per function
 * (instructions, calls from the CALLED marks, duration), or with
 * --annotate each function's disassembly with every instruction's count
 * and marks beside it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <capstone.h>

#include "abi/heat.h"
#include "heat.h"

struct fn {
	long sym;
	uint64_t instr, calls, dur;
};

static int by_instr(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->instr != y->instr)
		return x->instr < y->instr ? 1 : -1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static const char *symname(const struct kelf *ke, long s)
{
	return s < 0 ? "(no symbol)" : ke->syms[s].name;
}

/* The function's instructions, each with its heat: a line per instruction
 * of every address range libdwfl gives the symbol, executed or not. */
static void annotate(FILE *out, const struct kelf *ke, const struct sampleset *ss,
		     const struct fn *f, csh cs, cs_insn *insn)
{
	size_t i = 0;

	fprintf(out, "\n%s: %" PRIu64 " instructions, %" PRIu64 " calls, duration %" PRIu64 "\n",
		ke->syms[f->sym].name, f->instr, f->calls, f->dur);
	for (size_t k = 0; k < ke->nranges; k++) {
		uint64_t at = ke->ranges[k].start;
		if (ke->ranges[k].sym != (uint32_t)f->sym)
			continue;
		while (at < ke->ranges[k].end) {
			size_t avail;
			const uint8_t *code = kelf_bytes(ke, at, &avail);
			uint64_t a = at;
			char marks[4] = "   ";

			if (!code || !cs_disasm_iter(cs, &code, &avail, &a, insn))
				break;
			while (i < ss->nflat && ss->flat[i].addr < at)
				i++;
			if (i < ss->nflat && ss->flat[i].addr == at) {
				const struct heatmark *h = &ss->heat[i];
				marks[0] = h->flags & HEATF_CALLED ? 'C' : ' ';
				marks[1] = h->flags & HEATF_ENTER ? '>' : ' ';
				marks[2] = h->flags & HEATF_EXIT ? '<' : ' ';
				fprintf(out, "%12" PRIu64 " %12" PRIu64 " %s  %08" PRIx64 "  %s %s\n",
					ss->flat[i].count, h->dur, marks, at, insn->mnemonic, insn->op_str);
			} else {
				fprintf(out, "%12s %12s %s  %08" PRIx64 "  %s %s\n", ".", ".", marks, at,
					insn->mnemonic, insn->op_str);
			}
			at = a;
		}
	}
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static const struct wopt heat_opts[] = {
	{ .name = "annotate", .help = "each function's instructions with their counts and marks\n"
	  "(C: called, >: block enter, <: block exit)" },
	{ .name = "top", .value = "N", .help = "only the N hottest functions" },
	{ .name = "force", .help = "go on when the heatinfo beside DUMP names another build-id" },
	{ .name = NULL },
};

static int heat_view(FILE *out, const struct wopts *wo, struct pipe *in)
{
	const struct pipe *pp = &in[0];
	const struct kelf *ke;
	struct fn *fns;
	long top = wo->top, nf = 0;
	int status = 0;
	uint64_t total = 0, nosym = 0;

	ke = pipe_elf(pp, 0);
	fns = kp_calloc(ke->nsyms + 1, sizeof *fns);
	for (size_t i = 0; i < ke->nsyms; i++)
		fns[i].sym = (long)i;
	fns[ke->nsyms].sym = -1;
	for (size_t i = 0; i < pp->ss.nflat; i++) {
		long s = pp->p.hits[i].sym;
		struct fn *f = &fns[s < 0 ? (long)ke->nsyms : s];
		uint64_t n = pp->ss.flat[i].count;

		/* sums that cannot wrap: a count near 2^64 stops them at the top */
		f->instr = add_sat(f->instr, n);
		f->dur = add_sat(f->dur, pp->ss.heat[i].dur);
		if (pp->ss.heat[i].flags & HEATF_CALLED)
			f->calls = add_sat(f->calls, n);
		total = add_sat(total, n);
		if (s < 0)
			nosym = add_sat(nosym, n);
	}
	qsort(fns, ke->nsyms + 1, sizeof *fns, by_instr);
	for (nf = 0; nf < (long)ke->nsyms + 1 && fns[nf].instr; nf++)
		;
	if (top && top < nf)
		nf = top;
	fprintf(out, "heat: %s: %" PRIu64 " instructions executed at %zu addresses\n", wo->elfs[0],
		total, pp->ss.nflat);
	if (pp->ss.running)
		fprintf(out, "note: the heatinfo beside the dump says tracing was still on when it was read: "
			"the counts are partial\n");
	fprintf(out, "%8s %14s %10s %14s  %s\n", "%instr", "instructions", "calls", "duration", "function");
	for (long i = 0; i < nf; i++)
		fprintf(out, "%8.2f %14" PRIu64 " %10" PRIu64 " %14" PRIu64 "  %s\n",
			100.0 * fns[i].instr / (double)total, fns[i].instr, fns[i].calls, fns[i].dur,
			symname(ke, fns[i].sym));
	if (wopt_arg(heat_opts, wo, "annotate")) {
		csh cs;
		cs_insn *insn;
		if (cs_open(CS_ARCH_X86, CS_MODE_32, &cs) != CS_ERR_OK || !(insn = cs_malloc(cs))) {
			kp_error("capstone cannot disassemble i386 here");
			status = -1;
			goto out;
		}
		fprintf(out, "\n%12s %12s %s  %-8s  %s\n", "count", "duration", "C><", "address", "instruction");
		for (long i = 0; i < nf; i++)
			if (fns[i].sym >= 0)
				annotate(out, ke, &pp->ss, &fns[i], cs, insn);
		cs_free(insn, 1);
		cs_close(&cs);
	}
	if (nosym)
		fprintf(stderr, "kprof: %" PRIu64 " instructions ran at addresses no symbol owns\n", nosym);
out:
	free(fns);
	return status;
}

const struct writer writer_heat = {
	.name = "heat",
	.ninputs = 1,
	.formats = { "heat" },
	.opts = heat_opts,
	.usage = "kprof heat [--annotate] [--top N] [--force] PROGRAM.elf DUMP",
	.wants = "PROGRAM.elf and DUMP",
	.about = "The exact heat of a traced program (/dev/heat), per function:\n"
		 "instructions executed, calls (CALLED marks) and duration (TSC ticks).\n",
	.view = heat_view,
};
