/* The 8254 PIT: channel 0 drives the clock interrupt (and so the sampling
 * rate). Channel 2 times the TSC calibration (tsc.c). */
#include "arch.h"
#include "abi/clock.h"
#include "i386.h"
#include "lib.h"
#include "x86.h"
#include "xorshift.h"

static uint32_t ch0_div;        /* channel 0's divisor, for arch_timer_restart */
static void jitter_start(void);

/* The divisor for a requested rate, rounded to nearest, in 2..65535. */
uint32_t arch_timer_divisor(uint32_t hz)
{
	uint32_t div = (PIT_INPUT_HZ + hz / 2) / hz;
	if (div < 2)
		div = 2;
	if (div > 65535)
		div = 65535;
	return div;
}

/* the achieved rate in mHz for a divisor: 1193182000 / div, rounded */
static uint32_t mhz_of(uint32_t div)
{
	return (uint32_t)(((uint64_t)PIT_INPUT_HZ * 1000 + div / 2) / div);
}

uint32_t arch_timer_mhz(uint32_t hz)
{
	return mhz_of(arch_timer_divisor(hz));
}

uint32_t arch_timer_jitter_k(void)
{
	return pit_jitter_k;
}

void arch_timer_report(uint32_t hz, uint32_t mhz, uint32_t quantum_ms)
{
	if (pit_jitter_k)
		kprintf("pit: jitter +-%u PIT clocks per tick\n", pit_jitter_k);
	kprintf("pit: %u Hz requested, divisor %u, %u.%03u Hz achieved; quantum %u ms; tsc %u kHz\n",
		hz, arch_timer_divisor(hz), mhz / 1000, mhz % 1000, quantum_ms, arch_tsc_khz());
}

