/* rd_dosprof.c: the reader for the DosProfile engine's raw dumps: a common
 * dump (dump.c) whose payload is the guest dosprof's records, each the
 * bytes one PRF_CM_DUMP returned (abi/dosprof.h). dosprof_parse checks
 * them all; kprof dosprof (dosprof.c) prints them in OS/2's terms.
 *
 * The sample set: the hit table's addresses, each counted once per hit,
 * exact sampled PCs. A detailed counter, or a simple-count slot, knows only
 * its range, so its count goes to the range's first byte inside the slot,
 * and so to the symbol there, as a kpdata bin at res > 0 goes wholly to
 * its first symbol; kprof dosprof shows which functions each range holds.
 * Samples with no address (idle, kernel outside the slots of a kernel
 * session) are the kernel's "<outside text>"; a process's report is of
 * its counts alone (scope "user"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

/* one record: its kind, checked against its length and against what came before */
static int record(struct dosprof *d, const struct dpdump_rec *rec, const unsigned char *p)
{
	switch (rec->us_cmd) {
	case PRF_RET_GLOBAL:
		if (rec->len != sizeof d->r0 || d->r0.r0_timval)
			return -1;
		memcpy(&d->r0, p, sizeof d->r0);
		return d->r0.r0_timval ? 0 : -1;
	case PRF_RET_VASLOTS:
		if (rec->len < 1 || rec->len != 1 + p[0] * sizeof(PRFVA) || d->slots)
			return -1;
		d->nslots = p[0];
		d->slots = p + 1;
		return 0;
	case PRF_RET_VAHITS:
		if (rec->len < 4 || d->have_hits)
			return -1;
		d->nhits = kp_le32(p);
		if (d->nhits > (rec->len - 4) / 4 || rec->len != 4 + 4 * (size_t)d->nhits)
			return -1;
		d->hits = p + 4;
		d->have_hits = 1;
		return 0;
	case PRF_RET_VADETAIL: {
		uint32_t step, n;

		if (rec->len < 8 || d->ndet == PRF_MAXSLOTS)
			return -1;
		step = kp_le32(p);
		n = kp_le32(p + 4);
		if (n > (rec->len - 8) / 4 || rec->len != 8 + 4 * (size_t)n || !step || (step & (step - 1)))
			return -1;
		d->det[d->ndet].vaddr = rec->us_vaddr;
		d->det[d->ndet].step = step;
		d->det[d->ndet].n = n;
		d->det[d->ndet++].cnts = p + 8;
		return 0;
	}
	default:
		return -1;
	}
}

/* The slot a detailed record belongs to (the one starting at its us_vaddr,
 * in detailed mode), so its counters can be kept inside it. */
static int detail_slots(struct dosprof *d)
{
	for (int k = 0; k < d->ndet; k++) {
		size_t s;

		for (s = 0; s < d->nslots; s++) {
			const unsigned char *v = d->slots + s * sizeof(PRFVA);

			if (kp_le32(v + offsetof(PRFVA, va_vaddr)) == d->det[k].vaddr &&
			    kp_le32(v + offsetof(PRFVA, va_reserved)) == PRF_VADETAIL)
				break;
		}
		if (s == d->nslots)
			return -1;
		d->det[k].size = kp_le32(d->slots + s * sizeof(PRFVA) + offsetof(PRFVA, va_size));
	}
	return 0;
}

int dosprof_parse(struct dosprof *d, const unsigned char *buf, size_t len, const char *name)
{
	size_t off;

	memset(d, 0, sizeof *d);
	if (dump_parse(&d->dh, buf, len, name) < 0)
		return -1;
	if (d->dh.engine != DUMP_ENGINE_DOSPROF || d->dh.nmods != 1) {
		kp_error("%s: a dump of engine %d with %zu modules, not a DosProfile dump (engine %d, "
			 "1 module)", name, d->dh.engine, d->dh.nmods, DUMP_ENGINE_DOSPROF);
		goto fail;
	}
	off = d->dh.size;
	if (len - off < sizeof d->p) {
		kp_error("%s: the DosProfile payload is cut off (%zu bytes)", name, len - off);
		goto fail;
	}
	memcpy(&d->p, buf + off, sizeof d->p);
	off += sizeof d->p;
	for (uint32_t i = 0; i < d->p.nrecords; i++) {
		struct dpdump_rec rec;

		if (len - off < sizeof rec) {
			kp_error("%s: record %u of %u is cut off", name, i, d->p.nrecords);
			goto fail;
		}
		memcpy(&rec, buf + off, sizeof rec);
		off += sizeof rec;
		if (len - off < rec.len) {
			kp_error("%s: record %u claims %u bytes, %zu are left", name, i, rec.len, len - off);
			goto fail;
		}
		if (record(d, &rec, buf + off) < 0) {
			kp_error("%s: record %u (us_cmd %u, %u bytes) is malformed or repeated", name, i,
				 rec.us_cmd, rec.len);
			goto fail;
		}
		off += rec.len;
	}
	if (off != len) {
		kp_error("%s: %zu bytes after the last of %u records", name, len - off, d->p.nrecords);
		goto fail;
	}
	if (!d->r0.r0_timval || !d->slots) {
		kp_error("%s: no global data or no slots: not a whole dump", name);
		goto fail;
	}
	if (detail_slots(d) < 0) {
		kp_error("%s: detailed counters of no detailed slot", name);
		goto fail;
	}
	d->samples = (uint64_t)d->r0.r0_idle + d->r0.r0_vm86 + d->r0.r0_kernel + d->r0.r0_shrmem +
		     d->r0.r0_unknown;
	for (size_t s = 0; s < d->nslots; s++)
		d->samples += kp_le32(d->slots + s * sizeof(PRFVA) + offsetof(PRFVA, va_cnt));
	return 0;
fail:
	dump_free(&d->dh);
	return -1;
}

