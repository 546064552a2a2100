/* accuracy.c: kprof accuracy PROGRAM.elf HEAT SAMPLES: how far a sampled
 * profile is from the exact heat of the same program, per function:
 *   tvd       total variation distance between the two distributions
 *   floor     its expected value for N samples drawn at random from the
 *             exact distribution (binomial mean absolute deviation,
 *             De Moivre's closed form, summed over functions, halved)
 *   ratio     tvd / floor: about 1 for an unbiased sampler
 *   spearman  rank correlation over the functions with >= 1 % exact share
 *   worst     the function farthest from its exact share, in standard
 *             deviations of a binomial share with the same N
 * SAMPLES is any dump the pipeline's readers take (a profil(2) gmon file,
 * say; its counts are charged at each bin's first byte) or "address
 * count" text, one sampled PC a line. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"

#define ACC_USAGE "kprof accuracy [--min-share PERCENT] [--force] PROGRAM.elf HEAT SAMPLES"

/* A dump a reader of the pipeline knows (not a kpdata: those are kernel
 * bins): its flat counts. 1 if it was one, 0 if not, -1 on error. */
static int samples_from_reader(struct samples *s, const char *path)
{
	const struct reader *r;
	struct sampleset ss = { 0 };
	struct ropen ro = { .path = path };

	if (reader_for(path, &r) < 0)
		return -1;
	if (strcmp(r->name, "kpdata") == 0)
		return 0;
	if (r->read(&ss, &ro) < 0)
		return -1;
	s->addr = kp_calloc(ss.nflat + 1, sizeof *s->addr);
	s->count = kp_calloc(ss.nflat + 1, sizeof *s->count);
	for (size_t i = 0; i < ss.nflat; i++) {
		s->addr[i] = (uint32_t)ss.flat[i].addr;
		s->count[i] = ss.flat[i].count;
		s->total += ss.flat[i].count;
	}
	s->n = ss.nflat;
	sampleset_free(&ss);
	if (s->total == 0) {
		kp_error("%s: no samples", path);
		samples_free(s);
		return -1;
	}
	return 1;
}

int samples_read(struct samples *s, const char *path)
{
	unsigned char *data;
	size_t len, cap = 0, lineno = 0;
	char *p, *end;
	int r;

	memset(s, 0, sizeof *s);
	if ((r = samples_from_reader(s, path)) != 0)
		return r < 0 ? -1 : 0;
	if (kp_readfile(path, (size_t)1 << 30, &data, &len) < 0)
		return -1;
	data = realloc(data, len + 1);
	data[len] = '\0';
	for (p = (char *)data; *p; p = end + (*end != '\0')) {
		unsigned long long a, c;
		char *q;
		end = p + strcspn(p, "\n");
		lineno++;
		if (p == end || *p == '#')
			continue;
		errno = 0;
		a = strtoull(p, &q, 16);
		if (errno || q == p || *q != ' ' || a > UINT32_MAX)
			goto bad;
		c = strtoull(q + 1, &q, 10);
		if (errno || (*q != '\n' && *q != '\0' && *q != '\r') || q[-1] == ' ')
			goto bad;
		if (c > (1ull << 53) - s->total) {     /* beyond a double's exact integers */
			kp_error("%s:%zu: the counts add up to more than 2^53", path, lineno);
			goto fail;
		}
		if (s->n == cap) {
			cap = cap ? 2 * cap : 1024;
			s->addr = realloc(s->addr, cap * sizeof *s->addr);
			s->count = realloc(s->count, cap * sizeof *s->count);
			if (!s->addr || !s->count) {
				kp_error("out of memory");
				goto fail;
			}
		}
		s->addr[s->n] = (uint32_t)a;
		s->count[s->n++] = c;
		s->total += c;
	}
	free(data);
	if (s->total == 0) {
		kp_error("%s: no samples", path);
		samples_free(s);
		return -1;
	}
	return 0;
bad:
	kp_error("%s:%zu: not an \"address count\" line", path, lineno);
fail:
	free(data);
	samples_free(s);
	return -1;
}

