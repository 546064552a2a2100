/* rm: removes each file (or empty directory) named. */
#include "ulib.h"
#include "stdio.h"

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(2, "usage: rm FILE...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (unlink(argv[i]) < 0) {
			fprintf(2, "rm: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
