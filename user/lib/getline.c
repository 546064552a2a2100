/* Line input. A console read already returns one line, but a file returns
 * as much as asked for, so keep the rest per fd for the next call. */
#include "ulib.h"
#include "stdio.h"

struct inbuf {
	char data[512];
	int pos, len;
};

static struct inbuf inbufs[NOFILE];

int getline(int fd, char *buf, int n)
{
	struct inbuf *in;
	int got = 0;

	if (fd < 0 || fd >= NOFILE || n < 1) {
		errno = fd < 0 || fd >= NOFILE ? EBADF : EINVAL;
		return -1;
	}
	in = &inbufs[fd];
	while (got < n - 1) {
		if (in->pos == in->len) {
			int r = read(fd, in->data, sizeof(in->data));
			if (r < 0) {
				if (got > 0)
					break;      /* report the error on the next call */
				return -1;
			}
			if (r == 0)
				break;
			in->pos = 0;
			in->len = r;
		}
		buf[got] = in->data[in->pos++];
		if (buf[got++] == '\n')
			break;
	}
	buf[got] = 0;
	return got;
}
