/* The kernel command line: key=value words (README.md lists the keys). */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/cmdline.h"

struct bootcfg {
	uint32_t hz;            /* requested PIT rate */
	uint32_t quantum;       /* scheduler time slice, ms */
	uint32_t pit_jitter;    /* PIT clocks each tick may move (arch_timer_jitter) */
	bool ktest;             /* run the in-kernel unit tests and power off */
	bool pitcheck;          /* measure the PIT rate against the TSC and power off */
	char crash[16];         /* test only: make the kernel fault this way */
	/* failalloc=N: every Nth page allocation fails; failalloc=S:P: each
	 * fails with probability P per mille, the generator starting at S */
	uint32_t failalloc_every, failalloc_start, failalloc_permille;
};

/* A boot word that belongs to a subsystem outside this parser (a
 * profiling engine's kprof.res): declared in the subsystem's file, beside
 * the variable it sets, with BOOTPARAM_NUM or BOOTPARAM_FLAG. The linker
 * gathers them in .bootparam; the parser looks there for any word it does
 * not know. A variable keeps its initial value unless the word is given. */
struct bootparam {
	const char *key;
	uint32_t *num;          /* a number in min..max, or */
	bool *flag;             /* a bare word, or word=on|off|1|0 */
	uint32_t min, max;
};
#define BOOTPARAM_NUM(k, var, lo, hi) \
	static const struct bootparam bootparam_##var \
	__attribute__((used, section(".bootparam"), aligned(4))) = { k, &(var), 0, lo, hi }
#define BOOTPARAM_FLAG(k, var) \
	static const struct bootparam bootparam_##var \
	__attribute__((used, section(".bootparam"), aligned(4))) = { k, 0, &(var), 0, 0 }
/* the word named key, or NULL */
const struct bootparam *bootparam_find(const char *key);

void cmdline_defaults(struct bootcfg *cfg);
/* Parses s into cfg. Unknown keys and bad values are reported (when
 * verbose) and skipped, keeping the default. Returns how many were bad. */
int cmdline_parse(const char *s, struct bootcfg *cfg, bool verbose);

#endif
