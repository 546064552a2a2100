/* sleep: waits MS milliseconds. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"

int main(int argc, char **argv)
{
	unsigned ms;

	if (argc != 2 || parse_uint(argv[1], &ms) < 0) {
		fprintf(2, "usage: sleep MS\n");
		return 1;
	}
	if (sleep(ms) < 0) {
		fprintf(2, "sleep: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
