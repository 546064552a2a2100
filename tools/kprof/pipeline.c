/* pipeline.c: the tables of readers and writers, and telling a dump's
 * format from its first bytes. A new reader or writer is one file that
 * defines `const struct reader reader_NAME` (or writer_NAME) and one line
 * in READERS (or WRITERS) below. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"
#include "abi/heat.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

#define READERS(X) \
	X(kpdata) \
	X(gmon) \
	X(dosprof) \
	X(mc) \
	X(heat) \
	X(usample) \
	X(stacks)

#define WRITERS(X) \
	X(text) \
	X(readprofile) \
	X(folded) \
	X(flamegraph) \
	X(speedscope) \
	X(pprof) \
	X(perf) \
	X(calls) \
	X(gmon) \
	X(dosprof) \
	X(heat) \
	X(accuracy) \
	X(diff) \
	X(annotate)

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
 * has its own version word; text that starts with a heat line is a heat
 * dump, with "0x" or "#" sampled PCs; anything else is a kpdata. */
int reader_for(const char *path, const struct reader **r)
{
	unsigned char buf[sizeof(struct dump_header)];
	size_t size;
	int fd, engine = -1;

	*r = reader_named("kpdata");
	if (kp_openfile(path, SIZE_MAX, &fd, &size) < 0)
		return -1;
	/* The magic first: a dump cut inside its header (an export cut
	 * short) is still a dump, not a kpdata whose words make no sense. */
	if (size > 0 && kp_readat(fd, path, 0, buf, MIN(size, sizeof buf)) == 0 &&
	    memcmp(buf, DUMP_MAGIC, MIN(size, DUMP_MAGIC_LEN)) == 0 && size < sizeof buf) {
		kp_error("%s: a profile dump (it starts with %.*s) cut off at %zu bytes, inside its "
			 "%zu-byte header: export it again", path, (int)MIN(size, DUMP_MAGIC_LEN),
			 DUMP_MAGIC, size, sizeof buf);
		close(fd);
		return -1;
	}
	if (size >= sizeof buf && kp_readat(fd, path, 0, buf, sizeof buf) == 0) {
		engine = dump_engine(buf, sizeof buf);
		if (engine < 0 && gmon_is(buf, sizeof buf))
			*r = reader_named("gmon");
	}
	/* text is told by its start, however short the file */
	if (engine < 0 && *r == reader_named("kpdata") && size >= 2 &&
	    kp_readat(fd, path, 0, buf, MIN(size, sizeof buf)) == 0) {
		if (size > strlen(HEAT_TAG) && !memcmp(buf, HEAT_TAG " ", strlen(HEAT_TAG) + 1))
			*r = reader_named("heat");
		else if (!memcmp(buf, "0x", 2) || buf[0] == '#')
			*r = reader_named("usample");
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

/* A reader's error names the format it read the file as, so that a file
 * taken for the wrong one says so: "x: a stacks dump: record 3 is cut
 * off", "x: a kpdata: truncated...". */
static void say_format(const char *path, const char *format)
{
	char why[1024];
	const char *what = strcmp(format, "kpdata") == 0 ? "" : strcmp(format, "gmon") == 0 ?
			   " file" : " dump";
	size_t n = strlen(path);

	snprintf(why, sizeof why, "%s", kp_lasterror());
	if (strstr(why, format))
		return;
	if (strncmp(why, path, n) == 0 && strncmp(why + n, ": ", 2) == 0)
		kp_error("%s: a %s%s: %s", path, format, what, why + n + 2);
	else
		kp_error("%s (reading %s as a %s%s)", why, path, format, what);
}

int reader_parsefile(struct sampleset *ss, const char *path, size_t max,
		     int (*parse)(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name))
{
	unsigned char *buf;
	size_t len;
	int r;

	if (kp_readfile(path, max, &buf, &len) < 0)
		return -1;
	r = parse(ss, buf, len, path);
	free(buf);
	return r;
}

const struct unit units[UNIT_N] = {
	[UNIT_TICKS] = { "clock ticks", "ticks", "samples", "samples", "count", 1 },
	[UNIT_SYSCALLS] = { "system-call hits", "hits", "hits", "syscalls", "count", 0 },
	[UNIT_INSNS] = { "instructions executed", "instructions", "instructions", "instructions", "count", 0 },
	[UNIT_CYCLES] = { "cycles", "cycles", "cycles", "cycles", "count", 0 },
};

const struct unit *sampleset_unit(const struct sampleset *ss)
{
	return &units[ss->unit >= 0 && ss->unit < UNIT_N ? ss->unit : UNIT_TICKS];
}

void sampleset_free(struct sampleset *ss)
{
	for (size_t i = 0; i < ss->nmods; i++)
		free(ss->mods[i].path);
	free(ss->mods);
	free(ss->flat);
	free(ss->frames);
	free(ss->stacks);
	free(ss->arcs);
	free(ss->heat);
	if (ss->payload_free)
		ss->payload_free(ss->payload);
	memset(ss, 0, sizeof *ss);
}

size_t sampleset_nstacks(const struct sampleset *ss)
{
	return ss->stacks ? ss->nstacks : ss->nflat;
}

const struct frame *sampleset_stack(const struct sampleset *ss, size_t i, struct frame *one,
				    uint32_t *n, uint64_t *weight)
{
	if (ss->stacks) {
		*n = ss->stacks[i].n;
		*weight = ss->stacks[i].weight;
		return ss->frames + ss->stacks[i].first;
	}
	*one = (struct frame){ ss->flat[i].mod, ss->flat[i].addr };
	*n = 1;
	*weight = ss->flat[i].count;
	return one;
}

int pipe_open(struct pipe *pp, const char *const *elfs, size_t nelfs, const struct ropen *ro,
	      const char *format, int force)
{
	memset(pp, 0, sizeof *pp);
	if (symbolizer_open(&pp->sy, elfs, nelfs) < 0 || reader_for(ro->path, &pp->rd) < 0)
		return -1;
	pp->sy.no_inline = ro->no_inline;
	/* a text dump need not start as it usually does (a heat dump in a
	 * console log): what fell through to the headerless kpdata is read
	 * as the text format asked for */
	if (format && strcmp(pp->rd->name, format) != 0) {
		const struct reader *f = reader_named(format);

		if (!f || f->engine || strcmp(pp->rd->name, "kpdata") != 0) {
			kp_error("%s is a %s dump, not a %s one", ro->path, pp->rd->name, format);
			return -1;
		}
		pp->rd = f;
	}
	pp->ss.format = pp->rd->name;
	{
		struct ropen r = *ro;
		/* a report per function of a kernel's bins needs no bin of its
		 * own: the reader sums them per function as it reads (the
		 * kernel is the first ELF; a wrong one is refused below), but
		 * for the bins in inlined code, whose frames are named apart */
		r.fold = ro->by_function && pp->sy.n ? &pp->sy.elfs[0] : NULL;
		if ((pp->rd->read ? pp->rd->read(&pp->ss, &r) :
		     reader_parsefile(&pp->ss, r.path, pp->rd->max, pp->rd->parse)) < 0) {
			say_format(ro->path, pp->rd->name);
			return -1;
		}
	}
	pp->ss.format = pp->rd->name;
	/* with profiling off, a kpdata and its kpinfo of one profile say the
	 * same ticks: other ticks are another profile's kpinfo, and every
	 * millisecond figure would be off */
	if (pp->ss.stopped && pp->ss.has_ticks && pp->ss.info_ticks != pp->ss.total) {
		if (!force) {
			kp_error("%s holds %ju ticks and its kpinfo %ju, with profiling off: they are not "
				 "of one profile (export /dev/kpdata and /dev/kpinfo together; --force to go on)",
				 ro->path, (uintmax_t)pp->ss.total, (uintmax_t)pp->ss.info_ticks);
			return -1;
		}
		fprintf(stderr, "kprof: warning: kpdata's %ju ticks are not its kpinfo's %ju (--force)\n",
			(uintmax_t)pp->ss.total, (uintmax_t)pp->ss.info_ticks);
	}
	if (kp_match(&pp->sy, &pp->ss, force, pp->warning, sizeof pp->warning) < 0)
		return -1;
	kp_unmatched(&pp->sy, &pp->ss, pp->unmatched, sizeof pp->unmatched);
	if (pp->ss.stacks)
		stacks_repair(&pp->sy, &pp->ss);
	if (symbolize(&pp->p, &pp->sy, &pp->ss) < 0)
		return -1;
	return 0;
}

void pipe_close(struct pipe *pp)
{
	profile_free(&pp->p);
	sampleset_free(&pp->ss);
	symbolizer_close(&pp->sy);
}

const struct kelf *pipe_elf(const struct pipe *pp, uint32_t m)
{
	return m < pp->sy.nof && pp->sy.of[m] >= 0 ? &pp->sy.elfs[pp->sy.of[m]] : NULL;
}

int kp_parse_top(const char *arg, long *top, const char *usage)
{
	char *end;

	errno = 0;
	*top = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *top < 0) {
		fprintf(stderr, "kprof: --top wants a number of rows, not %s; usage: %s\n", arg, usage);
		return -1;
	}
	return 0;
}

const char *wopt_arg(const struct wopt *opts, const struct wopts *wo, const char *name)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (strcmp(opts[i].name, name) == 0)
			return wo->arg[i];
	return NULL;
}

