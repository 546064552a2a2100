/* kprof.h: the host tool's internal interfaces, shared by its files and by
 * its unit tests. The pipeline: a reader turns a dump into a sample set,
 * the symbolizer names its addresses (libdwfl), a writer prints or exports.
 * The dump formats themselves are in include/abi/kprof.h and dump.h. */
#ifndef KPROF_H
#define KPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gelf.h>
#include "abi/kprof.h"
#include "abi/dump.h"
#include "abi/gmon.h"
#include "abi/dosprof.h"
#include "abi/mcprof.h"
#include "abi/stacks.h"
#include "abi/version.h"

/* ---- util.c: errors, memory, files ---- */

/* Library functions return -1 after kp_error() recorded one line;
 * main prints it as "kprof: <line>" and exits 2. */
void kp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *kp_lasterror(void);
void *kp_calloc(size_t n, size_t size);    /* exits 2 when out of memory */
/* Sorts n records of size bytes by the uint64_t each begins with, keeping
 * equal keys in their order (a radix sort: no comparisons) */
void kp_sort_by_u64(void *base, size_t n, size_t size);
void *kp_reallocarray(void *p, size_t n, size_t size);
char *kp_strdup(const char *s);

/* A table of strings, each once, by index (a hash table over them): the
 * names of frames and functions in the writers. */
struct strtab {
	char **v;
	size_t n, cap;
	size_t *hash;                  /* open addressing: index + 1, 0 free */
	size_t nhash;
};
size_t strtab_index(struct strtab *t, const char *s);   /* adds it the first time */
void strtab_free(struct strtab *t);

/* A hash map from a key (a 64-bit number and a 32-bit tag, a module say)
 * to a word: the caches and id tables of the stack writers. */
struct kvslot {                 /* a key, its tag and its value side by side: one miss */
	uint64_t key;
	uintptr_t val;
	uint32_t tag;                  /* tag + 1; 0: a free slot */
};
struct kvmap {
	struct kvslot *s;
	size_t n, cap;                 /* cap: a power of two */
};
/* the value's slot for the key, made (0, *made = 1) the first time */
uintptr_t *kvmap_slot(struct kvmap *m, uint64_t key, uint32_t tag, int *made);
void kvmap_free(struct kvmap *m);
char *kp_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
void kp_hex(char *out, size_t outsz, const unsigned char *p, size_t n);
int kp_openfile(const char *path, size_t max, int *fd, size_t *size);
int kp_readfile(const char *path, size_t max, unsigned char **data, size_t *len);
int kp_readat(int fd, const char *path, size_t off, unsigned char *buf, size_t n);
uint32_t kp_le32(const void *p);    /* the guest's byte order, from any host */
/* A text line may end in "\r\n": drops one '\r' at its end, so every
 * reader takes either line end and a '\r' anywhere else is the line's
 * error. */
void kp_chomp(char *line);

/* ---- kpinfo.c: the `key value` text beside kpdata ---- */

/* KI_<ID> is the bit for a key of include/abi/kprof.h's KPINFO_KEYS. */
enum {
#define KI_BITNO(id, key, form) KI_BIT_##id,
	KPINFO_KEYS(KI_BITNO)
#undef KI_BITNO
	KI_NKEYS
};
enum {
#define KI_MASK(id, key, form) KI_##id = 1u << KI_BIT_##id,
	KPINFO_KEYS(KI_MASK)
#undef KI_MASK
};

struct kpinfo {
	unsigned have;                 /* KI_* bits for the keys seen */
	uint32_t text_start, text_end;
	unsigned res;
	uint64_t nbins, ticks, kernel_ticks, idle, saturated, lost;
	double hz;
	char state[8];
	char build_id[129];            /* lower-case hex */
	int lines[KI_NKEYS];           /* the line each key was on */
};

int kpinfo_parse(struct kpinfo *ki, const char *text, size_t len, const char *name);
int kpinfo_read(struct kpinfo *ki, const char *path);

/* ---- a sample set: what every reader makes ---- */

struct module {                    /* where samples came from */
	char build_id[129];            /* lower-case hex; "" when the dump gives none */
	char *path;                    /* as the dump names it; NULL when it does not */
	uint64_t load;                 /* where the module's file was loaded */
};

