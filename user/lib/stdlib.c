/* Number conversion: strtoul/strtol as in C (base 0 detects 0x and 0),
 * with ERANGE and the saturated value on overflow. */
#include "ulib.h"
#include "stdlib.h"

static int isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int digitval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* The common part: magnitude in *mag, sign in *neg; returns 0 if no digits. */
static int scan(const char *s, char **end, int base, unsigned long *mag, int *neg, int *over)
{
	const char *p = s;
	unsigned long v = 0;
	int any = 0;

	*neg = 0;
	*over = 0;
	while (isspace(*p))
		p++;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    digitval(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	for (; digitval(*p) < base; p++) {
		unsigned d = digitval(*p);
		/* Both tests needed: the multiply and the add can each overflow. */
		if (v > (~0UL - d) / base)
			*over = 1;
		else
			v = v * base + d;
		any = 1;
	}
	if (end)
		*end = (char *)(any ? p : s);
	*mag = v;
	return any;
}

unsigned long strtoul(const char *s, char **end, int base)
{
	unsigned long v;
	int neg, over;

	if (!scan(s, end, base, &v, &neg, &over))
		return 0;
	if (over) {
		errno = ERANGE;
		return ~0UL;
	}
	return neg ? -v : v;
}

long strtol(const char *s, char **end, int base)
{
	unsigned long v;
	unsigned long limit;
	int neg, over;

	if (!scan(s, end, base, &v, &neg, &over))
		return 0;
	/* The most negative long has no positive twin: its limit is one more. */
	limit = neg ? (unsigned long)__LONG_MAX__ + 1 : (unsigned long)__LONG_MAX__;
	if (over || v > limit) {
		errno = ERANGE;
		return neg ? -__LONG_MAX__ - 1 : __LONG_MAX__;
	}
	return neg ? (long)(0 - v) : (long)v;
}

int atoi(const char *s)
{
	return (int)strtol(s, 0, 10);
}

int parse_uint(const char *s, unsigned *out)
{
	unsigned long v = 0;

	if (*s == 0)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (~0UL - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}
