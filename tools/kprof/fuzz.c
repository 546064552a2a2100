/* fuzz.c: the libFuzzer target of one reader, chosen when it is built
 * (-DFUZZ_TARGET='"kpdata"'), of the common dump header ("dump") or of
 * the ELF code ("elf"). Each
 * input goes to the reader's from-memory parse: whatever the bytes, it must
 * return 0 or -1, never crash, leak or trip a sanitizer. `make fuzz` builds
 * and runs one per reader; test_fuzz.c replays the saved inputs. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	struct sampleset ss;

	memset(&ss, 0, sizeof ss);
	if (strcmp(FUZZ_TARGET, "dump") == 0) {
		dump_fuzz(&ss, data, size, "fuzz");
	} else if (strcmp(FUZZ_TARGET, "elf") == 0) {
		kelf_fuzz(data, size);
	} else {
		if (r == NULL && (r = reader_named(FUZZ_TARGET)) == NULL)
			abort();
		r->parse(&ss, data, size, "fuzz");
	}
	sampleset_free(&ss);
	return 0;
}
