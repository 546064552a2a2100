/* printf and friends: one formatter writing to a sink that is either a
 * caller's buffer (snprintf) or a small stack buffer flushed to an fd.
 * Conversions: d i u x X o p s c %, flags - 0, width and precision (or *),
 * sizes l ll z. */
#include <stdint.h>
#include "ulib.h"
#include "string.h"
#include "stdio.h"

struct sink {
	char *buf;
	size_t cap;     /* bytes of buf usable for text (snprintf keeps one for NUL) */
	size_t len;     /* bytes in buf */
	size_t total;   /* bytes produced, as printf returns */
	int fd;         /* -1 for a string sink */
	int err;
};

static void flush(struct sink *s)
{
	if (s->fd >= 0 && s->len > 0) {
		if (writeall(s->fd, s->buf, s->len) < 0)
			s->err = 1;
		s->len = 0;
	}
}

static void put(struct sink *s, char c)
{
	s->total++;
	if (s->len == s->cap) {
		if (s->fd < 0)
			return;         /* snprintf truncates but keeps counting */
		flush(s);
	}
	s->buf[s->len++] = c;
}

static void pad(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

struct spec {
	int left, zero, width, prec;    /* prec < 0: none given */
};

static void putstr(struct sink *s, const char *str, struct spec *sp)
{
	int n = 0;

	if (str == 0)
		str = "(null)";
	while (str[n] && (sp->prec < 0 || n < sp->prec))
		n++;
	if (!sp->left)
		pad(s, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(s, str[i]);
	if (sp->left)
		pad(s, ' ', sp->width - n);
}

static void putnum(struct sink *s, unsigned long long v, int neg, int base, int upper,
	const char *prefix, struct spec *sp)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, nd, npre, len;

	/* Precision 0 with value 0 prints no digits, as in C. */
	if (v != 0 || sp->prec != 0) {
		do {
			tmp[n++] = digits[v % base];
			v /= base;
		} while (v);
	}
	nd = sp->prec > n ? sp->prec : n;
	npre = (neg ? 1 : 0) + (int)strlen(prefix);
	len = nd + npre;
	if (!sp->left && !(sp->zero && sp->prec < 0))
		pad(s, ' ', sp->width - len);
	if (neg)
		put(s, '-');
	while (*prefix)
		put(s, *prefix++);
	if (!sp->left && sp->zero && sp->prec < 0)
		pad(s, '0', sp->width - len);
	pad(s, '0', nd - n);
	while (n > 0)
		put(s, tmp[--n]);
	if (sp->left)
		pad(s, ' ', sp->width - len);
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		struct spec sp = { 0, 0, 0, -1 };
		int lng = 0;
		unsigned long long u;
		long long d;

		if (*fmt != '%') {
			put(s, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = 1;
			else if (*fmt == '0')
				sp.zero = 1;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = 1;
				sp.width = -sp.width;
			}
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			sp.width = sp.width * 10 + (*fmt - '0');
		if (*fmt == '.') {
			fmt++;
			sp.prec = 0;
			if (*fmt == '*') {
				sp.prec = va_arg(ap, int);
				fmt++;
			}
			for (; *fmt >= '0' && *fmt <= '9'; fmt++)
				sp.prec = sp.prec * 10 + (*fmt - '0');
		}
		for (; *fmt == 'l' || *fmt == 'z'; fmt++)
			if (*fmt == 'l')
				lng++;
		switch (*fmt) {
		case 'd':
		case 'i':
			d = lng >= 2 ? va_arg(ap, long long) : (long long)va_arg(ap, long);
			u = d < 0 ? 0ULL - (unsigned long long)d : (unsigned long long)d;
			putnum(s, u, d < 0, 10, 0, "", &sp);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng >= 2 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned long);
			putnum(s, u, 0, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, *fmt == 'X', "", &sp);
			break;
		case 'p':
			sp.prec = 8;
			putnum(s, (uintptr_t)va_arg(ap, void *), 0, 16, 0, "0x", &sp);
			break;
		case 's':
			putstr(s, va_arg(ap, const char *), &sp);
			break;
		case 'c':
			if (!sp.left)
				pad(s, ' ', sp.width - 1);
			put(s, (char)va_arg(ap, int));
			if (sp.left)
				pad(s, ' ', sp.width - 1);
			break;
		case '%':
			put(s, '%');
			break;
		case 0:
			return;         /* a lone % at the end */
		default:
			/* Unknown conversion: show it rather than guess. */
			put(s, '%');
			put(s, *fmt);
			break;
		}
	}
}

int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	char dummy;
	struct sink s = { buf, n ? n - 1 : 0, 0, 0, -1, 0 };

	if (n == 0)
		s.buf = &dummy;
	format(&s, fmt, ap);
	if (n > 0)
		buf[s.len] = 0;
	return s.total;
}

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

int vfprintf(int fd, const char *fmt, va_list ap)
{
	char buf[256];
	struct sink s = { buf, sizeof(buf), 0, 0, fd, 0 };

	format(&s, fmt, ap);
	flush(&s);
	return s.err ? -1 : (int)s.total;
}

int fprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(fd, fmt, ap);
	va_end(ap);
	return r;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(1, fmt, ap);
	va_end(ap);
	return r;
}

int fputs(const char *s, int fd)
{
	return writeall(fd, s, strlen(s));
}

int puts(const char *s)
{
	return printf("%s\n", s);
}
