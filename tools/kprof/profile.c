/* profile.c: pair a sample set's modules with the ELFs, check that they
 * belong together, then charge each count to a symbol in one merge pass of
 * the sorted counts against each module's sorted ranges.
 *
 * The rule: a bin is charged to the symbol libdwfl names for the bin's
 * first byte. At res 0 that is the sampled PC itself; at res > 0 a bin
 * straddling two symbols goes wholly to the first. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

/* 0: the ids match; -1: refused (message set); 1: differ but forced (message set). */
int kp_check_build_id(const struct kelf *ke, const struct module *m, int force)
{
	const char *elf_id = ke->build_id[0] ? ke->build_id : "none";
	const char *dump_id = m->build_id[0] ? m->build_id : "none";

	if (ke->build_id[0] && strcmp(ke->build_id, m->build_id) == 0)
		return 0;
	/* Without an id on both sides nothing says the dump is from another
	 * kernel, only that it cannot be checked. */
	if (!ke->build_id[0] || !m->build_id[0])
		kp_error("build-id missing: %s has %s, the dump has %s; the dump cannot be matched to "
			 "the ELF%s", ke->path, elf_id, dump_id,
			 force ? " (--force: going on)" : " (--force to go on)");
	else
		kp_error("build-id mismatch: %s has %s, the dump has %s%s", ke->path, elf_id, dump_id,
			 force ? " (--force: going on)" :
			 "; the dump is of another build (--force to go on)");
	return force ? 1 : -1;
}

int kp_check_bins(const struct sampleset *ss, const struct kelf *ke)
{
	if (ss->text_start < ke->text_lo || ss->text_end > ke->text_hi) {
		kp_error("kpinfo text 0x%08jx-0x%08jx is not inside %s's executable sections 0x%08jx-0x%08jx",
			 (uintmax_t)ss->text_start, (uintmax_t)ss->text_end, ke->path,
			 (uintmax_t)ke->text_lo, (uintmax_t)ke->text_hi);
		return -1;
	}
	return 0;
}

/* The longest a prologue runs before it calls mcount (push ebp; mov ebp,
 * esp; call mcount is 8 bytes; a function that saves registers first, a
 * few more): where a gmon arc's callee address must be in its function. */
#define MCOUNT_PROLOGUE_MAX 32

/* A dump that sampled one program's text range, with call arcs (gmon):
 * the ELF must hold the range, and each arc must go from a function into
 * the prologue of one, or the file came from another build of the
 * program (the plain one for the -pg one, say) and would blame the wrong
 * functions. */
