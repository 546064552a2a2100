/* dosprof.c: kprof dosprof [--addr] [--top N] ELF DUMP: reads a raw
 * DosProfile dump (include/abi/dosprof.h, written by the guest's dosprof)
 * and charges its hit table to the functions of ELF (or, with --addr, to
 * each address), and its detailed counters to the functions each counter's
 * range holds, with each function's share of that range's code. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "abi/dosprof.h"
#include "kprof.h"

#define DPDUMP_MAX (64u << 20)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define USAGE "kprof dosprof [--addr] [--top N] ELF DUMP"

struct dpdump {
	struct dpdump_hdr h;
	struct dpdump_module mod;
	PRFRET0 r0;
	int have_r0;
	const PRFRET1 *r1;
	const PRFRET2 *r2;
	struct { uint32_t vaddr; const PRFRET3 *r3; } det[PRF_MAXSLOTS];
	int ndet;
};

/* every record checked against the file's end and its own declared count */
static int parse(struct dpdump *d, const unsigned char *buf, size_t len, const char *name)
{
	size_t off = sizeof d->h + sizeof d->mod;

	memset(d, 0, sizeof *d);
	if (len < off) {
		kp_error("%s: truncated: %zu bytes, a DosProfile dump has at least %zu", name, len, off);
		return -1;
	}
	memcpy(&d->h, buf, sizeof d->h);
	if (d->h.magic != DPDUMP_MAGIC || memcmp(d->h.engine, DPDUMP_ENGINE, sizeof DPDUMP_ENGINE)) {
		kp_error("%s: not a DosProfile dump (no DOSP magic)", name);
		return -1;
	}
	if (d->h.version != DPDUMP_VERSION || d->h.nmodules != 1) {
		kp_error("%s: version %u with %u modules; this kprof reads version %d with 1",
			 name, d->h.version, d->h.nmodules, DPDUMP_VERSION);
		return -1;
	}
	memcpy(&d->mod, buf + sizeof d->h, sizeof d->mod);
	d->mod.name[sizeof d->mod.name - 1] = '\0';
	for (uint32_t i = 0; i < d->h.nrecords; i++) {
		struct dpdump_rec rec;
		const unsigned char *p;
		if (len - off < sizeof rec) {
			kp_error("%s: record %u of %u is cut off", name, i, d->h.nrecords);
			return -1;
		}
		memcpy(&rec, buf + off, sizeof rec);
		off += sizeof rec;
		if (len - off < rec.len) {
			kp_error("%s: record %u claims %u bytes, %zu are left", name, i, rec.len, len - off);
			return -1;
		}
		p = buf + off;
		off += rec.len;
		switch (rec.us_cmd) {
		case PRF_RET_GLOBAL:
			if (rec.len != sizeof d->r0)
				goto bad;
			memcpy(&d->r0, p, sizeof d->r0);
			d->have_r0 = 1;
			break;
		case PRF_RET_VASLOTS:
			if (rec.len < 1 || rec.len != 1 + p[0] * sizeof(PRFVA))
				goto bad;
			d->r1 = (const PRFRET1 *)p;
			break;
		case PRF_RET_VAHITS: {
			uint32_t n;
			if (rec.len < 4)
				goto bad;
			memcpy(&n, p, 4);
			if (n > (rec.len - 4) / 4 || rec.len != 4 + 4 * n)
				goto bad;
			d->r2 = (const PRFRET2 *)p;
			break;
		}
		case PRF_RET_VADETAIL: {
			uint32_t size, n;
			if (rec.len < 8 || d->ndet == PRF_MAXSLOTS)
				goto bad;
			memcpy(&size, p, 4);
			memcpy(&n, p + 4, 4);
			if (n > (rec.len - 8) / 4 || rec.len != 8 + 4 * n || !size || (size & (size - 1)))
				goto bad;
			d->det[d->ndet].vaddr = rec.us_vaddr;
			d->det[d->ndet++].r3 = (const PRFRET3 *)p;
			break;
		}
		default:
		bad:
			kp_error("%s: record %u (us_cmd %u, %u bytes) is malformed", name, i, rec.us_cmd,
				 rec.len);
			return -1;
		}
	}
	if (!d->have_r0 || !d->r1) {
		kp_error("%s: no global data or no slots: not a whole dump", name);
		return -1;
	}
	return 0;
}

