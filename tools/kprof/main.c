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

#define USAGE "kprof [--lines | --addr] [--top N] [--kpinfo FILE] [--force] [--elf PROG.elf]... " \
	      "[--format readprofile -o DIR] ELF DUMP"
#define MAX_ELFS 64

struct opts {
	const char *elfs[MAX_ELFS];
	size_t nelfs;
	const char *dump, *kpinfo;
	const struct writer *writer;
	int force;
	struct wopts wo;
};

static void help(void)
{
	printf("usage: %s\n\n"
	       "Report where the clock ticks went, from a dump and the ELF it names:\n"
	       "devkprof's /dev/kpdata with the kernel's ELF (its kpinfo is read from the\n"
	       "same directory), a profil(2) gmon file or a DosProfile dump with the\n"
	       "program's. The format is told from the file's first bytes.\n"
	       "Also: kprof gmon PROG.elf GMON, kprof dosprof ELF DUMP (their own views).\n\n"
	       "  --kpinfo FILE        the kpinfo to use instead of the one beside a kpdata\n"
	       "  --lines              a row per source line (file:line, from DWARF)\n"
	       "  --addr               a row per bin address, with symbol+offset and instruction\n"
	       "  --top N              print only the N rows with the most samples (0: all)\n"
	       "  --force              go on when the kernel's build-id differs from kpinfo's\n"
	       "  --elf FILE           another module (a user program) to name samples in\n"
	       "  --format text        the report (the default)\n"
	       "  --format readprofile write DIR/profile and DIR/System.map for readprofile(8)\n"
	       "  -o, --output DIR     where --format readprofile writes\n"
	       "  -h, --help           this text\n\n"
	       "Exit status: 0 done, 2 bad usage or bad input.\n", USAGE);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "kprof: %s%s%s; usage: %s\n", what, arg ? " " : "", arg ? arg : "", USAGE);
	return -1;
}

static int parse_opts(struct opts *o, int argc, char **argv)
{
	enum { O_KPINFO = 256, O_LINES, O_ADDR, O_TOP, O_FORCE, O_FORMAT, O_ELF };
	static const struct option longopts[] = {
		{ "kpinfo", required_argument, NULL, O_KPINFO },
		{ "lines", no_argument, NULL, O_LINES },
		{ "addr", no_argument, NULL, O_ADDR },
		{ "top", required_argument, NULL, O_TOP },
		{ "force", no_argument, NULL, O_FORCE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "elf", required_argument, NULL, O_ELF },
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
		case 'o': o->wo.outdir = optarg; break;
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
			o->writer = writer_named(optarg);
			if (o->writer == NULL) {
				char names[256] = "";

				for (size_t i = 0; writers[i]; i++)
					snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
						 i ? ", " : "", writers[i]->name);
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
	if (!o->writer->needs_dir && o->wo.outdir)
		return usage_error("-o DIR goes with --format readprofile (a writer that makes files)", NULL);
	if (o->writer != writer_named("text") && (lines || addr))
		return usage_error("--lines and --addr are text reports; drop them for this --format", NULL);
	o->wo.by = lines ? BY_LINE : addr ? BY_ADDR : BY_SYMBOL;
	o->elfs[0] = argv[optind];
	o->dump = argv[optind + 1];
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct symbolizer sy = { 0 };
	struct sampleset ss = { 0 };
	struct profile p = { 0 };
	struct ropen ro;
	const struct reader *rd;
	char warning[1024] = "";
	int status = 2;

	/* profil(2)'s gmon files: a reader of their own (gmon.c) */
	if (argc > 1 && strcmp(argv[1], "gmon") == 0)
		return gmon_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "dosprof") == 0)
		return dosprof_main(argc - 1, argv + 1);
	/* the heat subcommands (tools/kprof/heat.c, accuracy.c) */
	if (argc > 1 && strcmp(argv[1], "heat") == 0)
		return heat_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "accuracy") == 0)
		return accuracy_main(argc - 1, argv + 1);
	if (parse_opts(&o, argc, argv) < 0)
		return 2;
	/* the ELFs first: a wrong kernel is the likelier mistake */
	if (symbolizer_open(&sy, o.elfs, o.nelfs) < 0 || reader_for(o.dump, &rd) < 0)
		goto fail;
	ro.path = o.dump;
	ro.kpinfo = o.kpinfo;
	ss.format = rd->name;
	if (rd->read(&ss, &ro) < 0)
		goto fail;
	ss.format = rd->name;
	if (kp_match(&sy, &ss, o.force, warning, sizeof warning) < 0 || symbolize(&p, &sy, &ss) < 0 ||
	    o.writer->write(stdout, &o.wo, &sy, &ss, &p) < 0)
		goto fail;
	if (fflush(stdout) != 0) {
		kp_error("writing the report: %s", strerror(errno));
		goto fail;
	}
	if (warning[0])
		fprintf(stderr, "kprof: warning: %s\n", warning);
	status = 0;
	goto out;
fail:
	fprintf(stderr, "kprof: %s\n", kp_lasterror());
out:
	profile_free(&p);
	sampleset_free(&ss);
	symbolizer_close(&sy);
	return status;
}