int kp_check_range(const struct sampleset *ss, const struct kelf *ke, int force)
{
	const char *why = NULL;
	char buf[256];

	if (ss->range_lo < ke->text_lo || ss->range_hi > ke->text_hi + 1) {
		snprintf(buf, sizeof buf, "its text 0x%08jx-0x%08jx is not inside the ELF's "
			 "0x%08jx-0x%08jx", (uintmax_t)ss->range_lo, (uintmax_t)ss->range_hi,
			 (uintmax_t)ke->text_lo, (uintmax_t)ke->text_hi);
		why = buf;
	}
	for (size_t i = 0; i < ss->narcs && !why; i++) {
		const struct krange *from = kelf_range(ke, ss->arcs[i].from, NULL);
		const struct krange *self = kelf_range(ke, ss->arcs[i].self, NULL);
		uint64_t off = self ? ss->arcs[i].self - ke->syms[self->sym].value : 0;

		if (!from || !self) {
			snprintf(buf, sizeof buf, "its arc 0x%08jx -> 0x%08jx is not between two of the "
				 "ELF's functions", (uintmax_t)ss->arcs[i].from, (uintmax_t)ss->arcs[i].self);
			why = buf;
		} else if (off > MCOUNT_PROLOGUE_MAX) {
			snprintf(buf, sizeof buf, "its arc to 0x%08jx lands %s+0x%jx, not in a function's "
				 "prologue, where a -pg build calls mcount", (uintmax_t)ss->arcs[i].self,
				 ke->syms[self->sym].name, (uintmax_t)off);
			why = buf;
		}
	}
	if (!why)
		return 0;
	kp_error("%s is not the program that wrote this %s file: %s%s", ke->path, ss->format, why,
		 force ? "" : " (--force to go on)");
	return force ? 1 : -1;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Of a dump whose modules are the kernel (by the path DUMP_PATH_KERNEL,
 * with its build-id) and the programs, the first ELF must be the kernel:
 * with a program's there, or another kernel build's, every kernel frame
 * would be <unknown> and the report would look whole. Refused as kpdata's
 * mismatch is (--force goes on, with the warning). The report's check
 * (main.c), not the views': kprof annotate of a program's function takes
 * the program's ELF first. */
int kp_check_kernel(const struct symbolizer *sy, const struct sampleset *ss, int force,
		    char *warning, size_t n)
{
	const struct module *k = &ss->mods[0];
	const struct kelf *first = sy->n > 0 ? &sy->elfs[0] : NULL;

	if (!first || ss->nmods < 2 || !sy->of || ss->unidentified || !k->path ||
	    strcmp(k->path, DUMP_PATH_KERNEL) != 0 || !k->build_id[0] || sy->of[0] >= 0)
		return 0;
	for (size_t i = 1; i < ss->nmods; i++)
		if (sy->of[i] == 0) {
			kp_error("%s is the program %s of this %s dump, not the kernel: the kernel's ELF "
				 "(build-id %s, build/kernel.elf) comes first, a program's with --elf%s",
				 first->path, ss->mods[i].path ? ss->mods[i].path : "?", ss->format,
				 k->build_id, force ? " (--force: going on)" : "");
			goto refused;
		}
	kp_error("%s is not the kernel of this %s dump: it has build-id %s, the dump's kernel %s%s",
		 first->path, ss->format, first->build_id[0] ? first->build_id : "none", k->build_id,
		 force ? " (--force: going on, its frames <unknown>)" :
		 "; the dump is of another build, or this is not a kernel (--force to go on)");
refused:
	if (!force)
		return -1;
	snprintf(warning, n, "%s", kp_lasterror());
	return 0;
}

/* The modules that hold samples and have no ELF: their frames are
 * <unknown> in every report. Said on stderr, with how to give one, so
 * that a report of <unknown> rows is not taken for the profile. 0 when
 * every module with samples has its ELF. */
int kp_unmatched(const struct symbolizer *sy, const struct sampleset *ss, char *buf, size_t n)
{
	uint64_t *count = kp_calloc(ss->nmods ? ss->nmods : 1, sizeof *count);
	size_t len = 0, missing = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ss->nflat; i++)
		if (ss->flat[i].mod < ss->nmods)
			count[ss->flat[i].mod] += ss->flat[i].count;
	for (size_t i = 0; i < ss->nstacks && ss->stacks; i++)
		for (uint32_t f = 0; f < ss->stacks[i].n; f++) {
			uint32_t m = ss->frames[ss->stacks[i].first + f].mod;

			if (m < ss->nmods && f > 0)     /* the leaf is in flat already */
				count[m] += ss->stacks[i].weight;
		}
	for (size_t i = 0; i < ss->nmods; i++) {
		const struct module *m = &ss->mods[i];

		if (count[i] == 0 || (i < sy->nof && sy->of[i] >= 0))
			continue;
		missing++;
		if (len + 1 < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s (build-id %s)",
						missing > 1 ? ", " : "", m->path ? m->path : "a module",
						m->build_id[0] ? m->build_id : "none");
	}
	if (missing && len + 1 < n)
		snprintf(buf + len, n - len, ": %s <unknown>; give each program's ELF with --elf "
			 "build/user/bin/NAME (your own: the file you built), the kernel's first",
			 missing > 1 ? "their frames are" : "its frames are");
	free(count);
	return missing > 0;
}

/* Each module to the ELF with its build-id, else to the ELF of its file
 * name; a dump of one module that matches neither is of the first ELF,
 * and refused unless the ids agree (or --force). A module paired by name
 * is refused the same way when it names an id; the warning for --force
 * goes to warning. */