static int by_addr(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the set's payload: the parsed dump, its modules the set's own */
static void payload_free(void *p)
{
	struct dosprof *d = p;

	free(d->bytes);
	free(d);
}

/* The set from the dump's bytes, which it takes: they stay, as its
 * payload's (a struct dosprof, for kprof dosprof's view), until the set
 * is freed. */
static int dosprof_set(struct sampleset *ss, unsigned char *buf, size_t len, const char *name)
{
	struct dosprof d, *pl;
	size_t cap, n = 0;
	uint64_t user = 0, ranged = 0;

	if (dosprof_parse(&d, buf, len, name) < 0) {
		free(buf);
		return -1;
	}
	ss->mods = d.dh.mods;
	ss->nmods = d.dh.nmods;
	ss->hz = d.dh.hz;
	ss->scope = d.p.pid ? "user" : NULL;
	ss->unidentified = ss->mods[0].build_id[0] == '\0';
	cap = (size_t)d.nhits + d.nslots + 1;
	for (int k = 0; k < d.ndet; k++)
		cap += d.det[k].n;
	ss->flat = kp_calloc(cap, sizeof *ss->flat);
	for (uint32_t i = 0; i < d.nhits; i++)
		ss->flat[n++] = (struct flat){ 0, kp_le32(d.hits + 4 * (size_t)i), 1 };
	for (int k = 0; k < d.ndet; k++) {
		uint64_t base = d.det[k].vaddr & ~(uint64_t)(d.det[k].step - 1);

		for (uint32_t c = 0; c < d.det[k].n; c++) {
			uint64_t at = base + (uint64_t)c * d.det[k].step;
			uint32_t cnt = kp_le32(d.det[k].cnts + 4 * (size_t)c);

			ranged += cnt;
			if (cnt)
				ss->flat[n++] = (struct flat){ 0, at < d.det[k].vaddr ? d.det[k].vaddr : at, cnt };
		}
	}
	for (size_t s = 0; s < d.nslots; s++) {
		const unsigned char *v = d.slots + s * sizeof(PRFVA);
		uint32_t cnt = kp_le32(v + offsetof(PRFVA, va_cnt));

		user += cnt;
		if (cnt && kp_le32(v + offsetof(PRFVA, va_reserved)) == PRF_VATOTAL) {
			ranged += cnt;
			ss->flat[n++] = (struct flat){ 0, kp_le32(v + offsetof(PRFVA, va_vaddr)), cnt };
		}
	}
	ss->nopc = ranged && !d.nhits && !d.ndet;   /* only whole slots' counts */
	if (ranged)
		snprintf(ss->note, sizeof ss->note, "%ju samples are counts of whole slots or detailed "
			 "ranges, each charged to the symbol at its first byte (kprof dosprof shows what "
			 "each range holds)", (uintmax_t)ranged);
	/* sorted by address, one count per address */
	qsort(ss->flat, n, sizeof *ss->flat, by_addr);
	for (size_t i = 0; i < n; i++)
		if (ss->nflat && ss->flat[ss->nflat - 1].addr == ss->flat[i].addr)
			ss->flat[ss->nflat - 1].count += ss->flat[i].count;
		else
			ss->flat[ss->nflat++] = ss->flat[i];
	/* a kernel session's slots are kernel code, a process's user code */
	ss->total = d.samples;
	user = d.p.pid ? user + d.r0.r0_unknown : d.r0.r0_unknown;
	ss->kernel = d.samples - user;
	/* a process's user count takes in its hits outside every slot (and
	 * the hit table's overwritten ones), which have no address: the
	 * report's row "<outside the slots>" */
	if (d.p.pid) {
		ss->scoped = user;
		ss->outside_label = d.r0.r0_reserved2 ? "<outside the slots, or overwritten>" :
			"<outside the slots>";
	}
	pl = kp_calloc(1, sizeof *pl);
	*pl = d;
	pl->bytes = buf;
	pl->dh.mods = NULL;             /* the set's, ss->mods */
	pl->dh.nmods = 0;
	ss->payload = pl;
	ss->payload_free = payload_free;
	return 0;
}

static int dosprof_parse_set(struct sampleset *ss, const unsigned char *buf, size_t len,
			     const char *name)
{
	unsigned char *copy = kp_calloc(len ? len : 1, 1);

	memcpy(copy, buf, len);
	return dosprof_set(ss, copy, len, name);
}

static int dosprof_read(struct sampleset *ss, const struct ropen *ro)
{
	unsigned char *buf;
	size_t len;

	if (kp_readfile(ro->path, DPDUMP_MAX_BYTES, &buf, &len) < 0)
		return -1;
	return dosprof_set(ss, buf, len, ro->path);
}

const struct reader reader_dosprof = { "dosprof", DUMP_ENGINE_DOSPROF, dosprof_read,
				       dosprof_parse_set, DPDUMP_MAX_BYTES };