struct flat {                      /* one nonzero count */
	uint32_t mod;                  /* index into sampleset.mods */
	uint64_t addr;                 /* the bin's first byte */
	uint64_t count;
};

/* One frame of a sampled stack: a module and an address in it. */
struct frame {
	uint32_t mod;
	uint64_t addr;
};

/* One sampled stack: frames[first .. first + n) of the set, the leaf
 * (where the tick landed) first, then its callers; its weight in the
 * set's unit (ticks, for the stack engine).
 * flags say how the walk ended (the stack engine's). */
struct stack {
	size_t first;
	uint32_t n, flags;
	uint64_t weight;
	uint32_t prog;                 /* the program's module (the root), for a stack dump */
	uint32_t pid;                  /* the process, for a stack dump; 0: idle or unknown */
	uint32_t ret, ret1;            /* the words at the leaf's stack pointer, or 0 */
};

/* how a stack's walk ended, after the host's repair (stacks.c) */
#define STACK_REPAIRED 0x100           /* a caller put back from the leaf's stack words */
#define STACK_LOST     0x200           /* a caller the walk lost and the host could not put back */
/* a stack missing frames, marked "[truncated]" in every export */
#define STACK_TRUNCATED (STK_KTRUNC | STK_UTRUNC | STACK_LOST)


/* A call arc: calls from `from` to the function at `self` (gmon's). */
struct arc {
	uint64_t from, self, count;
};

/* What an exact trace knows of an instruction besides its count: its
 * summed duration and its marks (heat's HEATF_*), parallel to flat. */
enum { HEATF_CALLED = 1, HEATF_ENTER = 2, HEATF_EXIT = 4 };
struct heatmark {
	uint64_t dur;
	unsigned flags;
};

/* What a sample's weight counts, as pprof's sample_type says it: the
 * reader sets it from what the dump says it holds. Only clock ticks are
 * time (a tick is 1/hz s); the others are counts of their own, which no
 * writer turns into seconds. */
enum { UNIT_TICKS, UNIT_SYSCALLS, UNIT_INSNS, UNIT_CYCLES, UNIT_N };
struct unit {
	const char *what;              /* what is counted: "system-call hits" */
	const char *count;             /* a number of them: "ticks", "hits" */
	const char *column;            /* the rows' and tooltips' word: "samples", "hits" */
	const char *type, *pprof_unit; /* pprof's ValueType: "samples", "count" */
	int timed;                     /* at the clock's rate: hz makes it seconds */
};
extern const struct unit units[UNIT_N];

/* What a reader makes of a dump. Every sample is a stack: a set of flat
 * counts (every reader so far) is the set of one-frame stacks, and
 * sampleset_stack() hands either kind out the same way; a reader of
 * stacks fills frames and stacks, and also flat with the leaf frames'
 * counts, which the flat reports use. */
struct sampleset {
	const char *format;            /* the reader's name */
	struct module *mods;
	size_t nmods;
	struct flat *flat;             /* sorted by mod, then addr */
	size_t nflat;
	uint64_t total, kernel;        /* all counts, and of those the kernel's (in unit) */
	uint64_t idle;                 /* of the kernel's, the idle loop's (has_idle) */
	int has_idle;
	const char *scope;             /* what the counts are of: "kernel" (NULL) or "user" */
	uint64_t scoped;               /* of a scope, every count, when the dump says more than
	                                  its addresses hold (0: their sum) */
	const char *outside_label;     /* the row of what has no address ("<outside text>") */
	int unidentified;              /* the format carries no build-id: nothing to check */
	double hz;
	int unit;                      /* UNIT_*: what total, counts and weights count */
	uint64_t bin;                  /* bytes a count covers: 1 (or 0) for sampled PCs */
	int nopc;                      /* no count is at a sampled PC (each at a routine's or a
	                                  range's first byte): nothing to annotate */
	/* a dump of fixed-size bins (kpdata): their range in module 0 */
	int binned;
	uint64_t text_start, text_end, nbins;
	unsigned res;
	/* what the report header says besides the totals */
	int has_saturated, running, stopped, has_ticks;   /* stopped: kpinfo's state is off */
	uint64_t saturated, full_bins, info_ticks;
	char note[256];                /* a reader's caveat for the header, or "" */
	/* a dump of one program's text range [range_lo, range_hi) (gmon's
	 * lowpc and highpc): the ELF must hold it */
	int ranged;
	uint64_t range_lo, range_hi;
	/* sampled call stacks: nstacks stacks over nframes frames */
	struct frame *frames;
	size_t nframes;
	struct stack *stacks;
	size_t nstacks;
	struct arc *arcs;              /* call arcs (gmon), in module 0 */
	size_t narcs;
	uint64_t lost_samples, lost_arcs;      /* gmon's: to full bins, a full arc table */
	struct heatmark *heat;         /* exact durations and marks, parallel to flat, or NULL */
	/* the engine's own records as its reader parsed them, for the view
	 * of that engine (struct dosprof for "dosprof"), or NULL; the set
	 * owns them and frees them with payload_free */
	void *payload;
	void (*payload_free)(void *payload);
};

