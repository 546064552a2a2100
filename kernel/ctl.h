/* Control files: the messages written to /dev/kpctl and the other control
 * files are parsed here, once, the same way. A message is one line of
 * printable words separated by single spaces, optionally ended by one
 * newline. */
#ifndef CTL_H
#define CTL_H

#include <stdbool.h>
#include <stdint.h>

#define CTL_MAXWORDS 8

struct ctlmsg {
	int nw;
	const char *w[CTL_MAXWORDS];
	uint32_t len[CTL_MAXWORDS];
	uint32_t n;             /* the message's length without its newline */
};

/* Splits buf[0..n) (bytes already in the kernel) into words. Returns 0, or
 * -EINVAL for an empty or too long message (over max bytes), a control or
 * non-ASCII byte, an empty word (a leading, trailing or double space), or
 * more than CTL_MAXWORDS words. */
int ctl_parse(const char *buf, uint32_t n, uint32_t max, struct ctlmsg *m);

/* word i is s */
bool ctl_is(const struct ctlmsg *m, int i, const char *s);
/* word i is a decimal or 0x number that fits 32 bits */
bool ctl_uint(const struct ctlmsg *m, int i, uint32_t *v);
/* the message is exactly this command with nargs words after it */
bool ctl_cmd(const struct ctlmsg *m, const char *cmd, int nargs);

#endif
