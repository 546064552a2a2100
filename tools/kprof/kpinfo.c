/* kpinfo.c: parse the kpinfo text, one "key value" pair a line, with the
 * keys and value forms of include/abi/kprof.h's KPINFO_KEYS. Unknown keys
 * are ignored so the kernel may add some; a known key with a bad value, or
 * given twice, is an error, since guessing would give a wrong report. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define KPINFO_MAX (1u << 20)

static int parse_u64(const char *s, int base, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	/* strtoull takes signs and spaces; the format has neither */
	if (!isxdigit((unsigned char)s[0]) || (base == 10 && !isdigit((unsigned char)s[0])))
		return -1;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno || *end != '\0' || x > max)
		return -1;
	*v = x;
	return 0;
}

static int parse_hex_id(const char *s, char *out, size_t outsz)
{
	size_t n = strlen(s);

	if (n == 0 || n % 2 || n >= outsz)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[n] = '\0';
	return 0;
}

enum { F_HEX32, F_DEC, F_RATE, F_STATE, F_HEXID, F_TEXT };

static const struct {
	const char *key;
	int bit, form;
} keys[] = {
#define KEY_ROW(id, key, form) { key, KI_BIT_##id, F_##form },
	KPINFO_KEYS(KEY_ROW)
#undef KEY_ROW
};

/* The largest value a decimal key may have. */
static uint64_t dec_max(int bit)
{
	return bit == KI_BIT_RES ? KPROF_RES_MAX : bit == KI_BIT_NBINS ? UINT32_MAX : UINT64_MAX;
}

/* One line, already cut out and NUL-terminated; `key` and `val` point in it. */
static int parse_pair(struct kpinfo *ki, unsigned *seen, const char *key, const char *val,
		      const char *name, int lineno)
{
	uint64_t v = 0;
	double hz = 0;
	char *end;
	size_t k, n;
	int bit;

	for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
		if (strcmp(key, keys[k].key) == 0)
			break;
	if (k == sizeof keys / sizeof keys[0])
		return 0;                   /* a key of a newer kernel */
	bit = keys[k].bit;
	if (*seen & (1u << bit)) {
		/* taking either line would be a guess */
		kp_error("%s:%d: %s given twice (first on line %d)", name, lineno, key,
			 ki->lines[bit]);
		return -1;
	}
	*seen |= 1u << bit;
	ki->lines[bit] = lineno;
	switch (keys[k].form) {
	case F_HEX32:
		if (parse_u64(val, 16, 0xFFFFFFFFu, &v) < 0)
			goto bad;
		break;
	case F_DEC:
		if (parse_u64(val, 10, dec_max(bit), &v) < 0)
			goto bad;
		break;
	case F_RATE:
		if (!isdigit((unsigned char)val[0]))
			goto bad;
		errno = 0;
		hz = strtod(val, &end);
		if (errno || *end != '\0' || !isfinite(hz) || hz <= 0)
			goto bad;
		break;
	case F_STATE:
		/* "on" or "off", maybe followed by a note: "off (stop while off: no change)" */
		n = strcspn(val, " \t");
		if (!((n == 2 && strncmp(val, "on", 2) == 0) || (n == 3 && strncmp(val, "off", 3) == 0)))
			goto bad;
		memcpy(ki->state, val, n);
		ki->state[n] = '\0';
		break;
	case F_HEXID:
		/* a kernel without the note says "none": then there is nothing to match */
		if (val[0] == '\0' || strcmp(val, "none") == 0)
			return 0;
		if (parse_hex_id(val, ki->build_id, sizeof ki->build_id) < 0)
			goto bad;
		break;
	case F_TEXT:
		return 0;                   /* free text: nothing to check */
	}
	switch (bit) {
	case KI_BIT_TEXT_START: ki->text_start = (uint32_t)v; break;
	case KI_BIT_TEXT_END: ki->text_end = (uint32_t)v; break;
	case KI_BIT_RES: ki->res = (unsigned)v; break;
	case KI_BIT_NBINS: ki->nbins = v; break;
	case KI_BIT_HZ: ki->hz = hz; break;
	case KI_BIT_TICKS: ki->ticks = v; break;
	case KI_BIT_KTICKS: ki->kernel_ticks = v; break;
	case KI_BIT_IDLE: ki->idle = v; break;
	case KI_BIT_SATURATED: ki->saturated = v; break;
	case KI_BIT_LOST: ki->lost = v; break;
	}
	ki->have |= 1u << bit;
	return 0;
bad:
	kp_error("%s:%d: bad %s value '%.40s'", name, lineno, key, val);
	return -1;
}

/* Each line is copied whole, however long, before it is parsed: cutting a
 * long line would turn "res 000...03" into "res 0". */
int kpinfo_parse(struct kpinfo *ki, const char *text, size_t len, const char *name)
{
	size_t pos = 0;
	unsigned seen = 0;
	int lineno = 0;

	memset(ki, 0, sizeof *ki);
	if (memchr(text, '\0', len) != NULL) {
		kp_error("%s: not a kpinfo: it holds NUL bytes", name);
		return -1;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *line, *key, *val, *e;
		int r;

		lineno++;
		line = kp_calloc(n + 1, 1);
		memcpy(line, text + pos, n);
		pos += n + (nl != NULL);

		e = line + n;
		while (e > line && isspace((unsigned char)e[-1]))
			*--e = '\0';
		key = line;
		while (isspace((unsigned char)*key))
			key++;
		if (*key == '\0' || *key == '#') {
			free(line);
			continue;
		}
		val = key;
		while (*val && !isspace((unsigned char)*val))
			val++;
		if (*val)
			*val++ = '\0';
		while (isspace((unsigned char)*val))
			val++;
		r = parse_pair(ki, &seen, key, val, name, lineno);
		free(line);
		if (r < 0)
			return -1;
	}
	return 0;
}

int kpinfo_read(struct kpinfo *ki, const char *path)
{
	unsigned char *buf;
	size_t len;
	int r;

	if (kp_readfile(path, KPINFO_MAX, &buf, &len) < 0)
		return -1;
	r = kpinfo_parse(ki, (const char *)buf, len, path);
	free(buf);
	return r;
}
