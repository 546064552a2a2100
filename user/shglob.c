/* Globs for sh: a word with an unquoted * or ? becomes the names that
 * match it, sorted, as a Unix shell makes them. Only the last part of a
 * path may hold them (/tmp/prof/gmon.*, not a directory part); names that start
 * with '.' match only a pattern that does; a word that matches nothing
 * stays as it is, so the command says what is missing. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "sh.h"

/* * matches any run of characters, ? any one */
static int match(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			for (const char *t = s + strlen(s); t >= s; t--)
				if (match(p + 1, t))
					return 1;
			return 0;
		}
		if (*s == 0 || (*p != '?' && *p != *s))
			return 0;
	}
	return *s == 0;
}

static int before(const char *a, const char *b)
{
	return strcmp(a, b) < 0;
}

/* Adds the names matching word to out[*n...], their text in buf at *used.
 * Returns -1 with a message when they do not fit. */
static int expand(const char *word, char **out, int *n, int max, char *buf, size_t size, size_t *used)
{
	const char *slash = strrchr(word, '/'), *pat = slash ? slash + 1 : word;
	char dir[PATH_MAX];
	struct dirent de[16];
	int fd, r, first = *n;
	size_t dlen = slash ? (size_t)(slash - word) + 1 : 0;

	if (dlen >= sizeof dir)
		return 0;
	memcpy(dir, word, dlen);
	dir[dlen] = 0;
	if ((fd = open(dlen ? dir : ".", O_RDONLY)) < 0)
		return 0;
	while ((r = read(fd, de, sizeof de)) > 0)
		for (int i = 0; i < r / (int)sizeof de[0]; i++) {
			size_t len = dlen + strlen(de[i].name) + 1;

			if ((de[i].name[0] == '.' && pat[0] != '.') || !match(pat, de[i].name))
				continue;
			if (*n == max || *used + len > size) {
				close(fd);
				fprintf(2, "sh: %s: too many names\n", word);
				return -1;
			}
			out[(*n)++] = buf + *used;
			memcpy(buf + *used, dir, dlen);
			strcpy(buf + *used + dlen, de[i].name);
			*used += len;
		}
	close(fd);
	/* sorted, as sh sorts them: an insertion sort of a few names */
	for (int i = first + 1; i < *n; i++)
		for (int j = i; j > first && before(out[j], out[j - 1]); j--) {
			char *t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return 0;
}

int sh_glob(int argc, char **argv, const unsigned char *globbed, char **out, int max, char *buf, size_t size)
{
	size_t used = 0;
	int n = 0;

	for (int i = 0; i < argc; i++) {
		int before_n = n;

		if (globbed[i] && i > 0 && expand(argv[i], out, &n, max, buf, size, &used) < 0)
			return -1;
		if (n == before_n) {            /* not a glob, or nothing matched */
			if (n == max) {
				fprintf(2, "sh: too many words\n");
				return -1;
			}
			out[n++] = argv[i];
		}
	}
	out[n] = 0;
	return n;
}
