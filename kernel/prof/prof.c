/* The sampling entry point. The clock calls prof_tick(tf, p) when it is not
 * NULL; it is set only while some engine is on, so profiling off costs the
 * clock one load and one branch. */
#include "prof/prof.h"

volatile prof_tick_fn prof_tick;
