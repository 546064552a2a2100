/* spin: burns CPU in user mode for MS milliseconds of wall-clock ticks,
 * then says how many of those ticks it was charged for. Two of them side
 * by side should each get about half: the fair-share test. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"

/* Kept out of line so that a profile shows the time under this name. */
__attribute__((noinline)) static unsigned spin_loop(unsigned n)
{
	volatile unsigned x = 0;

	for (unsigned i = 0; i < n; i++)
		x += i * 7 + 3;
	return x;
}

int main(int argc, char **argv)
{
	unsigned ms, ticks, start, elapsed, u, k;
	int pid = getpid();

	if (argc != 2 || parse_uint(argv[1], &ms) < 0) {
		fprintf(2, "usage: spin MS\n");
		return 1;
	}
	ticks = ms_to_ticks(ms);
	start = uptime();
	/* Check the clock only now and then, so nearly all time is user time. */
	while (uptime() - start < ticks)
		spin_loop(5000);
	elapsed = uptime() - start;
	if (sysstat_proc(pid, &u, &k) < 0) {
		fprintf(2, "spin: no proc %d line in /dev/sysstat\n", pid);
		return 1;
	}
	printf("spin %d: user ticks %u of elapsed %u\n", pid, u, elapsed);
	return 0;
}
