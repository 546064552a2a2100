/* The profiler's sampling entry point. The clock interrupt calls prof_tick
 * through this one pointer, which is NULL while no engine is on, so the
 * clock pays a single test when profiling is off. */
#ifndef PROF_H
#define PROF_H

#include "arch.h"

struct proc;
/* regparm(2): tf and p come in registers, which keeps the call short */
typedef void (*prof_tick_fn)(struct trapframe *tf, struct proc *p) __attribute__((regparm(2)));
extern volatile prof_tick_fn prof_tick;

#endif
