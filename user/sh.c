/* sh: the command interpreter. Reads a line, splits it into commands
 * (quotes, # comments, < > >> redirection, ; and a trailing & for the
 * background), runs builtins itself and spawns /bin/NAME for the rest.
 * The interactive shell names each foreground child in /dev/consctl, so
 * that ^C on the console kills it. */
#include "ulib.h"
#include "string.h"
#include "stdio.h"
#include "sh.h"

#define MAXLINE   1024
#define MAXCMDS   16
#define MAXARGS   SPAWN_MAXARGS         /* words per command (argc) */

struct cmd {
	char *argv[MAXARGS + 1];
	unsigned char glob[MAXARGS + 1];   /* argv[i] has an unquoted * or ? */
	int argc;
	char *in;                /* < file, or 0 */
	char *out;               /* > or >> file, or 0 */
	int append;              /* it was >> */
	int background;          /* ended with & */
};

static struct cmd cmds[MAXCMDS];
static int ncmds;
static char words[2 * MAXLINE];   /* the words, unquoted, each NUL-terminated */
static const char *syntax;        /* why the line did not parse */
static int globbed;               /* the last word read had an unquoted * or ? */

static int bgpids[NPROC];         /* background children not yet reported */
static int consctl = -1;          /* /dev/consctl, in the interactive shell */

static int isblank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int isop(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '<' || c == '>';
}

/* Reads one word at *pp into words at *wp: quotes group and are removed,
 * a backslash takes the next character literally. Returns the word, or 0
 * with syntax set. */
static char *getword(char **pp, char **wp)
{
	char *p = *pp, *w = *wp, *start = w;
	char quote = 0;

	globbed = 0;
	for (; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
				*w++ = *++p;
			else
				*w++ = *p;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '\\' && p[1] && p[1] != '\n') {
			*w++ = *++p;
		} else if (isblank(*p) || isop(*p)) {
			break;
		} else {
			globbed |= *p == '*' || *p == '?';
			*w++ = *p;
		}
	}
	if (quote) {
		syntax = "unterminated quote";
		return 0;
	}
	*w++ = 0;
	*pp = p;
	*wp = w;
	return start;
}

/* Splits line into cmds[]. Returns 0, or -1 with syntax set. */
static int parse(char *line)
{
	char *p = line, *w = words;
	struct cmd *c;

	ncmds = 0;
	memset(cmds, 0, sizeof(cmds));
	c = &cmds[0];
	for (;;) {
		while (isblank(*p))
			p++;
		if (*p == 0 || *p == '#')
			break;
		if (*p == '|') {
			syntax = "pipes are not supported";
			return -1;
		}
		if (*p == ';' || *p == '&') {
			if (c->argc == 0) {
				syntax = *p == ';' ? "unexpected ;" : "unexpected &";
				return -1;
			}
			c->background = *p == '&';
			p++;
			if (++ncmds == MAXCMDS) {
				syntax = "too many commands";
				return -1;
			}
			c = &cmds[ncmds];
			continue;
		}
		if (*p == '<' || *p == '>') {
			char op = *p++;
			int append = 0;
			char *file;

			if (op == '>' && *p == '>') {
				append = 1;
				p++;
			}
			while (isblank(*p))
				p++;
			if (*p == 0 || *p == '#' || isop(*p)) {
				syntax = op == '<' ? "missing file after <" :
					append ? "missing file after >>" : "missing file after >";
				return -1;
			}
			if ((file = getword(&p, &w)) == 0)
				return -1;
			if (op == '<') {
				c->in = file;
			} else {
				c->out = file;
				c->append = append;
			}
			continue;
		}
		if (c->argc == MAXARGS) {
			syntax = "too many words";
			return -1;
		}
		if ((c->argv[c->argc] = getword(&p, &w)) == 0)
			return -1;
		c->glob[c->argc++] = (unsigned char)globbed;
	}
	if (c->argc > 0) {
		ncmds++;
	} else if (c->in || c->out) {
		syntax = "missing command";
		return -1;
	}
	return 0;
}

/* Opens a redirection target; prints why not and returns -1 on failure. */
static int openredir(const char *file, int out, int append)
{
	struct stat st;
	int fd, flags = O_RDONLY;

	if (out) {
		flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
		/* A device (echo start > /dev/kpctl) is written as it is: there is
		 * nothing to create or truncate. */
		if (stat(file, &st) == 0 && st.type == S_IFDEV)
			flags = O_WRONLY;
	}
	fd = open(file, flags);
	if (fd < 0)
		fprintf(2, "sh: %s: %s\n", file, strerror(errno));
	return fd;
}

static void report(const char *name, int status)
{
	const char *why = status == WSTATUS_KILLED ? " (killed)" :
		status == WSTATUS_INTERRUPTED ? " (interrupted)" :
		status == WSTATUS_FAULT ? " (fault)" : "";

	if (status != 0)
		fprintf(2, "sh: %s: exit status %d%s\n", name, status, why);
}

/* The job ^C kills: pid, or none for 0. */
static void foreground(int pid)
{
	if (consctl >= 0)
		fprintf(consctl, "fg %d\n", pid);
}

static int runcmd(struct cmd *c);

/* kpr CMD [ARG...]: profiles one command with devkprof, like time(1) times
 * one: startclr, the command, stop, and a summary line. The shell runs the
 * command as usual, so ^C kills it and kpr still stops the profile. */
