/* What sh.c shares with its builtins (shbuiltin.c, shexport.c). */
#ifndef SH_H
#define SH_H

/* Runs argv[0] if it is a builtin, writing its output to fd out.
 * Returns its status, or -1 if argv[0] is not a builtin. */
int builtin(int argc, char **argv, int out);

int export(int argc, char **argv, int out);

/* kpr (shkpr.c): one write to /dev/kpctl (0, or -1 after a message), and
 * the summary line printed after the profiled command. */
int kpr_ctl(const char *cmd);
void kpr_summary(void);

/* globs (shglob.c): argv with each word whose globbed[i] is set (an
 * unquoted * or ?) replaced by the names it matches, into out (max
 * words, then a 0), their text in buf; the count, or -1 after a message */
int sh_glob(int argc, char **argv, const unsigned char *globbed, char **out, int max, char *buf, size_t size);

#endif
