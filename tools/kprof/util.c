/* util.c: the one-line error message, allocation that cannot return NULL,
 * hex, and reading a whole (regular, bounded) file or a part of one. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprof.h"

static char errbuf[1024];

void kp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	/* One line, always: a file name with a newline must not split it. */
	for (char *c = errbuf; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
}

const char *kp_lasterror(void)
{
	return errbuf;
}

void *kp_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL) {
		fprintf(stderr, "kprof: out of memory\n");
		exit(2);
	}
	return p;
}

char *kp_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = kp_calloc(n, 1);

	memcpy(p, s, n);
	return p;
}

/* Only regular files: a FIFO or a device could block or never end. The
 * size is checked before anything is read, so a huge file costs nothing. */
int kp_openfile(const char *path, size_t max, int *fdp, size_t *size)
{
	struct stat st;
	int fd;

	*fdp = -1;
	*size = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		kp_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		kp_error("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		kp_error("%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	if ((uintmax_t)st.st_size > max) {
		kp_error("%s: too large (%jd bytes, at most %zu)", path, (intmax_t)st.st_size, max);
		close(fd);
		return -1;
	}
	*fdp = fd;
	*size = (size_t)st.st_size;
	return 0;
}

int kp_readfile(const char *path, size_t max, unsigned char **data, size_t *len)
{
	unsigned char *buf;
	size_t got = 0, size;
	int fd;

	*data = NULL;
	*len = 0;
	if (kp_openfile(path, max, &fd, &size) < 0)
		return -1;
	/* +1 so a file that grew since fstat is noticed, not cut short */
	buf = kp_calloc(size + 1, 1);
	for (;;) {
		ssize_t n = read(fd, buf + got, size + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			kp_error("%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > size) {
			kp_error("%s: changed while being read", path);
			free(buf);
			close(fd);
			return -1;
		}
	}
	close(fd);
	*data = buf;
	*len = got;
	return 0;
}

void *kp_reallocarray(void *p, size_t n, size_t size)
{
	void *q = reallocarray(p, n ? n : 1, size ? size : 1);

	if (q == NULL) {
		fprintf(stderr, "kprof: out of memory\n");
		exit(2);
	}
	return q;
}

char *kp_fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	s = kp_calloc((size_t)n + 1, 1);
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

/* Lower-case hex of n bytes; "" when it does not fit (never a partial id). */
void kp_hex(char *out, size_t outsz, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	out[0] = '\0';
	if (n > (outsz - 1) / 2)        /* in size_t: no product to overflow */
		return;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* n bytes at off, all of them, or an error naming the file. */
int kp_readat(int fd, const char *path, size_t off, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			kp_error("%s: %s", path, strerror(errno));
			return -1;
		}
		if (r == 0) {
			kp_error("%s: changed while being read", path);
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

uint32_t kp_le32(const void *p)
{
	const unsigned char *b = p;

	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

void kp_chomp(char *line)
{
	size_t n = strlen(line);

	if (n && line[n - 1] == '\r')
		line[n - 1] = '\0';
}

static size_t fnv(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

size_t strtab_index(struct strtab *t, const char *s)
{
	size_t h;

	if (2 * (t->n + 1) > t->nhash) {        /* grow: rehash every string */
		free(t->hash);
		t->nhash = t->nhash ? 2 * t->nhash : 256;
		t->hash = kp_calloc(t->nhash, sizeof *t->hash);
		for (size_t i = 0; i < t->n; i++) {
			for (h = fnv(t->v[i]) & (t->nhash - 1); t->hash[h]; h = (h + 1) & (t->nhash - 1))
				;
			t->hash[h] = i + 1;
		}
	}
	for (h = fnv(s) & (t->nhash - 1); t->hash[h]; h = (h + 1) & (t->nhash - 1))
		if (!strcmp(t->v[t->hash[h] - 1], s))
			return t->hash[h] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = kp_reallocarray(t->v, t->cap, sizeof *t->v);
	}
	t->v[t->n] = kp_strdup(s);
	t->hash[h] = t->n + 1;
	return t->n++;
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->hash);
	memset(t, 0, sizeof *t);
}

static size_t kv_hash(const struct kvmap *m, uint64_t key, uint32_t tag)
{
	return (size_t)(((key ^ (uint64_t)tag << 40) * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
}

static size_t kv_find(const struct kvmap *m, uint64_t key, uint32_t tag)
{
	size_t i = kv_hash(m, key, tag);

	while (m->s[i].tag && (m->s[i].tag != tag + 1 || m->s[i].key != key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

uintptr_t *kvmap_slot(struct kvmap *m, uint64_t key, uint32_t tag, int *made)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {          /* half full at most: grow, rehash */
		struct kvmap old = *m;
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->s = kp_calloc(m->cap, sizeof *m->s);
		for (size_t k = 0; k < old.cap; k++)
			if (old.s[k].tag)
				m->s[kv_find(m, old.s[k].key, old.s[k].tag - 1)] = old.s[k];
		free(old.s);
	}
	i = kv_find(m, key, tag);
	*made = !m->s[i].tag;
	if (*made) {
		m->s[i].key = key;
		m->s[i].tag = tag + 1;
		m->n++;
	}
	return &m->s[i].val;
}

void kvmap_free(struct kvmap *m)
{
	free(m->s);
	memset(m, 0, sizeof *m);
}

/* LSD radix sort, 11 bits a pass, as many passes as the largest key has
 * bits: an ELF's addresses take two or three passes over the records, in
 * place of a comparison sort's n log n calls of a compare function. */
void kp_sort_by_u64(void *base, size_t n, size_t size)
{
	enum { BITS = 11, NB = 1 << BITS };
	unsigned char *a = base, *t, *src, *dst;
	uint64_t max = 0, k;
	size_t *count;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		memcpy(&k, a + i * size, sizeof k);
		max |= k;
	}
	t = kp_calloc(n, size);
	count = kp_calloc(NB, sizeof *count);
	src = a, dst = t;
	for (unsigned shift = 0; shift < 64 && max >> shift; shift += BITS) {
		size_t sum = 0;

		memset(count, 0, NB * sizeof *count);
		for (size_t i = 0; i < n; i++) {
			memcpy(&k, src + i * size, sizeof k);
			count[k >> shift & (NB - 1)]++;
		}
		for (size_t b = 0; b < NB; b++) {
			size_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			memcpy(&k, src + i * size, sizeof k);
			memcpy(dst + count[k >> shift & (NB - 1)]++ * size, src + i * size, size);
		}
		unsigned char *x = src;
		src = dst, dst = x;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(t);
	free(count);
}
