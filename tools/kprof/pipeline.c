/* pipeline.c: the tables of readers and writers, and telling a dump's
 * format from its first bytes. A new reader or writer is one file that
 * defines `const struct reader reader_NAME` (or writer_NAME) and one line
 * in READERS (or WRITERS) below. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"

#define READERS(X) \
	X(kpdata) \
	X(gmon) \
	X(dosprof) \
	X(mc)

#define WRITERS(X) \
	X(text) \
	X(readprofile)

#define DECLARE_READER(name) extern const struct reader reader_##name;
#define DECLARE_WRITER(name) extern const struct writer writer_##name;
#define ENTRY_READER(name) &reader_##name,
#define ENTRY_WRITER(name) &writer_##name,
READERS(DECLARE_READER)
WRITERS(DECLARE_WRITER)

const struct reader *const readers[] = { READERS(ENTRY_READER) NULL };
const struct writer *const writers[] = { WRITERS(ENTRY_WRITER) NULL };

const struct reader *reader_named(const char *name)
{
	for (size_t i = 0; readers[i]; i++)
		if (strcmp(readers[i]->name, name) == 0)
			return readers[i];
	return NULL;
}

const struct writer *writer_named(const char *name)
{
	for (size_t i = 0; writers[i]; i++)
		if (strcmp(writers[i]->name, name) == 0)
			return writers[i];
	return NULL;
}

/* A file that starts with the dump header names its engine; a gmon file
 * has its own version word; anything else is a kpdata. */
int reader_for(const char *path, const struct reader **r)
{
	unsigned char buf[sizeof(struct dump_header)];
	size_t size;
	int fd, engine = -1;

	*r = reader_named("kpdata");
	if (kp_openfile(path, SIZE_MAX, &fd, &size) < 0)
		return -1;
	if (size >= sizeof buf && kp_readat(fd, path, 0, buf, sizeof buf) == 0) {
		engine = dump_engine(buf, sizeof buf);
		if (engine < 0 && gmon_is(buf, sizeof buf))
			*r = reader_named("gmon");
	}
	close(fd);
	if (engine < 0)
		return 0;
	for (size_t i = 0; readers[i]; i++)
		if (readers[i]->engine == engine) {
			*r = readers[i];
			return 0;
		}
	kp_error("%s: a dump of engine %d, which this kprof cannot read", path, engine);
	return -1;
}

void sampleset_free(struct sampleset *ss)
{
	for (size_t i = 0; i < ss->nmods; i++)
		free(ss->mods[i].path);
	free(ss->mods);
	free(ss->flat);
	memset(ss, 0, sizeof *ss);
}
