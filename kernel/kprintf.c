/* Formatted output: %d %i %u %x %X %p %s %c %% with width, '-' and '0'
 * flags, a precision for %s (%.*s), the 'l' and 'll' length modifiers. kprintf goes to the console. */
#include "lib.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void putnum(struct out *o, unsigned long long v, unsigned base, bool upper,
		   bool neg, int width, bool zero, bool left)
{
	char tmp[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	len = n + (neg ? 1 : 0);
	if (neg && zero)
		put(o, '-');
	if (!left)
		for (; width > len; width--)
			put(o, zero ? '0' : ' ');
	if (neg && !zero)
		put(o, '-');
	while (n)
		put(o, tmp[--n]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool zero = false, left = false;
		int width = 0, lng = 0, prec = -1;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '0')
				zero = true;
			else if (*fmt == '-')
				left = true;
			else
				break;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9')
				prec = prec * 10 + (*fmt++ - '0');
		}
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}
		if (left)
			zero = false;
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
			unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
			putnum(&o, u, 10, false, v < 0, width, zero, left);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
					       : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			putnum(&o, v, *fmt == 'u' ? 10 : 16, *fmt == 'X', false, width, zero, left);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			putnum(&o, (uintptr_t)va_arg(ap, void *), 16, false, false, 8, true, false);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int len;
			if (!s)
				s = "(null)";
			len = prec >= 0 ? (int)strnlen(s, prec) : (int)strlen(s);
			if (!left)
				for (; width > len; width--)
					put(&o, ' ');
			for (int i = 0; i < len; i++)
				put(&o, s[i]);
			for (; width > len; width--)
				put(&o, ' ');
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case '%':
			put(&o, '%');
			break;
		case 0:
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (o.size)
		o.buf[o.len < o.size ? o.len : o.size - 1] = 0;
	return o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int kprintf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	console_write(buf, n < (int)sizeof buf ? (size_t)n : sizeof buf - 1);
	return n;
}