double wopt_num(const struct wopt *opts, const struct wopts *wo, const char *name)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (strcmp(opts[i].name, name) == 0)
			return wo->num[i];
	return 0;
}

/* a number option's value: 0, or 2 after its one line */
static int wopt_parse_num(const struct wopt *o, const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= o->lo && *v <= o->hi)) {
		fprintf(stderr, "kprof: --%s wants %s, not %s\n", o->name, o->number, arg);
		return 2;
	}
	return 0;
}

/* an option's name as --help shows it: "-o, --output FILE" */
static int wopt_label(char *buf, size_t n, const struct wopt *o)
{
	char letter[5] = "";

	if (o->letter)
		snprintf(letter, sizeof letter, "-%c, ", o->letter);
	return snprintf(buf, n, "%s--%s%s%s", letter, o->name, o->value ? " " : "", o->value ? o->value : "");
}

/* usage, the view's text, and its options from the table in a column */
static void view_help(const struct writer *w)
{
	char label[64];
	int col = 8;                   /* the help at least 2 past the widest label */

	for (size_t i = 0; w->opts[i].name; i++)
		if (w->opts[i].help && wopt_label(label, sizeof label, &w->opts[i]) > col)
			col = (int)strlen(label);
	col += 2;
	printf("usage: %s\n\n%s", w->usage, w->about);
	for (size_t i = 0; w->opts[i].name; i++) {
		const char *h = w->opts[i].help;

		if (!h)
			continue;
		wopt_label(label, sizeof label, &w->opts[i]);
		printf("  %-*s", col, label);
		for (size_t len; (len = strcspn(h, "\n")) < strlen(h); h += len + 1)
			printf("%.*s\n  %-*s", (int)len, h, col, "");
		printf("%s\n", h);
	}
}

