/* rd_kpdata.c: the reader for devkprof's kpdata (big-endian 32-bit words,
 * include/abi/kprof.h) and the kpinfo beside it. Everything that can be
 * checked from the file's size and the kpinfo is checked before the bins
 * are read, so a huge or wrong file costs no memory. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/be32.h"
#include "kprof.h"

/* 64 Mi bins: 64 MiB of text at res 0, far beyond a teaching kernel */
#define KPDATA_MAX_BYTES ((size_t)KPDATA_WORD * (KPDATA_HDR_WORDS + (64u << 20)))
#define CHUNK_WORDS 16384

/* The dump's bytes: in a file, or (for the fuzzer) in memory. */
struct src {
	const char *name;
	int fd;
	const unsigned char *mem;
	size_t len;
};

static int src_read(const struct src *s, size_t off, unsigned char *buf, size_t n)
{
	if (s->mem) {
		memcpy(buf, s->mem + off, n);
		return 0;
	}
	return kp_readat(s->fd, s->name, off, buf, n);
}

/* The file on its own: a whole number of words, at least the header. */
static int header(struct sampleset *ss, const struct src *s)
{
	const size_t hdr = KPDATA_WORD * KPDATA_HDR_WORDS;
	unsigned char w[KPDATA_WORD * KPDATA_HDR_WORDS];

	if (s->len < hdr) {
		kp_error("%s: truncated: %zu bytes, a kpdata has at least %zu (its two header words)",
			 s->name, s->len, hdr);
		return -1;
	}
	if (s->len % KPDATA_WORD) {
		kp_error("%s: size %zu is not a multiple of %d: not a whole number of words",
			 s->name, s->len, KPDATA_WORD);
		return -1;
	}
	if (src_read(s, 0, w, hdr) < 0)
		return -1;
	ss->total = be32_get(w + KPDATA_WORD * KPDATA_TOTAL);
	ss->kernel = be32_get(w + KPDATA_WORD * KPDATA_KERNEL);
	if (ss->kernel > ss->total) {
		kp_error("%s: kernel ticks %ju exceed total ticks %ju: not a kpdata, or damaged",
			 s->name, (uintmax_t)ss->kernel, (uintmax_t)ss->total);
		return -1;
	}
	ss->nbins = s->len / KPDATA_WORD - KPDATA_HDR_WORDS;
	return 0;
}

/* The kpinfo: the keys without which the bins cannot be placed, and a bin
 * count that agrees with the file and the text range. */
static int place(struct sampleset *ss, const struct kpinfo *ki)
{
	static const struct { unsigned bit; const char *key; } need[] = {
		{ KI_TEXT_START, KPINFO_TEXT_START }, { KI_TEXT_END, KPINFO_TEXT_END },
		{ KI_RES, KPINFO_RES }, { KI_HZ, KPINFO_HZ },
	};
	uint64_t want;

	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!(ki->have & need[i].bit)) {
			kp_error("kpinfo has no %s line%s; kprof needs %s, %s, %s and %s", need[i].key,
				 ki->have ? "" : " (it is empty)",
				 KPINFO_TEXT_START, KPINFO_TEXT_END, KPINFO_RES, KPINFO_HZ);
			return -1;
		}
	if (ki->text_end <= ki->text_start) {
		kp_error("kpinfo text range 0x%08x-0x%08x is empty", ki->text_start, ki->text_end);
		return -1;
	}
	if ((ki->have & KI_NBINS) && ki->nbins != ss->nbins) {
		kp_error("kpinfo says nbins %ju but kpdata holds %ju bins (%ju bytes)",
			 (uintmax_t)ki->nbins, (uintmax_t)ss->nbins,
			 (uintmax_t)(KPDATA_WORD * (KPDATA_HDR_WORDS + ss->nbins)));
		return -1;
	}
	want = ((uint64_t)ki->text_end - ki->text_start + (1u << ki->res) - 1) >> ki->res;
	if (ss->nbins != want) {
		kp_error("kpdata holds %ju bins but text 0x%08x-0x%08x at res %u needs %ju",
			 (uintmax_t)ss->nbins, ki->text_start, ki->text_end, ki->res, (uintmax_t)want);
		return -1;
	}
	ss->binned = 1;
	ss->text_start = ki->text_start;
	ss->text_end = ki->text_end;
	ss->res = ki->res;
	ss->hz = ki->hz;
	ss->has_saturated = (ki->have & KI_SATURATED) != 0;
	ss->saturated = ki->saturated;
	ss->running = (ki->have & KI_STATE) && strcmp(ki->state, "on") == 0;
	ss->stopped = (ki->have & KI_STATE) && strcmp(ki->state, "off") == 0;
	ss->has_ticks = (ki->have & KI_TICKS) != 0;
	/* idle ticks, when the kernel counted them and they fit the dump's */
	ss->has_idle = (ki->have & KI_IDLE) && ki->idle <= ss->kernel;
	ss->idle = ss->has_idle ? ki->idle : 0;
	ss->info_ticks = ki->ticks;
	ss->mods = kp_calloc(1, sizeof *ss->mods);
	ss->nmods = 1;
	if (ki->have & KI_BUILD_ID)
		memcpy(ss->mods[0].build_id, ki->build_id, sizeof ki->build_id);
	return 0;
}

