/* The kernel command line: key=value words (README.md lists the keys). */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/cmdline.h"

struct bootcfg {
	uint32_t hz;            /* requested PIT rate */
	uint32_t quantum;       /* scheduler time slice, ms */
	uint32_t kprof_res;     /* log2 bytes of text per kpdata bin */
	uint32_t pit_jitter;    /* PIT clocks each tick may move (arch_pit_jitter) */
	bool ktest;             /* run the in-kernel unit tests and power off */
	bool pitcheck;          /* measure the PIT rate against the TSC and power off */
	bool prof_test;         /* the test engines and /dev/proftest */
	bool prof_example;      /* the example engine, on from boot */
	char crash[16];         /* test only: make the kernel fault this way */
	/* failalloc=N: every Nth page allocation fails; failalloc=S:P: each
	 * fails with probability P per mille, the generator starting at S */
	uint32_t failalloc_every, failalloc_start, failalloc_permille;
};

void cmdline_defaults(struct bootcfg *cfg);
/* Parses s into cfg. Unknown keys and bad values are reported (when
 * verbose) and skipped, keeping the default. Returns how many were bad. */
int cmdline_parse(const char *s, struct bootcfg *cfg, bool verbose);

#endif
