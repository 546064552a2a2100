/* wordfreq: an ordinary C program to profile (docs/programs.md). It makes
 * a text of N pseudo-random words, counts them in a hash table, sorts the
 * counts with qsort and prints the ten most frequent. Build it with the
 * cross compiler as any program is built:
 *
 *   i686-linux-gnu-gcc -static -O2 -g docs/examples/wordfreq.c -o wordfreq
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char word[16];
	unsigned count;
	struct entry *next;
};

#define NBUCKET 4096
static struct entry *table[NBUCKET];
static unsigned nentries;

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void count(const char *w)
{
	struct entry **b = &table[hash(w) % NBUCKET], *e;

	for (e = *b; e; e = e->next)
		if (strcmp(e->word, w) == 0) {
			e->count++;
			return;
		}
	e = calloc(1, sizeof *e);
	snprintf(e->word, sizeof e->word, "%s", w);
	e->count = 1;
	e->next = *b;
	*b = e;
	nentries++;
}

static int bycount(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	return x->count != y->count ? (x->count < y->count) - (x->count > y->count)
				    : strcmp(x->word, y->word);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000, seed = 1;
	static const char syll[][4] = { "ka", "lo", "mi", "nu", "pe", "ri", "so", "ta" };
	struct entry **all;
	char w[16];

	for (unsigned i = 0; i < n; i++) {
		int len = 0;
		seed = seed * 1103515245u + 12345u;
		for (unsigned k = 1 + (seed >> 16) % 3, s = seed; k-- > 0; s /= 8)
			len += snprintf(w + len, sizeof w - len, "%s", syll[s % 8]);
		count(w);
	}
	all = malloc(nentries * sizeof *all);
	for (unsigned i = 0, j = 0; i < NBUCKET; i++)
		for (struct entry *e = table[i]; e; e = e->next)
			all[j++] = e;
	qsort(all, nentries, sizeof *all, bycount);
	printf("%u words, %u different; the most frequent:\n", n, nentries);
	for (unsigned i = 0; i < 10 && i < nentries; i++)
		printf("%8u  %s\n", all[i]->count, all[i]->word);
	return 0;
}
