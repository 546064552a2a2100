/* test_util.c: helpers for the kprof unit tests: paths, running the CLI
 * with a time limit, facts about the fixture ELF from nm/readelf/libelf
 * (not from kprof's own code), writing dumps and parsing reports. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/be32.h"
#include "test_util.h"

static char *ring(void)
{
	static char bufs[32][PATH_MAX];
	static int next;

	return bufs[next++ % 32];
}

static const char *build_dir(void)
{
	static char dir[PATH_MAX];

	if (dir[0] == '\0') {
		const char *env = getenv("KPROF_BUILD");
		char exe[PATH_MAX];
		ssize_t n;

		if (env) {
			snprintf(dir, sizeof dir, "%s", env);
		} else {
			/* build/kprof-unit: everything else is beside it */
			n = readlink("/proc/self/exe", exe, sizeof exe - 1);
			if (n <= 0) {
				fprintf(stderr, "kprof-unit: cannot find myself; set KPROF_BUILD\n");
				exit(1);
			}
			exe[n] = '\0';
			snprintf(dir, sizeof dir, "%s", dirname(exe));
		}
	}
	return dir;
}

const char *build_path(const char *rel)
{
	char *p = ring();

	snprintf(p, PATH_MAX, "%s/%s", build_dir(), rel);
	return p;
}

const char *fixture(const char *name)
{
	char *p = ring();

	snprintf(p, PATH_MAX, "%s/tools/kprof/%s", build_dir(), name);
	return p;
}

static char tmpdir[64];

