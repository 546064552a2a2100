/* Shared by the usertests files: the checks a test makes and the helpers
 * (small jobs a test runs in a child process of its own). */
#ifndef USERTESTS_H
#define USERTESTS_H

#include "ulib.h"

extern const char *testname;

/* Report a failed check with its line, and end the test process (status 1). */
void fail(const char *file, int line, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));

#define CHECK(cond) \
	do { if (!(cond)) fail(__FILE__, __LINE__, "%s (errno %d)", #cond, errno); } while (0)

/* The call must fail with -1 and this errno. */
#define CHECK_ERR(call, err) \
	do { errno = 0; int r_ = (int)(call); \
	     if (r_ != -1 || errno != (err)) \
		fail(__FILE__, __LINE__, "%s: got %d errno %d, want -1 errno %d", #call, r_, errno, (err)); \
	} while (0)

/* The raw kernel result (-errno) for pointer probes. */
#define CHECK_RAW(call, want) \
	do { int r_ = (call); \
	     if (r_ != (want)) fail(__FILE__, __LINE__, "%s: got %d, want %d", #call, r_, (want)); \
	} while (0)

/* Starts "/bin/usertests -helper NAME [ARG]"; fails the test if it cannot. */
int helper(const char *name, const char *arg);
/* Waits for that child and returns its status; fails the test on error. */
int reap(int pid);
unsigned freepages(void);
/* freepages() once it has come back up to want, or after a short wait. */
unsigned freepages_settled(unsigned want);
/* Writes n bytes to a new file path. */
void makefile(const char *path, const void *data, unsigned n);
/* A page just below the break, with unmapped memory right after it. */
char *lastpage(void);

/* The tests, by file. */
void t_badptr_write(void);
void t_badptr_read(void);
void t_badptr_path(void);
void t_badptr_stat(void);
void t_badptr_spawn(void);
void t_badptr_wait(void);
void t_nosys(void);
void t_sbrk(void);
void t_sbrkfault(void);
void t_malloc(void);

void t_files(void);
void t_bigfile(void);
void t_dirs(void);
void t_dup2(void);
void t_fdmap(void);
void t_rofs(void);
void t_badfd(void);
void t_cwd(void);

void t_exitstatus(void);
void t_faultchild(void);
void t_killchild(void);
void t_manyproc(void);
void t_spawnbomb(void);
void t_badelf(void);
void t_args(void);
void t_sleep(void);
void t_kwork(void);
void t_kpdata(void);
void t_sbrkstack(void);
void t_dirflag(void);

int run_helper(int argc, char **argv);

#endif
