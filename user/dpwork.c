/* dpwork: a workload with a known page profile, for DosProfile. Each SPEC
 * is LETTERS:ROUNDS (dppages.c): "dpwork aaaaabbbcc:2000" spends 50, 30 and
 * 20 per cent of its time on the pages of dp_page_a, _b and _c. -w MS
 * sleeps first (time to start a session on its pid); -c N runs the specs
 * in N child processes instead, and waits for them. */
#include "dppages.h"

int main(int argc, char **argv)
{
	return dpwork_main(argc, argv, "/bin/dpwork", 0);
}
