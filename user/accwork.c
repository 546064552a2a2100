/* accwork: workloads for the accuracy check of sampled profiles against
 * the exact heat. Neither prints anything while it works, so the program's
 * own start and end weigh almost nothing beside the loops.
 *   accwork mix ROUNDS    three functions in a fixed ratio of instructions
 *                         (about 60/30/10) every round
 *   accwork lock TICKS M  two functions taking turns, each for half of
 *                         1/M of the PIT period, for TICKS periods. The
 *                         period is measured first (in TSC ticks), so a
 *                         sampler driven by the same PIT sees the same
 *                         phase of the round at every tick: strictly
 *                         periodic sampling puts every sample in one of
 *                         the two, whose true split is even. */
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

__attribute__((noinline)) static unsigned mix_a(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i;
	return x;
}

__attribute__((noinline)) static unsigned mix_b(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x ^= i;
	return x;
}

__attribute__((noinline)) static unsigned mix_c(unsigned n)
{
	volatile unsigned x = 1;
	for (unsigned i = 0; i < n; i++)
		x += x >> 1;
	return x;
}

/* spins until the TSC reaches t: the two halves of a lock round */
__attribute__((noinline)) static void lock_f(uint64_t t)
{
	while (rdtsc() < t)
		;
}

__attribute__((noinline)) static void lock_g(uint64_t t)
{
	while (rdtsc() <= t)            /* not lock_f's code, or the two fold into one */
		;
}

/* TSC ticks per PIT period: the span of 200 periods, edge to edge */
static uint64_t period(void)
{
	unsigned u = uptime();
	uint64_t t0;

	while (uptime() == u)
		;
	t0 = rdtsc();
	u = uptime();
	while (uptime() - u < 200)
		;
	return (rdtsc() - t0) / 200;
}

int main(int argc, char **argv)
{
	unsigned n, m = 1;

	if (argc == 3 && strcmp(argv[1], "mix") == 0 && parse_uint(argv[2], &n) == 0) {
		for (unsigned i = 0; i < n; i++) {
			mix_a(97);
			mix_b(47);
			mix_c(13);
		}
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "lock") == 0 && parse_uint(argv[2], &n) == 0 &&
	    parse_uint(argv[3], &m) == 0 && m > 0) {
		uint64_t round = period() / m, t = rdtsc();
		for (uint64_t r = 0; r < (uint64_t)n * m; r++) {
			lock_f(t + round / 2);
			t += round;
			lock_g(t);
		}
		return 0;
	}
	fprintf(2, "usage: accwork mix ROUNDS | accwork lock TICKS M\n");
	return 1;
}
