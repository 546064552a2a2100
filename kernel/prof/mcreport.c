/* The Monte Carlo report: the buffered samples looked up at stop, then
 * the module and routine tables, in Windows CE's layout. Unlike CE's, the
 * routine table is sorted before it is cut, and what it leaves out has
 * rows of its own: "<N more routines>" for those below the cut, one
 * "<no symbols>" row per module whose hits have no routine, IDLE, and
 * UNKNOWN for PCs in no module. So the rows always sum to the total. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "dev.h"
#include "arch.h"
#include "clock.h"
#include "kalloc.h"
#include "lib.h"
#include "prof/mc.h"
#include "prof/prof.h"

/* counters for each module's routines, for the buffered analysis */
static int alloc_hits(void)
{
	for (uint32_t i = 0; i < mc.nmods; i++) {
		struct mc_module *m = &mc.mods[i];
		uint32_t n = ROUNDUP(m->nsyms * sizeof(uint32_t), PGSIZE) / PGSIZE;
		if (m->hits || !m->nsyms)
			continue;
		if (!(m->hits = kalloc_contig(n)))
			return -ENOMEM;
	}
	return 0;
}

void mc_free_hits(void)
{
	for (uint32_t i = 0; i < mc.nmods; i++) {
		struct mc_module *m = &mc.mods[i];
		if (m->hits)
			kfree_contig(m->hits, ROUNDUP(m->nsyms * sizeof(uint32_t), PGSIZE) / PGSIZE);
		m->hits = NULL;
	}
}

static void add(uint32_t *c, uint32_t w)
{
	prof_add_sat(c, w, &mc.saturated);
}

/* Looks every buffered sample up, as CE did at ProfileStop, with its
 * progress line: a dot for every 10,000. */
int mc_resolve(void)
{
	uint32_t n = mc.pos - mc.buf;
	uint64_t t0;

	if (alloc_hits() < 0)
		return -ENOMEM;
	kprintf("Kernel Profiler: Looking up symbols for %u hits.\n", n);
	t0 = arch_read_tsc();
	for (uint32_t k = 0; k < n; k++) {
		const struct mc_entry *e = &mc.buf[k];
		struct mc_module *m = &mc.mods[MC_ENT_MOD(e->mod)];
		uint32_t w = MC_ENT_WEIGHT(e->mod);
		int i = m->hits ? symtab_find(m->syms, e->pc) : -1;    /* no memory: nosym */

		if (i < 0)
			add(&m->nosym, w);
		else
			add(&m->hits[i], w);
		if (k % 10000 == 9999)
			kprintf(".");
	}
	if (n >= 10000)
		kprintf("\n");
	t0 = arch_read_tsc() - t0;
	kprintf("Kernel Profiler: looked up in %llu cycles, %llu a hit.\n", (unsigned long long)t0,
		(unsigned long long)(n ? t0 / n : 0));
	return 0;
}

/* one routine's row, or one module's */
struct row {
	uint32_t hits;
	uint16_t mod;
	uint32_t sym;
};

