/* The 8254 PIT: channel 0 drives the clock interrupt (and so the sampling
 * rate); channel 2, gated by port 0x61, times the TSC calibration. */
#include "arch.h"
#include "abi/kprof.h"
#include "lib.h"
#include "x86.h"

#define PIT_CH0  0x40
#define PIT_CH2  0x42
#define PIT_MODE 0x43

static uint32_t tsc_khz;
static uint32_t ch0_div;        /* channel 0's divisor, for arch_pit_restart */

bool pic_irq_pending(int irq);

/* The divisor for a requested rate, rounded to nearest, in 2..65535. */
uint32_t arch_pit_divisor(uint32_t hz)
{
	uint32_t div = (PIT_INPUT_HZ + hz / 2) / hz;
	if (div < 2)
		div = 2;
	if (div > 65535)
		div = 65535;
	return div;
}

uint32_t arch_pit_set_hz(uint32_t hz)
{
	uint32_t div = arch_pit_divisor(hz);
	uint32_t s = splhi();

	ch0_div = div;
	outb(PIT_MODE, 0x34);           /* channel 0, lo/hi byte, mode 2 (rate generator) */
	outb(PIT_CH0, div & 0xFF);
	outb(PIT_CH0, div >> 8);
	splx(s);
	/* achieved rate in mHz: 1193182000 / div, rounded */
	return (uint32_t)(((uint64_t)PIT_INPUT_HZ * 1000 + div / 2) / div);
}

/* Reloads channel 0 with its divisor: the count starts again, so the next
 * tick comes one whole period after this call, whatever the phase was.
 * Profiling calls it at start, so that under -icount the samples fall at the
 * same instructions in every run; without it the phase depends on when the
 * host's keystrokes arrived. A tick that became pending in the few
 * instructions before the reload would be taken just after it, at a place
 * that depends on that phase; so it is taken first and the reload repeated
 * (the second time none can be pending: a whole period lies ahead). That
 * needs interrupts on; called with them off, it reloads once. */
void arch_pit_restart(void)
{
	bool pending, can_take = arch_interrupts_enabled();

	do {
		uint32_t s = splhi();
		outb(PIT_MODE, 0x34);
		outb(PIT_CH0, ch0_div & 0xFF);
		outb(PIT_CH0, ch0_div >> 8);
		pending = pic_irq_pending(0);
		splx(s);
	} while (pending && can_take);
}

uint64_t arch_read_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Counts TSC cycles across 10 ms of PIT channel 2 (one-shot, gate on
 * port 0x61), polling its output bit. Done once at boot. */
void tsc_calibrate(void)
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
