/* wr_accuracy.c: kprof accuracy PROGRAM.elf HEAT SAMPLES: how far a sampled
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
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"

/* Each symbol's count in the modules of the set that are the program
 * (paired with the ELF the pipeline opened first), and the count in them
 * that no symbol owns, in sh[nsyms]; returns their sum. Samples in other
 * modules (the kernel's, another program's) are not the program's. */
static uint64_t per_symbol(const struct pipe *pp, double *counts, size_t nsyms)
{
	uint64_t n = 0;

	for (size_t i = 0; i < pp->ss.nflat; i++) {
		const struct hit *h = &pp->p.hits[i];
		const struct flat *f = &pp->ss.flat[i];

		if (f->mod >= pp->sy.nof || pp->sy.of[f->mod] != 0)
			continue;
		counts[h->sym < 0 ? nsyms : (size_t)h->sym] += f->count;
		n += f->count;
	}
	return n;
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

static int by_sampled(const void *a, const void *b)
{
	const struct share *x = *(const struct share *const *)a, *y = *(const struct share *const *)b;

	if (x->sampled != y->sampled)
		return x->sampled < y->sampled ? 1 : -1;
	return x->exact < y->exact ? 1 : x->exact > y->exact ? -1 : 0;
}

static const char *share_name(const struct kelf *ke, const struct share *s)
{
	return s->sym < 0 ? "(no symbol)" : ke->syms[s->sym].name;
}

/* The ten hottest functions by the exact count and by the samples: how many
 * are in both; and every function off by more than 3 sd. */
static void agreement(FILE *out, const struct kelf *ke, struct share *sh, size_t nsh, uint64_t N)
{
	const struct share **by = kp_calloc(nsh ? nsh : 1, sizeof *by);
	size_t nex = 0, nsa = 0, same = 0, off = 0;

	for (size_t i = 0; i < nsh; i++) {      /* sh is sorted by exact share */
		nex += sh[i].exact > 0 && nex < 10 && i == nex;
		by[i] = &sh[i];
	}
	qsort(by, nsh, sizeof *by, by_sampled);
	while (nsa < nsh && nsa < 10 && by[nsa]->sampled > 0)
		nsa++;
	for (size_t i = 0; i < nsa; i++)
		same += by[i] >= sh && by[i] < sh + nex;
	fprintf(out, "top10 %zu of the %zu hottest functions by the exact count are the sampled top %zu\n",
		same, nex, nsa);
	fprintf(out, "off by more than 3 sd:");
	for (size_t i = 0; i < nsh; i++) {
		double e = sh[i].exact, z;
		if (e <= 0 || e >= 1)
			continue;
		z = (sh[i].sampled - e) / sqrt(e * (1 - e) / N);
		if (fabs(z) > 3) {
			fprintf(out, "%s %s (%+.1f)", off ? "," : "", share_name(ke, &sh[i]), z);
			off++;
		}
	}
	fprintf(out, "%s\n", off ? "" : " none");
	free(by);
}

static const struct wopt accuracy_opts[] = {
	{ .name = "min-share", .value = "PERCENT", .number = "a percentage", .def = 1, .lo = 0, .hi = 100 },
	{ .name = "top", .value = "N", .help = "only the N functions with the largest exact share in the table" },
	{ .name = "force" },
	{ .name = NULL },
};

/* in[0]: the heat, in[1]: the samples, both of the program */
static int accuracy_view(FILE *out, const struct wopts *wo, struct pipe *in)
{
	const struct pipe *exact = &in[0], *sampled = &in[1];
	const struct kelf *ke;
	struct share *sh = NULL;
	double minshare = wopt_num(accuracy_opts, wo, "min-share"), tvd = 0, floor_ = 0, worst = 0, *x = NULL, *y = NULL, *ex = NULL, *sa = NULL;
	uint64_t total = 0, N = 0;
	size_t nsh, nrank = 0, nused = 0, shown = 0;
	long worst_i = -1, top = wo->top;
	int status = -1;

	if (strcmp(sampled->rd->name, "kpdata") == 0 || strcmp(sampled->rd->name, "heat") == 0) {
		kp_error("%s is a %s, not samples of a program", wo->dumps[1], sampled->rd->name);
		return -1;
	}
	ke = pipe_elf(exact, 0);
	/* one share per symbol, and the last for addresses no symbol owns */
	nsh = ke->nsyms + 1;
	ex = kp_calloc(nsh, sizeof *ex);
	sa = kp_calloc(nsh, sizeof *sa);
	total = per_symbol(exact, ex, ke->nsyms);
	N = per_symbol(sampled, sa, ke->nsyms);
	if (total == 0) {
		kp_error("%s: no instruction of %s ran", wo->dumps[0], wo->elfs[0]);
		goto out;
	}
	if (N == 0) {
		kp_error("%s: no sample of %s", wo->dumps[1], wo->elfs[0]);
		goto out;
	}
	sh = kp_calloc(nsh, sizeof *sh);
	for (size_t i = 0; i < nsh; i++)
		sh[i] = (struct share){ i < ke->nsyms ? (long)i : -1, ex[i], sa[i] };
	x = kp_calloc(nsh, sizeof *x);
	y = kp_calloc(nsh, sizeof *y);
	for (size_t i = 0; i < nsh; i++) {
		struct share *f = &sh[i];
		f->exact /= total;
		f->sampled /= N;
		tvd += fabs(f->exact - f->sampled) / 2;
		floor_ += binom_mean_abs_dev(N, f->exact) / N / 2;
		if (f->exact > 0 || f->sampled > 0)
			nused++;
		if (f->exact > 0 && f->exact < 1) {
			double z = (f->sampled - f->exact) / sqrt(f->exact * (1 - f->exact) / N);
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
	fprintf(out, "accuracy: %s: %" PRIu64 " samples against %" PRIu64 " exact instructions, %zu functions\n",
		wo->elfs[0], N, total, nused);
	fprintf(out, "N %" PRIu64 " tvd %.4f floor %.4f ratio %.2f\n", N, tvd, floor_,
		floor_ > 0 ? tvd / floor_ : tvd > 0 ? INFINITY : 0);
	if (nrank >= 2 && !isnan(spearman(x, y, nrank)))
		fprintf(out, "spearman %.3f over %zu functions with >= %g %%\n", spearman(x, y, nrank), nrank, minshare);
	else if (nrank >= 2)
		fprintf(out, "spearman n/a: the shares of the %zu functions with >= %g %% tie\n", nrank, minshare);
	else
		fprintf(out, "spearman n/a: %zu functions with >= %g %%\n", nrank, minshare);
	for (size_t i = 0; i < nsh; i++)        /* sh was sorted: find the worst again */
		if (worst_i >= 0 && sh[i].sym == (worst_i < (long)ke->nsyms ? worst_i : -1)) {
			fprintf(out, "worst %s: sampled %.2f %% exact %.2f %%, %+.1f sd\n",
				sh[i].sym < 0 ? "(no symbol)" : ke->syms[sh[i].sym].name,
				100 * sh[i].sampled, 100 * sh[i].exact, worst);
			break;
		}
	agreement(out, ke, sh, nsh, N);
	fprintf(out, "%9s %9s %8s  %s\n", "exact%", "sampled%", "sd", "function");
	for (size_t i = 0; i < nsh && (!top || (long)shown < top); i++) {
		double e = sh[i].exact, q = sh[i].sampled;
		if (e == 0 && q == 0)
			continue;
		shown++;
		if (e > 0 && e < 1)
			fprintf(out, "%9.2f %9.2f %+8.1f  %s\n", 100 * e, 100 * q,
				(q - e) / sqrt(e * (1 - e) / N),
				sh[i].sym < 0 ? "(no symbol)" : ke->syms[sh[i].sym].name);
		else
			fprintf(out, "%9.2f %9.2f %8s  %s\n", 100 * e, 100 * q, e == 0 ? "no heat" : "-",
				sh[i].sym < 0 ? "(no symbol)" : ke->syms[sh[i].sym].name);
	}
	status = 0;
out:
	free(x);
	free(y);
	free(sh);
	free(ex);
	free(sa);
	return status;
}

const struct writer writer_accuracy = {
	.name = "accuracy",
	.ninputs = 2,
	.formats = { "heat", NULL },
	.opts = accuracy_opts,
	.usage = "kprof accuracy [--min-share PERCENT] [--top N] [--force] PROGRAM.elf HEAT SAMPLES",
	.wants = "PROGRAM.elf, HEAT and SAMPLES",
	.about = "Compares a sampled profile (SAMPLES: any dump kprof reads, or \"address count\" lines) with the\n"
		 "exact heat (HEAT: /dev/heat) of the same program, per function: total\n"
		 "variation distance, its expectation for random sampling with the same N,\n"
		 "their ratio, Spearman's rank correlation over the functions with at least\n"
		 "--min-share percent (default 1), and the worst function in standard deviations.\n"
		 "Only SAMPLES' samples of PROGRAM count (a dump of several modules pairs\n"
		 "them by build-id). A heatinfo beside HEAT must name PROGRAM's build-id, or --force.\n",
	.view = accuracy_view,
};