const char *tmp_path(const char *name)
{
	char *p = ring();

	if (tmpdir[0] == '\0') {
		snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/kprof-unit-XXXXXX");
		if (mkdtemp(tmpdir) == NULL) {
			perror("kprof-unit: mkdtemp");
			exit(1);
		}
	}
	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

const char *path_in(const char *dir, const char *name)
{
	char *p = ring();

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

void tmp_cleanup(void)
{
	struct run r;
	const char *argv[] = { "rm", "-rf", tmpdir, NULL };

	if (tmpdir[0]) {
		run_cmd(&r, argv);
		run_free(&r);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc((size_t)n + 1, 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

void run_cmd(struct run *r, const char *const *argv)
{
	static int seq;
	char out[PATH_MAX], err[PATH_MAX];
	struct rusage ru;
	struct timespec t0, t1;
	pid_t pid;
	int st;

	snprintf(out, sizeof out, "%s", tmp_path("run.out"));
	snprintf(err, sizeof err, "%s.%d", tmp_path("run.err"), seq++);
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("kprof-unit: fork");
		exit(1);
	}
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		dup2(e, 2);
		alarm(60);              /* survives exec: a hang becomes SIGALRM */
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	r->maxrss_kb = ru.ru_maxrss;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = slurp(out);
	r->err = slurp(err);
	unlink(out);
	unlink(err);
}

void run_kprof(struct run *r, ...)
{
	const char *argv[32];
	int n = 0;
	va_list ap;

	argv[n++] = getenv("KPROF_BIN") ? getenv("KPROF_BIN") : build_path("kprof-asan");
	va_start(ap, r);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	run_cmd(r, argv);
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int nlines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- the fixture, from independent tools ---- */

struct nmsym {
	char name[64];
	uint32_t addr, size;
};
static struct nmsym nms[64];
static int nnms;

static void load_nm(void)
{
	char cmd[PATH_MAX + 32], line[256];
	FILE *p;

	if (nnms)
		return;
	snprintf(cmd, sizeof cmd, "nm -S '%s'", fixture("fixture.elf"));
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof line, p) && nnms < 64) {
		unsigned a, s;
		char t, name[64];

		if (sscanf(line, "%x %x %c %63s", &a, &s, &t, name) == 4) {
			nms[nnms].size = s;
		} else if (sscanf(line, "%x %c %63s", &a, &t, name) == 3) {
			nms[nnms].size = 0;
		} else {
			continue;
		}
		nms[nnms].addr = a;
		snprintf(nms[nnms].name, sizeof nms[nnms].name, "%s", name);
		nnms++;
	}
	pclose(p);
	assert_true(nnms > 5);
}

static const struct nmsym *nm_find(const char *name)
{
	load_nm();
	for (int i = 0; i < nnms; i++)
		if (strcmp(nms[i].name, name) == 0)
			return &nms[i];
	fail_msg("fixture has no symbol %s", name);
	return NULL;
}

uint32_t sym(const char *name)
{
	return nm_find(name)->addr;
}

uint32_t sym_size(const char *name)
{
	return nm_find(name)->size;
}

const struct fx *fx(void)
{
	static struct fx f;

	if (f.te == 0)
		elf_facts(fixture("fixture.elf"), &f);
	return &f;
}

uint32_t sym_of(const char *path, const char *name)
{
	char cmd[PATH_MAX + 64], line[256];
	unsigned a = 0;
	FILE *p;

	snprintf(cmd, sizeof cmd, "nm '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof line, p)) {
		char t, n[128];
		unsigned x;

		if (sscanf(line, "%x %c %127s", &x, &t, n) == 3 && strcmp(n, name) == 0)
			a = x;
	}
	pclose(p);
	if (a == 0)
		fail_msg("%s has no symbol %s", path, name);
	return a;
}

void elf_facts(const char *path, struct fx *fp)
{
	struct fx f = { 0 };
	char cmd[PATH_MAX + 32], line[256];
	FILE *p;

	snprintf(cmd, sizeof cmd, "readelf -SW -n '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof line, p)) {
		char *s = strstr(line, " .text ");
		char *b = strstr(line, "Build ID: ");
		unsigned addr, off, size;

		if (s && sscanf(s, " .text PROGBITS %x %x %x", &addr, &off, &size) == 3) {
			f.ts = addr;
			f.te = addr + size;
		}
		if (b)
			sscanf(b + 10, "%128s", f.build_id);
	}
	pclose(p);
	assert_true(f.te > f.ts);
	assert_true(strlen(f.build_id) == 40);
	*fp = f;
}

int source_line(const char *marker)
{
	char path[PATH_MAX], line[512], want[64];
	const char *src = getenv("KPROF_SRCDIR") ? getenv("KPROF_SRCDIR") : KPROF_SRCDIR;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof path, "%s/tests/fixture.c", src);
	snprintf(want, sizeof want, "/* L:%s */", marker);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		n++;
		if (strstr(line, want)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no marker %s in %s", want, path);
	return -1;
}

/* ---- writing dumps ---- */


void write_kpdata(const char *path, uint32_t total, uint32_t kernel, const uint32_t *bins, size_t n)
{
	unsigned char *buf = calloc(n + 2, 4);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	be32_put(buf, total);
	be32_put(buf + 4, kernel);
	for (size_t i = 0; i < n; i++)
		be32_put(buf + 8 + 4 * i, bins[i]);
	assert_int_equal(fwrite(buf, 4, n + 2, f), n + 2);
	fclose(f);
	free(buf);
}

void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

size_t fx_nbins(unsigned res)
{
	return (fx()->te - fx()->ts + (1u << res) - 1) >> res;
}

/* A key of extra replaces the default line of that key: kpinfo takes each
 * key once. */
void write_dump(const char *dir, unsigned res, uint32_t total, uint32_t kernel,
		const uint32_t *bins, size_t n, const char *extra)
{
	char path[PATH_MAX], text[2048], base[1024], *line, *save;
	size_t len = 0;

	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/kpdata", dir);
	write_kpdata(path, total, kernel, bins, n);
	snprintf(base, sizeof base,
		 "text_start 0x%08x\ntext_end 0x%08x\nres %u\nnbins %zu\nhz 1000.000\n"
		 "ticks %u\nkernel_ticks %u\nstate off\nsaturated 0\nbuild_id %s\n"
		 "last startclr: ok\n",
		 fx()->ts, fx()->te, res, n, total, kernel, fx()->build_id);
	text[0] = '\0';
	for (line = strtok_r(base, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		size_t k = strcspn(line, " ");

		snprintf(key, sizeof key, "\n%.*s ", (int)k, line);
		if (extra && (strncmp(extra, key + 1, k + 1) == 0 || strstr(extra, key)))
			continue;
		len += (size_t)snprintf(text + len, sizeof text - len, "%s\n", line);
	}
	snprintf(text + len, sizeof text - len, "%s", extra ? extra : "");
	snprintf(path, sizeof path, "%s/kpinfo", dir);
	write_text(path, text);
}

/* ---- reading reports ---- */

int parse_rows(const char *out, struct prow *rows, int max)
{
	const char *p = out;
	int n = 0, in = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		if (!in) {
			char a[16], b[16], c[16];

			if (sscanf(line, "%15s %15s %15s", a, b, c) == 3 && strcmp(a, "ms") == 0 &&
			    strcmp(b, "%") == 0 && strcmp(c, "samples") == 0)
				in = 1;
		} else if (n < max && sscanf(line, "%lf %lf %lu %159[^\n]", &rows[n].ms, &rows[n].pct,
					      &rows[n].samples, rows[n].name) == 4) {
			n++;
		} else {
			break;
		}
		p += len + (nl != NULL);
	}
	return n;
}

const struct prow *find_row(const struct prow *rows, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}
