/* wr_folded.c: --format folded, the stacks as Brendan Gregg's folded
 * lines, as stackcollapse-perf.pl writes them, which flamegraph.pl,
 * inferno, speedscope and the Firefox Profiler read: one line per
 * distinct stack, the program's name as the root frame, then the frames
 * from the outermost caller to the leaf, ';' between them, kernel frames
 * suffixed "_[k]", and the samples after a space. A frame below the leaf
 * is a return address: it is named by its call, the byte before it. A
 * stack the walk could not finish starts with "[truncated]" after the
 * root. A set of flat counts is a set of one-frame stacks. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define line fline             /* kprof.h's */

/* The byte at d of a line, 0 past its end: an order of bytes as strcmp's. */
static inline int at(const struct line *l, size_t d)
{
	return d < l->len ? (unsigned char)l->text[d] : 0;
}

static void swap(struct line *a, struct line *b)
{
	struct line t = *a;

	*a = *b;
	*b = t;
}

/* Sorts lines whose first d bytes are equal, in strcmp's order, by
 * Bentley and Sedgewick's multikey quicksort: the lines of a profile
 * share long prefixes (the root, main, the same callers), which a
 * comparison sort compares again and again; this one looks at each
 * shared byte once per partition. */
static void sort_lines(struct line *l, size_t n, size_t d)
{
	while (n > 1) {
		size_t lt = 0, gt = n, i = 1;
		int pivot;

		swap(&l[0], &l[n / 2]);
		pivot = at(&l[0], d);
		while (i < gt) {        /* [0, lt) <, [lt, i) ==, [gt, n) > */
			int c = at(&l[i], d);

			if (c < pivot)
				swap(&l[lt++], &l[i++]);
			else if (c > pivot)
				swap(&l[i], &l[--gt]);
			else
				i++;
		}
		sort_lines(l, lt, d);
		sort_lines(l + gt, n - gt, d);
		if (pivot == 0)
			return;         /* the equal ones ended here: equal lines */
		l += lt;                /* the equal ones, on the next byte */
		n = gt - lt;
		d++;
	}
}

static void append(char **s, size_t *len, size_t *cap, const char *part)
{
	size_t n = strlen(part);

	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*s = realloc(*s, *cap);
		if (!*s) {
			fprintf(stderr, "kprof: out of memory\n");
			exit(2);
		}
	}
	if (*len)
		(*s)[(*len)++] = ';';
	memcpy(*s + *len, part, n);
	*len += n;
	(*s)[*len] = '\0';
}

/* The set's stacks as folded lines, sorted and merged: *nlines of them,
 * each "root;...;leaf", its frames (the symbolizer's names) and its
 * count. The caller frees them (folded_free). */
struct fline *folded_lines(struct symbolizer *sy, const struct sampleset *ss, size_t *nlines)
{
	size_t n = sampleset_nstacks(ss), nl = 0, out = 0;
	struct line *lines = kp_calloc(n ? n : 1, sizeof *lines);
	const char *names[STACK_NAMES_MAX];

	char *buf = NULL;               /* one line's text, built here, then copied once */
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t w;
		size_t m = stack_frames(sy, ss, i, KERNEL_SUFFIX, names, STACK_NAMES_MAX, &w);
		size_t len = 0;

		if (!w)
			continue;
		for (size_t k = 0; k < m; k++)
			append(&buf, &len, &cap, names[k]);
		lines[nl].text = kp_calloc(len + 1, 1);
		memcpy(lines[nl].text, buf, len);
		lines[nl].len = len;
		lines[nl].frames = kp_calloc(m ? m : 1, sizeof *lines[nl].frames);
		memcpy(lines[nl].frames, names, m * sizeof *names);
		lines[nl].nframes = m;
		lines[nl++].count = w;
	}
	free(buf);
	sort_lines(lines, nl, 0);
	for (size_t i = 0; i < nl; i++) {
		if (out && lines[out - 1].len == lines[i].len &&
		    !memcmp(lines[out - 1].text, lines[i].text, lines[i].len)) {
			lines[out - 1].count += lines[i].count;
			free(lines[i].text);
			free(lines[i].frames);
		} else {
			lines[out++] = lines[i];
		}
	}
	*nlines = out;
	return (struct fline *)lines;
}

void folded_free(struct fline *lines, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lines[i].text);
		free(lines[i].frames);
	}
	free(lines);
}

static int folded_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
			const struct sampleset *ss, const struct profile *p)
{
	size_t n;
	struct fline *lines = folded_lines(sy, ss, &n);

	(void)wo, (void)p;
	for (size_t i = 0; i < n; i++) {
		char num[24], *e = num + sizeof num, *q = e;
		uint64_t c = lines[i].count;

		*--q = '\n';
		do
			*--q = '0' + c % 10;
		while (c /= 10);
		*--q = ' ';
		fwrite(lines[i].text, 1, lines[i].len, out);
		fwrite(q, 1, e - q, out);
	}
	folded_free(lines, n);
	return 0;
}

const struct writer writer_folded = { .name = "folded", .write = folded_write, .ninputs = 1 };