uint32_t arch_timer_set_hz(uint32_t hz)
{
	uint32_t div = arch_timer_divisor(hz);
	uint32_t s = splhi();

	ch0_div = div;
	if (pit_jitter_k) {
		pit_jitter_k = MIN(pit_jitter_k, div / 2);
		jitter_start();
	} else {
		outb(PIT_MODE, 0x34);   /* channel 0, lo/hi byte, mode 2 (rate generator) */
		outb(PIT_CH0, div & 0xFF);
		outb(PIT_CH0, div >> 8);
	}
	splx(s);
	return mhz_of(div);
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
void arch_timer_restart(void)
{
	bool pending, can_take = read_eflags() & FL_IF;

	do {
		uint32_t s = splhi();
		if (pit_jitter_k) {
			jitter_start();
		} else {
			outb(PIT_MODE, 0x34);
			outb(PIT_CH0, ch0_div & 0xFF);
			outb(PIT_CH0, ch0_div >> 8);
		}
		pending = pic_irq_pending(0);
		splx(s);
	} while (pending && can_take);
}

/* ---- a jittered clock, against aliasing with periodic code ----
 *
 * Strictly periodic ticks sample a loop whose round divides the period at
 * the same phase every time. With jitter k, tick i comes at its place on
 * the strict lattice (i periods after the start) plus an offset uniform in
 * [-k/2, k/2] PIT clocks, so the divisor between two ticks varies within
 * +-k and the mean rate stays exactly the lattice's: offsets never add up.
 * Ticks go in pairs: the first draws its offset, the second takes the one
 * half the range away (wrapped), so that a loop whose round is the range
 * gets one sample in each half of its round per pair, not two at random:
 * each sample is still uniform, but the pair's split is never lopsided. The lattice is kept in TSC ticks with a carried
 * remainder, so rounding does not add up either. Channel 0 then runs in
 * mode 0 (one shot): each tick writes the count to the next one, measured
 * from the moment of the write, which both the 8254 and QEMU honour. */

uint32_t pit_jitter_k;          /* 0: off, mode 2 as usual */
static uint64_t lattice;        /* TSC of the current lattice point */
static uint64_t step_whole;     /* TSC ticks per period: whole part */
static uint32_t step_rem, rem_acc; /* and the remainder, over PIT_INPUT_HZ */
static uint64_t tsc_per_clk;    /* TSC ticks per PIT clock, 32.32 fixed point */
static uint64_t clk_per_tsc;    /* PIT clocks per TSC tick, 0.32 fixed point */
static uint32_t rng;
static int32_t first_off;       /* the offset of the first tick of a pair */
static bool second;             /* this tick is the second of its pair */
static uint32_t pit_jitter_late;       /* ticks whose place had passed: skipped */

static void oneshot(uint32_t count)
{
	outb(PIT_MODE, 0x30);           /* channel 0, lo/hi byte, mode 0 */
	outb(PIT_CH0, count & 0xFF);
	outb(PIT_CH0, count >> 8);
}

/* Restarts the lattice at now, one period to the first tick. Interrupts off. */
static void jitter_start(void)
{
	uint64_t per = (uint64_t)ch0_div * arch_tsc_khz() * 1000;

	step_whole = per / PIT_INPUT_HZ;
	step_rem = (uint32_t)(per % PIT_INPUT_HZ);
	rem_acc = 0;
	tsc_per_clk = ((uint64_t)arch_tsc_khz() * 1000 << 32) / PIT_INPUT_HZ;
	clk_per_tsc = ((uint64_t)PIT_INPUT_HZ << 32) / ((uint64_t)arch_tsc_khz() * 1000);
	rng = 2463534242u;              /* the same offsets after every start */
	second = false;
	lattice = arch_read_tsc();
	pit_jitter_next();
}

/* At each tick: the next lattice point, its offset, and the count from now
 * to there. A place already passed (interrupts were off for a period) is
 * skipped; the clock counts those ticks as merged, from the TSC. */
void pit_jitter_next(void)
{
	uint64_t now = arch_read_tsc(), target;
	uint32_t count, ahead = (uint32_t)(tsc_per_clk >> 32) * 8 + 1;     /* 8 PIT clocks */
	int32_t off;

	do {
		lattice += step_whole;
		rem_acc += step_rem;
		if (rem_acc >= PIT_INPUT_HZ) {
			rem_acc -= PIT_INPUT_HZ;
			lattice++;
		}
		if (!second) {
			off = (int32_t)(xorshift32(&rng) % (pit_jitter_k + 1)) - (int32_t)(pit_jitter_k / 2);
			first_off = off;
		} else {        /* half the range away from its partner, wrapped */
			off = first_off + (int32_t)(pit_jitter_k + 1) / 2;
			if (off > (int32_t)(pit_jitter_k - pit_jitter_k / 2))
				off -= (int32_t)pit_jitter_k + 1;
		}
		second = !second;
		/* off * tsc_per_clk: 32 x 32 -> 64 bit multiplies, no division */
		target = off >= 0 ? lattice + (((uint64_t)(uint32_t)off * (uint32_t)tsc_per_clk) >> 32) +
			(uint64_t)(uint32_t)off * (uint32_t)(tsc_per_clk >> 32) :
			lattice - (((uint64_t)(uint32_t)-off * (uint32_t)tsc_per_clk) >> 32) -
			(uint64_t)(uint32_t)-off * (uint32_t)(tsc_per_clk >> 32);
	} while (target < now + ahead && ++pit_jitter_late);
	/* at most 1.5 periods ahead, so the difference fits 32 bits */
	count = (uint32_t)(((target - now) & 0xFFFFFFFFu) * clk_per_tsc >> 32);
	oneshot(count < 2 ? 2 : count > 65535 ? 65535 : count);
}

uint32_t arch_timer_jitter(uint32_t k)
{
	uint32_t s = splhi();

	pit_jitter_k = MIN(k, ch0_div / 2);
	if (pit_jitter_k)
		jitter_start();
	else
		arch_timer_set_hz((PIT_INPUT_HZ + ch0_div / 2) / ch0_div);
	splx(s);
	return pit_jitter_k;
}
