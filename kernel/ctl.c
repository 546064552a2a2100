/* The control-message parser shared by every control file (ctl.h). */
#include "ctl.h"
#include "abi/errno.h"
#include "lib.h"

int ctl_parse(const char *buf, uint32_t n, uint32_t max, struct ctlmsg *m)
{
	uint32_t i = 0;

	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n == 0 || n > max)
		return -EINVAL;
	m->nw = 0;
	m->n = n;
	while (i < n) {
		uint32_t start = i;
		while (i < n && buf[i] != ' ') {
			if (buf[i] < ' ' || buf[i] > '~')
				return -EINVAL;
			i++;
		}
		if (i == start || m->nw == CTL_MAXWORDS)
			return -EINVAL;
		m->w[m->nw] = buf + start;
		m->len[m->nw++] = i - start;
		if (i < n && ++i == n)
			return -EINVAL;         /* a trailing space */
	}
	return 0;
}

bool ctl_is(const struct ctlmsg *m, int i, const char *s)
{
	return i < m->nw && word_is(m->w[i], m->len[i], s);
}

bool ctl_uint(const struct ctlmsg *m, int i, uint32_t *v)
{
	return i < m->nw && parse_uint(m->w[i], m->len[i], v);
}

bool ctl_cmd(const struct ctlmsg *m, const char *cmd, int nargs)
{
	return m->nw == 1 + nargs && ctl_is(m, 0, cmd);
}
