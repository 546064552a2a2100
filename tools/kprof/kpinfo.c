/* kpinfo.c: parse the kpinfo text, one "key value" pair a line
 * (include/abi/kprof.h).
 * Unknown keys are ignored so the kernel may add some; a known key with a
 * bad value is an error, since guessing would give a wrong report. */
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

/* One line, already cut out and NUL-terminated; `key` and `val` point in it. */
static int parse_pair(struct kpinfo *ki, const char *key, const char *val,
		      const char *name, int lineno)
{
	uint64_t v;
	char *end;

	if (strcmp(key, KPINFO_TEXT_START) == 0) {
		if (parse_u64(val, 16, 0xFFFFFFFFu, &v) < 0)
			goto bad;
		ki->text_start = (uint32_t)v;
		ki->have |= KI_TEXT_START;
	} else if (strcmp(key, KPINFO_TEXT_END) == 0) {
		if (parse_u64(val, 16, 0xFFFFFFFFu, &v) < 0)
			goto bad;
		ki->text_end = (uint32_t)v;
		ki->have |= KI_TEXT_END;
	} else if (strcmp(key, KPINFO_RES) == 0) {
		if (parse_u64(val, 10, KPROF_RES_MAX, &v) < 0)
			goto bad;
		ki->res = (unsigned)v;
		ki->have |= KI_RES;
	} else if (strcmp(key, KPINFO_NBINS) == 0) {
		if (parse_u64(val, 10, UINT32_MAX, &v) < 0)
			goto bad;
		ki->nbins = v;
		ki->have |= KI_NBINS;
	} else if (strcmp(key, KPINFO_HZ) == 0) {
		if (!isdigit((unsigned char)val[0]))
			goto bad;
		errno = 0;
		ki->hz = strtod(val, &end);
		if (errno || *end != '\0' || !isfinite(ki->hz) || ki->hz <= 0)
			goto bad;
		ki->have |= KI_HZ;
	} else if (strcmp(key, KPINFO_TICKS) == 0) {
		if (parse_u64(val, 10, UINT64_MAX, &ki->ticks) < 0)
			goto bad;
		ki->have |= KI_TICKS;
	} else if (strcmp(key, KPINFO_KTICKS) == 0) {
		if (parse_u64(val, 10, UINT64_MAX, &ki->kernel_ticks) < 0)
			goto bad;
		ki->have |= KI_KTICKS;
	} else if (strcmp(key, KPINFO_SATURATED) == 0) {
		if (parse_u64(val, 10, UINT64_MAX, &ki->saturated) < 0)
			goto bad;
		ki->have |= KI_SATURATED;
	} else if (strcmp(key, KPINFO_STATE) == 0) {
		/* "on" or "off", maybe followed by a note: "off (stop while off: no change)" */
		size_t n = strcspn(val, " \t");
		if (!((n == 2 && strncmp(val, "on", 2) == 0) || (n == 3 && strncmp(val, "off", 3) == 0)))
			goto bad;
		memcpy(ki->state, val, n);
		ki->state[n] = '\0';
		ki->have |= KI_STATE;
	} else if (strcmp(key, KPINFO_BUILD_ID) == 0) {
		/* a kernel without the note says "none": then there is nothing to match */
		if (val[0] == '\0' || strcmp(val, "none") == 0)
			ki->have &= ~(unsigned)KI_BUILD_ID;
		else if (parse_hex_id(val, ki->build_id, sizeof ki->build_id) < 0)
			goto bad;
		else
			ki->have |= KI_BUILD_ID;
	}
	/* KPINFO_LAST and unknown keys: free text, ignored */
	return 0;
bad:
	kp_error("%s:%d: bad %s value '%.40s'", name, lineno, key, val);
	return -1;
}

int kpinfo_parse(struct kpinfo *ki, const char *text, size_t len, const char *name)
{
	char line[512];
	size_t pos = 0;
	int lineno = 0;

	memset(ki, 0, sizeof *ki);
	if (memchr(text, '\0', len) != NULL) {
		kp_error("%s: not a kpinfo: it holds NUL bytes", name);
		return -1;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *key, *val, *e;

		lineno++;
		/* copy the line with its length first, then parse the copy */
		if (n >= sizeof line)
			n = sizeof line - 1;        /* only `last` can be this long */
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += (nl ? (size_t)(nl - (text + pos)) + 1 : len - pos);

		e = line + strlen(line);
		while (e > line && isspace((unsigned char)e[-1]))
			*--e = '\0';
		key = line;
		while (isspace((unsigned char)*key))
			key++;
		if (*key == '\0' || *key == '#')
			continue;
		val = key;
		while (*val && !isspace((unsigned char)*val))
			val++;
		if (*val)
			*val++ = '\0';
		while (isspace((unsigned char)*val))
			val++;
		if (parse_pair(ki, key, val, name, lineno) < 0)
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