/* most hits first; then by module and address, so the order is fixed */
static int byhits(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* tenths of a percent of all recorded samples, as CE printed them */
static void pct(char *buf, size_t n, uint32_t hits, uint32_t recorded)
{
	uint32_t t = recorded ? (uint32_t)((uint64_t)hits * 1000 / recorded) : 0;
	ksnprintf(buf, n, "%u.%u", t / 10, t % 10);
}

void mc_tables(struct textbuf *t, uint32_t top)
{
	uint32_t nrows = 0, recorded, idle = mc.idle, unknown, dropped = mc.dropped;
	uint32_t modtot[MC_MAXMODS], nosym[MC_MAXMODS], npages, shown = 0, more = 0, nmore = 0;
	uint64_t sum = 0, elapsed = mc.ticks;
	struct row mods[MC_MAXMODS], *rows;
	char p[16];

	if (mc.running > 0)
		elapsed += ticks - mc.since;
	for (uint32_t i = 0; i < mc.nmods; i++)
		for (uint32_t k = 0; mc.mods[i].hits && k < mc.mods[i].nsyms; k++)
			nrows += mc.mods[i].hits[k] != 0;
	npages = ROUNDUP(MAX(nrows, 1) * sizeof *rows, PGSIZE) / PGSIZE;
	if (!(rows = kalloc_contig(npages))) {
		text_add(t, "mc: no memory for the report's %u rows\n", nrows);
		return;
	}
	/* one pass copies the counters, which may still be counting: the
	 * totals are made from the copy, so the rows sum to them */
	nrows = 0;
	for (uint32_t i = 0; i < mc.nmods; i++) {
		struct mc_module *m = &mc.mods[i];
		modtot[i] = nosym[i] = m->nosym;
		for (uint32_t k = 0; m->hits && k < m->nsyms; k++) {
			uint32_t h = m->hits[k];
			if (h) {
				rows[nrows++] = (struct row){ h, (uint16_t)i, k };
				modtot[i] += h;
			}
		}
		mods[i] = (struct row){ modtot[i], (uint16_t)i, 0 };
		sum += modtot[i];
	}
	unknown = modtot[MC_MOD_UNKNOWN];
	sum += idle;
	recorded = (uint32_t)MIN(sum, 0xFFFFFFFFu);

	text_add(t, "=================== %s HIT REPORT ===================\n",
		 mc.options & PROFILE_OBJCALL ? "SYSTEM CALL" : "MONTE CARLO");
	text_add(t, "Total samples recorded = %8u\n", recorded);
	text_add(t, "Total samples dropped  = %8u\n", dropped);
	text_add(t, "Ticks elapsed          = %8u\n", (uint32_t)elapsed);
	text_add(t, "IDLE TIME:\n");
	text_add(t, "  * Total non-idle samples recorded                  = %u\n", recorded - idle);
	text_add(t, "  * Total idle samples recorded                      = %u\n", idle);
	pct(p, sizeof p, idle, recorded);
	text_add(t, "  * Percentage of recorded samples in idle           = %s\n", p);
	if (mc.saturated)
		text_add(t, "  (%u hits found their counter full)\n", mc.saturated);

	text_add(t, "\nMODULES:  (Does not include dropped samples!)\n");
	text_add(t, "%-16s  %10s  %7s\n", "Module", "Hits", "Percent");
	text_add(t, "----------------  ----------  -------\n");
	ksort(mods, mc.nmods, sizeof mods[0], byhits);
	for (uint32_t i = 0; i < mc.nmods; i++) {
		if (!mods[i].hits || mods[i].mod == MC_MOD_UNKNOWN)
			continue;
		pct(p, sizeof p, mods[i].hits, recorded);
		text_add(t, "%-16s  %10u  %7s\n", mc.mods[mods[i].mod].name, mods[i].hits, p);
	}
	pct(p, sizeof p, idle, recorded);
	text_add(t, "%-16s  %10u  %7s\n", "IDLE", idle, p);
	pct(p, sizeof p, unknown, recorded);
	text_add(t, "%-16s  %10u  %7s\n", "UNKNOWN", unknown, p);

	text_add(t, "\nSYMBOLS:  (Does not include dropped samples!)\n");
	text_add(t, "%10s %7s %-8s %-16s:%s\n", "Hits", "Percent", "Address", "Module", "Routine");
	text_add(t, "---------- ------- -------- ----------------:---------------------\n");
	ksort(rows, nrows, sizeof rows[0], byhits);
	for (uint32_t k = 0; k < nrows; k++) {
		const struct mc_module *m = &mc.mods[rows[k].mod];
		if (top && shown == top) {
			more += rows[k].hits;
			nmore++;
			continue;
		}
		pct(p, sizeof p, rows[k].hits, recorded);
		text_add(t, "%10u %7s %08x %-16s:%s\n", rows[k].hits, p, symtab_addr(m->syms, rows[k].sym),
			 m->name, symtab_name(m->syms, rows[k].sym));
		shown++;
	}
	if (nmore) {
		char what[32];
		ksnprintf(what, sizeof what, "<%u more routine%s>", nmore, nmore == 1 ? "" : "s");
		pct(p, sizeof p, more, recorded);
		text_add(t, "%10u %7s %8s %-16s:%s\n", more, p, "", "", what);
	}
	for (uint32_t i = 0; i < mc.nmods; i++) {
		if (!nosym[i] || i == MC_MOD_UNKNOWN)
			continue;
		pct(p, sizeof p, nosym[i], recorded);
		text_add(t, "%10u %7s %8s %-16s:%s\n", nosym[i], p, "", mc.mods[i].name,
			 mc.mods[i].nsyms ? "<outside routines>" : "<no symbols>");
	}
	pct(p, sizeof p, idle, recorded);
	text_add(t, "%10u %7s %8s %-16s:\n", idle, p, "", "IDLE");
	pct(p, sizeof p, unknown, recorded);
	text_add(t, "%10u %7s %8s %-16s:\n", unknown, p, "", "UNKNOWN");
	kfree_contig(rows, npages);
}