void sampleset_free(struct sampleset *ss);
const struct unit *sampleset_unit(const struct sampleset *ss);    /* units[ss->unit] */
/* stack i of the set (i < sampleset_nstacks): its frames and weight; a
 * set of flat counts gives flat[i] as a stack of one frame, in *one */
size_t sampleset_nstacks(const struct sampleset *ss);
const struct frame *sampleset_stack(const struct sampleset *ss, size_t i, struct frame *one,
				    uint32_t *n, uint64_t *weight);

/* ---- readers: one file each, listed in pipeline.c ---- */

struct ropen {                     /* what the command line gives a reader */
	const char *path;
	const char *kpinfo;            /* NULL: the one beside path */
	int by_function;               /* only per-function sums are wanted: a reader may fold */
	int no_inline;                 /* --no-inline: a frame is its function, inlined calls unseen */
	struct kelf *fold;             /* set by pipe_open: the ELF to fold a kpdata's bins by */
};

struct reader {
	const char *name;
	int engine;                    /* DUMP_ENGINE_*; 0 for a headerless format */
	/* NULL: the file's bytes (at most max) through parse, reader_parsefile */
	int (*read)(struct sampleset *ss, const struct ropen *ro);
	/* the same from memory, for the fuzzer and its replay test */
	int (*parse)(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name);
	size_t max;                    /* the most bytes a dump of it holds */
};

extern const struct reader *const readers[];     /* NULL-terminated */
const struct reader *reader_named(const char *name);
int reader_for(const char *path, const struct reader **r);
/* read path's bytes (at most max) and parse them: a reader's read */
int reader_parsefile(struct sampleset *ss, const char *path, size_t max,
		     int (*parse)(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name));

/* ---- dump.c: the common header of include/abi/dump.h ---- */

struct dumphdr {
	int engine, version;
	double hz;
	size_t size;                   /* where the payload starts */
	struct module *mods;
	size_t nmods;
};

int dump_engine(const unsigned char *buf, size_t len);   /* -1: no dump header */
int dump_parse(struct dumphdr *dh, const unsigned char *buf, size_t len, const char *name);
void dump_free(struct dumphdr *dh);
int dump_fuzz(struct sampleset *ss, const unsigned char *buf, size_t len, const char *name);

/* ---- symbolize.c: every ELF a module, named by libdwfl ---- */

struct ksect {                     /* an executable, allocated section */
	uint64_t addr, size;
	const unsigned char *bytes;    /* NULL for SHT_NOBITS */
};

/* A symbol libdwfl answered for some address: the owner of its ranges. */
struct ksym {
	const char *name;              /* in libelf's string table */
	uint64_t value, size;
	unsigned char type, bind;
};

/* Addresses in [start, end) all get the same answer from libdwfl. */
struct krange {
	uint64_t start, end;
	uint32_t sym;                  /* index into kelf.syms */
};

