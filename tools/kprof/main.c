/* main.c: kprof KERNEL.elf DUMP (Plan 9's invocation): options, then the
 * pipeline in order: open the ELFs, pick the reader by the dump's first
 * bytes and read it, check that dump and ELFs belong together, charge the
 * counts to symbols, hand them to the writer.
 * Every failure is one "kprof: ..." line on stderr and exit status 2. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"
#include "heat.h"

#define USAGE "kprof [--lines | --addr | --callers FUNC | --callees FUNC] [--top N] [--kpinfo FILE] " \
	      "[--force] [--no-inline] [--elf PROG.elf]... [--format F [-o DIR|FILE]] ELF DUMP"
#define MAX_ELFS 64

struct opts {
	const char *elfs[MAX_ELFS];
	size_t nelfs;
	const char *dump, *kpinfo;
	const struct writer *writer;
	int force, no_inline;
	struct wopts wo;
};

static void help(void)
{
	printf("usage: %s\n\n"
	       "Report where the clock ticks went, from a dump and the ELF it names:\n"
	       "devkprof's /dev/kpdata with the kernel's ELF (its kpinfo is read from the\n"
	       "same directory), a profil(2) gmon file or a DosProfile dump with the\n"
	       "program's, a Monte Carlo dump with the kernel's and the programs'.\n"
	       "The format is told from the file's first bytes.\n"
	       "Also these subcommands, each with --help, --top N and --force:\n"
	       "  kprof gmon PROG.elf GMON            a gmon file's flat profile with call counts\n"
	       "  kprof dosprof ELF DUMP              a DosProfile dump in OS/2's terms\n"
	       "  kprof heat PROG.elf HEAT            exact instruction counts per function\n"
	       "  kprof accuracy PROG.elf HEAT SAMPLES  a sampled profile against the exact one\n"
	       "  kprof diff KERNEL.elf BASE NEW      what changed between two stack dumps\n"
	       "  kprof annotate ELF DUMP [FUNC]      a function's instructions and source lines with\n"
	       "                                      their samples (--heat HEAT: exact counts beside)\n"
	       "  kprof unwind ELF [FUNC]             the unwind table the kernel makes from ELF's .eh_frame\n\n"
	       "  --kpinfo FILE        the kpinfo to use instead of the one beside a kpdata\n"
	       "  --lines              a row per source line (file:line, from DWARF)\n"
	       "  --addr               a row per bin address, with symbol+offset and instruction\n"
	       "  --top N              print only the N rows with the most samples (0: all)\n"
	       "  --force              go on when the kernel's build-id differs from kpinfo's\n"
	       "  --elf FILE           another module (a user program) to name samples in\n"
	       "  --callers FUNC       a stack dump: the functions that called FUNC, with samples\n"
	       "  --callees FUNC       a stack dump: the functions FUNC called, with samples\n"
	       "  --no-inline          frames are functions only, in every format: no frames for\n"
	       "                       the calls the compiler inlined (shown by default, from DWARF)\n"
	       "  --format text        the report (the default)\n"
	       "  --format folded      stacks as folded lines (flamegraph.pl, inferno, speedscope)\n"
	       "  --format flamegraph  stacks as an SVG flame graph\n"
	       "  --format speedscope  stacks as speedscope's JSON\n"
	       "  --format pprof       stacks as pprof's gzipped profile.proto (go tool pprof)\n"
	       "  --format perf        stacks as a perf.data file (perf script, perf report)\n"
	       "  --format readprofile write DIR/profile and DIR/System.map for readprofile(8)\n"
	       "  -o, --output DIR     where --format readprofile writes\n"
	       "  -o, --output FILE    where --format pprof or perf writes (not to a terminal)\n"
	       "  -h, --help           this text\n"
	       "  --version            the version, and the formats read and written\n\n"
	       "Exit status: 0 done, 2 bad usage or bad input.\n", USAGE);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "kprof: %s%s%s; usage: %s\n", what, arg ? " " : "", arg ? arg : "", USAGE);
	return -1;
}

static int parse_opts(struct opts *o, int argc, char **argv)
{
	enum { O_KPINFO = 256, O_LINES, O_ADDR, O_TOP, O_FORCE, O_FORMAT, O_ELF, O_CALLERS, O_CALLEES, O_NOINLINE };
	static const struct option longopts[] = {
		{ "kpinfo", required_argument, NULL, O_KPINFO },
		{ "lines", no_argument, NULL, O_LINES },
		{ "addr", no_argument, NULL, O_ADDR },
		{ "top", required_argument, NULL, O_TOP },
		{ "force", no_argument, NULL, O_FORCE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "elf", required_argument, NULL, O_ELF },
		{ "callers", required_argument, NULL, O_CALLERS },
		{ "callees", required_argument, NULL, O_CALLEES },
		{ "no-inline", no_argument, NULL, O_NOINLINE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, lines = 0, addr = 0;
	char *end;

	memset(o, 0, sizeof *o);
	o->wo.by = BY_SYMBOL;
	o->writer = writer_named("text");
	o->nelfs = 1;                  /* elfs[0] is the kernel, the first argument */
	opterr = 0;                 /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case O_KPINFO: o->kpinfo = optarg; break;
		case O_LINES: lines = 1; break;
		case O_ADDR: addr = 1; break;
		case O_FORCE: o->force = 1; break;
		case O_NOINLINE: o->no_inline = 1; break;
		case 'o': o->wo.outdir = optarg; break;
		case O_CALLERS:
		case O_CALLEES:
			o->wo.func = optarg;
			o->wo.callers = c == O_CALLERS;
			o->writer = writer_named("calls");
			break;
		case O_ELF:
			if (o->nelfs == MAX_ELFS)
				return usage_error("too many --elf files", NULL);
			o->elfs[o->nelfs++] = optarg;
			break;
		case 'h': help(); exit(0);
		case O_TOP:
			errno = 0;
			o->wo.top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->wo.top < 0)
				return usage_error("--top wants a number of rows, not", optarg);
			break;
		case O_FORMAT:
			/* calls is --callers FUNC or --callees FUNC: it needs the FUNC */
			if (strcmp(optarg, "calls") == 0)
				return usage_error("--format calls is --callers FUNC or --callees FUNC "
						   "(the functions that called FUNC, or that it called)", NULL);
			o->writer = writer_named(optarg);
			if (o->writer == NULL || !o->writer->write) {   /* a view is a subcommand */
				char names[256] = "";

				for (size_t i = 0; writers[i]; i++)
					if (writers[i]->write && strcmp(writers[i]->name, "calls") != 0)
						snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
							 names[0] ? ", " : "", writers[i]->name);
				fprintf(stderr, "kprof: unknown --format %s (%s); usage: %s\n", optarg, names, USAGE);
				return -1;
			}
			break;
		case ':':
			return usage_error("option needs a value:", argv[optind - 1]);
		default:
			if (optopt) {          /* a short option, maybe inside -abc */
				char opt[3] = { '-', (char)optopt, '\0' };
				return usage_error("unknown option", opt);
			}
			return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage_error(argc - optind < 2 ? "missing ELF or DUMP" :
				   "too many arguments", NULL);
	if (lines && addr)
		return usage_error("--lines and --addr are two different reports; pick one", NULL);
	if (o->writer->needs_dir && o->wo.outdir == NULL) {
		fprintf(stderr, "kprof: --format %s needs -o DIR; usage: %s\n", o->writer->name, USAGE);
		return -1;
	}
	if (!o->writer->needs_dir && !o->writer->binary && o->wo.outdir)
		return usage_error("-o goes with --format readprofile (DIR), pprof or perf (FILE)", NULL);
	/* a terminal would show the bytes as garbage and may act on some */
	if (o->writer->binary && !o->wo.outdir && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "kprof: --format %s writes a binary file, not to a terminal: give -o FILE "
			"(or redirect the output); usage: %s\n", o->writer->name, USAGE);
		return -1;
	}
	if (o->writer != writer_named("text") && (lines || addr))
		return usage_error("--lines and --addr are text reports; drop them for this --format", NULL);
	o->wo.by = lines ? BY_LINE : addr ? BY_ADDR : BY_SYMBOL;
	o->elfs[0] = argv[optind];
	o->dump = argv[optind + 1];
	return 0;
}

