/* Memory allocation and number conversion of the user libc. */
#ifndef STDLIB_H
#define STDLIB_H

#include <stddef.h>

void *malloc(size_t n);
void free(void *p);
void *realloc(void *p, size_t n);
void *calloc(size_t count, size_t size);

long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
int atoi(const char *s);

/* Parses all of s as a decimal unsigned number; 0 on success, -1 if it is
 * empty, has other characters or does not fit. For argument checking. */
int parse_uint(const char *s, unsigned *out);

#endif