struct kelf {
	const char *path;
	void *dwfl;                    /* Dwfl *: one each, since programs overlap */
	void *mod;                     /* Dwfl_Module * */
	Elf *elf;                      /* libdwfl's */
	char build_id[129];            /* "" when the ELF has no build-id note */
	uint64_t load;
	struct ksym *syms;             /* sorted by value */
	size_t nsyms;
	struct krange *ranges;         /* sorted, disjoint */
	size_t nranges;
	struct ksect *text;            /* sorted by addr */
	size_t ntext;
	uint64_t text_lo, text_hi;     /* hull of the executable sections */
	int inlines;                   /* its DWARF for inlined frames: 0 unchecked, 1 usable, -1 not */
	uint64_t *inl;                 /* where code is inlined: sorted, disjoint [lo, hi) pairs */
	size_t ninl;
};

#define KELF_MAX_BYTES (512u << 20)  /* a teaching kernel's ELF is a few MiB */

int kelf_open(struct kelf *ke, const char *path, uint64_t load);
void kelf_close(struct kelf *ke);
const struct krange *kelf_range(const struct kelf *ke, uint64_t addr, size_t *cursor);
const unsigned char *kelf_bytes(const struct kelf *ke, uint64_t addr, size_t *avail);

struct namecache {                 /* frame_chain's answers (struct kchain *), by (address, module << 1 | leaf) */
	struct kvmap names;
	struct strtab chains;          /* inlined functions' names and the names made here */
	struct kvmap suffixed;         /* a name's suffixed copy, by the name's pointer */
	const char *suffix;            /* the suffix they have */
};

struct symbolizer {                /* the ELFs, and which one each module is */
	struct kelf *elfs;
	size_t n;
	long *of;                      /* [sample set module]: index into elfs, -1 for none */
	size_t nof;
	struct namecache names;
	int no_inline;                 /* --no-inline: a frame is its function, inlined calls unseen */
	int lines;                     /* frame_chain gives file:line too (set before the first frame) */
};

int symbolizer_open(struct symbolizer *sy, const char *const *paths, size_t n);
void symbolizer_close(struct symbolizer *sy);

/* ---- symbolize.c: a frame's name, the same in every writer ---- */

#define FRAME_UNKNOWN "[unknown]"      /* a frame no symbol owns */
#define ROW_UNKNOWN "<unknown>"        /* the flat report's row of the counts no symbol owns */
#define KERNEL_SUFFIX "_[k]"           /* a kernel frame in folded lines (stackcollapse-perf.pl's) */

/* One frame of a call chain, as perf's callchain node: a function, in
 * its module; an inlined frame is part of the physical frame (the return
 * address) of the frame before it. */
struct kframe {
	uint32_t mod;                  /* the sample set's module */
	const char *name;              /* its function's; FRAME_UNKNOWN when no symbol owns it */
	int inlined;                   /* inlined into the frame before it */
	const char *file;              /* where it is (sy->lines): its call of the frame after it */
	int line;                      /* in this physical frame, or the address's; NULL, 0 unknown */
};
/* The frames of one physical frame, outermost first: its function's (a
 * frame below the leaf by its call, the byte before its return address),
 * then when functions are inlined there (the DWARF says so) a frame for
 * each, as perf report --inline shows them (none with --no-inline,
 * sy->no_inline). Looked up once; the symbolizer keeps them. */
struct kchain {
	size_t n;                      /* 1 + the inlined frames */
	const char *joined;            /* frame_name's */
	struct kframe f[];
};
const struct kchain *frame_chain(struct symbolizer *sy, const struct frame *f, int leaf);
/* A physical frame's name for a flat row: its chain's names joined,
 * "function;inlined;...;innermost"; one pointer per string. */
const char *frame_name(struct symbolizer *sy, const struct frame *f, int leaf);
/* stack i's frames by name, root first: the program (stack_root), then
 * "[truncated]" for a walk that ended early, then its callers to the
 * leaf, inlined frames as frames of their own and kernel frames with
 * ksuffix; at most max of them, in out; *w its weight */
#define STACK_NAMES_MAX (4 * STK_DEPTH_MAX + 2)
size_t stack_frames(struct symbolizer *sy, const struct sampleset *ss, size_t i, const char *ksuffix,
		    const char **out, size_t max, uint64_t *w);
/* a stack's root: its program's name, "idle", or FRAME_UNKNOWN */
const char *stack_root(const struct sampleset *ss, size_t i);
/* a flat row's name for the frame name of module mod: "prog!main;bubble"
 * when the set has several modules, else the name; the caller frees */
