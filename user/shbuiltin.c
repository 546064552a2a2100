/* The shell's builtins: commands that must run inside the shell itself
 * (cd changes the shell's own directory) or need nothing from /bin. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "stdlib.h"
#include "sh.h"

static int cd(int argc, char **argv, int out)
{
	const char *dir = argc > 1 ? argv[1] : "/";

	(void)out;
	if (argc > 2) {
		fprintf(2, "usage: cd [DIR]\n");
		return 1;
	}
	if (chdir(dir) < 0) {
		fprintf(2, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int halt_(int argc, char **argv, int out)
{
	(void)argc, (void)argv, (void)out;
	halt(0);
}

static int exit_(int argc, char **argv, int out)
{
	unsigned status = 0;

	(void)out;
	if (argc > 2 || (argc == 2 && parse_uint(argv[1], &status) < 0)) {
		fprintf(2, "usage: exit [STATUS]\n");
		return 1;
	}
	/* The first shell ending would take the machine down uncleanly. */
	if (getpid() == 1) {
		fprintf(2, "sh: exit: this is the first shell; use halt\n");
		return 1;
	}
	exit(status);
}

static int help(int argc, char **argv, int out);

/* kpr has no function here: it runs another command, so sh.c runs it. */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv, int out);
	const char *what;
} builtins[] = {
	{ "cd", cd, "cd [DIR]            change directory (default /)" },
	{ "export", export, "export FILE...      send the files to /dev/eia1 as one ustar archive" },
	{ "halt", halt_, "halt                power off" },
	{ "exit", exit_, "exit [STATUS]       leave this shell (not the first one)" },
	{ "help", help, "help                this list" },
	{ "kpr", NULL, "kpr COMMAND [ARG...] profile one command with devkprof (startclr, run, stop)" },
};

#define NBUILTIN (int)(sizeof(builtins) / sizeof(builtins[0]))

static int help(int argc, char **argv, int out)
{
	struct dirent de[8];
	int fd, n, col = 0;

	(void)argc, (void)argv;
	fprintf(out, "builtins:\n");
	for (int i = 0; i < NBUILTIN; i++)
		fprintf(out, "  %s\n", builtins[i].what);
	fprintf(out, "programs in /bin:\n ");
	if ((fd = open("/bin", O_RDONLY)) < 0) {
		fprintf(2, "sh: help: /bin: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, de, sizeof(de))) > 0) {
		for (int i = 0; i < n / (int)sizeof(de[0]); i++) {
			int len = strlen(de[i].name);
			if (col + len + 1 > 72) {
				fprintf(out, "\n ");
				col = 0;
			}
			fprintf(out, " %s", de[i].name);
			col += len + 1;
		}
	}
	fprintf(out, "\n");
	close(fd);
	return 0;
}

int builtin(int argc, char **argv, int out)
{
	for (int i = 0; i < NBUILTIN; i++)
		if (builtins[i].fn && strcmp(argv[0], builtins[i].name) == 0)
			return builtins[i].fn(argc, argv, out);
	return -1;
}
