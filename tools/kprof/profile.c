/* profile.c: check a dump against its kpinfo and kernel, then charge each
 * nonzero bin to a symbol in one merge pass over two sorted lists.
 *
 * The rule: a bin is charged to the symbol that owns the bin's first byte,
 * text_start + (i << res). At res 0 that is the sampled PC itself; at
 * res > 0 a bin straddling two symbols goes wholly to the first. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

int kp_check(const struct kpdata *kd, const struct kpinfo *ki, const struct kelf *ke)
{
	static const struct { unsigned bit; const char *key; } need[] = {
		{ KI_TEXT_START, KPINFO_TEXT_START }, { KI_TEXT_END, KPINFO_TEXT_END },
		{ KI_RES, KPINFO_RES }, { KI_HZ, KPINFO_HZ },
	};
	uint64_t len, want;

	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!(ki->have & need[i].bit)) {
			kp_error("kpinfo has no %s line; kprof needs %s, %s, %s and %s",
				 need[i].key, KPINFO_TEXT_START, KPINFO_TEXT_END, KPINFO_RES, KPINFO_HZ);
			return -1;
		}
	if (ki->text_end <= ki->text_start) {
		kp_error("kpinfo text range 0x%08x-0x%08x is empty", ki->text_start, ki->text_end);
		return -1;
	}
	if ((ki->have & KI_NBINS) && ki->nbins != kd->nbins) {
		kp_error("kpinfo says nbins %ju but kpdata holds %zu bins (%zu bytes)",
			 (uintmax_t)ki->nbins, kd->nbins, KPDATA_WORD * (KPDATA_HDR_WORDS + kd->nbins));
		return -1;
	}
	len = ki->text_end - ki->text_start;
	want = (len + (1u << ki->res) - 1) >> ki->res;
	if (kd->nbins != want) {
		kp_error("kpdata holds %zu bins but text 0x%08x-0x%08x at res %u needs %ju",
			 kd->nbins, ki->text_start, ki->text_end, ki->res, (uintmax_t)want);
		return -1;
	}
	if (ki->text_start < ke->text_lo || ki->text_end > ke->text_hi) {
		kp_error("kpinfo text 0x%08x-0x%08x is not inside %s's executable sections 0x%08x-0x%08x",
			 ki->text_start, ki->text_end, ke->path, ke->text_lo, ke->text_hi);
		return -1;
	}
	return 0;
}

/* 0: the ids match; -1: refused (message set); 1: differ but forced (message set). */
int kp_check_build_id(const struct kelf *ke, const struct kpinfo *ki, int force)
{
	const char *elf_id = ke->build_id[0] ? ke->build_id : "none";
	const char *info_id = (ki->have & KI_BUILD_ID) ? ki->build_id : "none";

	if (ke->build_id[0] && (ki->have & KI_BUILD_ID) && strcmp(ke->build_id, ki->build_id) == 0)
		return 0;
	/* Without an id on both sides nothing says the dump is from another
	 * kernel, only that it cannot be checked. */
	if (!ke->build_id[0] || !(ki->have & KI_BUILD_ID))
		kp_error("build-id missing: %s has %s, kpinfo has %s; the dump cannot be matched to "
			 "the kernel%s", ke->path, elf_id, info_id,
			 force ? " (--force: going on)" : " (--force to use it anyway)");
	else
		kp_error("build-id mismatch: %s has %s, kpinfo has %s%s", ke->path, elf_id, info_id,
			 force ? " (--force: going on)" :
			 "; the dump is from another kernel (--force to use it anyway)");
	return force ? 1 : -1;
}

int symbolize(struct profile *p, const struct kelf *ke, const struct kpdata *kd,
	      uint32_t text_start, unsigned res)
{
	size_t s = 0, n = 0;
	uint64_t sum = 0;

	memset(p, 0, sizeof *p);
	p->text_start = text_start;
	p->res = res;
	p->symcount = kp_calloc(ke->nsyms, sizeof *p->symcount);
	for (size_t i = 0; i < kd->nbins; i++)
		n += kd->bins[i] != 0;
	p->hits = kp_calloc(n, sizeof *p->hits);

	for (size_t i = 0; i < kd->nbins; i++) {
		struct hit *h;
		uint64_t addr = (uint64_t)text_start + ((uint64_t)i << res);

		if (kd->bins[i] == 0)
			continue;
		if (addr > UINT32_MAX) {
			kp_error("bin %zu lies above 4 GiB", i);
			profile_free(p);
			return -1;
		}
		h = &p->hits[p->nhits++];
		h->addr = (uint32_t)addr;
		h->count = kd->bins[i];
		sum += h->count;
		/* symbols only move forward, as the bins do */
		while (s < ke->nsyms && ke->syms[s].end <= addr)
			s++;
		if (s < ke->nsyms && ke->syms[s].start <= addr) {
			h->sym = (long)s;
			p->symcount[s] += h->count;
		} else {
			h->sym = -1;
			p->unknown += h->count;
		}
	}
	p->outside = kd->kernel > sum ? kd->kernel - sum : 0;
	p->kernel = kd->kernel > sum ? kd->kernel : sum;
	return 0;
}

void profile_free(struct profile *p)
{
	free(p->hits);
	free(p->symcount);
	p->hits = NULL;
	p->symcount = NULL;
	p->nhits = 0;
}