static int kpr(struct cmd *c)
{
	int status;

	if (c->argc < 2 || c->background) {
		fprintf(2, "usage: kpr COMMAND [ARG...] (not in the background)\n");
		return 1;
	}
	if (kpr_ctl("startclr") < 0)
		return 1;
	c->argc--;
	memmove(c->argv, c->argv + 1, c->argc * sizeof(c->argv[0]));
	memmove(c->glob, c->glob + 1, c->argc * sizeof(c->glob[0]));
	c->argv[c->argc] = 0;
	status = runcmd(c);
	if (kpr_ctl("stop") == 0)
		kpr_summary();
	return status;
}

/* Runs one command; returns its exit status (a builtin's, or 1 when it
 * could not be started). */
static int runcmd(struct cmd *c)
{
	static char globbuf[4096];
	char *argv[MAXARGS + 1];
	int fdmap[3] = { 0, 1, 2 };
	int in = -1, out = -1, pid, status = 1, argc;
	char path[PATH_MAX];
	const char *name = c->argv[0];

	if (strcmp(name, "kpr") == 0)
		return kpr(c);
	/* globs now, not when the line was read: an earlier command of the
	 * line may have made the files */
	if ((argc = sh_glob(c->argc, c->argv, c->glob, argv, MAXARGS, globbuf, sizeof globbuf)) < 0)
		return 1;
	if (c->in && (in = fdmap[0] = openredir(c->in, 0, 0)) < 0)
		return 1;
	if (c->out && (out = fdmap[1] = openredir(c->out, 1, c->append)) < 0)
		goto done;

	if ((status = builtin(argc, argv, out >= 0 ? out : 1)) >= 0)
		goto done;
	status = 1;

	/* A name too long to be a path cannot be found either. */
	if (snprintf(path, sizeof(path), "%s%s", strchr(name, '/') ? "" : "/bin/", name) >=
	    (int)sizeof(path)) {
		fprintf(2, "sh: %s: not found\n", name);
		goto done;
	}
	if ((pid = spawn(path, argv, fdmap)) < 0) {
		if (errno == ENOENT)
			fprintf(2, "sh: %s: not found\n", name);
		else
			fprintf(2, "sh: %s: %s\n", name, strerror(errno));
		goto done;
	}
	if (c->background) {
		for (int i = 0; i < NPROC; i++) {
			if (bgpids[i] == 0) {
				bgpids[i] = pid;
				break;
			}
		}
		printf("[%d]\n", pid);
		status = 0;
	} else {
		foreground(pid);
		if (wait(pid, &status, 0) == pid) {
			report(name, status);
		} else {
			fprintf(2, "sh: %s: wait: %s\n", name, strerror(errno));
			status = 1;
		}
		foreground(0);
	}
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return status;
}

/* Runs the commands of a parsed line; returns the last one's status. A
 * command that was killed or interrupted (^C) ends the line, as in a Unix
 * shell. */
static int runline(void)
{
	int status = 0;

	for (int i = 0; i < ncmds; i++)
		if ((status = runcmd(&cmds[i])) == WSTATUS_KILLED || status == WSTATUS_INTERRUPTED)
			break;
	return status;
}

/* Reaps background children that have ended. Others may be reaped here too
 * (orphans the kernel hands us); only ours are reported. */
static void reap(void)
{
	int pid, status;

	while ((pid = wait(-1, &status, WNOHANG)) > 0) {
		for (int i = 0; i < NPROC; i++) {
			if (bgpids[i] == pid) {
				bgpids[i] = 0;
				printf("[%d] done %d\n", pid, status);
				break;
			}
		}
	}
}

int main(int argc, char **argv)
{
	static char line[MAXLINE];
	struct stat st;
	int in = 0, interactive;

	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		/* sh -c LINE: one line, e.g. several commands for kpr */
		if (strlen(argv[2]) >= sizeof(line)) {
			fprintf(2, "sh: syntax error: line too long\n");
			return 1;
		}
		strcpy(line, argv[2]);
		if (parse(line) < 0) {
			fprintf(2, "sh: syntax error: %s\n", syntax);
			return 1;
		}
		return runline();
	}
	if (argc > 2) {
		fprintf(2, "usage: sh [FILE | -c LINE]\n");
		return 1;
	}
	if (argc == 2 && (in = open(argv[1], O_RDONLY)) < 0) {
		fprintf(2, "sh: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* A script, or a file on stdin, gets no prompts. */
	interactive = in == 0 && !(fstat(0, &st) == 0 && st.type == S_IFILE);
	if (interactive && (consctl = open("/dev/consctl", O_WRONLY)) >= 0)
		foreground(0);  /* a shell started from a shell: ^C at its prompt spares it */

	for (int errs = 0;;) {
		int n;

		reap();
		if (interactive)
			fputs("$ ", 2);
		n = getline(in, line, sizeof(line));
		/* A read that failed (out of memory, interrupted) is not the end
		 * of input: say so and read on, unless it keeps failing. */
		if (n < 0 && ++errs < 100) {
			fprintf(2, "sh: read: %s\n", strerror(errno));
			continue;
		}
		if (n <= 0)
			break;
		errs = 0;
		if (line[n - 1] != '\n' && n == sizeof(line) - 1) {
			/* Throw the rest of the line away rather than run half of it. */
			while ((n = getline(in, line, sizeof(line))) > 0 && line[n - 1] != '\n')
				;
			fprintf(2, "sh: syntax error: line too long\n");
			continue;
		}
		if (parse(line) < 0) {
			fprintf(2, "sh: syntax error: %s\n", syntax);
			continue;
		}
		runline();
	}
	/* The first process has nobody to return to: end of input powers off. */
	if (getpid() == 1) {
		fprintf(2, "sh: end of input, halting\n");
		halt(0);
	}
	return 0;
}