char *frame_label(const struct symbolizer *sy, const struct sampleset *ss, uint32_t mod, const char *name);
/* module mod's name in rows: the base name of the dump's path for it, or of its ELF's */
const char *module_name(const struct symbolizer *sy, const struct sampleset *ss, uint32_t mod);

/* elffuzz.c: bytes through the ELF code, or through a reader and on */
int kelf_fuzz(const unsigned char *buf, size_t len);
int pipeline_fuzz(const struct reader *r, struct symbolizer *sy, const unsigned char *buf,
		  size_t len, const char *name);

/* ---- profile.c: checking a dump against its ELFs, charging the counts ---- */

int kp_check_build_id(const struct kelf *ke, const struct module *m, int force);
int kp_check_bins(const struct sampleset *ss, const struct kelf *ke);
int kp_check_range(const struct sampleset *ss, const struct kelf *ke, int force);
int kp_match(struct symbolizer *sy, const struct sampleset *ss, int force, char *warning, size_t n);
/* a dump of the kernel and programs read with a first ELF that is not its
 * kernel: -1 (kp_error), or 0 (with --force, the warning in warning) */
int kp_check_kernel(const struct symbolizer *sy, const struct sampleset *ss, int force,
		    char *warning, size_t n);
/* the modules with samples and no ELF, said in buf; 1 when there are some */
int kp_unmatched(const struct symbolizer *sy, const struct sampleset *ss, char *buf, size_t n);

struct hit {                       /* what ss->flat[i] is charged to: hits[i], 8 bytes */
	int32_t sym;                   /* index into the module's syms, -1 for none */
	int32_t range;                 /* index into the module's ranges, -1 for none */
};

struct profile {
	struct hit *hits;              /* in sampleset.flat's order */
	size_t nhits;
	uint64_t **symcount;           /* [mod][sym] */
	size_t nmods;
	uint64_t unknown;              /* counts no symbol owns */
	uint64_t outside;              /* kernel ticks with no bin: kernel - sum of counts */
	uint64_t kernel;               /* the % denominator */
};

int symbolize(struct profile *p, const struct symbolizer *sy, const struct sampleset *ss);

/* stacks.c: puts back the caller a leaf with no frame set up lost (at a
 * function's edge, or in a function without a frame), from the depth its
 * code gives; marks the stack STACK_LOST when it cannot; counts the
 * stacks exact, repaired and truncated (in ss->note) */
void stacks_repair(struct symbolizer *sy, struct sampleset *ss);
void profile_free(struct profile *p);

/* ---- pipeline.c: the pipeline, for the report and every subcommand ---- */

struct pipe {
	struct symbolizer sy;
	struct sampleset ss;
	struct profile p;
	const struct reader *rd;
	char warning[1024];            /* for --force: said after the output */
	char unmatched[1024];          /* the modules with samples and no ELF, or "" */
};

/* Opens the ELFs (the first is the main one), reads the dump with the
 * reader its first bytes name (which must be `format` when that is not
 * NULL), pairs its modules with the ELFs and checks they belong together
 * (build-ids, text ranges; --force makes a mismatch a warning), and
 * charges the counts to symbols. 0, or -1 with kp_error said. */
int pipe_open(struct pipe *pp, const char *const *elfs, size_t nelfs, const struct ropen *ro,
	      const char *format, int force);
void pipe_close(struct pipe *pp);
/* the ELF module m of the dump was paired with, or NULL */
const struct kelf *pipe_elf(const struct pipe *pp, uint32_t m);
/* --top N: 0 or -1 after a usage line that names the subcommand */
int kp_parse_top(const char *arg, long *top, const char *usage);

/* ---- lines.c: source lines, through libdwfl ---- */

struct linetab {
	void *mod;                     /* Dwfl_Module *, NULL until loaded */
};

int linetab_load(struct linetab *lt, struct kelf *ke);
void linetab_free(struct linetab *lt);
const char *linetab_at(const struct linetab *lt, uint64_t addr, int *line);
const char *linetab_relpath(const char *file);
int kelf_strings_terminated(struct kelf *ke);           /* 0 after kp_error: damaged DWARF */
int kelf_inlined(struct kelf *ke, uint64_t addr, const char **names, const char **files, int *lines, int max);
int kelf_in_inlined(struct kelf *ke, uint64_t addr);    /* addr is in inlined code */

