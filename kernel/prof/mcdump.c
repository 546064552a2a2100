/* The Monte Carlo session's raw dump, mc.N.dump beside the report: the
 * common dump header, the modules (the kernel, then each program by its
 * path and build-id) and the samples, for the host tool (include/abi/
 * mcprof.h has the layout). Written at ProfileStop, before the buffer and
 * the counters go. */
#include "abi/dump.h"
#include "abi/errno.h"
#include "abi/mcprof.h"
#include "buildid.h"
#include "clock.h"
#include "file.h"
#include "lib.h"
#include "prof/mc.h"

/* a small write buffer in front of file_write */
struct out {
	struct file *f;
	uint8_t buf[512];
	uint32_t n;
	int err;
};

static void put(struct out *o, const void *p, uint32_t n)
{
	const uint8_t *s = p;

	if (!o->f)
		return;         /* a pass that only counts */
	while (n && !o->err) {
		uint32_t k = MIN(n, sizeof o->buf - o->n);
		memcpy(o->buf + o->n, s, k);
		o->n += k, s += k, n -= k;
		if (o->n == sizeof o->buf) {
			int r = file_write(o->f, o->buf, o->n);
			o->err = r < 0 ? r : 0;
			o->n = 0;
		}
	}
}

static int flush(struct out *o)
{
	if (!o->err && o->n) {
		int r = file_write(o->f, o->buf, o->n);
		o->err = r < 0 ? r : 0;
	}
	return o->err;
}

/* the dump's module of session module i: the kernel is 0, programs follow,
 * UNKNOWN is none */
static uint16_t dumpmod(uint32_t i)
{
	return i == MC_MOD_KERNEL ? 0 : i == MC_MOD_UNKNOWN ? MC_DUMP_NOMOD : (uint16_t)(i - 1);
}

static void rec(struct out *o, uint32_t pc, uint32_t mod, uint32_t count, uint32_t *n)
{
	struct mc_dumprec r = { .pc = pc, .mod = dumpmod(mod), .count = count };

	if (count) {
		put(o, &r, sizeof r);
		(*n)++;
	}
}

/* the records, written (o) or only counted (o->f NULL) */
static uint32_t records(struct out *o)
{
	uint32_t n = 0;

	if (mc.buf) {
		for (const struct mc_entry *e = mc.buf; e < mc.pos; e++)
			rec(o, e->pc, MC_ENT_MOD(e->mod), MC_ENT_WEIGHT(e->mod), &n);
		return n;
	}
	for (uint32_t i = 0; i < mc.nmods; i++) {
		const struct mc_module *m = &mc.mods[i];
		for (uint32_t k = 0; m->hits && k < m->nsyms; k++)
			rec(o, symtab_addr(m->syms, k), i, m->hits[k], &n);
		rec(o, 0, i, m->nosym, &n);
	}
	return n;
}

/* a program module's path: /bin/NAME (with PROFILE_PERPID the module is
 * "NAME[pid]", the file NAME) */
static const char *modpath(uint32_t i, char *buf, size_t n)
{
	ksnprintf(buf, n, "/bin/%s", mc.mods[i].name);
	if (strchr(buf, '['))
		*strchr(buf, '[') = 0;
	return buf;
}

static void module(struct out *o, const char *path, const uint8_t *id, uint32_t idlen)
{
	static uint8_t m[DUMP_MODULE_SIZE_MAX];     /* not on the kernel stack */

	put(o, m, dump_module_encode(m, id, idlen, path, strlen(path)));
}

int mc_write_dump(const char *path)
{
	static struct out o;
	struct dump_header h;
	struct mc_dump d = { .options = mc.options, .idle = mc.idle, .dropped = mc.dropped,
			     .ticks = mc.ticks };
	const uint8_t *kid = NULL;
	uint32_t kidlen = kernel_build_id_bytes(&kid);
	uint32_t table = dump_module_size(kidlen, strlen(DUMP_PATH_KERNEL));
	char bin[32];
	int r;

	for (uint32_t i = MC_MOD_FIRST; i < mc.nmods; i++)
		table += dump_module_size(mc.mods[i].idlen, strlen(modpath(i, bin, sizeof bin)));
	h = dump_header_make(DUMP_ENGINE_MONTE, clock_hz_mhz(), mc.nmods - 1, table);
	memset(&o, 0, sizeof o);
	d.nrecs = records(&o);          /* o.f is NULL: counts only */
	if ((r = vfs_open(path, O_WRONLY | O_CREAT | O_TRUNC, &o.f)) < 0)
		return r;
	put(&o, &h, sizeof h);
	module(&o, DUMP_PATH_KERNEL, kid, kidlen);
	for (uint32_t i = MC_MOD_FIRST; i < mc.nmods; i++)
		module(&o, modpath(i, bin, sizeof bin), mc.mods[i].build_id, mc.mods[i].idlen);
	put(&o, &d, sizeof d);
	records(&o);
	r = flush(&o);
	file_close(o.f);
	return r;
}
