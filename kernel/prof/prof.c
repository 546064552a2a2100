/* The sampling entry point. The clock calls prof_tick(tf, p) when it is not
 * NULL; it is set only while some engine is on, so profiling off costs the
 * clock one load and one branch. */
#include "prof/prof.h"

void (*volatile prof_tick)(struct trapframe *tf, struct proc *p);
