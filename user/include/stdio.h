/* Formatted output and line input of the user libc. Output goes straight
 * to a file descriptor: there is no FILE, and no buffering between calls. */
#ifndef STDIO_H
#define STDIO_H

#include <stdarg.h>
#include <stddef.h>

#define FMT(a, b) __attribute__((format(printf, a, b)))

int printf(const char *fmt, ...) FMT(1, 2);
int fprintf(int fd, const char *fmt, ...) FMT(2, 3);
int vfprintf(int fd, const char *fmt, va_list ap);
int snprintf(char *buf, size_t n, const char *fmt, ...) FMT(3, 4);
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int puts(const char *s);                /* s and a newline on fd 1 */
int fputs(const char *s, int fd);       /* s alone */

/* Reads one line (with its '\n', if there was one) into buf, NUL-terminated.
 * Returns its length, 0 at end of input, -1 on error. A line longer than
 * n - 1 comes back in pieces. Input is buffered per fd, so do not mix it
 * with read() on the same fd. */
int getline(int fd, char *buf, int n);

#endif
