/* The command-line words that test the kernel instead of running it. */
#ifndef BOOTTEST_H
#define BOOTTEST_H

#include "cmdline.h"

void ktest_run(void) __attribute__((noreturn));        /* ktest.c: KTAP, then power off */
void boottest_crash(const char *how);                   /* returns only for an unknown how */
void boottest_pitcheck(const struct bootcfg *cfg) __attribute__((noreturn));

#endif
