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

uint32_t arch_tsc_khz(void)
{
	return tsc_khz;
}
