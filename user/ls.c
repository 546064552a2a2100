/* ls: one line per entry, "TYPE SIZE NAME", for each directory named
 * (default the cwd); a file argument lists itself. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"

static const char *typename(unsigned type)
{
	switch (type) {
	case S_IFILE: return "file";
	case S_IFDIR: return "dir";
	case S_IFDEV: return "dev";
	}
	return "?";
}

static void line(unsigned type, unsigned size, const char *name)
{
	printf("%-4s %8u %s\n", typename(type), size, name);
}

static int ls(const char *path, int header)
{
	struct dirent de[16];
	struct stat st;
	int fd, n;

	if ((fd = open(path, O_RDONLY)) < 0) {
		fprintf(2, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) < 0) {
		fprintf(2, "ls: %s: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	if (st.type != S_IFDIR) {
		line(st.type, st.size, path);
		close(fd);
		return 0;
	}
	if (header)
		printf("%s:\n", path);
	while ((n = read(fd, de, sizeof(de))) > 0)
		for (int i = 0; i < n / (int)sizeof(de[0]); i++)
			line(de[i].type, de[i].size, de[i].name);
	close(fd);
	if (n < 0) {
		fprintf(2, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2)
		return ls(".", 0);
	for (int i = 1; i < argc; i++)
		status |= ls(argv[i], argc > 2);
	return status;
}