static void version(void)
{
	printf("kprof %s\nreads:", KPROF_VERSION);
	for (size_t i = 0; readers[i]; i++)
		printf(" %s", readers[i]->name);
	printf("\nwrites:");
	for (size_t i = 0; writers[i]; i++)
		if (writers[i]->write)
			printf(" %s", writers[i]->name);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct opts o;
	struct pipe pp;
	struct ropen ro = { 0 };
	FILE *out = stdout;
	int status = 2;

	if (argc > 1 && strcmp(argv[1], "unwind") == 0)   /* an ELF's table: no dump */
		return unwind_main(argc - 1, argv + 1);
	/* the subcommands are the writers with views of their own */
	if (argc > 1 && writer_named(argv[1]) && writer_named(argv[1])->view)
		return view_main(writer_named(argv[1]), argc - 1, argv + 1);
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		version();
		return 0;
	}
	if (parse_opts(&o, argc, argv) < 0)
		return 2;
	ro.path = o.dump;
	ro.kpinfo = o.kpinfo;
	ro.by_function = o.writer == writer_named("text") && o.wo.by == BY_SYMBOL;
	ro.no_inline = o.no_inline;
	/* the ELFs first: a wrong kernel is the likelier mistake */
	if (pipe_open(&pp, o.elfs, o.nelfs, &ro, NULL, o.force) < 0)
		goto fail;
	if (pp.ss.nmods > 0 && kp_check_kernel(&pp.sy, &pp.ss, o.force, pp.warning, sizeof pp.warning) < 0)
		goto fail;
	if (o.kpinfo && strcmp(pp.rd->name, "kpdata") != 0) {
		kp_error("--kpinfo goes with a kpdata, and %s is a %s dump", o.dump, pp.rd->name);
		goto fail;
	}
	if (o.nelfs > 1 && strcmp(pp.rd->name, "kpdata") == 0) {
		kp_error("--elf names a program's ELF, and a kpdata has only the kernel's samples");
		goto fail;
	}
	if (o.writer->binary && o.wo.outdir) {
		FILE *f = fopen(o.wo.outdir, "wb");

		if (!f) {
			kp_error("-o %s: %s", o.wo.outdir, strerror(errno));
			goto fail;
		}
		out = f;
	}
	if (o.writer->write(out, &o.wo, &pp.sy, &pp.ss, &pp.p) < 0)
		goto fail;
	if (fflush(out) != 0 || (out != stdout && ferror(out))) {
		kp_error("writing %s: %s", out == stdout ? "the report" : o.wo.outdir, strerror(errno));
		goto fail;
	}
	if (pp.warning[0])
		fprintf(stderr, "kprof: warning: %s\n", pp.warning);
	if (pp.unmatched[0])
		fprintf(stderr, "kprof: %s: no ELF for %s\n", o.dump, pp.unmatched);
	status = 0;
	goto out;
fail:
	fprintf(stderr, "kprof: %s\n", kp_lasterror());
out:
	if (out != stdout && fclose(out) != 0 && status == 0) {
		fprintf(stderr, "kprof: writing %s: %s\n", o.wo.outdir, strerror(errno));
		status = 2;
	}
	pipe_close(&pp);
	return status;
}
