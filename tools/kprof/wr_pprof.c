/* wr_pprof.c: --format pprof, the stacks as pprof's gzipped profile.proto
 * (tools/kprof/profile.proto, encoded by protobuf-c, compressed by zlib),
 * which `go tool pprof` reads: a mapping per module with its file and GNU
 * build-id, a function per symbol and a location per address, already
 * symbolized; each sample the leaf first, its values the samples and the
 * cpu time they stand for (samples x period) when they are clock ticks,
 * or else the one count the set has (system-call hits, instructions), by
 * the sample set's unit. A stack's marks are the folded lines': a stack
 * missing frames has a "[truncated]" frame outermost (a location of no
 * mapping), and every mark is a label too, "stack" = "truncated" or
 * "repaired", which -tagfocus and -tagignore select by and -raw lists. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Label Label;

static int64_t str(struct strtab *t, const char *s)
{
	return (int64_t)strtab_index(t, s);
}

/* a key of (module, address or symbol) to a 1-based id */
struct ids {
	struct kvmap map;
	size_t n;
};

static size_t id_of(struct ids *t, uint32_t mod, uint64_t key, int *made)
{
	uintptr_t *v = kvmap_slot(&t->map, key, mod, made);

	if (*made)
		*v = ++t->n;
	return *v;
}

/* gzip's fastest level: on 100,000 stacks a third of the time of level 9
 * (the output 5 % bigger), and the profile is read once */
static int gzip_out(FILE *out, const uint8_t *buf, size_t len)
{
	z_stream z = { 0 };
	uint8_t chunk[65536];
	int r;

	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		r = deflate(&z, Z_FINISH);
		fwrite(chunk, 1, sizeof chunk - z.avail_out, out);
	} while (r == Z_OK);
	deflateEnd(&z);
	return r == Z_STREAM_END && !ferror(out) ? 0 : -1;
}

