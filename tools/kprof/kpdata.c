/* kpdata.c: read the kpdata counts (big-endian 32-bit words, laid out in
 * include/abi/kprof.h) and check the file on its own; profile.c checks it
 * against kpinfo and ELF. */
#include <stdlib.h>
#include <string.h>

#include "abi/be32.h"
#include "kprof.h"

/* 64 Mi bins: 64 MiB of text at res 0, far beyond a teaching kernel */
#define KPDATA_MAX_BYTES ((size_t)KPDATA_WORD * (KPDATA_HDR_WORDS + (64u << 20)))

int kpdata_parse(struct kpdata *kd, const unsigned char *buf, size_t len, const char *name)
{
	const size_t hdr = KPDATA_WORD * KPDATA_HDR_WORDS;

	memset(kd, 0, sizeof *kd);
	if (len < hdr) {
		kp_error("%s: truncated: %zu bytes, a kpdata has at least %zu (its two header words)",
			 name, len, hdr);
		return -1;
	}
	if (len % KPDATA_WORD) {
		kp_error("%s: size %zu is not a multiple of %d: not a whole number of words",
			 name, len, KPDATA_WORD);
		return -1;
	}
	kd->total = be32_get(buf + KPDATA_WORD * KPDATA_TOTAL);
	kd->kernel = be32_get(buf + KPDATA_WORD * KPDATA_KERNEL);
	if (kd->kernel > kd->total) {
		kp_error("%s: kernel ticks %u exceed total ticks %u: not a kpdata, or damaged",
			 name, kd->kernel, kd->total);
		return -1;
	}
	kd->nbins = len / KPDATA_WORD - KPDATA_HDR_WORDS;
	kd->bins = kp_calloc(kd->nbins, sizeof *kd->bins);
	for (size_t i = 0; i < kd->nbins; i++)
		kd->bins[i] = be32_get(buf + hdr + KPDATA_WORD * i);
	return 0;
}

int kpdata_read(struct kpdata *kd, const char *path)
{
	unsigned char *buf;
	size_t len;
	int r;

	memset(kd, 0, sizeof *kd);
	if (kp_readfile(path, KPDATA_MAX_BYTES, &buf, &len) < 0)
		return -1;
	r = kpdata_parse(kd, buf, len, path);
	free(buf);
	return r;
}

void kpdata_free(struct kpdata *kd)
{
	free(kd->bins);
	kd->bins = NULL;
	kd->nbins = 0;
}
