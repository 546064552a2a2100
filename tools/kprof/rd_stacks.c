/* rd_stacks.c: the reader for the stack engine's dumps (/dev/stacks,
 * abi/stacks.h): a common dump of the kernel and the programs, then one
 * record per distinct stack, its count and its frames, the kernel's then
 * the user's, each leaf first. Each record is a stack of the sample set
 * (struct stack: frames leaf first, the kernel's frames in module 0, the
 * user's in its program's module); flat holds the leaves' counts, which
 * every flat report reads. The idle loop is a stack of no frames flagged
 * STK_IDLE; a program the dump does not name gets a module of its own
 * with no path. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define STK_DUMP_MAX_BYTES ((size_t)STK_TABLE_KIB_MAX * 1024 * 2 + (1u << 20))

static int by_mod_addr(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;

	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int stacks_parse(struct sampleset *ss, const unsigned char *buf, size_t len,
			const char *name)
{
	struct dumphdr dh;
	struct stk_dump d;
	size_t off, nf = 0, cap = 0, nflat = 0;
	uint32_t unknown;

	if (dump_parse(&dh, buf, len, name) < 0)
		return -1;
	if (dh.engine != DUMP_ENGINE_STACKS || dh.nmods < 1) {
		kp_error("%s: a dump of engine %d, not a stack dump (engine %d)", name, dh.engine,
			 DUMP_ENGINE_STACKS);
		dump_free(&dh);
		return -1;
	}
	off = dh.size;
	if (len - off < sizeof d) {
		kp_error("%s: the stack payload is cut off (%zu bytes)", name, len - off);
		dump_free(&dh);
		return -1;
	}
	memcpy(&d, buf + off, sizeof d);
	off += sizeof d;
	if (d.nrecs > (len - off) / sizeof(struct stk_rec)) {
		kp_error("%s: %u records claimed, room for %zu", name, d.nrecs,
			 (len - off) / sizeof(struct stk_rec));
		dump_free(&dh);
		return -1;
	}
	/* one more module, without a path: the user frames of a program the
	 * dump does not name */
	unknown = (uint32_t)dh.nmods;
	ss->mods = kp_reallocarray(dh.mods, dh.nmods + 1, sizeof *ss->mods);
	memset(&ss->mods[unknown], 0, sizeof ss->mods[unknown]);
	ss->nmods = dh.nmods + 1;
	ss->hz = dh.hz;
	ss->scope = "sampled";
	ss->stacks = kp_calloc(d.nrecs ? d.nrecs : 1, sizeof *ss->stacks);
	ss->flat = kp_calloc(d.nrecs ? d.nrecs : 1, sizeof *ss->flat);
	for (uint32_t i = 0; i < d.nrecs; i++) {
		struct stk_rec r;
		uint32_t n, umod;

		if (len - off < sizeof r) {
			kp_error("%s: record %u of %u is cut off", name, i, d.nrecs);
			return -1;
		}
		memcpy(&r, buf + off, sizeof r);
		off += sizeof r;
		n = (uint32_t)r.nk + r.nu;
		if (n > STK_DEPTH_MAX || (len - off) / 4 < n) {
			kp_error("%s: record %u: %u frames, %zu bytes left", name, i, n, len - off);
			return -1;
		}
		if (r.umod != 0xFFFF && (r.umod == 0 || r.umod >= dh.nmods)) {
			kp_error("%s: record %u names module %u of %zu", name, i, r.umod, dh.nmods);
			return -1;
		}
		if (!n && !(r.flags & STK_IDLE)) {
			kp_error("%s: record %u has no frames and is not the idle loop", name, i);
			return -1;
		}
		if (ss->total + r.count < ss->total) {
			kp_error("%s: the counts overflow 64 bits at record %u", name, i);
			return -1;
		}
		umod = r.umod == 0xFFFF ? unknown : r.umod;
		if (nf + n > cap) {
			cap = (nf + n) * 2 + 64;
			ss->frames = kp_reallocarray(ss->frames, cap, sizeof *ss->frames);
		}
		for (uint32_t k = 0; k < n; k++)
			ss->frames[nf + k] = (struct frame){ k < r.nk ? 0 : umod,
							     kp_le32(buf + off + 4 * (size_t)k) };
		ss->stacks[ss->nstacks++] = (struct stack){ nf, n, r.flags, r.count, umod, r.pid, r.ret,
							    r.ret1 };
		if (n)
			ss->flat[nflat++] = (struct flat){ ss->frames[nf].mod, ss->frames[nf].addr, r.count };
		ss->total += r.count;
		if (r.flags & STK_IDLE || r.nk)
			ss->kernel += r.count;
		nf += n;
		off += 4 * (size_t)n;
	}
	if (off != len) {
		kp_error("%s: %zu bytes after the last of %u records", name, len - off, d.nrecs);
		return -1;
	}
	ss->nframes = nf;
	qsort(ss->flat, nflat, sizeof *ss->flat, by_mod_addr);
	for (size_t i = 0; i < nflat; i++)
		if (ss->nflat && ss->flat[ss->nflat - 1].mod == ss->flat[i].mod &&
		    ss->flat[ss->nflat - 1].addr == ss->flat[i].addr)
			ss->flat[ss->nflat - 1].count += ss->flat[i].count;
		else
			ss->flat[ss->nflat++] = ss->flat[i];
	if (d.dropped || d.truncated)
		snprintf(ss->note, sizeof ss->note, "%u ticks dropped (a full stack table), %u with a "
			 "cut or broken stack", d.dropped, d.truncated);
	return 0;
}

const struct reader reader_stacks = { "stacks", DUMP_ENGINE_STACKS, NULL, stacks_parse, STK_DUMP_MAX_BYTES };