void samples_free(struct samples *s)
{
	free(s->addr);
	free(s->count);
	memset(s, 0, sizeof *s);
}

double binom_mean_abs_dev(uint64_t n, double p)
{
	double m, lc;

	if (n == 0 || p <= 0 || p >= 1)
		return 0;
	m = floor(n * p) + 1;
	if (m > n)
		return 0;
	lc = lgamma(n + 1.0) - lgamma(m + 1) - lgamma(n - m + 1);
	return 2 * m * exp(lc + m * log(p) + (n - m + 1) * log1p(-p));
}

/* ranks 1..n, ties sharing their mean rank */
static void ranks(const double *x, double *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t below = 0, same = 0;
		for (size_t j = 0; j < n; j++) {
			below += x[j] < x[i];
			same += x[j] == x[i];
		}
		r[i] = below + (same + 1) / 2.0;
	}
}

double spearman(const double *x, const double *y, size_t n)
{
	double *rx, *ry, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

	if (n < 2)
		return NAN;
	rx = kp_calloc(n, sizeof *rx);
	ry = kp_calloc(n, sizeof *ry);
	ranks(x, rx, n);
	ranks(y, ry, n);
	for (size_t i = 0; i < n; i++)
		mx += rx[i] / n, my += ry[i] / n;
	for (size_t i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	free(rx);
	free(ry);
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

struct share {
	long sym;
	double exact, sampled;
};

static int by_exact(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->exact != y->exact)
		return x->exact < y->exact ? 1 : -1;
	return x->sampled < y->sampled ? 1 : x->sampled > y->sampled ? -1 : 0;
}

int accuracy_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "min-share", required_argument, NULL, 'm' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kelf ke = { 0 };
	struct heatdump h = { 0 };
	struct samples s = { 0 };
	struct share *sh = NULL;
	double minshare = 1.0, tvd = 0, floor_ = 0, worst = 0, *x = NULL, *y = NULL;
	uint64_t total = 0;
	size_t nsh, nrank = 0, nused = 0;
	long worst_i = -1;
	int c, status = 2, force = 0, mismatch = 0;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = 1;
			break;
		case 'm':
			errno = 0;
			minshare = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(minshare >= 0 && minshare <= 100)) {
				fprintf(stderr, "kprof: --min-share wants a percentage, not %s\n", optarg);
				return 2;
			}
			break;
		case 'h':
			printf("usage: %s\n\nCompares a sampled profile (SAMPLES: a gmon file, or \"address count\" lines) with the\n"
			       "exact heat (HEAT: /dev/heat) of the same program, per function: total\n"
			       "variation distance, its expectation for random sampling with the same N,\n"
			       "their ratio, Spearman's rank correlation over the functions with at least\n"
			       "--min-share percent (default 1), and the worst function in standard deviations.\n"
			       "A heatinfo beside HEAT must name PROGRAM's build-id, or --force.\n",
			       ACC_USAGE);
			return 0;
		default:
			fprintf(stderr, "kprof: unknown option %s; usage: %s\n", argv[optind - 1], ACC_USAGE);
			return 2;
		}
	}
	if (argc - optind != 3) {
		fprintf(stderr, "kprof: accuracy wants PROGRAM.elf, HEAT and SAMPLES; usage: %s\n", ACC_USAGE);
		return 2;
	}
	if (kelf_open(&ke, argv[optind], 0) < 0 || heat_read(&h, argv[optind + 1]) < 0 ||
	    (mismatch = heat_check_build_id(&ke, argv[optind + 1], force)) < 0 ||
	    samples_read(&s, argv[optind + 2]) < 0)
		goto fail;
	if (mismatch)
		fprintf(stderr, "kprof: warning: %s\n", kp_lasterror());
	/* one share per symbol, and the last for addresses no symbol owns */
	nsh = ke.nsyms + 1;
	sh = kp_calloc(nsh, sizeof *sh);
	for (size_t i = 0; i < nsh; i++)
		sh[i].sym = i < ke.nsyms ? (long)i : -1;
	for (size_t i = 0; i < h.n; i++) {
		long k = heat_symbol(&ke, h.l[i].addr);
		sh[k < 0 ? (long)ke.nsyms : k].exact += h.l[i].count;
		total += h.l[i].count;
	}
	for (size_t i = 0; i < s.n; i++) {
		long k = heat_symbol(&ke, s.addr[i]);
		sh[k < 0 ? (long)ke.nsyms : k].sampled += s.count[i];
	}
	x = kp_calloc(nsh, sizeof *x);
	y = kp_calloc(nsh, sizeof *y);
	for (size_t i = 0; i < nsh; i++) {
		struct share *f = &sh[i];
		f->exact /= total;
		f->sampled /= s.total;
		tvd += fabs(f->exact - f->sampled) / 2;
		floor_ += binom_mean_abs_dev(s.total, f->exact) / s.total / 2;
		if (f->exact > 0 || f->sampled > 0)
			nused++;
		if (f->exact > 0 && f->exact < 1) {
			double z = (f->sampled - f->exact) / sqrt(f->exact * (1 - f->exact) / s.total);
			if (fabs(z) > fabs(worst))
				worst = z, worst_i = (long)i;
		}
	}
	qsort(sh, nsh, sizeof *sh, by_exact);
	for (size_t i = 0; i < nsh; i++)
		if (sh[i].exact * 100 >= minshare && sh[i].exact > 0) {
			x[nrank] = sh[i].exact;
			y[nrank++] = sh[i].sampled;
		}
	printf("accuracy: %s: %" PRIu64 " samples against %" PRIu64 " exact instructions, %zu functions\n",
	       argv[optind], s.total, total, nused);
	printf("N %" PRIu64 " tvd %.4f floor %.4f ratio %.2f\n", s.total, tvd, floor_,
	       floor_ > 0 ? tvd / floor_ : tvd > 0 ? INFINITY : 0);
	if (nrank >= 2 && !isnan(spearman(x, y, nrank)))
		printf("spearman %.3f over %zu functions with >= %g %%\n", spearman(x, y, nrank), nrank, minshare);
	else if (nrank >= 2)
		printf("spearman n/a: the shares of the %zu functions with >= %g %% tie\n", nrank, minshare);
	else
		printf("spearman n/a: %zu functions with >= %g %%\n", nrank, minshare);
	for (size_t i = 0; i < nsh; i++)        /* sh was sorted: find the worst again */
		if (worst_i >= 0 && sh[i].sym == (worst_i < (long)ke.nsyms ? worst_i : -1)) {
			printf("worst %s: sampled %.2f %% exact %.2f %%, %+.1f sd\n",
			       sh[i].sym < 0 ? "(no symbol)" : ke.syms[sh[i].sym].name,
			       100 * sh[i].sampled, 100 * sh[i].exact, worst);
			break;
		}
	printf("%9s %9s %8s  %s\n", "exact%", "sampled%", "sd", "function");
	for (size_t i = 0; i < nsh; i++) {
		double e = sh[i].exact, q = sh[i].sampled;
		if (e == 0 && q == 0)
			continue;
		if (e > 0 && e < 1)
			printf("%9.2f %9.2f %+8.1f  %s\n", 100 * e, 100 * q,
			       (q - e) / sqrt(e * (1 - e) / s.total),
			       sh[i].sym < 0 ? "(no symbol)" : ke.syms[sh[i].sym].name);
		else
			printf("%9.2f %9.2f %8s  %s\n", 100 * e, 100 * q, e == 0 ? "no heat" : "-",
			       sh[i].sym < 0 ? "(no symbol)" : ke.syms[sh[i].sym].name);
	}
	status = fflush(stdout) == 0 ? 0 : 2;
	goto out;
fail:
	fprintf(stderr, "kprof: %s\n", kp_lasterror());
out:
	free(x);
	free(y);
	free(sh);
	samples_free(&s);
	heat_free(&h);
	kelf_close(&ke);
	return status;
}
