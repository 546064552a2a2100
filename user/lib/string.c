/* Memory and string functions. Plain byte loops: the programs are small
 * and the profiler should see simple code, not clever copies. */
#include "string.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	/* Copy backwards when dst overlaps the tail of src. */
	if (d > s && d < s + n) {
		while (n--)
			d[n] = s[n];
		return dst;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (*a == 0)
			break;
	}
	return 0;
}

char *strcpy(char *dst, const char *src)
{
	char *d = dst;

	while ((*d++ = *src++))
		;
	return dst;
}

/* As in C: pads with NULs, and does not terminate when src is too long. */
char *strncpy(char *dst, const char *src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = 0;
	return dst;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == 0)
			return 0;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = 0;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == 0)
			return (char *)last;
	}
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return (char *)hay;
	return n == 0 ? (char *)hay : 0;
}
