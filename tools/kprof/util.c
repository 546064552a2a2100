/* util.c: the one-line error message, allocation that cannot return NULL,
 * and reading a whole (regular, bounded) file. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprof.h"

static char errbuf[1024];

void kp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	/* One line, always: a file name with a newline must not split it. */
	for (char *c = errbuf; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
}

const char *kp_lasterror(void)
{
	return errbuf;
}

void *kp_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL) {
		fprintf(stderr, "kprof: out of memory\n");
		exit(2);
	}
	return p;
}

char *kp_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = kp_calloc(n, 1);

	memcpy(p, s, n);
	return p;
}

/* Only regular files: a FIFO or a device could block or never end. */
int kp_readfile(const char *path, size_t max, unsigned char **data, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0;
	int fd;

	*data = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		kp_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		kp_error("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		kp_error("%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	if ((uintmax_t)st.st_size > max) {
		kp_error("%s: too large (%jd bytes, at most %zu)", path, (intmax_t)st.st_size, max);
		close(fd);
		return -1;
	}
	/* +1 so a file that grew since fstat is noticed, not cut short */
	buf = kp_calloc((size_t)st.st_size + 1, 1);
	for (;;) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			kp_error("%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > (size_t)st.st_size) {
			kp_error("%s: changed while being read", path);
			free(buf);
			close(fd);
			return -1;
		}
	}
	close(fd);
	*data = buf;
	*len = got;
	return 0;
}
