/* heat.h: the views of the heat engine's exact counts: kprof heat
 * (wr_heat.c) and kprof accuracy (wr_accuracy.c). Both read through the
 * pipeline: the heat dump is rd_heat.c's, the samples any reader's. */
#ifndef KPROF_HEAT_H
#define KPROF_HEAT_H

#include <stddef.h>
#include <stdint.h>
#include "kprof.h"

/* statistics, for wr_accuracy.c and its tests */
double binom_mean_abs_dev(uint64_t n, double p);        /* E|X - np|, X ~ B(n, p) */
double spearman(const double *x, const double *y, size_t n);

#endif