int kp_match(struct symbolizer *sy, const struct sampleset *ss, int force, char *warning, size_t n)
{
	free(sy->of);
	sy->nof = ss->nmods;
	sy->of = kp_calloc(ss->nmods, sizeof *sy->of);
	for (size_t i = 0; i < ss->nmods; i++) {
		const struct module *m = &ss->mods[i];
		int byid, bydefault;

		sy->of[i] = -1;
		for (size_t e = 0; e < sy->n && sy->of[i] < 0; e++)
			if (m->build_id[0] && strcmp(m->build_id, sy->elfs[e].build_id) == 0)
				sy->of[i] = (long)e;
		byid = sy->of[i] >= 0;
		for (size_t e = 0; e < sy->n && sy->of[i] < 0 && m->path; e++)
			if (strcmp(base(m->path), base(sy->elfs[e].path)) == 0)
				sy->of[i] = (long)e;
		bydefault = sy->of[i] < 0 && ss->nmods == 1 && sy->n > 0;
		if (bydefault)
			sy->of[i] = 0;
		/* paired by default, or by name while the dump names an id: the
		 * ids must still agree (a rebuilt program keeps its name) */
		if (sy->of[i] >= 0 && !byid && !ss->unidentified && (bydefault || m->build_id[0])) {
			switch (kp_check_build_id(&sy->elfs[sy->of[i]], m, force)) {
			case -1:
				return -1;
			case 1:
				/* said once the report is out, so a later error stays one line */
				snprintf(warning, n, "%s", kp_lasterror());
				break;
			}
		}
		/* a position-independent file goes where the dump says it was */
		if (sy->of[i] >= 0 && m->load != sy->elfs[sy->of[i]].load) {
			struct kelf *ke = &sy->elfs[sy->of[i]];
			GElf_Ehdr eh;

			if (gelf_getehdr(ke->elf, &eh) && eh.e_type == ET_DYN) {
				const char *path = ke->path;

				kelf_close(ke);
				if (kelf_open(ke, path, m->load) < 0)
					return -1;
			}
		}
	}
	if (ss->binned && ss->nmods > 0 && sy->of[0] >= 0)
		return kp_check_bins(ss, &sy->elfs[sy->of[0]]);
	if (ss->ranged && ss->nmods > 0 && sy->of[0] >= 0)
		switch (kp_check_range(ss, &sy->elfs[sy->of[0]], force)) {
		case -1:
			return -1;
		case 1:
			snprintf(warning, n, "%s", kp_lasterror());
			break;
		}
	return 0;
}

int symbolize(struct profile *p, const struct symbolizer *sy, const struct sampleset *ss)
{
	uint64_t sum = 0;
	size_t cursor = 0;
	uint32_t mod = UINT32_MAX;

	memset(p, 0, sizeof *p);
	p->nmods = ss->nmods;
	p->symcount = kp_calloc(ss->nmods, sizeof *p->symcount);
	for (size_t m = 0; m < ss->nmods; m++) {
		long e = m < sy->nof ? sy->of[m] : -1;

		p->symcount[m] = kp_calloc(e >= 0 ? sy->elfs[e].nsyms : 0, sizeof **p->symcount);
	}
	p->hits = kp_calloc(ss->nflat, sizeof *p->hits);
	for (size_t i = 0; i < ss->nflat; i++) {
		const struct flat *f = &ss->flat[i];
		struct hit *h = &p->hits[p->nhits++];
		long e = f->mod < sy->nof ? sy->of[f->mod] : -1;
		const struct krange *r = NULL;

		if (f->mod != mod) {
			mod = f->mod;
			cursor = 0;
		}
		sum += f->count;
		/* ranges only move forward, as the counts do */
		if (e >= 0)
			r = kelf_range(&sy->elfs[e], f->addr, &cursor);
		if (r) {
			h->range = (int32_t)(r - sy->elfs[e].ranges);
			h->sym = (int32_t)r->sym;
			p->symcount[f->mod][r->sym] += f->count;
		} else {
			h->range = h->sym = -1;
			p->unknown += f->count;
		}
	}
	/* kernel ticks without a count are the kernel's to show; a user
	 * profile's counts are all there is of its scope, unless it says */
	p->outside = !ss->scope && ss->kernel > sum ? ss->kernel - sum : 0;
	p->kernel = !ss->scope && ss->kernel > sum ? ss->kernel : sum;
	/* a scope's counts without an address (a DosProfile session's hits
	 * outside every slot) are a row of their own: the rows sum to the
	 * header's user count */
	if (ss->scope && ss->scoped > sum) {
		p->outside = ss->scoped - sum;
		p->kernel = ss->scoped;
	}
	return 0;
}

void profile_free(struct profile *p)
{
	for (size_t m = 0; m < p->nmods; m++)
		free(p->symcount[m]);
	free(p->symcount);
	free(p->hits);
	memset(p, 0, sizeof *p);
}
