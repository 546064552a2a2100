/* elffuzz.c: for the fuzzer and its replay test, bytes through a whole
 * path of the tool: an ELF from memory through everything kprof does with
 * one, and a dump through its reader, the symbolizer, the text views and
 * kprof annotate.
 * 0 or -1, never a crash. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kprof.h"

int kelf_fuzz(const unsigned char *buf, size_t len)
{
	struct kelf ke;
	struct linetab lt;
	struct disasm d;
	char path[64], insn[160];
	int fd = memfd_create("kprof-fuzz.elf", MFD_CLOEXEC), r = -1;

	if (fd < 0)
		return -1;
	if (write(fd, buf, len) != (ssize_t)len)
		goto out;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (kelf_open(&ke, path, 0) < 0)
		goto out;
	disasm_open(&d);
	if (linetab_load(&lt, &ke) == 0)
		for (size_t i = 0; i < ke.nranges && i < 64; i++) {
			int line;

			linetab_at(&lt, ke.ranges[i].start, &line);
		}
	for (size_t i = 0; i < ke.nranges && i < 64; i++) {
		disasm_bin(&d, &ke, &ke.ranges[i], ke.ranges[i].start, 1, insn, sizeof insn);
		disasm_bin(&d, &ke, &ke.ranges[i], ke.ranges[i].start, 16, insn, sizeof insn);
	}
	disasm_close(&d);
	linetab_free(&lt);
	kelf_close(&ke);
	r = 0;
out:
	close(fd);
	return r;
}

/* A reader's input, and when the reader takes it, the rest of the pipeline
 * against sy's ELFs: matching (forced), charging, every text view and the
 * annotated hottest functions. */
int pipeline_fuzz(const struct reader *r, struct symbolizer *sy, const unsigned char *buf,
		  size_t len, const char *name)
{
	static const int views[] = { BY_SYMBOL, BY_LINE, BY_ADDR };
	struct sampleset ss;
	struct profile p;
	char warning[256];
	FILE *null;
	int rc;

	memset(&ss, 0, sizeof ss);
	rc = r->parse(&ss, buf, len, name);
	ss.format = r->name;
	if (rc == 0 && sy && kp_match(sy, &ss, 1, warning, sizeof warning) == 0 &&
	    symbolize(&p, sy, &ss) == 0) {
		null = fopen("/dev/null", "w");
		for (size_t i = 0; null && i < sizeof views / sizeof views[0]; i++) {
			struct wopts wo = { .by = views[i], .top = 0, .outdir = NULL };

			writer_named("text")->write(null, &wo, sy, &ss, &p);
		}
		/* and the annotated instructions of the hottest functions */
		if (null)
			annotate_functions(null, sy, &ss, &p, NULL, NULL, NULL, 3, name);
		if (null)
			fclose(null);
		profile_free(&p);
	}
	sampleset_free(&ss);
	return rc;
}
