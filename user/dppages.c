/* The DosProfile workload's pages (dppages.h). Each function starts a page
 * of its own and runs the same loop, so the time it gets is in proportion
 * to the letters of the spec: "aaaaabbbcc" gives pages a, b and c 50, 30
 * and 20 per cent of the samples. */
#include "ulib.h"
#include "dppages.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

#define PAGE_FN __attribute__((noinline, aligned(4096)))

PAGE_FN unsigned dp_page_a(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i * 7 + 3;
	return x;
}

PAGE_FN unsigned dp_page_b(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i * 7 + 3;
	return x;
}

PAGE_FN unsigned dp_page_c(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i * 7 + 3;
	return x;
}

/* starts the page after c's, so that page c holds dp_page_c alone */
PAGE_FN void dp_pages_end(void)
{
}

int dppages_run(const char *spec)
{
	const char *colon = strchr(spec, ':');
	unsigned rounds;

	if (!colon || colon == spec || parse_uint(colon + 1, &rounds) < 0)
		return -1;
	for (const char *l = spec; l < colon; l++)
		if (*l < 'a' || *l > 'c')
			return -1;
	for (unsigned r = 0; r < rounds; r++)
		for (const char *l = spec; l < colon; l++)
			(*l == 'a' ? dp_page_a : *l == 'b' ? dp_page_b : dp_page_c)(DP_UNIT);
	return 0;
}

/* argv[0] is the program's name; children run self (with word, if any,
 * before their specs) */
int dpwork_main(int argc, char **argv, const char *self, const char *word)
{
	unsigned ms = 0, nchild = 0;
	int i = 1;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "-w") == 0 && parse_uint(argv[i + 1], &ms) == 0)
			continue;
		if (strcmp(argv[i], "-c") == 0 && parse_uint(argv[i + 1], &nchild) == 0)
			continue;
		break;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(2, "usage: %s [-w MS] [-c N] LETTERS:ROUNDS...\n", argv[0]);
		return 1;
	}
	if (ms)
		sleep(ms);
	if (nchild) {
		char *av[SPAWN_MAXARGS];
		int n = 0;
		av[n++] = (char *)self;
		if (word)
			av[n++] = (char *)word;
		for (int j = i; j < argc && n < SPAWN_MAXARGS - 1; j++)
			av[n++] = argv[j];
		av[n] = NULL;
		for (unsigned c = 0; c < nchild; c++)
			if (spawn(self, av, NULL) < 0) {
				fprintf(2, "%s: spawn: %s\n", argv[0], strerror(errno));
				return 1;
			}
		while (wait(-1, NULL, 0) > 0)
			;
		return 0;
	}
	for (; i < argc; i++)
		if (dppages_run(argv[i]) < 0) {
			fprintf(2, "%s: bad spec %s (LETTERS:ROUNDS, letters a b c)\n", argv[0], argv[i]);
			return 1;
		}
	return 0;
}
