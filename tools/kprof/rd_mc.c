/* rd_mc.c: the reader for the Monte Carlo engine's raw dumps (mc.N.dump,
 * written beside the report at ProfileStop): a common dump (dump.c) whose
 * modules are the kernel and the programs, and whose payload is a struct
 * mc_dump and its records (abi/mcprof.h). A buffered session's records
 * are its samples, each a PC; an unbuffered one's are routine counts at
 * each routine's first byte, and a module's hits in no routine at pc 0.
 * A session of -s (PROFILE_OBJCALL) counts system calls, not ticks: its
 * unit is UNIT_SYSCALLS. Idle samples, and samples in no module, count
 * in the total only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

/* every record this big at most: the largest buffer, 8 bytes a sample,
 * dumped at 16 */
#define MC_DUMP_MAX_BYTES ((size_t)MC_BUF_KIB_MAX * 1024 * 2 + (1u << 20))

static int by_mod_addr(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;

	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int mc_parse(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name)
{
	struct dumphdr dh;
	struct mc_dump d;
	size_t off, n = 0;
	uint64_t kernel = 0, total;

	if (dump_parse(&dh, buf, len, name) < 0)
		return -1;
	if (dh.engine != DUMP_ENGINE_MONTE || dh.nmods < 1) {
		kp_error("%s: a dump of engine %d, not a Monte Carlo dump (engine %d)", name, dh.engine,
			 DUMP_ENGINE_MONTE);
		goto fail;
	}
	off = dh.size;
	if (len - off < sizeof d) {
		kp_error("%s: the Monte Carlo payload is cut off (%zu bytes)", name, len - off);
		goto fail;
	}
	memcpy(&d, buf + off, sizeof d);
	off += sizeof d;
	if (d.nrecs != (len - off) / sizeof(struct mc_dumprec) ||
	    (len - off) % sizeof(struct mc_dumprec)) {
		kp_error("%s: %u records claimed, %zu bytes of them there", name, d.nrecs, len - off);
		goto fail;
	}
	ss->flat = kp_calloc(d.nrecs ? d.nrecs : 1, sizeof *ss->flat);
	total = d.idle;
	for (uint32_t i = 0; i < d.nrecs; i++, off += sizeof(struct mc_dumprec)) {
		struct mc_dumprec r;

		memcpy(&r, buf + off, sizeof r);
		if (r.mod != MC_DUMP_NOMOD && r.mod >= dh.nmods) {
			kp_error("%s: record %u names module %u of %zu", name, i, r.mod, dh.nmods);
			goto fail;
		}
		if (total + r.count < total) {
			kp_error("%s: the counts overflow 64 bits at record %u", name, i);
			goto fail;
		}
		total += r.count;
		if (r.mod == MC_DUMP_NOMOD || !r.count)
			continue;
		if (r.mod == 0)
			kernel += r.count;
		ss->flat[n++] = (struct flat){ r.mod, r.pc, r.count };
	}
	qsort(ss->flat, n, sizeof *ss->flat, by_mod_addr);
	for (size_t i = 0; i < n; i++)
		if (ss->nflat && ss->flat[ss->nflat - 1].mod == ss->flat[i].mod &&
		    ss->flat[ss->nflat - 1].addr == ss->flat[i].addr)
			ss->flat[ss->nflat - 1].count += ss->flat[i].count;
		else
			ss->flat[ss->nflat++] = ss->flat[i];
	ss->mods = dh.mods;
	ss->nmods = dh.nmods;
	ss->hz = dh.hz;
	ss->total = total;
	ss->kernel = kernel + d.idle;
	ss->scope = "sampled";          /* the rows are the kernel's and the programs' */
	/* -s: a hit is a system call, not a tick */
	ss->unit = d.options & PROFILE_OBJCALL ? UNIT_SYSCALLS : UNIT_TICKS;
	ss->nopc = !(d.options & PROFILE_BUFFER);
	if (!(d.options & PROFILE_BUFFER))
		snprintf(ss->note, sizeof ss->note, "an unbuffered session: each routine's hits are "
			 "at its first byte");
	if (d.dropped)
		snprintf(ss->note + strlen(ss->note), sizeof ss->note - strlen(ss->note),
			 "%s%u samples were dropped (a full buffer)", ss->note[0] ? "; " : "", d.dropped);
	return 0;
fail:
	free(ss->flat);
	ss->flat = NULL;
	dump_free(&dh);
	return -1;
}

const struct reader reader_mc = { "mc", DUMP_ENGINE_MONTE, NULL, mc_parse, MC_DUMP_MAX_BYTES };
