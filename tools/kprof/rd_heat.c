/* rd_heat.c: the reader for the heat engine's dump (/dev/heat; the text
 * format is in include/abi/heat.h): one "PROF 0xADDR count duration
 * [marks]" line per instruction that ran, ascending. Other lines are
 * skipped, so a console log will do. The counts are exact, one per
 * instruction executed; the durations and marks go to ss->heat, beside
 * the counts. The program is named by the heatinfo beside the dump (its
 * build-id), when there is one, and checked like any module. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"
#include "abi/heat.h"

/* one "PROF 0x%08X count duration [marks]" line, NUL-terminated */
static int parse_line(char *s, struct flat *f, struct heatmark *h)
{
	char *end, *w;
	unsigned long long v;

	memset(f, 0, sizeof *f);
	memset(h, 0, sizeof *h);
	s += strlen(HEAT_TAG);
	if (*s != ' ')
		return -1;
	errno = 0;
	v = strtoull(s + 1, &end, 16);
	if (errno || end == s + 1 || strncmp(s + 1, "0x", 2) || v > UINT32_MAX || *end != ' ')
		return -1;
	f->addr = v;
	s = end;
	for (int i = 0; i < 2; i++) {
		if (*s != ' ' || s[1] < '0' || s[1] > '9')
			return -1;
		v = strtoull(s + 1, &end, 10);
		if (errno)
			return -1;
		*(i ? &h->dur : &f->count) = v;
		s = end;
	}
	while (*s == ' ') {
		w = s + 1;
		s = w + strcspn(w, " ");
		if ((size_t)(s - w) == strlen(HEAT_CALLED) && !strncmp(w, HEAT_CALLED, s - w))
			h->flags |= HEATF_CALLED;
		else if ((size_t)(s - w) == strlen(HEAT_BLOCK_ENTER) && !strncmp(w, HEAT_BLOCK_ENTER, s - w))
			h->flags |= HEATF_ENTER;
		else if ((size_t)(s - w) == strlen(HEAT_BLOCK_EXIT) && !strncmp(w, HEAT_BLOCK_EXIT, s - w))
			h->flags |= HEATF_EXIT;
		else
			return -1;
	}
	return *s == '\0' ? 0 : -1;
}

static int heat_parse(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name)
{
	size_t cap = 0, lineno = 0, n;
	const char *p = (const char *)buf, *end = p + len;
	char line[256];

	ss->mods = kp_calloc(1, sizeof *ss->mods);
	ss->nmods = 1;
	ss->scope = "user";
	ss->unit = UNIT_INSNS;          /* a count is an instruction run, no clock's */
	ss->unidentified = 1;
	ss->bin = 1;
	for (; p < end; p += n + 1) {
		const char *nl = memchr(p, '\n', end - p);
		struct flat f;
		struct heatmark h;

		n = (nl ? nl : end) - p;
		lineno++;
		if (n < strlen(HEAT_TAG) || strncmp(p, HEAT_TAG, strlen(HEAT_TAG)))
			continue;
		if (n >= sizeof line)
			goto bad;
		memcpy(line, p, n);
		line[n] = '\0';
		kp_chomp(line);
		if (parse_line(line, &f, &h) < 0)
			goto bad;
		if (ss->nflat && f.addr <= ss->flat[ss->nflat - 1].addr) {
			kp_error("%s:%zu: address 0x%08jx not above the line before's", name, lineno,
				 (uintmax_t)f.addr);
			return -1;
		}
		if (ss->total + f.count < ss->total) {
			kp_error("%s:%zu: the counts add up past 2^64", name, lineno);
			return -1;
		}
		ss->total += f.count;
		if (ss->nflat == cap) {
			cap = cap ? 2 * cap : 1024;
			ss->flat = kp_reallocarray(ss->flat, cap, sizeof *ss->flat);
			ss->heat = kp_reallocarray(ss->heat, cap, sizeof *ss->heat);
		}
		ss->heat[ss->nflat] = h;
		ss->flat[ss->nflat++] = f;
	}
	if (ss->nflat == 0) {
		kp_error("%s: no %s lines: not a heat dump", name, HEAT_TAG);
		return -1;
	}
	if (ss->total == 0) {
		kp_error("%s: every count is 0: no instruction ran", name);
		return -1;
	}
	return 0;
bad:
	kp_error("%s:%zu: not a heat line (%s 0x%%08X count duration [%s] [%s] [%s])", name,
		 lineno, HEAT_TAG, HEAT_CALLED, HEAT_BLOCK_ENTER, HEAT_BLOCK_EXIT);
	return -1;
}

/* The heatinfo beside the dump (same directory), if there is one, names
 * the traced program's build-id: the module's. */
static void heatinfo(struct sampleset *ss, const char *dump)
{
	const char *slash = strrchr(dump, '/');
	size_t dir = slash ? (size_t)(slash - dump) + 1 : 0, len, k = strlen(HEATINFO_BUILD_ID);
	char *path = kp_calloc(dir + sizeof "heatinfo", 1), *t;
	unsigned char *text;

	memcpy(path, dump, dir);
	strcpy(path + dir, "heatinfo");
	if (access(path, F_OK) != 0 || kp_readfile(path, 1 << 20, &text, &len) < 0) {
		free(path);
		return;                 /* a dump from a console log has none */
	}
	t = kp_calloc(len + 1, 1);
	memcpy(t, text, len);
	for (char *l = t; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t ks = strlen(HEATINFO_STATE);
		if (!strncmp(l, HEATINFO_BUILD_ID, k) && l[k] == ' ')
			sscanf(l + k + 1, "%128[0-9a-f]", ss->mods[0].build_id);
		/* still tracing (or armed) when it was read: the counts are partial */
		if (!strncmp(l, HEATINFO_STATE, ks) && l[ks] == ' ' &&
		    (!strncmp(l + ks + 1, "tracing", 7) || !strncmp(l + ks + 1, "armed", 5)))
			ss->running = 1;
	}
	ss->unidentified = ss->mods[0].build_id[0] == '\0';
	free(t);
	free(text);
	free(path);
}

#define HEAT_MAX_BYTES ((size_t)1 << 30)

/* the dump, then the heatinfo beside it */
static int heat_read(struct sampleset *ss, const struct ropen *ro)
{
	if (reader_parsefile(ss, ro->path, HEAT_MAX_BYTES, heat_parse) < 0)
		return -1;
	heatinfo(ss, ro->path);
	return 0;
}

const struct reader reader_heat = { "heat", 0, heat_read, heat_parse, HEAT_MAX_BYTES };
