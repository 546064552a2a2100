/* heat.h: the heat engine's dump on the host (heat.c), and the accuracy of
 * a sampled profile against it (accuracy.c). The dump's text format is in
 * include/abi/heat.h. */
#ifndef KPROF_HEAT_H
#define KPROF_HEAT_H

#include <stddef.h>
#include <stdint.h>
#include "kprof.h"

enum { HF_CALLED = 1, HF_ENTER = 2, HF_EXIT = 4 };

struct heatline {
	uint32_t addr;
	uint64_t count, dur;
	unsigned flags;                 /* HF_* */
};

struct heatdump {
	struct heatline *l;             /* ascending by addr */
	size_t n;
};

/* PROF lines of text (other lines are skipped, so a console log will do) */
int heat_parse(struct heatdump *h, const char *text, size_t len, const char *name);
int heat_read(struct heatdump *h, const char *path);
void heat_free(struct heatdump *h);

/* The heatinfo beside dump (same directory), if there is one, names the
 * traced program's build-id: 0 when it matches ke's or cannot be checked,
 * 1 when it differs but force, -1 (an error recorded) when it differs. */
int heat_check_build_id(const struct kelf *ke, const char *dump, int force);

/* the symbol owning addr (index into ke->syms), or -1 */
long heat_symbol(const struct kelf *ke, uint32_t addr);

/* "address count" sample lines ('#' lines and blank lines skipped) */
struct samples {
	uint32_t *addr;
	uint64_t *count;
	size_t n;
	uint64_t total;
};
int samples_read(struct samples *s, const char *path);
void samples_free(struct samples *s);

/* statistics, for accuracy.c and its tests */
double binom_mean_abs_dev(uint64_t n, double p);        /* E|X - np|, X ~ B(n, p) */
double spearman(const double *x, const double *y, size_t n);

/* the subcommands: kprof heat ..., kprof accuracy ... (argv[0] is the name) */
int heat_main(int argc, char **argv);
int accuracy_main(int argc, char **argv);

#endif
