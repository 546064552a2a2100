/* wr_dosprof.c: kprof dosprof [--addr] [--top N] ELF DUMP: the DosProfile
 * views of a raw dump (parsed by rd_dosprof.c, the reader that gives plain
 * kprof its report, and handed here as its sample set's payload): the global data, each slot's count, the hit table
 * charged to the functions of ELF (or, with --addr, to each address), and
 * the detailed counters with the functions each counter's range holds and
 * each function's share of that range's code. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* the symbol libdwfl names for addr (the symbolizer's ranges), or NULL */
static const struct ksym *owner(const struct kelf *ke, uint32_t addr)
{
	const struct krange *r = kelf_range(ke, addr, NULL);

	return r ? &ke->syms[r->sym] : NULL;
}

static uint64_t sym_end(const struct ksym *s)
{
	return s->value + s->size;
}

struct row {
	uint32_t addr;
	uint64_t count;
	const char *name;
};

static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_addr(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* the guest's rule (abi/dosprof.h): the same counts print the same share */
static void pct(FILE *out, uint64_t part, uint64_t whole)
{
	uint32_t t = prf_permille(part, whole);

	fprintf(out, "%4u.%u%%", t / 10, t % 10);
}

/* the hit table, per function or per address */
static void report_hits(FILE *out, const struct dosprof *d, const struct kelf *ke, int by_address,
			long top)
{
	uint32_t n = d->nhits;
	uint32_t *a = kp_calloc((size_t)n + 1, 4);
	struct row *rows = kp_calloc((size_t)n + 1, sizeof *rows);
	size_t nrows = 0;

	for (uint32_t i = 0; i < n; i++)
		a[i] = kp_le32(d->hits + 4 * (size_t)i);
	qsort(a, n, 4, by_addr);
	for (uint32_t i = 0; i < n; i++) {
		const struct ksym *s = owner(ke, a[i]);
		const char *name = s ? s->name : "<unknown>";
		uint32_t key = by_address ? a[i] : s ? (uint32_t)s->value : 0;
		if (nrows && rows[nrows - 1].addr == key && (by_address || rows[nrows - 1].name == name)) {
			rows[nrows - 1].count++;
			continue;
		}
		rows[nrows++] = (struct row){ key, 1, name };
	}
	qsort(rows, nrows, sizeof *rows, by_count);
	fprintf(out, "\nhit table: %u entries, %u overwritten by the ring\n", n,
		d->r0.r0_reserved2);
	fprintf(out, "%10s %7s  %s\n", "hits", "share", by_address ? "address" : "function");
	for (size_t i = 0; i < nrows && (top == 0 || (long)i < top); i++) {
		fprintf(out, "%10llu ", (unsigned long long)rows[i].count);
		pct(out, rows[i].count, d->samples);    /* of every sample, as the guest's */
		if (by_address) {
			const struct ksym *s = owner(ke, rows[i].addr);
			fprintf(out, "  0x%08x %s+0x%x\n", rows[i].addr, s ? s->name : "<unknown>",
				s ? rows[i].addr - (uint32_t)s->value : 0);
		} else {
			fprintf(out, "  %s\n", rows[i].name);
		}
	}
	free(a);
	free(rows);
}

/* detailed counters: each range, its count, and the functions in it */
static void report_detail(FILE *out, const struct dosprof *d, const struct kelf *ke, uint64_t total)
{
	for (int k = 0; k < d->ndet; k++) {
		uint32_t size = d->det[k].step, n = d->det[k].n;
		uint32_t base = d->det[k].vaddr & ~(size - 1);

		fprintf(out, "\ndetailed counters of the slot at 0x%08x: %u of %u bytes\n",
			d->det[k].vaddr, n, size);
		fprintf(out, "%10s %7s  %-10s  %s\n", "samples", "share", "address", "functions (share of the range's code)");
		for (uint32_t c = 0; c < n; c++) {
			uint32_t cnt = kp_le32(d->det[k].cnts + 4 * (size_t)c);
			uint64_t lo = base + (uint64_t)c * size, hi = lo + size, code = 0;
			if (!cnt)
				continue;
			fprintf(out, "%10u ", cnt);
			pct(out, cnt, total);
			fprintf(out, "  0x%08llx ", (unsigned long long)lo);
			for (size_t i = 0; i < ke->nsyms; i++)
				if (sym_end(&ke->syms[i]) > lo && ke->syms[i].value < hi)
					code += MIN(sym_end(&ke->syms[i]), hi) - MAX(ke->syms[i].value, lo);
			for (size_t i = 0; i < ke->nsyms; i++) {
				uint64_t in;
				if (sym_end(&ke->syms[i]) <= lo || ke->syms[i].value >= hi)
					continue;
				in = MIN(sym_end(&ke->syms[i]), hi) - MAX(ke->syms[i].value, lo);
				fprintf(out, " %s %.0f%%", ke->syms[i].name, 100.0 * in / code);
			}
			fprintf(out, code ? "\n" : " <no symbols>\n");
		}
	}
}

static const char *modename(uint32_t m)
{
	return m == PRF_VAHIT ? "hit" : m == PRF_VADETAIL ? "detail" : m == PRF_VATOTAL ? "count" : "?";
}

/* the dump's module path, which is bytes from the file: printable ASCII
 * alone goes to the terminal as it is */
static void put_path(FILE *out, const char *path)
{
	if (!path) {
		fputs("(none)", out);
		return;
	}
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		fprintf(out, *c >= 0x20 && *c < 0x7f && *c != '\\' ? "%c" : "\\x%02x", *c);
}

/* the global data and each slot's count, as the guest's driver prints them */
static void report_global(FILE *out, const struct dosprof *d, const struct module *m)
{
	const PRFRET0 *r0 = &d->r0;

	fprintf(out, "DosProfile dump: %s %u, %.3f samples/s, module ", d->p.pid ? "pid" : "kernel",
		d->p.pid, d->dh.hz);
	put_path(out, m->path);
	fprintf(out, " 0x%08x-0x%08x\n", d->p.text_start, d->p.text_end);
	fprintf(out, "samples %llu: idle %u kernel %u unknown %u; errcnt %u\n",
		(unsigned long long)d->samples, r0->r0_idle, r0->r0_kernel, r0->r0_unknown,
		r0->r0_errcnt);
	fprintf(out, "global flags 0x%04x shift %u timval %u ticks %u processes %u\n",
		r0->r0_flags, r0->r0_shift, r0->r0_timval, r0->r0_reserved1, r0->r0_nstruc2);
	fprintf(out, "\n%5s %-10s %-10s %-6s %10s %7s\n", "slot", "address", "size", "mode",
		"samples", "share");
	for (size_t s = 0; s < d->nslots; s++) {
		const unsigned char *v = d->slots + s * sizeof(PRFVA);
		uint32_t cnt = kp_le32(v + offsetof(PRFVA, va_cnt));

		fprintf(out, "%5zu 0x%08x 0x%-8x %-6s %10u ", s,
			kp_le32(v + offsetof(PRFVA, va_vaddr)),
			kp_le32(v + offsetof(PRFVA, va_size)),
			modename(kp_le32(v + offsetof(PRFVA, va_reserved))), cnt);
		pct(out, cnt, d->samples);
		fputc('\n', out);
	}
}

static const struct wopt dosprof_opts[] = {
	{ .name = "addr", .help = "the hit table per address, not per function" },
	{ .name = "top", .value = "N", .help = "only the N rows of the hit table with the most hits" },
	{ .name = "force", .help = "go on when ELF's build-id is not the dump's" },
	{ .name = NULL },
};

/* the pipeline paired the ELF with the dump (build-id); the dump's
 * records, as the reader parsed them, are the set's payload */
static int dosprof_view(FILE *out, const struct wopts *wo, struct pipe *in)
{
	const struct dosprof *d = in[0].ss.payload;

	report_global(out, d, &in[0].ss.mods[0]);
	if (d->have_hits)
		report_hits(out, d, pipe_elf(&in[0], 0), wopt_arg(dosprof_opts, wo, "addr") != NULL, wo->top);
	report_detail(out, d, pipe_elf(&in[0], 0), d->samples);
	return 0;
}

const struct writer writer_dosprof = {
	.name = "dosprof",
	.ninputs = 1,
	.formats = { "dosprof" },
	.opts = dosprof_opts,
	.usage = "kprof dosprof [--addr] [--top N] [--force] ELF DUMP",
	.wants = "ELF and DUMP",
	.about = "A DosProfile dump in OS/2's terms: the global data, each slot's count,\n"
		 "the hit table charged to ELF's functions, and the detailed counters with\n"
		 "the functions each counter's range holds.\n",
	.view = dosprof_view,
};