static int pprof_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
		       const struct sampleset *ss, const struct profile *p)
{
	Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType types[2], period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	ValueType *typep[2] = { &types[0], &types[1] };
	struct strtab st = { 0 };
	struct ids locs = { 0 }, fns = { 0 };
	size_t n = sampleset_nstacks(ss), nsamp = 0, cap_l = 0, cap_f = 0;
	Sample *samples = kp_calloc(n ? n : 1, sizeof *samples), **samplep = kp_calloc(n ? n : 1, sizeof *samplep);
	Mapping *maps = kp_calloc(ss->nmods ? ss->nmods : 1, sizeof *maps);
	Mapping **mapp = kp_calloc(ss->nmods ? ss->nmods : 1, sizeof *mapp);
	Location *lv = NULL, **lp = NULL;
	Function *fv = NULL, **fp = NULL;
	const struct unit *u = sampleset_unit(ss);
	/* clock ticks: samples, and the cpu time they stand for (the period
	 * a tick's); any other count is one value, its own, each of period 1 */
	size_t nvalues = u->timed ? 2 : 1;
	int64_t period = !u->timed ? 1 : ss->hz > 0 ? (int64_t)(1e9 / ss->hz) : 1000000;
	uint8_t *buf;
	size_t len;
	int r;
	/* the marks' labels, shared by the samples that carry them */
	Label lab[2] = { PERFTOOLS__PROFILES__LABEL__INIT, PERFTOOLS__PROFILES__LABEL__INIT };
	Label *trunc_l[] = { &lab[0] }, *rep_l[] = { &lab[1] }, *both_l[] = { &lab[0], &lab[1] };

	(void)wo, (void)p;
	str(&st, "");
	lab[0].key = lab[1].key = str(&st, "stack");
	lab[0].str = str(&st, "truncated");
	lab[1].str = str(&st, "repaired");
	types[0] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	types[1] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	types[0].type = str(&st, u->type);
	types[0].unit = str(&st, u->pprof_unit);
	if (u->timed) {
		types[1].type = str(&st, "cpu");
		types[1].unit = str(&st, "nanoseconds");
	}
	period_type.type = types[nvalues - 1].type;
	period_type.unit = types[nvalues - 1].unit;
	for (size_t m = 0; m < ss->nmods; m++) {
		const struct kelf *ke = m < sy->nof && sy->of[m] >= 0 ? &sy->elfs[sy->of[m]] : NULL;

		maps[m] = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
		maps[m].id = m + 1;
		maps[m].memory_start = ke ? ke->text_lo : 0;
		maps[m].memory_limit = ke ? ke->text_hi : 0;
		maps[m].filename = str(&st, ss->mods[m].path ? ss->mods[m].path : ke ? ke->path : "[unknown]");
		maps[m].build_id = str(&st, ss->mods[m].build_id);
		maps[m].has_functions = 1;
		mapp[m] = &maps[m];
	}
	for (size_t i = 0; i < n; i++) {
		struct frame one;
		uint32_t nfr;
		uint64_t w;
		const struct frame *f = sampleset_stack(ss, i, &one, &nfr, &w);
		Sample *s = &samples[nsamp];
		const struct stack *stk = ss->stacks ? &ss->stacks[i] : NULL;
		int made, cut = stk && (stk->flags & STACK_TRUNCATED), rep = stk && (stk->flags & STACK_REPAIRED);

		if (!w || !nfr)
			continue;       /* the idle loop has no location */
		*s = (Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		s->n_location_id = nfr + cut;
		s->location_id = kp_calloc(nfr + cut, sizeof *s->location_id);
		s->n_label = cut + rep;
		s->label = cut && rep ? both_l : cut ? trunc_l : rep_l;
		s->n_value = nvalues;
		s->value = kp_calloc(nvalues, sizeof *s->value);
		s->value[0] = (int64_t)w;
		if (nvalues > 1)
			s->value[1] = (int64_t)w * period;
		for (uint32_t k = 0; k < nfr; k++) {
			/* a location per address; below the leaf the address is a
			 * return address, and its function is its call's */
			size_t lid = id_of(&locs, f[k].mod, f[k].addr | (k ? 1ull << 63 : 0), &made);

			s->location_id[k] = lid;
			if (!made)
				continue;
			if (locs.n > cap_l) {
				cap_l = 2 * locs.n;
				lv = kp_reallocarray(lv, cap_l, sizeof *lv);
			}
			lv[lid - 1] = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
			{
				/* a line per function, inlined ones first */
				const struct kchain *c = frame_chain(sy, &f[k], k == 0);
				size_t m = c->n, j;
				Line *lb, **ll;

				lb = kp_calloc(m, sizeof *lb);
				ll = kp_calloc(m, sizeof *ll);
				for (j = m; j-- > 0;) {         /* outermost first, to the last line */
					const char *name = c->f[m - 1 - j].name;
					size_t fid = id_of(&fns, f[k].mod, (uint64_t)str(&st, name), &made);

					if (made) {
						if (fns.n > cap_f) {
							cap_f = 2 * fns.n;
							fv = kp_reallocarray(fv, cap_f, sizeof *fv);
						}
						fv[fid - 1] = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
						fv[fid - 1].id = fid;
						fv[fid - 1].name = fv[fid - 1].system_name = str(&st, name);
					}
					lb[j] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
					lb[j].function_id = fid;
					ll[j] = &lb[j];
				}
				lv[lid - 1].n_line = m;
				lv[lid - 1].line = ll;
			}
			lv[lid - 1].id = lid;
			lv[lid - 1].mapping_id = f[k].mod + 1;
			lv[lid - 1].address = f[k].addr;
		}
		if (cut) {              /* the mark, outermost: of no module, no address */
			size_t lid = id_of(&locs, (uint32_t)ss->nmods, 0, &made);

			s->location_id[nfr] = lid;
			if (made) {
				size_t fid = id_of(&fns, (uint32_t)ss->nmods, (uint64_t)str(&st, "[truncated]"), &made);
				Line *lb = kp_calloc(1, sizeof *lb), **ll = kp_calloc(1, sizeof *ll);

				if (locs.n > cap_l) {
					cap_l = 2 * locs.n;
					lv = kp_reallocarray(lv, cap_l, sizeof *lv);
				}
				if (made) {
					if (fns.n > cap_f) {
						cap_f = 2 * fns.n;
						fv = kp_reallocarray(fv, cap_f, sizeof *fv);
					}
					fv[fid - 1] = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
					fv[fid - 1].id = fid;
					fv[fid - 1].name = fv[fid - 1].system_name = str(&st, "[truncated]");
				}
				*lb = (Line)PERFTOOLS__PROFILES__LINE__INIT;
				lb->function_id = fid;
				ll[0] = lb;
				lv[lid - 1] = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
				lv[lid - 1].id = lid;
				lv[lid - 1].n_line = 1;
				lv[lid - 1].line = ll;
			}
		}
		samplep[nsamp++] = s;
	}
	lp = kp_calloc(locs.n ? locs.n : 1, sizeof *lp);
	for (size_t i = 0; i < locs.n; i++)
		lp[i] = &lv[i];
	fp = kp_calloc(fns.n ? fns.n : 1, sizeof *fp);
	for (size_t i = 0; i < fns.n; i++)
		fp[i] = &fv[i];
	pr.n_sample_type = nvalues;
	pr.sample_type = typep;
	pr.n_sample = nsamp;
	pr.sample = samplep;
	pr.n_mapping = ss->nmods;
	pr.mapping = mapp;
	pr.n_location = locs.n;
	pr.location = lp;
	pr.n_function = fns.n;
	pr.function = fp;
	pr.n_string_table = st.n;
	pr.string_table = st.v;
	pr.period_type = &period_type;
	pr.period = period;
	len = perftools__profiles__profile__get_packed_size(&pr);
	buf = kp_calloc(len ? len : 1, 1);
	perftools__profiles__profile__pack(&pr, buf);
	r = gzip_out(out, buf, len);
	free(buf);
	for (size_t i = 0; i < nsamp; i++) {
		free(samples[i].location_id);
		free(samples[i].value);
	}
	strtab_free(&st);
	free(samples), free(samplep), free(maps), free(mapp), free(lp);
	for (size_t i = 0; i < locs.n; i++)
		free(lv[i].line[0]), free(lv[i].line);
	free(lv), free(fv), free(fp), kvmap_free(&locs.map), kvmap_free(&fns.map);
	if (r < 0)
		kp_error("writing the pprof profile failed");
	return r;
}

const struct writer writer_pprof = { .name = "pprof", .binary = 1, .write = pprof_write, .ninputs = 1 };
