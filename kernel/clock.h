/* The clock: the PIT's tick, time in ticks and in microseconds across rate
 * changes, sleep deadlines and the scheduler's time slice (clock.c). */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"

struct trapframe;
struct proc;

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
/* the uptime less the time the machine sat idle with no timer to wait
 * for, only input: under -icount that time is the host's (when its keys
 * come), the rest is the guest's own, the same in every boot of the same
 * commands. The clocks Linux programs read. */
uint64_t clock_unwaited_us(void);
uint64_t clock_ms_to_ticks(uint32_t ms);
/* a * b / c (rounded up if up) without overflow in a * b; saturates */
uint64_t clock_muldiv(uint64_t a, uint32_t b, uint32_t c, bool up);

/* The clock's sample (struct prof_sample, prof/prof.h): one, since one
 * processor takes the ticks. The entry stub stores the interrupted frame
 * in its tf (vectors.asm, at offset CLOCK_SAMPLE_TF) and the scheduler the
 * running process in its p (clock_running), so a tick pays for neither;
 * the clock fills in pc and flags only when an engine samples. */
struct prof_sample;
extern struct prof_sample clock_sample;
#define CLOCK_SAMPLE_TF 12
void clock_running(struct proc *p);     /* the scheduler: p runs now (NULL: none) */

/* the tick: vectors.asm calls it for IRQ 0, the interrupted frame in
 * clock_sample.tf; from user mode it may switch to the next process, or
 * end a killed one. It reads the frame once, first: after a switch to
 * other processes and back, clock_sample holds another tick's frame, and
 * this process returns through its own. */
void clock_intr(void);
void clock_new_slice(void);             /* the scheduler switched */

#endif
