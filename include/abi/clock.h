/* The clock's hardware limits, shared by the arch code (the PIT driver,
 * and through machdep.h the portable clock's CLOCK_*_HZ) and the tests
 * that check the rates. */
#ifndef ABI_CLOCK_H
#define ABI_CLOCK_H

#define PIT_INPUT_HZ       1193182       /* the 8254's input clock */
#define PIT_MIN_HZ         19            /* divisor 65535 would be 18.2 Hz */
#define PIT_MAX_HZ         (PIT_INPUT_HZ / 2)    /* divisor 2 */
/* the most without QEMU's -icount, where the emulated PIT falls behind:
 * at 20 kHz a third to a half of the ticks are lost (README, reliability) */
#define PIT_MAX_HZ_UNTIMED 10000

#endif
