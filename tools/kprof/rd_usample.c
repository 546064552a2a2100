/* rd_usample.c: the reader for plain sampled PCs (/dev/usample, and any
 * "address count" text): one sampled address (hex) and its count a line,
 * '#' lines and blank lines skipped. The counts add up to at most 2^53,
 * the integers a double holds exactly (the accuracy's statistics). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

static int by_addr(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int usample_parse(struct sampleset *ss, const unsigned char *buf, size_t len,
			 const char *name)
{
	size_t cap = 0, lineno = 0, n;
	const char *p = (const char *)buf, *end = p + len;
	char line[128];

	ss->mods = kp_calloc(1, sizeof *ss->mods);
	ss->nmods = 1;
	ss->scope = "user";
	ss->unidentified = 1;
	ss->bin = 1;
	for (; p < end; p += n + 1) {
		const char *nl = memchr(p, '\n', end - p);
		unsigned long long a, c;
		char *q;

		n = (nl ? nl : end) - p;
		lineno++;
		if (n >= sizeof line)
			goto bad;
		memcpy(line, p, n);
		line[n] = '\0';
		kp_chomp(line);
		if (line[0] == '\0' || line[0] == '#')
			continue;
		errno = 0;
		a = strtoull(line, &q, 16);
		if (errno || q == line || *q != ' ' || a > UINT32_MAX || q[1] < '0' || q[1] > '9')
			goto bad;
		c = strtoull(q + 1, &q, 10);
		if (errno || *q != '\0')
			goto bad;
		if (c > (1ull << 53) - ss->total) {
			kp_error("%s:%zu: the counts add up to more than 2^53", name, lineno);
			return -1;
		}
		if (ss->nflat == cap) {
			cap = cap ? 2 * cap : 1024;
			ss->flat = kp_reallocarray(ss->flat, cap, sizeof *ss->flat);
		}
		ss->flat[ss->nflat++] = (struct flat){ 0, a, c };
		ss->total += c;
	}
	if (ss->total == 0) {
		kp_error("%s: no samples", name);
		return -1;
	}
	/* the set is sorted by address, one count each (/dev/usample lists
	 * its hash table's order) */
	qsort(ss->flat, ss->nflat, sizeof *ss->flat, by_addr);
	n = 0;
	for (size_t i = 0; i < ss->nflat; i++)
		if (n && ss->flat[n - 1].addr == ss->flat[i].addr)
			ss->flat[n - 1].count += ss->flat[i].count;
		else
			ss->flat[n++] = ss->flat[i];
	ss->nflat = n;
	return 0;
bad:
	kp_error("%s:%zu: not an \"address count\" line", name, lineno);
	return -1;
}

const struct reader reader_usample = { "usample", 0, NULL, usample_parse, (size_t)1 << 30 };
