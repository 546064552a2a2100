/* test_fuzz.c: replay every saved fuzzer input, corpus and crash files
 * alike, through its reader's parse, in this process under ASan and UBSan:
 * each is a regression test. Every reader must have saved inputs. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The inputs in tools/kprof/fuzz/NAME; returns how many. */
static struct symbolizer *sy;

/* elf: 1 the ELF code, 2 the unwind-table builder (unw_fuzz) */
static int replay(const char *name, const struct reader *r, int elf)
{
	char dir[4096], path[4608];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof dir, "%s/fuzz/%s", KPROF_SRCDIR, name);
	d = opendir(dir);
	if (d == NULL)
		fail_msg("no saved fuzzer inputs in %s (make fuzz, then commit them)", dir);
	while ((de = readdir(d)) != NULL) {
		struct sampleset ss;
		unsigned char *buf;
		size_t len;
		int rc;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		assert_int_equal(kp_readfile(path, 1 << 24, &buf, &len), 0);
		memset(&ss, 0, sizeof ss);
		rc = elf == 2 ? unw_fuzz(buf, len) : elf ? kelf_fuzz(buf, len) : r ? r->parse(&ss, buf, len, path) :
		     dump_fuzz(&ss, buf, len, path);
		/* and the rest of the pipeline, as the fuzzer runs it */
		if (r && sy)
			assert_int_equal(pipeline_fuzz(r, sy, buf, len, path), rc);
		if (rc != 0 && rc != -1)
			fail_msg("%s: parse returned %d", path, rc);
		/* an input the reader takes must make a sane sample set */
		if (rc == 0)
			for (size_t i = 1; i < ss.nflat; i++)
				assert_true(ss.flat[i - 1].mod < ss.flat[i].mod ||
					    (ss.flat[i - 1].mod == ss.flat[i].mod &&
					     ss.flat[i - 1].addr < ss.flat[i].addr));
		sampleset_free(&ss);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void every_reader_replays(void **state)
{
	static struct symbolizer fix;
	const char *elf = fixture("fixture.elf");

	(void)state;
	assert_int_equal(symbolizer_open(&fix, &elf, 1), 0);
	sy = &fix;
	for (size_t i = 0; readers[i]; i++)
		if (replay(readers[i]->name, readers[i], 0) == 0)
			fail_msg("reader %s has no saved fuzzer inputs", readers[i]->name);
	assert_true(replay("dump", NULL, 0) > 0);
	assert_true(replay("elf", NULL, 1) > 0);
	assert_true(replay("ehframe", NULL, 2) > 0);   /* the kernel's unwind-table builder */
	symbolizer_close(&fix);
	sy = NULL;
}

int test_fuzz_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_reader_replays),
	};

	return cmocka_run_group_tests_name("kprof-fuzz-replay", tests, NULL, NULL);
}
