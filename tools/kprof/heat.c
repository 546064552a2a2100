/* heat.c: kprof heat PROGRAM.elf DUMP [--annotate] [--top N]: the heat
 * engine's exact per-instruction counts, summed per function
 * (instructions, calls from the CALLED marks, duration), or with
 * --annotate each function's disassembly with every instruction's count
 * and marks beside it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <capstone.h>

#include "abi/heat.h"
#include "heat.h"

#define HEAT_USAGE "kprof heat [--annotate] [--top N] [--force] PROGRAM.elf DUMP"

/* one "PROF 0x%08X count duration [marks]" line, NUL-terminated */
static int parse_line(char *s, struct heatline *l)
{
	char *end, *w;
	unsigned long long v;

	memset(l, 0, sizeof *l);
	s += strlen(HEAT_TAG);
	if (*s != ' ')
		return -1;
	errno = 0;
	v = strtoull(s + 1, &end, 16);
	if (errno || end == s + 1 || strncmp(s + 1, "0x", 2) || v > UINT32_MAX || *end != ' ')
		return -1;
	l->addr = (uint32_t)v;
	s = end;
	for (int i = 0; i < 2; i++) {
		if (*s != ' ' || s[1] < '0' || s[1] > '9')
			return -1;
		v = strtoull(s + 1, &end, 10);
		if (errno)
			return -1;
		*(i ? &l->dur : &l->count) = v;
		s = end;
	}
	while (*s == ' ') {
		w = s + 1;
		s = w + strcspn(w, " ");
		if ((size_t)(s - w) == strlen(HEAT_CALLED) && !strncmp(w, HEAT_CALLED, s - w))
			l->flags |= HF_CALLED;
		else if ((size_t)(s - w) == strlen(HEAT_BLOCK_ENTER) && !strncmp(w, HEAT_BLOCK_ENTER, s - w))
			l->flags |= HF_ENTER;
		else if ((size_t)(s - w) == strlen(HEAT_BLOCK_EXIT) && !strncmp(w, HEAT_BLOCK_EXIT, s - w))
			l->flags |= HF_EXIT;
		else
			return -1;
	}
	return *s == '\0' || *s == '\r' ? 0 : -1;
}

int heat_parse(struct heatdump *h, const char *text, size_t len, const char *name)
{
	size_t cap = 0, lineno = 0;
	const char *p = text, *end = text + len;
	char line[256];

	memset(h, 0, sizeof *h);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		lineno++;
		if (n >= strlen(HEAT_TAG) && !strncmp(p, HEAT_TAG, strlen(HEAT_TAG))) {
			struct heatline l;
			if (n >= sizeof line)
				goto bad;
			memcpy(line, p, n);
			line[n] = '\0';
			if (parse_line(line, &l) < 0)
				goto bad;
			if (h->n && l.addr <= h->l[h->n - 1].addr) {
				kp_error("%s:%zu: address 0x%08x not above the line before's", name,
					 lineno, l.addr);
				goto fail;
			}
			if (h->n == cap) {
				cap = cap ? 2 * cap : 1024;
				h->l = realloc(h->l, cap * sizeof *h->l);
				if (!h->l) {
					kp_error("out of memory");
					goto fail;
				}
			}
			h->l[h->n++] = l;
		}
		p += n + 1;
	}
	if (h->n == 0) {
		kp_error("%s: no %s lines: not a heat dump", name, HEAT_TAG);
		goto fail;
	}
	return 0;
bad:
	kp_error("%s:%zu: not a heat line (%s 0x%%08X count duration [%s] [%s] [%s])", name,
		 lineno, HEAT_TAG, HEAT_CALLED, HEAT_BLOCK_ENTER, HEAT_BLOCK_EXIT);
fail:
	heat_free(h);
	return -1;
}

int heat_read(struct heatdump *h, const char *path)
{
	unsigned char *data;
	size_t len;
	int r;

	if (kp_readfile(path, (size_t)1 << 30, &data, &len) < 0)
		return -1;
	r = heat_parse(h, (const char *)data, len, path);
	free(data);
	return r;
}

void heat_free(struct heatdump *h)
{
	free(h->l);
	memset(h, 0, sizeof *h);
}

int heat_check_build_id(const struct kelf *ke, const char *dump, int force)
{
	const char *slash = strrchr(dump, '/');
	size_t dir = slash ? (size_t)(slash - dump) + 1 : 0, len, k = strlen(HEATINFO_BUILD_ID);
	char *path = kp_calloc(dir + sizeof "heatinfo", 1), id[129] = "", *t;
	unsigned char *text;

	memcpy(path, dump, dir);
	strcpy(path + dir, "heatinfo");
	if (access(path, F_OK) != 0 || kp_readfile(path, 1 << 20, &text, &len) < 0) {
		free(path);
		return 0;               /* a dump from a console log has none */
	}
	t = kp_calloc(len + 1, 1);
	memcpy(t, text, len);
	for (char *l = t; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, HEATINFO_BUILD_ID, k) && l[k] == ' ')
			sscanf(l + k + 1, "%128[0-9a-f]", id);
	free(t);
	free(text);
	if (!id[0] || !ke->build_id[0] || !strcmp(id, ke->build_id)) {
		free(path);
		return 0;
	}
	kp_error("%s says the traced program had build-id %s, but %s has %s%s", path, id, ke->path,
		 ke->build_id, force ? "" : " (--force to go on)");
	free(path);
	return force ? 1 : -1;
}