static uint32_t get32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

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
	uint32_t x = get32(a), y = get32(b);
	return x < y ? -1 : x > y;
}

static void pct(FILE *out, uint64_t part, uint64_t whole)
{
	fprintf(out, "%6.1f%%", whole ? 100.0 * part / whole : 0.0);
}

/* the hit table, per function or per address */
static void report_hits(FILE *out, const struct dpdump *d, const struct kelf *ke, int by_address,
			long top)
{
	uint32_t n = get32(&d->r2->r2_nhits);
	uint32_t *a = kp_calloc(n + 1, 4);
	struct row *rows = kp_calloc(n + 1, sizeof *rows);
	size_t nrows = 0;

	memcpy(a, (const unsigned char *)d->r2 + 4, 4 * (size_t)n);
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
		pct(out, rows[i].count, n);
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
static void report_detail(FILE *out, const struct dpdump *d, const struct kelf *ke, uint64_t total)
{
	for (int k = 0; k < d->ndet; k++) {
		const unsigned char *p = (const unsigned char *)d->det[k].r3;
		uint32_t size = get32(p), n = get32(p + 4);
		uint32_t base = d->det[k].vaddr & ~(size - 1);

		fprintf(out, "\ndetailed counters of the slot at 0x%08x: %u of %u bytes\n",
			d->det[k].vaddr, n, size);
		fprintf(out, "%10s %7s  %-10s  %s\n", "samples", "share", "address", "functions (share of the range's code)");
		for (uint32_t c = 0; c < n; c++) {
			uint32_t cnt = get32(p + 8 + 4 * c);
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

static void build_id_hex(const uint8_t *id, char *out)
{
	for (int i = 0; i < 20; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

int dosprof_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "addr", no_argument, NULL, 'a' },
		{ "top", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct kelf ke = { 0 };
	struct dpdump d;
	unsigned char *buf = NULL;
	size_t len;
	int c, by_address = 0, status = 2;
	long top = 0;
	char *end, id[41];
	static const uint8_t zero[20];
	uint64_t total;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'a') {
			by_address = 1;
		} else if (c == 't') {
			errno = 0;
			top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || top < 0) {
				fprintf(stderr, "kprof: --top wants a number of rows; usage: %s\n", USAGE);
				return 2;
			}
		} else {
			fprintf(stderr, "kprof: unknown option %s; usage: %s\n", argv[optind - 1], USAGE);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "kprof: dosprof wants ELF and DUMP; usage: %s\n", USAGE);
		return 2;
	}
	if (kelf_open(&ke, argv[optind], 0) < 0 ||
	    kp_readfile(argv[optind + 1], DPDUMP_MAX, &buf, &len) < 0 ||
	    parse(&d, buf, len, argv[optind + 1]) < 0)
		goto fail;
	build_id_hex(d.mod.build_id, id);
	if (memcmp(d.mod.build_id, zero, 20) && ke.build_id[0] && strcmp(id, ke.build_id)) {
		kp_error("%s has build-id %s, the dump's %s has %s: not the program profiled",
			 argv[optind], ke.build_id, d.mod.name, id);
		goto fail;
	}
	total = (uint64_t)d.r0.r0_idle + d.r0.r0_vm86 + d.r0.r0_kernel + d.r0.r0_shrmem +
		d.r0.r0_unknown;
	for (int i = 0; i < d.r1->r1_nslots; i++)
		total += get32(&d.r1->r1_slots[i].va_cnt);
	printf("DosProfile dump: %s %u, %u samples/s, module %s 0x%08x-0x%08x\n",
	       d.h.pid ? "pid" : "kernel", d.h.pid, d.h.rate, d.mod.name, d.mod.text_start,
	       d.mod.text_end);
	printf("samples %llu: idle %u kernel %u unknown %u; errcnt %u\n",
	       (unsigned long long)total, d.r0.r0_idle, d.r0.r0_kernel, d.r0.r0_unknown,
	       d.r0.r0_errcnt);
	if (d.r2)
		report_hits(stdout, &d, &ke, by_address, top);
	report_detail(stdout, &d, &ke, total);
	status = 0;
	goto out;
fail:
	fprintf(stderr, "kprof: %s\n", kp_lasterror());
out:
	free(buf);
	kelf_close(&ke);
	return status;
}