static int view_usage(const struct writer *w, const char *what, const char *arg)
{
	fprintf(stderr, "kprof: %s%s%s; usage: %s\n", what, arg ? " " : "", arg ? arg : "", w->usage);
	return 2;
}

/* One parser for every view, driven by its writer's table of options. */
static int view_opts(const struct writer *w, struct wopts *wo, int argc, char **argv)
{
	struct option longopts[WOPT_MAX + 2];
	char shorts[2 * WOPT_MAX + 3] = ":h", *sp = shorts + 2;
	size_t n;
	int c;

	for (n = 0; w->opts[n].name && n < WOPT_MAX; n++) {
		const struct wopt *o = &w->opts[n];

		longopts[n] = (struct option){ o->name, o->value ? required_argument : no_argument, NULL,
					       256 + (int)n };
		wo->num[n] = o->def;
		if (o->letter) {
			*sp++ = o->letter;
			if (o->value)
				*sp++ = ':';
		}
	}
	*sp = '\0';
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;                 /* our own one-line messages */
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct wopt *o = NULL;
		size_t k;

		if (c == 'h') {
			view_help(w);
			return 0;
		}
		if (c == ':')
			return view_usage(w, "option needs a value:", argv[optind - 1]);
		for (k = 0; k < n && !o; k++)
			if (c == 256 + (int)k || (w->opts[k].letter && c == w->opts[k].letter))
				o = &w->opts[k];
		if (!o) {
			if (optopt && optopt < 256) {  /* a short option, maybe inside -abc */
				char opt[3] = { '-', (char)optopt, '\0' };
				return view_usage(w, "unknown option", opt);
			}
			return view_usage(w, "unknown option", argv[optind - 1]);
		}
		k = (size_t)(o - w->opts);
		if (strcmp(o->name, "top") == 0 && kp_parse_top(optarg, &wo->top, w->usage) < 0)
			return 2;
		if (o->number && wopt_parse_num(o, optarg, &wo->num[k]) != 0)
			return 2;
		if (strcmp(o->name, "elf") == 0) {
			if (wo->nelfs == VIEW_MAX_ELFS)
				return view_usage(w, "too many --elf files", NULL);
			wo->elfs[wo->nelfs++] = optarg;
		}
		wo->arg[k] = o->value ? optarg : "";
	}
	if (argc - optind != 1 + w->ninputs && !(w->extra && argc - optind == 2 + w->ninputs)) {
		fprintf(stderr, "kprof: %s wants %s; usage: %s\n", w->name, w->wants, w->usage);
		return 2;
	}
	wo->elfs[0] = argv[optind];
	for (int i = 0; i < w->ninputs; i++)
		wo->dumps[i] = argv[optind + 1 + i];
	wo->extra = argc - optind == 2 + w->ninputs ? argv[optind + 1 + w->ninputs] : NULL;
	return -1;
}