long heat_symbol(const struct kelf *ke, uint32_t addr)
{
	const struct krange *r = kelf_range(ke, addr, NULL);

	return r ? (long)r->sym : -1;
}

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
static void annotate(FILE *out, const struct kelf *ke, const struct heatdump *h, const struct fn *f,
		     csh cs, cs_insn *insn)
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
			const struct heatline *l;
			char marks[4] = "   ";

			if (!code || !cs_disasm_iter(cs, &code, &avail, &a, insn))
				break;
			while (i < h->n && h->l[i].addr < at)
				i++;
			l = i < h->n && h->l[i].addr == at ? &h->l[i] : NULL;
			if (l) {
				marks[0] = l->flags & HF_CALLED ? 'C' : ' ';
				marks[1] = l->flags & HF_ENTER ? '>' : ' ';
				marks[2] = l->flags & HF_EXIT ? '<' : ' ';
				fprintf(out, "%12" PRIu64 " %12" PRIu64 " %s  %08" PRIx64 "  %s %s\n",
					l->count, l->dur, marks, at, insn->mnemonic, insn->op_str);
			} else {
				fprintf(out, "%12s %12s %s  %08" PRIx64 "  %s %s\n", ".", ".", marks, at,
					insn->mnemonic, insn->op_str);
			}
			at = a;
		}
	}
}

int heat_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "annotate", no_argument, NULL, 'a' },
		{ "top", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kelf ke = { 0 };
	struct heatdump h = { 0 };
	struct fn *fns = NULL;
	long top = 0, nf = 0;
	int c, ann = 0, force = 0, status = 2, mismatch;
	uint64_t total = 0, nosym = 0;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': ann = 1; break;
		case 'f': force = 1; break;
		case 't':
			errno = 0;
			top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || top < 0) {
				fprintf(stderr, "kprof: --top wants a number, not %s; usage: %s\n", optarg, HEAT_USAGE);
				return 2;
			}
			break;
		case 'h':
			printf("usage: %s\n\nThe exact heat of a traced program (/dev/heat), per function:\n"
			       "instructions executed, calls (CALLED marks) and duration (TSC ticks).\n"
			       "  --annotate  each function's instructions with their counts and marks\n"
			       "              (C: called, >: block enter, <: block exit)\n"
			       "  --top N     only the N hottest functions\n"
			       "  --force     go on when the heatinfo beside DUMP names another build-id\n", HEAT_USAGE);
			return 0;
		default:
			fprintf(stderr, "kprof: unknown option %s; usage: %s\n", argv[optind - 1], HEAT_USAGE);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "kprof: heat wants PROGRAM.elf and DUMP; usage: %s\n", HEAT_USAGE);
		return 2;
	}
	if (kelf_open(&ke, argv[optind], 0) < 0 || heat_read(&h, argv[optind + 1]) < 0 ||
	    (mismatch = heat_check_build_id(&ke, argv[optind + 1], force)) < 0)
		goto fail;
	if (mismatch)
		fprintf(stderr, "kprof: warning: %s\n", kp_lasterror());
	fns = kp_calloc(ke.nsyms + 1, sizeof *fns);
	for (size_t i = 0; i < ke.nsyms; i++)
		fns[i].sym = (long)i;
	fns[ke.nsyms].sym = -1;
	for (size_t i = 0; i < h.n; i++) {
		long s = heat_symbol(&ke, h.l[i].addr);
		struct fn *f = &fns[s < 0 ? (long)ke.nsyms : s];
		f->instr += h.l[i].count;
		f->dur += h.l[i].dur;
		if (h.l[i].flags & HF_CALLED)
			f->calls += h.l[i].count;
		total += h.l[i].count;
		if (s < 0)
			nosym += h.l[i].count;
	}
	qsort(fns, ke.nsyms + 1, sizeof *fns, by_instr);
	for (nf = 0; nf < (long)ke.nsyms + 1 && fns[nf].instr; nf++)
		;
	if (top && top < nf)
		nf = top;
	printf("heat: %s: %" PRIu64 " instructions executed at %zu addresses\n", argv[optind],
	       total, h.n);
	printf("%8s %14s %10s %14s  %s\n", "%instr", "instructions", "calls", "duration", "function");
	for (long i = 0; i < nf; i++)
		printf("%8.2f %14" PRIu64 " %10" PRIu64 " %14" PRIu64 "  %s\n",
		       100.0 * fns[i].instr / (double)total, fns[i].instr, fns[i].calls, fns[i].dur,
		       symname(&ke, fns[i].sym));
	if (ann) {
		csh cs;
		cs_insn *insn;
		if (cs_open(CS_ARCH_X86, CS_MODE_32, &cs) != CS_ERR_OK || !(insn = cs_malloc(cs))) {
			kp_error("capstone cannot disassemble i386 here");
			goto fail;
		}
		printf("\n%12s %12s %s  %-8s  %s\n", "count", "duration", "C><", "address", "instruction");
		for (long i = 0; i < nf; i++)
			if (fns[i].sym >= 0)
				annotate(stdout, &ke, &h, &fns[i], cs, insn);
		cs_free(insn, 1);
		cs_close(&cs);
	}
	if (nosym)
		fprintf(stderr, "kprof: %" PRIu64 " instructions ran at addresses no symbol owns\n", nosym);
	status = fflush(stdout) == 0 ? 0 : 2;
	goto out;
fail:
	fprintf(stderr, "kprof: %s\n", kp_lasterror());
out:
	free(fns);
	heat_free(&h);
	kelf_close(&ke);
	return status;
}
