/* main.c: kprof KERNEL.elf KPDATA (Plan 9's invocation): options, then the
 * steps in order: open the kernel, read the dump and its kpinfo, check that
 * they belong together, charge the bins to symbols, report or export.
 * Every failure is one "kprof: ..." line on stderr and exit status 2. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof.h"
#include "heat.h"

#define USAGE "kprof [--lines | --addr] [--top N] [--kpinfo FILE] [--force] " \
	      "[--format readprofile -o DIR] KERNEL.elf KPDATA"

struct opts {
	const char *elf, *kpdata, *kpinfo, *outdir;
	int force, readprofile;
	struct ropts ro;
};

static void help(void)
{
	printf("usage: %s\n\n"
	       "Report where a kernel spent its clock ticks, from a devkprof dump.\n"
	       "KPDATA is /dev/kpdata; its kpinfo is read from the same directory.\n\n"
	       "  --kpinfo FILE        the kpinfo to use instead of the one beside KPDATA\n"
	       "  --lines              a row per source line (file:line, from DWARF)\n"
	       "  --addr               a row per bin address, with symbol+offset and instruction\n"
	       "  --top N              print only the N rows with the most samples (0: all)\n"
	       "  --force              go on when the kernel's build-id differs from kpinfo's\n"
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
	enum { O_KPINFO = 256, O_LINES, O_ADDR, O_TOP, O_FORCE, O_FORMAT };
	static const struct option longopts[] = {
		{ "kpinfo", required_argument, NULL, O_KPINFO },
		{ "lines", no_argument, NULL, O_LINES },
		{ "addr", no_argument, NULL, O_ADDR },
		{ "top", required_argument, NULL, O_TOP },
		{ "force", no_argument, NULL, O_FORCE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, lines = 0, addr = 0;
	char *end;

	memset(o, 0, sizeof *o);
	o->ro.by = BY_SYMBOL;
	opterr = 0;                 /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case O_KPINFO: o->kpinfo = optarg; break;
		case O_LINES: lines = 1; break;
		case O_ADDR: addr = 1; break;
		case O_FORCE: o->force = 1; break;
		case 'o': o->outdir = optarg; break;
		case 'h': help(); exit(0);
		case O_TOP:
			errno = 0;
			o->ro.top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->ro.top < 0)
				return usage_error("--top wants a number of rows, not", optarg);
			break;
		case O_FORMAT:
			if (strcmp(optarg, "readprofile") == 0)
				o->readprofile = 1;
			else if (strcmp(optarg, "text") != 0)
				return usage_error("unknown --format (text or readprofile):", optarg);
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
		return usage_error(argc - optind < 2 ? "missing KERNEL.elf or KPDATA" :
				   "too many arguments", NULL);
	if (lines && addr)
		return usage_error("--lines and --addr are two different reports; pick one", NULL);
	if (o->readprofile && o->outdir == NULL)
		return usage_error("--format readprofile needs -o DIR", NULL);
	if (!o->readprofile && o->outdir)
		return usage_error("-o DIR goes with --format readprofile", NULL);
	if (o->readprofile && (lines || addr))
		return usage_error("--format readprofile is per function; drop --lines/--addr", NULL);
	o->ro.by = lines ? BY_LINE : addr ? BY_ADDR : BY_SYMBOL;
	o->elf = argv[optind];
	o->kpdata = argv[optind + 1];
	return 0;
}

/* kpinfo beside kpdata, as the guest exports them: DIR/dev/kpdata, DIR/dev/kpinfo */
static char *default_kpinfo(const char *kpdata)
{
	const char *slash = strrchr(kpdata, '/');
	size_t dirlen = slash ? (size_t)(slash - kpdata) + 1 : 0;
	char *p = kp_calloc(dirlen + sizeof "kpinfo", 1);

	memcpy(p, kpdata, dirlen);
	strcpy(p + dirlen, "kpinfo");
	return p;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct kelf ke = { .fd = -1 };
	struct kpdata kd = { 0 };
	struct kpinfo ki;
	struct profile p = { 0 };
	char *kpinfo = NULL, warning[1024] = "";
	int status = 2;

	/* the heat subcommands (tools/kprof/heat.c, accuracy.c) */
	if (argc > 1 && strcmp(argv[1], "heat") == 0)
		return heat_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "accuracy") == 0)
		return accuracy_main(argc - 1, argv + 1);
	if (parse_opts(&o, argc, argv) < 0)
		return 2;
	if (kelf_open(&ke, o.elf) < 0 || kpdata_read(&kd, o.kpdata) < 0)
		goto fail;
	kpinfo = o.kpinfo ? kp_strdup(o.kpinfo) : default_kpinfo(o.kpdata);
	if (!o.kpinfo && access(kpinfo, F_OK) != 0) {
		kp_error("no kpinfo beside %s (looked for %s): without its text_start, res and hz "
			 "the counts cannot be placed; give one with --kpinfo FILE", o.kpdata, kpinfo);
		goto fail;
	}
	if (kpinfo_read(&ki, kpinfo) < 0)
		goto fail;
	switch (kp_check_build_id(&ke, &ki, o.force)) {
	case -1:
		goto fail;
	case 1:
		/* said once the report is out, so a later error stays one line */
		snprintf(warning, sizeof warning, "%s", kp_lasterror());
		break;
	}
	if (kp_check(&kd, &ki, &ke) < 0 || symbolize(&p, &ke, &kd, ki.text_start, ki.res) < 0)
		goto fail;
	if (o.readprofile) {
		if (export_readprofile(o.outdir, &ke, &kd, &p) < 0)
			goto fail;
	} else {
		if (report(stdout, &o.ro, &ke, &ki, &kd, &p) < 0)
			goto fail;
	}
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
	kpdata_free(&kd);
	kelf_close(&ke);
	free(kpinfo);
	return status;
}
