/* The 8254 PIT: channel 0 drives the clock interrupt (and so the sampling
 * rate). Channel 2 times the TSC calibration (tsc.c). */
#include "arch.h"
#include "abi/kprof.h"
#include "i386.h"
#include "lib.h"
#include "x86.h"

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

	outb(PIT_MODE, 0x34);           /* channel 0, lo/hi byte, mode 2 (rate generator) */
	outb(PIT_CH0, div & 0xFF);
	outb(PIT_CH0, div >> 8);
	splx(s);
	/* achieved rate in mHz: 1193182000 / div, rounded */
	return (uint32_t)(((uint64_t)PIT_INPUT_HZ * 1000 + div / 2) / div);
}
