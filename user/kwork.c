/* kwork: runs one of the kernel's named workloads (sys_kwork) REPEAT times,
 * so a profile has known kernel functions to find. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"

static void usage(void)
{
	fprintf(2, "usage: kwork loop|cli|copy N [REPEAT]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned n, repeat = 1;
	int mode;

	if (argc < 3 || argc > 4)
		usage();
	if (strcmp(argv[1], "loop") == 0)
		mode = KWORK_LOOP;
	else if (strcmp(argv[1], "cli") == 0)
		mode = KWORK_CLI;
	else if (strcmp(argv[1], "copy") == 0)
		mode = KWORK_COPY;
	else
		usage();
	if (parse_uint(argv[2], &n) < 0 || (argc == 4 && parse_uint(argv[3], &repeat) < 0))
		usage();
	for (unsigned i = 0; i < repeat; i++) {
		if (kwork(mode, n) < 0) {
			fprintf(2, "kwork: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	}
	printf("kwork: %s done\n", argv[1]);
	return 0;
}
