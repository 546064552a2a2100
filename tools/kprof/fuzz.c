/* fuzz.c: the libFuzzer target of one reader, chosen when it is built
 * (-DFUZZ_TARGET='"kpdata"'), of the common dump header ("dump"), of
 * the ELF code ("elf") or of the kernel's unwind-table builder
 * ("ehframe", bytes taken as an .eh_frame). A reader's input goes to its
 * from-memory parse and,
 * when taken, on through the symbolizer (FUZZ_ELF, the fixture kernel) and
 * the text views: whatever the bytes, 0 or -1, never a crash, a leak or a
 * sanitizer report. `make fuzz` builds and runs one per reader; test_fuzz.c
 * replays the saved inputs. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	static struct symbolizer sy, *syp;
	struct sampleset ss;

	memset(&ss, 0, sizeof ss);
	if (strcmp(FUZZ_TARGET, "dump") == 0) {
		dump_fuzz(&ss, data, size, "fuzz");
		sampleset_free(&ss);
	} else if (strcmp(FUZZ_TARGET, "elf") == 0) {
		kelf_fuzz(data, size);
	} else if (strcmp(FUZZ_TARGET, "ehframe") == 0) {
		unw_fuzz(data, size);
	} else {
		if (r == NULL && (r = reader_named(FUZZ_TARGET)) == NULL)
			abort();
		/* the fixture kernel, opened once: a dump for it goes all the way */
		if (syp == NULL) {
			const char *elf = FUZZ_ELF;

			if (symbolizer_open(&sy, &elf, 1) < 0)
				abort();
			syp = &sy;
		}
		pipeline_fuzz(r, syp, data, size, "fuzz");
	}
	return 0;
}
