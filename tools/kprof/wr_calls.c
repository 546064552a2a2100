/* wr_calls.c: --callers FUNC and --callees FUNC on a stack dump, as gprof
 * users expect of a call graph: the functions that called FUNC, or that
 * FUNC called, each with the samples of the stacks in which it did (FUNC's
 * time through that caller, or that callee's time under FUNC; "(self)" is
 * FUNC's own, as the leaf). A stack where FUNC recurses counts once, at
 * its outermost call. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

struct tally {
	char *name;
	uint64_t samples;
};

static int by_samples(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void add(struct tally **t, size_t *n, size_t *cap, const char *name, uint64_t w)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*t)[i].name, name)) {
			(*t)[i].samples += w;
			return;
		}
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 32;
		*t = kp_reallocarray(*t, *cap, sizeof **t);
	}
	(*t)[(*n)++] = (struct tally){ kp_strdup(name), w };
}

static int calls_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
		       const struct sampleset *ss, const struct profile *p)
{
	struct tally *t = NULL;
	size_t n = 0, cap = 0;
	uint64_t with = 0;

	(void)p;
	if (!ss->stacks) {
		kp_error("--%s needs a dump of stacks (the stack engine's); this is a %s",
			 wo->callers ? "callers" : "callees", ss->format);
		return -1;
	}
	for (size_t i = 0; i < ss->nstacks; i++) {
		const char *names[STACK_NAMES_MAX];
		uint64_t w;
		size_t m = stack_frames(sy, ss, i, "", names, STACK_NAMES_MAX, &w), at;

		/* the outermost frame of FUNC (names[0] is the program) */
		for (at = 1; at < m && strcmp(names[at], wo->func); at++)
			;
		if (at >= m || !w)
			continue;
		with += w;
		if (wo->callers)
			add(&t, &n, &cap, names[at - 1], w);
		else
			add(&t, &n, &cap, at + 1 < m ? names[at + 1] : "(self)", w);
	}
	if (!with) {
		kp_error("%s is in none of the %zu stacks", wo->func, ss->nstacks);
		free(t);
		return -1;
	}
	qsort(t, n, sizeof *t, by_samples);
	fprintf(out, "%s %s: %ju samples in stacks with it, %.2f%% of %ju\n",
		wo->callers ? "callers of" : "callees of", wo->func, (uintmax_t)with,
		ss->total ? 100.0 * with / ss->total : 0.0, (uintmax_t)ss->total);
	fprintf(out, "%10s %8s  %s\n", "samples", "%", wo->callers ? "caller" : "callee");
	for (size_t i = 0; i < n && (!wo->top || (long)i < wo->top); i++)
		fprintf(out, "%10ju %7.2f%%  %s\n", (uintmax_t)t[i].samples, 100.0 * t[i].samples / with,
			t[i].name);
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
	return 0;
}

const struct writer writer_calls = { .name = "calls", .write = calls_write, .ninputs = 1 };
