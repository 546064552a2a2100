/* wr_readprofile.c: --format readprofile: write DIR/profile in the Linux
 * /proc/profile layout and DIR/System.map, so util-linux readprofile(8)
 * can read a kprof dump and charge each function what kprof charges it.
 *
 * profile: native-endian unsigned ints: the step (bytes per bin, 1 << res),
 * one count per bin from text_start, and a last word that readprofile
 * prints as *unknown*.
 *
 * readprofile charges profile word j (j >= 1) to the map symbol containing
 * the byte _stext + (j + 1) * step - 1, one bin past where the counts begin,
 * so the map's _stext sits one bin below text_start to cancel that. Each
 * range of addresses with one owner is listed at the first bin kprof charges
 * to it (its start rounded up to a bin boundary; at res 0 its own address),
 * so bins straddling two symbols go the same way in both tools, and an outer
 * function around an inner one is listed once for each of its ranges. Bins
 * kprof charges to no symbol are moved into the *unknown* word, with the
 * kernel ticks outside the text.
 *
 * readprofile guesses the byte order from the counts unless given -n, and
 * a lone bin of 0x20000 looks byte-swapped to it; the command printed for
 * the user has -n. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kprof.h"

#define MAP_NAME_MAX 100           /* readprofile reads 128-byte map lines */

static int reserved(const char *name)
{
	return strcmp(name, "_stext") == 0 || strcmp(name, "__stext") == 0 ||
	       strcmp(name, "_etext") == 0 || strcmp(name, "__etext") == 0;
}

static void map_name(char *out, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i < MAP_NAME_MAX; i++)
		out[i] = (unsigned char)name[i] <= ' ' ? '_' : name[i];
	out[i] = '\0';
	if (reserved(out))
		strcat(out, "~");       /* would end or restart readprofile's scan */
}

static char map_type(const struct ksym *s)
{
	return s->bind == STB_LOCAL ? 't' : s->bind == STB_WEAK ? 'W' : 'T';
}

static int write_profile(const char *path, const struct sampleset *ss, const struct profile *p)
{
	size_t n = KPDATA_HDR_WORDS + ss->nbins;
	unsigned int *w = kp_calloc(n, sizeof *w);
	uint64_t unknown = p->unknown + p->outside;
	FILE *f;
	int ok;

	w[0] = 1u << ss->res;
	for (size_t i = 0; i < p->nhits; i++)
		if (p->hits[i].sym >= 0)
			w[1 + ((ss->flat[i].addr - ss->text_start) >> ss->res)] = (unsigned int)ss->flat[i].count;
	w[n - 1] = unknown > UINT32_MAX ? UINT32_MAX : (unsigned int)unknown;

	f = fopen(path, "wb");
	if (f == NULL) {
		kp_error("%s: %s", path, strerror(errno));
		free(w);
		return -1;
	}
	ok = fwrite(w, sizeof *w, n, f) == n;
	ok = (fclose(f) == 0) && ok;
	free(w);
	if (!ok) {
		kp_error("%s: write failed", path);
		return -1;
	}
	return 0;
}

static int write_map(const char *path, const struct kelf *ke, const struct sampleset *ss,
		     size_t *nsyms)
{
	uint64_t step = 1u << ss->res, ts = ss->text_start;
	char name[MAP_NAME_MAX + 2];
	FILE *f = fopen(path, "w");
	int ok;

	if (f == NULL) {
		kp_error("%s: %s", path, strerror(errno));
		return -1;
	}
	*nsyms = 0;
	fprintf(f, "%08jx T _stext\n", (uintmax_t)(ts - step));
	for (size_t i = 0; i < ke->nranges; i++) {
		const struct krange *r = &ke->ranges[i];
		uint64_t first;

		if (r->end <= ts)
			continue;
		/* the first bin whose first byte the range owns */
		first = r->start <= ts ? 0 : (r->start - ts + step - 1) >> ss->res;
		if (first >= ss->nbins || ts + (first << ss->res) >= r->end)
			continue;
		map_name(name, ke->syms[r->sym].name);
		fprintf(f, "%08jx %c %s\n", (uintmax_t)(ts + (first << ss->res)),
			map_type(&ke->syms[r->sym]), name);
		(*nsyms)++;
	}
	fprintf(f, "%08jx T _etext\n", (uintmax_t)(ts + (ss->nbins << ss->res)));
	ok = !ferror(f);
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		kp_error("%s: write failed", path);
		return -1;
	}
	return 0;
}

static int readprofile_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
			     const struct sampleset *ss, const struct profile *p)
{
	uint64_t step = 1u << ss->res;
	const char *dir = wo->outdir;
	size_t nsyms;
	char *prof, *map;
	int r = -1;

	if (!ss->binned || ss->nmods != 1 || sy->of[0] < 0) {
		kp_error("--format readprofile needs a dump of the kernel's bins (kpdata), not %s",
			 ss->format);
		return -1;
	}
	if (ss->text_start <= step) {
		kp_error("text_start 0x%08jx is too low for a readprofile map (_stext would be 0)",
			 (uintmax_t)ss->text_start);
		return -1;
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		kp_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	prof = kp_fmt("%s/profile", dir);
	map = kp_fmt("%s/System.map", dir);
	if (write_profile(prof, ss, p) == 0 && write_map(map, &sy->elfs[sy->of[0]], ss, &nsyms) == 0) {
		fprintf(out, "wrote %s (%ju bins of %ju byte%s) and %s (%zu symbols)\n", prof,
			(uintmax_t)ss->nbins, (uintmax_t)step, step > 1 ? "s" : "", map, nsyms);
		fprintf(out, "read them with: readprofile -p %s -m %s -n\n", prof, map);
		r = 0;
	}
	free(prof);
	free(map);
	return r;
}

const struct writer writer_readprofile = { .name = "readprofile", .needs_dir = 1, .write = readprofile_write, .ninputs = 1 };
