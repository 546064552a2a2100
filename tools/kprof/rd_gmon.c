/* rd_gmon.c: the reader for profil(2)'s gmon files (the 4.4BSD layout of
 * include/abi/gmon.h): the bins become flat counts at each bin's first
 * byte, in one module, the program; its arcs are wr_gmon.c's (kprof gmon). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"
#include "abi/gmon.h"

#define GMON_MAX (64u << 20)    /* larger than any file the guest can write */

int gmon_is(const unsigned char *d, size_t len)
{
	return len >= sizeof(struct gmonhdr) && kp_le32(d + 12) == GMON_VERSION_BSD44;
}

/* Checks the header against the file's size; fills g. */
int gmon_parse(struct gmon *g, const unsigned char *d, size_t len, const char *name)
{
	uint32_t *w = (uint32_t *)&g->h;

	if (len < sizeof g->h) {
		kp_error("%s: %zu bytes, too short for a gmon header", name, len);
		return -1;
	}
	for (size_t i = 0; i < sizeof g->h / 4; i++)
		w[i] = kp_le32(d + 4 * i);
	if (g->h.version != GMON_VERSION_BSD44) {
		kp_error("%s: version 0x%08x, not a 4.4BSD gmon file (0x%08x)", name,
			 g->h.version, GMON_VERSION_BSD44);
		return -1;
	}
	if (g->h.ncnt < sizeof g->h || g->h.ncnt > len || (g->h.ncnt - sizeof g->h) % 2 ||
	    g->h.hpc <= g->h.lpc || g->h.profrate == 0) {
		kp_error("%s: bad header (lpc 0x%x hpc 0x%x ncnt %u rate %u) for a file of %zu bytes",
			 name, g->h.lpc, g->h.hpc, g->h.ncnt, g->h.profrate, len);
		return -1;
	}
	if ((len - g->h.ncnt) % sizeof(struct gmon_arc)) {
		kp_error("%s: %zu bytes after the bins, not a whole number of arcs", name,
			 len - g->h.ncnt);
		return -1;
	}
	g->bins = d + sizeof g->h;
	g->nbins = (g->h.ncnt - sizeof g->h) / 2;
	g->arcs = d + g->h.ncnt;
	g->narcs = (len - g->h.ncnt) / sizeof(struct gmon_arc);
	return 0;
}

/* The address of bin i: gprof spreads the bins evenly over [lpc, hpc). */
uint64_t gmon_bin_addr(const struct gmon *g, size_t i)
{
	return g->h.lpc + ((uint64_t)g->h.hpc - g->h.lpc) * i / g->nbins;
}

static int gmon_parse_set(struct sampleset *ss, const unsigned char *buf, size_t len,
			  const char *name)
{
	struct gmon g;
	size_t cap = 0;

	if (gmon_parse(&g, buf, len, name) < 0)
		return -1;
	ss->mods = kp_calloc(1, sizeof *ss->mods);
	ss->nmods = 1;
	ss->hz = g.h.profrate;
	ss->scope = "user";
	ss->unidentified = 1;           /* a gmon file names no program */
	for (size_t i = 0; i < g.nbins; i++) {
		uint32_t c = g.bins[2 * i] | g.bins[2 * i + 1] << 8;
		uint64_t addr = gmon_bin_addr(&g, i);
		struct flat *f;

		if (!c)
			continue;
		ss->total += c;
		ss->full_bins += c == GMON_BIN_MAX;
		/* more bins than bytes puts several at one address: one count */
		if (ss->nflat && ss->flat[ss->nflat - 1].addr == addr) {
			ss->flat[ss->nflat - 1].count += c;
			continue;
		}
		if (ss->nflat == cap) {
			cap = cap ? 2 * cap : 1024;
			ss->flat = kp_reallocarray(ss->flat, cap, sizeof *ss->flat);
		}
		f = &ss->flat[ss->nflat++];
		f->mod = 0;
		f->addr = addr;
		f->count = c;
	}
	/* what ties the file to its program: the text it sampled, and the
	 * functions its arcs call (kp_match checks both against the ELF) */
	ss->bin = g.nbins ? ((uint64_t)g.h.hpc - g.h.lpc + g.nbins - 1) / g.nbins : 1;
	ss->lost_samples = g.h.lost_bins;
	ss->lost_arcs = g.h.lost_arcs;
	ss->ranged = 1;
	ss->range_lo = g.h.lpc;
	ss->range_hi = g.h.hpc;
	ss->narcs = g.narcs;
	ss->arcs = kp_calloc(g.narcs ? g.narcs : 1, sizeof *ss->arcs);
	for (size_t i = 0; i < g.narcs; i++) {
		const unsigned char *a = g.arcs + i * sizeof(struct gmon_arc);
		ss->arcs[i] = (struct arc){ kp_le32(a), kp_le32(a + 4), kp_le32(a + 8) };
	}
	return 0;
}

const struct reader reader_gmon = { "gmon", 0, NULL, gmon_parse_set, GMON_MAX };