int view_main(const struct writer *w, int argc, char **argv)
{
	struct wopts wo;
	struct pipe in[2];
	struct ropen ro = { 0 };
	int r, force, status = 2;

	memset(&wo, 0, sizeof wo);
	memset(in, 0, sizeof in);
	wo.top = w->top;
	wo.nelfs = 1;                   /* elfs[0] is the first argument */
	if ((r = view_opts(w, &wo, argc, argv)) >= 0)
		return r;
	force = wopt_arg(w->opts, &wo, "force") != NULL;
	for (int i = 0; i < w->ninputs; i++) {
		ro.path = wo.dumps[i];
		if (pipe_open(&in[i], wo.elfs, wo.nelfs, &ro, w->formats[i], force) < 0)
			goto fail;
	}
	for (int i = 0; i < w->ninputs; i++)
		if (in[i].warning[0])
			fprintf(stderr, "kprof: warning: %s\n", in[i].warning);
	/* annotate looks at one function, of the ELF given first: the other
	 * modules need none */
	for (int i = 0; i < w->ninputs && strcmp(w->name, "annotate") != 0; i++)
		if (in[i].unmatched[0])
			fprintf(stderr, "kprof: %s: no ELF for %s\n", wo.dumps[i], in[i].unmatched);
	if ((r = w->view(stdout, &wo, in)) < 0)
		goto fail;
	status = fflush(stdout) == 0 ? r : 2;
	goto out;
fail:
	fprintf(stderr, "kprof: %s\n", kp_lasterror());
out:
	for (int i = 0; i < w->ninputs; i++)
		pipe_close(&in[i]);
	return status;
}
