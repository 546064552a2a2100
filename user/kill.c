/* kill: ends each given process; its parent sees status 137. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"

int main(int argc, char **argv)
{
	int status = 0;
	unsigned pid;

	if (argc < 2) {
		fprintf(2, "usage: kill PID...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (parse_uint(argv[i], &pid) < 0 || pid == 0) {
			fprintf(2, "usage: kill PID...\n");
			return 1;
		}
	}
	for (int i = 1; i < argc; i++) {
		parse_uint(argv[i], &pid);
		if (kill(pid) < 0) {
			fprintf(2, "kill: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
