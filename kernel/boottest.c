/* The command-line words that test the kernel instead of running it:
 * crash= and pitcheck (ktest is ktest.c). */
#include "abi/qemu_exit.h"
#include "arch.h"
#include "clock.h"
#include "boottest.h"
#include "lib.h"
#include "proc.h"

/* crash=null|divide|panic: fault in the kernel on purpose, so the tests can
 * see the trap report. */
void boottest_crash(const char *how)
{
	if (strcmp(how, "null") != 0 && strcmp(how, "divide") != 0 && strcmp(how, "panic") != 0) {
		kprintf("crash: unknown mode '%s' (null, divide, panic); not crashing\n", how);
		return;
	}
	kprintf("crash: faulting on purpose (%s), as the command line asked\n", how);
	if (strcmp(how, "null") == 0)
		*(volatile uint32_t *)0 = 0xdead;
	else if (strcmp(how, "divide") == 0) {
		/* a real div instruction: gcc may turn 1/x into a compare */
		volatile uint32_t a = 1234, b = 0;
		kprintf("%u\n", a / b);
	} else if (strcmp(how, "panic") == 0)
		panic("crash=panic from the command line");
}

/* Counts clock ticks over two seconds of TSC time and prints the measured
 * rate beside the configured one. */
void boottest_pitcheck(const struct bootcfg *cfg)
{
	uint64_t span = (uint64_t)arch_tsc_khz() * 2000, t0, t1;
	uint64_t k0, k1, mhz;
	uint32_t want = clock_hz_mhz();

	arch_enable_interrupts();
	k0 = ticks;
	while (ticks == k0)
		arch_idle();
	k0 = ticks;
	t0 = arch_read_tsc();
	while (arch_read_tsc() - t0 < span)
		arch_idle();
	k1 = ticks;
	t1 = arch_read_tsc();
	mhz = (k1 - k0) * (uint64_t)arch_tsc_khz() * 1000000 / (t1 - t0);
	kprintf("pitcheck: hz=%u divisor=%u achieved=%u.%03u measured=%u.%03u ticks=%u span_ms=%u\n",
		cfg->hz, arch_timer_divisor(cfg->hz), want / 1000, want % 1000,
		(uint32_t)(mhz / 1000), (uint32_t)(mhz % 1000), (uint32_t)(k1 - k0),
		(uint32_t)((t1 - t0) / arch_tsc_khz()));
	arch_poweroff(KEXIT_OK);
}
