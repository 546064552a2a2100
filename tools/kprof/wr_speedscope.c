/* wr_speedscope.c: --format speedscope, the stacks as speedscope's JSON
 * file format (its file-format-schema.json): one "sampled" profile per
 * process, unit "none", each sample a stack of indices into the shared
 * frame table from the root (the outermost caller) to the leaf, with its
 * weight in samples (or in the set's count: the names say "(system-call
 * hits)" when they are not clock ticks). Kernel frames are named "name [k]". speedscope and
 * the Firefox Profiler open it. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* stack i's frame indices, root first, into idx; how many. A name comes
 * from the symbolizer's caches, one pointer for each string, so the index
 * is looked up by the pointer, and by the string only the first time. */
static size_t stack_indices(struct strtab *t, struct kvmap *byptr, struct symbolizer *sy,
			    const struct sampleset *ss, size_t i, size_t *idx, uint64_t *w)
{
	const char *names[STACK_NAMES_MAX];
	size_t n = stack_frames(sy, ss, i, " [k]", names, STACK_NAMES_MAX, w);

	for (size_t k = 0; k < n; k++) {
		int made;
		uintptr_t *v = kvmap_slot(byptr, (uintptr_t)names[k], 0, &made);

		if (made)
			*v = strtab_index(t, names[k]);
		idx[k] = *v;
	}
	return n;
}

/* a number, without printf's parsing of a format for each of millions */
static void put_uint(FILE *out, uint64_t v)
{
	char buf[24], *e = buf + sizeof buf, *s = e;

	do
		*--s = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(s, 1, (size_t)(e - s), out);
}

static int speedscope_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
			    const struct sampleset *ss, const struct profile *p)
{
	size_t n = sampleset_nstacks(ss), idx[STACK_NAMES_MAX], nprof = 0;
	struct strtab t = { 0 };
	struct kvmap byptr = { 0 };
	uint32_t *pids = kp_calloc(n + 1, sizeof *pids);
	size_t npids = 0, nall = 0, capall = 0, *first_of = kp_calloc(n + 1, sizeof *first_of);
	uint32_t *all = NULL;
	const struct unit *u = sampleset_unit(ss);
	char what[64] = "";

	(void)wo, (void)p;
	/* the processes, in the order they first appear */
	for (size_t i = 0; i < n; i++) {
		uint32_t pid = ss->stacks ? ss->stacks[i].pid : 0;
		size_t k;
		for (k = 0; k < npids && pids[k] != pid; k++)
			;
		if (k == npids)
			pids[npids++] = pid;
	}
	/* the frame table first, so the profiles can follow it; each stack's
	 * indices kept for them */
	for (size_t i = 0; i < n; i++) {
		uint64_t w;
		size_t m = stack_indices(&t, &byptr, sy, ss, i, idx, &w);

		first_of[i] = nall;
		if (nall + m > capall) {
			capall = 2 * (nall + m);
			all = kp_reallocarray(all, capall, sizeof *all);
		}
		for (size_t j = 0; j < m; j++)
			all[nall++] = (uint32_t)idx[j];
	}
	first_of[n] = nall;
	/* speedscope's units are time's and bytes: a count of anything is
	 * "none", and what it counts, when not the clock's ticks, is said in
	 * the names */
	if (!u->timed)
		snprintf(what, sizeof what, " (%s)", u->what);
	fprintf(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		"\"exporter\":\"kprof %s\",\"name\":\"kprof %s%s\",\"activeProfileIndex\":0,\n"
		"\"shared\":{\"frames\":[", KPROF_VERSION, ss->format, what);
	for (size_t i = 0; i < t.n; i++) {
		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_string(out, t.v[i]);
		fputc('}', out);
	}
	fprintf(out, "]},\n\"profiles\":[");
	for (size_t k = 0; k < npids; k++) {
		uint64_t total = 0;
		int first = 1;
		char pname[128];

		for (size_t i = 0; i < n; i++) {
			uint64_t w;
			if ((ss->stacks ? ss->stacks[i].pid : 0) != pids[k])
				continue;
			sampleset_stack(ss, i, &(struct frame){ 0 }, &(uint32_t){ 0 }, &w);
			total += w;
		}
		if (!total)
			continue;
		if (pids[k])
			snprintf(pname, sizeof pname, "pid %u%s", pids[k], what);
		else
			snprintf(pname, sizeof pname, "idle and unknown%s", what);
		fprintf(out, "%s\n{\"type\":\"sampled\",\"name\":", nprof++ ? "," : "");
		json_string(out, pname);
		fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%ju,\"samples\":[",
			(uintmax_t)total);
		for (size_t i = 0; i < n; i++) {
			uint64_t w;
			if ((ss->stacks ? ss->stacks[i].pid : 0) != pids[k])
				continue;
			sampleset_stack(ss, i, &(struct frame){ 0 }, &(uint32_t){ 0 }, &w);
			if (!w)
				continue;
			fputs(first ? "[" : ",[", out);
			for (size_t j = first_of[i]; j < first_of[i + 1]; j++) {
				if (j > first_of[i])
					fputc(',', out);
				put_uint(out, all[j]);
			}
			fputc(']', out);
			first = 0;
		}
		fprintf(out, "],\"weights\":[");
		first = 1;
		for (size_t i = 0; i < n; i++) {
			uint64_t w;
			if ((ss->stacks ? ss->stacks[i].pid : 0) != pids[k])
				continue;
			sampleset_stack(ss, i, &(struct frame){ 0 }, &(uint32_t){ 0 }, &w);
			if (!w)
				continue;
			fprintf(out, "%s%ju", first ? "" : ",", (uintmax_t)w);
			first = 0;
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n]}\n");
	strtab_free(&t);
	kvmap_free(&byptr);
	free(all);
	free(first_of);
	free(pids);
	return ferror(out) ? -1 : 0;
}

const struct writer writer_speedscope = { .name = "speedscope", .write = speedscope_write, .ninputs = 1 };
