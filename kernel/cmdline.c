/* Kernel command-line parser. Words are separated by blanks; each is
 * `key=value` or a bare flag. */
#include "cmdline.h"
#include "clock.h"
#include "lib.h"

void cmdline_defaults(struct bootcfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->hz = HZ_DEFAULT;
	cfg->quantum = QUANTUM_DEFAULT;
}

struct numkey {
	const char *key;
	uint32_t min, max;
	size_t off;
};

static const struct numkey numkeys[] = {
	{ "hz", CLOCK_MIN_HZ, CLOCK_MAX_HZ, offsetof(struct bootcfg, hz) },
	{ "quantum", 1, QUANTUM_MAX, offsetof(struct bootcfg, quantum) },
	{ "pit.jitter", 0, 65535, offsetof(struct bootcfg, pit_jitter) },
};

/* bare words, or word=on|off|1|0 */
static const struct boolkey {
	const char *key;
	size_t off;
} boolkeys[] = {
	{ "ktest", offsetof(struct bootcfg, ktest) },
	{ "pitcheck", offsetof(struct bootcfg, pitcheck) },
};

extern const struct bootparam _bootparam_start[], _bootparam_end[];

const struct bootparam *bootparam_find(const char *key)
{
	for (const struct bootparam *b = _bootparam_start; b < _bootparam_end; b++)
		if (strcmp(b->key, key) == 0)
			return b;
	return NULL;
}

/* key=N, N in min..max; a bad value leaves *field as it was */
static int setnum(const char *key, uint32_t *field, uint32_t min, uint32_t max, bool hasval,
		  const char *val, size_t vlen, bool verbose)
{
	uint32_t v;

	if (!hasval || !parse_uint(val, vlen, &v) || v < min || v > max) {
		if (verbose)
			kprintf("cmdline: bad value '%.*s' for %s (%u..%u), using %u\n",
				(int)vlen, val, key, min, max, *field);
		return 1;
	}
	*field = v;
	return 0;
}

/* key, or key=on|off|1|0 */
static int setflag(const char *key, bool *flag, bool hasval, const char *val, size_t vlen,
		   bool verbose)
{
	bool on = !hasval || word_is(val, vlen, "1") || word_is(val, vlen, "on");

	if (!on && !word_is(val, vlen, "0") && !word_is(val, vlen, "off")) {
		if (verbose)
			kprintf("cmdline: bad value '%.*s' for %s (on/off), ignored\n",
				(int)vlen, val, key);
		return 1;
	}
	*flag = on;
	return 0;
}

/* failalloc=N or failalloc=START:PERMILLE */
static int failalloc(const char *val, size_t vlen, struct bootcfg *cfg, bool verbose)
{
	size_t colon = 0;
	uint32_t a, b = 0;

	while (colon < vlen && val[colon] != ':')
		colon++;
	if (!parse_uint(val, colon, &a) ||
	    (colon < vlen && !parse_uint(val + colon + 1, vlen - colon - 1, &b)) ||
	    (colon == vlen ? a == 0 : b == 0 || b > 1000)) {
		if (verbose)
			kprintf("cmdline: bad value '%.*s' for failalloc (N >= 1, or START:PERMILLE "
				"with PERMILLE 1..1000), ignored\n", (int)vlen, val);
		return 1;
	}
	cfg->failalloc_every = colon == vlen ? a : 0;
	cfg->failalloc_start = colon == vlen ? 0 : a;
	cfg->failalloc_permille = b;
	return 0;
}

/* one word: w[0..n), with the '=' at eq (or eq == n for a bare word) */
static int word(const char *w, size_t n, struct bootcfg *cfg, bool verbose)
{
	size_t eq = 0;
	const char *val;
	size_t vlen;

	while (eq < n && w[eq] != '=')
		eq++;
	val = w + eq + 1;
	vlen = eq < n ? n - eq - 1 : 0;

	for (size_t i = 0; i < NELEM(numkeys); i++) {
		const struct numkey *k = &numkeys[i];
		if (word_is(w, eq, k->key))
			return setnum(k->key, (uint32_t *)((char *)cfg + k->off), k->min, k->max,
				      eq < n, val, vlen, verbose);
	}
	for (size_t i = 0; i < NELEM(boolkeys); i++) {
		const struct boolkey *k = &boolkeys[i];
		if (word_is(w, eq, k->key))
			return setflag(k->key, (bool *)((char *)cfg + k->off), eq < n, val, vlen,
				       verbose);
	}
	for (const struct bootparam *b = _bootparam_start; b < _bootparam_end; b++) {
		if (!word_is(w, eq, b->key))
			continue;
		if (b->num)
			return setnum(b->key, b->num, b->min, b->max, eq < n, val, vlen, verbose);
		return setflag(b->key, b->flag, eq < n, val, vlen, verbose);
	}
	if (word_is(w, eq, "crash") && eq < n && vlen < sizeof cfg->crash) {
		memcpy(cfg->crash, val, vlen);
		cfg->crash[vlen] = 0;
		return 0;
	}
	if (word_is(w, eq, "failalloc") && eq < n)
		return failalloc(val, vlen, cfg, verbose);
	if (verbose)
		kprintf("cmdline: unknown key '%.*s', ignored\n", (int)eq, w);
	return 1;
}

int cmdline_parse(const char *s, struct bootcfg *cfg, bool verbose)
{
	int bad = 0;

	while (*s) {
		size_t n = 0;
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		while (s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != '\n')
			n++;
		if (n)
			bad += word(s, n, cfg, verbose);
		s += n;
	}
	return bad;
}