/* The nonzero bins, in address order, a chunk at a time: counted first,
 * so the array is allocated once at its size (a million bins are 24 MiB;
 * doubling would touch up to twice that). With fold, only per-function
 * sums are wanted: consecutive bins in one function of that ELF (or in
 * one gap between functions) become one entry at the first of them, so
 * a report of a million bins holds a few thousand; with inl, a bin in
 * inlined code stays a bin, since its frame's name is not its function's
 * alone. */
static int bins(struct sampleset *ss, const struct src *s, struct kelf *fold, int inl)
{
	unsigned char *buf = kp_calloc(CHUNK_WORDS, KPDATA_WORD);
	size_t cap = 0, cursor = 0;
	const struct krange *last = NULL;
	int have_last = 0, last_inl = 0;

	for (uint64_t i = 0; i < ss->nbins && !fold; i += CHUNK_WORDS) {
		size_t n = ss->nbins - i < CHUNK_WORDS ? (size_t)(ss->nbins - i) : CHUNK_WORDS;

		if (src_read(s, KPDATA_WORD * (KPDATA_HDR_WORDS + i), buf, n * KPDATA_WORD) < 0) {
			free(buf);
			return -1;
		}
		for (size_t j = 0; j < n; j++)
			cap += be32_get(buf + KPDATA_WORD * j) != 0;
	}
	if (cap)
		ss->flat = kp_reallocarray(NULL, cap, sizeof *ss->flat);
	for (uint64_t i = 0; i < ss->nbins; i += CHUNK_WORDS) {
		size_t n = ss->nbins - i < CHUNK_WORDS ? (size_t)(ss->nbins - i) : CHUNK_WORDS;

		if (src_read(s, KPDATA_WORD * (KPDATA_HDR_WORDS + i), buf, n * KPDATA_WORD) < 0) {
			free(buf);
			return -1;
		}
		for (size_t j = 0; j < n; j++) {
			uint32_t c = be32_get(buf + KPDATA_WORD * j);
			uint64_t addr = ss->text_start + ((i + j) << ss->res);
			struct flat *f;

			if (c == 0)
				continue;
			ss->full_bins += c == KPDATA_MAX;
			if (fold) {
				/* most bins fall in the function of the one before */
				const struct krange *r = last && addr >= last->start && addr < last->end ?
							 last : kelf_range(fold, addr, &cursor);
				int in = inl && kelf_in_inlined(fold, addr);

				if (have_last && r == last && !in && !last_inl) {
					ss->flat[ss->nflat - 1].count += c;
					continue;
				}
				last = r;
				last_inl = in;
				have_last = 1;
				if (ss->nflat == cap) {
					cap = cap ? 2 * cap : 1024;
					ss->flat = kp_reallocarray(ss->flat, cap, sizeof *ss->flat);
				}
			} else if (ss->nflat == cap) {
				break;          /* cannot be: the file is read once, at open */
			}
			f = &ss->flat[ss->nflat++];
			f->mod = 0;
			f->addr = addr;
			f->count = c;
		}
	}
	free(buf);
	return 0;
}

/* kpinfo beside kpdata, as the guest exports them: DIR/dev/kpdata, DIR/dev/kpinfo */
static char *default_kpinfo(const char *kpdata)
{
	const char *slash = strrchr(kpdata, '/');
	size_t dirlen = slash ? (size_t)(slash - kpdata) + 1 : 0;

	return kp_fmt("%.*skpinfo", (int)dirlen, kpdata);
}

static int kpdata_read(struct sampleset *ss, const struct ropen *ro)
{
	struct src s = { .name = ro->path, .fd = -1 };
	struct kpinfo ki;
	char *info = NULL;
	int r = -1;

	if (kp_openfile(ro->path, KPDATA_MAX_BYTES, &s.fd, &s.len) < 0)
		return -1;
	if (header(ss, &s) < 0)
		goto out;
	info = ro->kpinfo ? kp_strdup(ro->kpinfo) : default_kpinfo(ro->path);
	if (!ro->kpinfo && access(info, F_OK) != 0) {
		kp_error("no kpinfo beside %s (looked for %s): without its text_start, res and hz "
			 "the counts cannot be placed; give one with --kpinfo FILE", ro->path, info);
		goto out;
	}
	if (kpinfo_read(&ki, info) < 0 || place(ss, &ki) < 0 || bins(ss, &s, ro->fold, !ro->no_inline) < 0)
		goto out;
	r = 0;
out:
	free(info);
	close(s.fd);
	return r;
}

/* From memory: the kpinfo text, a NUL, then the kpdata bytes. */
static int kpdata_parse(struct sampleset *ss, const unsigned char *buf, size_t len,
			const char *name)
{
	const unsigned char *nul = memchr(buf, '\0', len);
	struct kpinfo ki;
	struct src s = { .name = name, .fd = -1 };

	if (nul == NULL) {
		kp_error("%s: no NUL between kpinfo and kpdata", name);
		return -1;
	}
	s.mem = nul + 1;
	s.len = len - (size_t)(nul + 1 - buf);
	if (header(ss, &s) < 0 || kpinfo_parse(&ki, (const char *)buf, (size_t)(nul - buf), name) < 0 ||
	    place(ss, &ki) < 0 || bins(ss, &s, NULL, 0) < 0)
		return -1;
	return 0;
}

const struct reader reader_kpdata = { "kpdata", 0, kpdata_read, kpdata_parse, KPDATA_MAX_BYTES };
