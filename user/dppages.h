/* The DosProfile workload's pages: three functions, each alone on its own
 * page of text, so a profile by page or by address knows where each
 * sample belongs. dppages_run() runs a spec such as "aaaaabbbcc:400". */
#ifndef DPPAGES_H
#define DPPAGES_H

#define DP_UNIT 1000    /* loop iterations per letter: about 6000 instructions */

unsigned dp_page_a(unsigned n);
unsigned dp_page_b(unsigned n);
unsigned dp_page_c(unsigned n);
void dp_pages_end(void);
/* LETTERS:ROUNDS: ROUNDS times, each letter's function once; -1 if bad */
int dppages_run(const char *spec);
/* dpwork's command line (dpwork.c); children run self [word] SPEC... */
int dpwork_main(int argc, char **argv, const char *self, const char *word);

#endif
