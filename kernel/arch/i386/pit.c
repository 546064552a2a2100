/* The 8254 PIT: channel 0 drives the clock interrupt (and so the sampling
 * rate). Channel 2 times the TSC calibration (tsc.c). */
#include "arch.h"
#include "abi/clock.h"
#include "i386.h"
#include "lib.h"
#include "x86.h"

static uint32_t ch0_div;        /* channel 0's divisor, for arch_pit_restart */

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
	bool pending, can_take = read_eflags() & FL_IF;

	do {
		uint32_t s = splhi();
		outb(PIT_MODE, 0x34);
		outb(PIT_CH0, ch0_div & 0xFF);
		outb(PIT_CH0, ch0_div >> 8);
		pending = pic_irq_pending(0);
		splx(s);
	} while (pending && can_take);
}