/* ---- disasm.c: the instruction at an address (Capstone) ---- */

struct disasm {
	size_t handle;                 /* csh */
	void *insn;                    /* cs_insn, reused */
	int ok;
	const struct krange *sweep;    /* the res > 0 sweep: where it got to */
	uint64_t sweep_at;
};

void disasm_open(struct disasm *d);
void disasm_close(struct disasm *d);
void disasm_bin(struct disasm *d, const struct kelf *ke, const struct krange *r,
		uint64_t bin, uint64_t step, char *buf, size_t n);
/* the instruction at *addr as text in buf; 1 and *addr past it, or 0 */
int disasm_one(struct disasm *d, const struct kelf *ke, uint64_t *addr, char *buf, size_t n);

/* ---- writers: one file each, listed in pipeline.c ---- */

enum { BY_SYMBOL, BY_LINE, BY_ADDR };

#define WOPT_MAX 8                     /* options in a writer's table */
#define VIEW_MAX_ELFS 65               /* the first ELF and 64 --elf files */

struct wopts {
	int by;                        /* text: BY_* */
	long top;                      /* text: 0 for every row; a view's --top */
	const char *outdir;            /* for writers that make files */
	const char *func;              /* calls: --callers or --callees FUNC */
	int callers;                   /* calls: 1 for --callers */
	/* a view's command line (view_main): its options' values by their
	 * place in the writer's table ("" for a flag given, NULL for one not),
	 * the ELFs (--elf's after the first) and the dumps */
	const char *arg[WOPT_MAX];
	double num[WOPT_MAX];          /* a number option's value, or its default */
	const char *elfs[VIEW_MAX_ELFS];
	size_t nelfs;
	const char *dumps[2];
	const char *extra;             /* the writer's optional last argument (extra), or NULL */
};

/* One option of a writer's own: --name, with a value when value names it
 * ("N" in the help), or a flag. view_main parses every writer's options
 * from these tables; --help, --top (kp_parse_top), --force and --elf
 * (repeated) mean the same in every view. */
struct wopt {
	const char *name;
	const char *value;             /* NULL: a flag */
	const char *help;              /* a line of --help (a '\n' goes on below it); NULL: none */
	char letter;                   /* its short form (-o), or 0 */
	/* a value that is a number: what it is, for its error ("a
	 * percentage"), its default and its range [lo, hi] */
	const char *number;
	double def, lo, hi;
};

struct pipe;

struct writer {
	const char *name;
	int needs_dir;                 /* takes -o DIR */
	int binary;                    /* writes bytes, not text: -o FILE, never a terminal */
	int (*write)(FILE *out, const struct wopts *wo, struct symbolizer *sy,
		     const struct sampleset *ss, const struct profile *p);
	/* a view of its own, `kprof NAME [options] ELF DUMP...` (write is NULL):
	 * what the report's --format does not pick */
	int ninputs;                   /* the dumps it takes: 1, or 2 (accuracy, diff) */
	const char *formats[2];        /* the reader each dump must be; NULL: any */
	const struct wopt *opts;       /* its options, ending in { NULL } */
	long top;                      /* --top's default: 0 for every row */
	const char *extra;             /* an optional argument after the dumps ("FUNC"), or NULL */
	const char *usage;             /* "kprof NAME [--top N] ... ELF DUMP" */
	const char *wants;             /* its arguments, for the usage error */
	const char *about;             /* --help's text between usage and options */
	/* in[0 .. ninputs): the dumps through the pipeline, each paired with
	 * the same ELFs; 0 or 1 (an exit status), or -1 after kp_error */
	int (*view)(FILE *out, const struct wopts *wo, struct pipe *in);
};

extern const struct writer *const writers[];     /* NULL-terminated */
/* the value of a view's option by name (opts: its writer's table): NULL
 * when not given, "" for a flag */
