/* elffuzz.c: an ELF from memory through everything kprof does with one:
 * open it as a libdwfl module, make its ranges, look up lines and decode
 * instructions. For the fuzzer and its replay test; 0 or -1, never a crash. */
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
