/* Kernel library: strings, formatted output, panic. Freestanding, so the
 * kernel carries its own small versions of these. */
#ifndef LIB_H
#define LIB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NELEM(a)        (sizeof(a) / sizeof((a)[0]))
#define ROUNDUP(x, a)   (((x) + (a) - 1) & ~((a) - 1))
#define ROUNDDOWN(x, a) ((x) & ~((a) - 1))
#define MIN(a, b)       ((a) < (b) ? (a) : (b))
#define MAX(a, b)       ((a) > (b) ? (a) : (b))

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
size_t strlcpy(char *d, const char *s, size_t n);
char *strchr(const char *s, int c);
/* the word w[0..n), not NUL-terminated, is the string s */
bool word_is(const char *w, size_t n, const char *s);

/* sorts n elements of size bytes into ascending order by cmp (sort.c) */
void ksort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Parses an unsigned decimal (or 0x hex) number that fills all of s[0..n).
 * Returns false on an empty string, a bad digit or overflow. */
bool parse_uint(const char *s, size_t n, uint32_t *out);

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The sink kprintf writes to; the console (console.c) provides it. */
void console_write(const char *s, size_t n);

void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void backtrace(uint32_t ebp, int max);

#endif
