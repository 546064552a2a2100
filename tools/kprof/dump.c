/* dump.c: the header and module table that start every binary dump but
 * kpdata (include/abi/dump.h). Every length is checked against the bytes
 * there before it is used. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

#define FIELD(buf, type, f) le((buf) + offsetof(type, f), (int)sizeof(((type *)0)->f))

int dump_engine(const unsigned char *buf, size_t len)
{
	if (len < sizeof(struct dump_header) || memcmp(buf, DUMP_MAGIC, DUMP_MAGIC_LEN) != 0)
		return -1;
	return (int)FIELD(buf, struct dump_header, engine);
}

int dump_parse(struct dumphdr *dh, const unsigned char *buf, size_t len, const char *name)
{
	size_t off = sizeof(struct dump_header), nmods;
	uint64_t mhz;

	memset(dh, 0, sizeof *dh);
	if (dump_engine(buf, len) < 0) {
		kp_error("%s: no dump header (it starts with %s)", name, DUMP_MAGIC);
		return -1;
	}
	dh->engine = dump_engine(buf, len);
	dh->version = (int)FIELD(buf, struct dump_header, version);
	mhz = FIELD(buf, struct dump_header, rate_mhz);
	nmods = FIELD(buf, struct dump_header, nmodules);
	dh->size = FIELD(buf, struct dump_header, size);
	if (dh->version != DUMP_VERSION) {
		kp_error("%s: dump version %d; this kprof reads version %d", name, dh->version,
			 DUMP_VERSION);
		return -1;
	}
	if (mhz == 0) {
		kp_error("%s: the dump header gives a rate of 0 Hz", name);
		return -1;
	}
	if (nmods > DUMP_MODULES_MAX) {
		kp_error("%s: %zu modules, at most %d", name, nmods, DUMP_MODULES_MAX);
		return -1;
	}
	if (dh->size < off || dh->size > len || dh->size % DUMP_ALIGN) {
		kp_error("%s: header size %zu does not fit the file's %zu bytes", name, dh->size, len);
		return -1;
	}
	dh->hz = (double)mhz / 1000.0;
	dh->mods = kp_calloc(nmods, sizeof *dh->mods);
	for (size_t i = 0; i < nmods; i++) {
		const unsigned char *m = buf + off;
		struct module *mod = &dh->mods[i];
		size_t idlen, pathlen, need;

		if (dh->size - off < sizeof(struct dump_module))
			goto short_table;
		idlen = FIELD(m, struct dump_module, build_id_len);
		pathlen = FIELD(m, struct dump_module, path_len);
		if (idlen > DUMP_BUILD_ID_MAX || pathlen > DUMP_PATH_MAX) {
			kp_error("%s: module %zu: build-id of %zu bytes or path of %zu (at most %d, %d)",
				 name, i, idlen, pathlen, DUMP_BUILD_ID_MAX, DUMP_PATH_MAX);
			goto fail;
		}
		need = sizeof(struct dump_module) + idlen + pathlen;
		need = (need + DUMP_ALIGN - 1) / DUMP_ALIGN * DUMP_ALIGN;
		if (dh->size - off < need)
			goto short_table;
		mod->load = FIELD(m, struct dump_module, load);
		kp_hex(mod->build_id, sizeof mod->build_id, m + sizeof(struct dump_module), idlen);
		if (memchr(m + sizeof(struct dump_module) + idlen, '\0', pathlen)) {
			kp_error("%s: module %zu: a NUL inside its path", name, i);
			goto fail;
		}
		if (pathlen)
			mod->path = kp_fmt("%.*s", (int)pathlen,
					   (const char *)m + sizeof(struct dump_module) + idlen);
		dh->nmods++;
		off += need;
	}
	return 0;
short_table:
	kp_error("%s: the module table runs past the header's %zu bytes", name, dh->size);
fail:
	dump_free(dh);
	return -1;
}

void dump_free(struct dumphdr *dh)
{
	for (size_t i = 0; i < dh->nmods; i++)
		free(dh->mods[i].path);
	free(dh->mods);
	dh->mods = NULL;
	dh->nmods = 0;
}

/* The header alone, as a reader of a headered format starts: for the fuzzer. */
int dump_fuzz(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name)
{
	struct dumphdr dh;

	memset(ss, 0, sizeof *ss);
	if (dump_parse(&dh, buf, len, name) < 0)
		return -1;
	ss->mods = dh.mods;
	ss->nmods = dh.nmods;
	ss->hz = dh.hz;
	return 0;
}
