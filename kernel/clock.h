/* The clock: the PIT's tick, time in ticks and in microseconds across rate
 * changes, sleep deadlines and the scheduler's time slice (clock.c). */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"

struct trapframe;

/* the rates the clock can run at (the arch's timer); the top one only
 * where time counts instructions (arch_time_exact), else ..._UNTIMED */
#define CLOCK_MIN_HZ ARCH_CLOCK_MIN_HZ
#define CLOCK_MAX_HZ ARCH_CLOCK_MAX_HZ
#define CLOCK_MAX_HZ_UNTIMED ARCH_CLOCK_MAX_HZ_UNTIMED

extern volatile uint64_t ticks;
extern volatile bool need_resched;
extern volatile uint64_t next_wake;     /* earliest sleep(ms) deadline */
extern volatile uint32_t lost_ticks;    /* ticks merged into a later one */

void clock_init(uint32_t hz, uint32_t quantum_ms);
uint32_t clock_set_hz(uint32_t hz);     /* returns achieved mHz */
uint32_t clock_hz_mhz(void);
uint32_t clock_achieved_mhz(uint32_t hz);       /* the rate hz would give, in mHz */
void clock_restart_phase(void);         /* the next tick one period from now */
uint32_t clock_set_jitter(uint32_t k);  /* the PIT jittered +-k/2 a tick; the k in force */
int clock_check_hz(uint32_t hz);       /* 0, or -ERANGE (with a message) above the ceiling */
uint32_t clock_max_hz(void);           /* the ceiling: CLOCK_MAX_HZ under icount */
uint64_t clock_uptime_us(void);         /* across rate changes */
uint64_t clock_ms_to_ticks(uint32_t ms);
/* a * b / c (rounded up if up) without overflow in a * b; saturates */
uint64_t clock_muldiv(uint64_t a, uint32_t b, uint32_t c, bool up);

/* the tick: vectors.asm calls it for IRQ 0 with the interrupted frame (in
 * a register); from user mode it may switch to the next process, or end a
 * killed one. The frame is the tick's own: after a switch it is still the
 * one this process returns through. */
void clock_intr(struct trapframe *tf) ARCH_FASTCALL;
void clock_new_slice(void);             /* the scheduler switched */

#endif
