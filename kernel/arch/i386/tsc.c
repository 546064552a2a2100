/* The time-stamp counter, and its rate, measured once at boot against PIT
 * channel 2 (gated by port 0x61, so channel 0's clock is left alone). */
#include "arch.h"
#include "abi/clock.h"
#include "i386.h"
#include "x86.h"

static uint32_t tsc_khz;

/* Counts TSC cycles across 10 ms of PIT channel 2 (one-shot, gate on
 * port 0x61), polling its output bit. Done once at boot. */
void arch_tsc_calibrate(void)
{
	const uint32_t count = PIT_INPUT_HZ / 100;  /* 10 ms */
	uint64_t t0, t1;
	uint8_t v;

	v = inb(0x61);
	outb(0x61, (v & ~0x02) | 0x01);     /* gate on, speaker off */
	outb(PIT_MODE, 0xB0);               /* channel 2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xFF);
	outb(PIT_CH2, count >> 8);
	t0 = arch_read_tsc();
	while (!(inb(0x61) & 0x20))
		;
	t1 = arch_read_tsc();
	outb(0x61, v);
	tsc_khz = (uint32_t)((t1 - t0) / 10);
}

/* Under QEMU's -icount, time is the instruction count: the same loop
 * with interrupts off takes the same TSC cycles every time, to the cycle.
 * Anywhere else (TCG on the host's clock, KVM, hardware) runs differ. */
bool arch_time_exact(void)
{
	uint64_t d[3];
	uint32_t s = splhi();

	for (int k = 0; k < 3; k++) {
		uint64_t t0 = arch_read_tsc();
		for (volatile uint32_t i = 0; i < 10000; i++)
			;
		d[k] = arch_read_tsc() - t0;
	}
	splx(s);
	return d[0] == d[1] && d[1] == d[2];
}

uint32_t arch_tsc_khz(void)
{
	return tsc_khz;
}
