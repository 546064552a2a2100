/* test_main.c: build/kprof-unit runs every group; the exit status is the
 * number of failed tests (0: all passed), and the last line says so. */
#include <stdio.h>

#include "test_util.h"

int main(void)
{
	int failed = 0;

	failed += test_parse_group();
	failed += test_cli_group();
	failed += test_export_group();
	failed += test_bugs_group();
	failed += test_fuzz_group();
	failed += test_annotate_group();
	tmp_cleanup();
	printf("kprof-unit: %s (%d failed)\n", failed ? "FAIL" : "PASS", failed);
	return failed ? 1 : 0;
}
