/* The profiler's sampling entry point. The clock interrupt calls prof_tick
 * through this one pointer, which is NULL while no engine is on, so the
 * clock pays a single test when profiling is off. */
#ifndef PROF_H
#define PROF_H

#include "arch.h"

struct proc;
extern void (*volatile prof_tick)(struct trapframe *tf, struct proc *p);

#endif