const char *wopt_arg(const struct wopt *opts, const struct wopts *wo, const char *name);
/* the value of a view's number option by name: its default when not given */
double wopt_num(const struct wopt *opts, const struct wopts *wo, const char *name);
/* `kprof NAME ...` (argv[0] is NAME): the options by w's table, the dumps
 * through the pipeline, then w->view; the exit status */
int view_main(const struct writer *w, int argc, char **argv);

/* wr_folded.c: the stacks as folded lines ("root;...;leaf", kernel frames
 * KERNEL_SUFFIX), sorted and merged; for the folded and flame graph writers */
struct fline {
	char *text;
	size_t len;                     /* strlen(text) */
	uint64_t count;
	const char **frames;            /* its frames, root first: stack_frames's names */
	size_t nframes;
};
struct fline *folded_lines(struct symbolizer *sy, const struct sampleset *ss, size_t *nlines);
void folded_free(struct fline *lines, size_t n);
/* wr_flame.c: an SVG flame graph of the lines, counts in unit u; with
 * base, the differential one (widths from lines, colours by the change
 * from base) */
void flame_svg(FILE *out, const struct fline *lines, size_t n, const struct fline *base, size_t nbase,
	       const struct unit *u);
const struct writer *writer_named(const char *name);
/* wr_annotate.c: the instructions of the functions named func (NULL: the
 * top hottest; top 0: all) with their source lines and counts, and with
 * heat (NULL: none, hsy its symbolizer) each one's exact count; what names
 * the dump in messages. 0, or -1 after kp_error */
int annotate_functions(FILE *out, struct symbolizer *sy, const struct sampleset *ss, const struct profile *p,
	     const struct symbolizer *hsy, const struct sampleset *heat, const char *func, long top,
	     const char *what);

/* ---- unwind.c: kprof unwind, the kernel's unwind tables (include/unwtab.h) ---- */

struct unw_env;
struct unw_rule;
extern const struct unw_env unw_host_env;       /* malloc, free, qsort */
/* a rule as the docs write it: "cfa=esp+8 ra=cfa-4 ebp=cfa-8" */
void unw_format(char *buf, size_t n, const struct unw_rule *r);
int unwind_main(int argc, char **argv);
/* bytes as an .eh_frame, through the builder and every lookup of the
 * table it makes (the fuzz target, and test_fuzz's replay): 0 built, -1
 * refused, abort() on a table that breaks its own rules */
int unw_fuzz(const unsigned char *buf, size_t len);

/* ---- rd_gmon.c and wr_gmon.c: profil(2)'s gmon files ---- */

#define GMON_MAX_BYTES (64u << 20)   /* larger than any file the guest can write */

struct gmon {                      /* a parsed gmon file, pointing into its bytes */
	struct gmonhdr h;
	const unsigned char *bins;     /* nbins little-endian uint16 */
	size_t nbins;
	const unsigned char *arcs;     /* narcs struct gmon_arc */
	size_t narcs;
};

int gmon_is(const unsigned char *d, size_t len);
int gmon_parse(struct gmon *g, const unsigned char *d, size_t len, const char *name);
uint64_t gmon_bin_addr(const struct gmon *g, size_t i);


/* ---- rd_dosprof.c and wr_dosprof.c: DosProfile dumps (abi/dosprof.h) ---- */

#define DPDUMP_MAX_BYTES (64u << 20)  /* a full session's dump is a few MiB */

struct dosprof {                   /* a parsed dump, pointing into its bytes */
	struct dumphdr dh;             /* mods[0] is the target */
	struct dpdump p;
	PRFRET0 r0;
	const unsigned char *slots;    /* nslots PRFVA */
	size_t nslots;
	const unsigned char *hits;     /* nhits little-endian addresses, oldest first */
	uint32_t nhits;
	int have_hits;
	struct {                       /* a detailed slot's counters */
		uint32_t vaddr, size;      /* the slot's */
		uint32_t step, n;          /* bytes per counter, counters */
		const unsigned char *cnts;
	} det[PRF_MAXSLOTS];
	int ndet;
	uint64_t samples;              /* every counter's sum, as the guest's PCT */
	unsigned char *bytes;          /* as a sample set's payload: the dump's bytes, its own */
};

int dosprof_parse(struct dosprof *d, const unsigned char *buf, size_t len, const char *name);

#endif
