/* wr_perf.c: --format perf, the stacks as a perf.data file that Linux's
 * `perf script` and `perf report` read, in the documented PERFILE2 layout
 * (linux tools/perf/Documentation/perf.data-file-format.txt): the file
 * header, one event attribute (a cpu-clock software event sampling IP,
 * TID, TIME, PERIOD and CALLCHAIN; for counts that are not clock ticks
 * the event they are, period 1: event_of), then the records, then the
 * feature sections: HEADER_BUILD_ID (each module's GNU build-id, so that
 * perf refuses an ELF that is not the one that ran), HEADER_ARCH ("i386";
 * perf script is known to crash on a file without it) and, for an event
 * perf has no name of its own for, HEADER_EVENT_DESC.
 *
 * The records: an MMAP of the kernel as perf names it, "[kernel.kallsyms]"
 * (perf reads its symbols from the ELF given by --vmlinux), and for each
 * process a COMM with its program's name and an MMAP of the program's
 * executable segment from its ELF; then one SAMPLE per tick, its call
 * chain the leaf first, the kernel's frames after PERF_CONTEXT_KERNEL and
 * the user's after PERF_CONTEXT_USER, as perf record writes them. The
 * kernel counts identical stacks once, so the ticks of one stack are
 * written one after the other: the times are made up (a tick's period
 * apart), the order of the stacks is not the order they ran in. The idle
 * loop's ticks are samples of pid 0, perf's "swapper", with no address.
 * A stack missing frames carries the mark the folded lines give it, as
 * its outermost frame: an address of its own past the kernel's code,
 * which a KSYMBOL record (as perf writes for a BPF program) names
 * "[truncated]", so that perf script and perf report show the mark where
 * the folded output has it, and do not pass the stack off as whole.
 *
 *   kprof --format perf --elf PROG.elf KERNEL.elf DUMP > perf.data
 *   perf script -i perf.data --vmlinux KERNEL.elf
 *
 * The structures of the records and the attribute are the kernel's
 * (linux/perf_event.h); the file header and the feature numbers are
 * perf's own and written here, as the format's document gives them. */
#include <gelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define PERF_MAGIC     "PERFILE2"
#define HEADER_BUILD_ID 2              /* perf's feature bits */
#define HEADER_ARCH     6
#define HEADER_EVENT_DESC 12
#define NAME_ALIGN      64             /* a feature's string is padded to this */
#define KERNEL_MMAP    "[kernel.kallsyms]_text"
#define KERNEL_DSO     "[kernel.kallsyms]"
#define MARK_TRUNCATED "[truncated]"
#define MARK_ADDR      0xFFFFF000u     /* past any kernel code: the mark's own address */
#define MARK_LEN       16
#define TIME_AT        (sizeof(struct perf_event_header) + 16)   /* a sample's time: after ip, pid, tid */
#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)       /* newer linux/perf_event.h have it */
#endif

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	char magic[8];
	uint64_t size;                 /* of this header */
	uint64_t attr_size;            /* of one file_attr */
	struct file_section attrs, data, event_types;
	uint64_t features[4];          /* 256 bits: which feature sections follow the data */
};

struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids;
};

/* a growing byte buffer: the data section is counted before it is written */
struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = kp_reallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof v);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, sizeof v);
}

/* a NUL-terminated string padded with NULs to a multiple of `align` */
static void put_padded(struct buf *b, const char *s, size_t align)
{
	static const char zero[NAME_ALIGN];
	size_t n = strlen(s) + 1, padded = (n + align - 1) / align * align;

	put(b, s, n - 1);
	put(b, zero, padded - n + 1);
}

static size_t padded_len(const char *s, size_t align)
{
	return (strlen(s) + 1 + align - 1) / align * align;
}

static void record_header(struct buf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	put(b, &h, sizeof h);
}

/* a kernel symbol of its own for the mark, which perf names by it */
static void ksymbol(struct buf *b, uint64_t addr, uint32_t len, const char *name)
{
	record_header(b, PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL,
		      sizeof(struct perf_event_header) + 8 + 4 + 2 + 2 + padded_len(name, 8));
	put64(b, addr);
	put32(b, len);
	put(b, &(uint16_t){ PERF_RECORD_KSYMBOL_TYPE_UNKNOWN }, 2);
	put(b, &(uint16_t){ 0 }, 2);
	put_padded(b, name, 8);
}

static void comm(struct buf *b, uint32_t pid, const char *name)
{
	record_header(b, PERF_RECORD_COMM, 0, sizeof(struct perf_event_header) + 8 + padded_len(name, 8));
	put32(b, pid);
	put32(b, pid);
	put_padded(b, name, 8);
}

static void mmap_record(struct buf *b, uint16_t misc, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *file)
{
	record_header(b, PERF_RECORD_MMAP, misc,
		      sizeof(struct perf_event_header) + 8 + 24 + padded_len(file, 8));
	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, pgoff);
	put_padded(b, file, 8);
}

/* where a module's code is: its executable segment (start, length and file
 * offset, which perf maps addresses through) from its ELF, or the hull of
 * its executable sections */
static void code_segment(const struct kelf *ke, uint64_t *start, uint64_t *len, uint64_t *off)
{
	size_t n;

	*start = ke->text_lo;
	*len = ke->text_hi - ke->text_lo;
	*off = ke->text_lo;
	if (!ke->elf || elf_getphdrnum(ke->elf, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(ke->elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*start = ph.p_vaddr + ke->load;
			*len = ph.p_memsz;
			*off = ph.p_offset;
			return;
		}
	}
}

static const struct kelf *elf_of(const struct symbolizer *sy, uint32_t mod)
{
	return mod < sy->nof && sy->of[mod] >= 0 ? &sy->elfs[sy->of[mod]] : NULL;
}

/* the file perf opens for a module: its ELF's full path, or the dump's name */
static const char *module_file(const struct symbolizer *sy, const struct sampleset *ss, uint32_t mod,
			       char *path)
{
	const struct kelf *ke = elf_of(sy, mod);

	if (ke && realpath(ke->path, path))
		return path;
	return ss->mods[mod].path ? ss->mods[mod].path : "[unknown]";
}

/* HEADER_BUILD_ID: a build_id_event for each module that has one */
static void build_ids(struct buf *b, const struct symbolizer *sy, const struct sampleset *ss,
		      const uint32_t *pid_of_mod)
{
	for (size_t m = 0; m < ss->nmods; m++) {
		const char *hex = ss->mods[m].build_id;
		char path[PATH_MAX];
		const char *file = m == 0 ? KERNEL_DSO : module_file(sy, ss, (uint32_t)m, path);
		unsigned char id[24] = { 0 };
		size_t n = strlen(hex) / 2;

		if (!n || n > 20 || (m && !pid_of_mod[m]))
			continue;
		for (size_t i = 0; i < n; i++) {
			unsigned v;
			sscanf(hex + 2 * i, "%2x", &v);
			id[i] = (unsigned char)v;
		}
		/* header, pid, the id padded to 24 bytes, the file name */
		record_header(b, 0,          /* a feature's record has no type */
			      (uint16_t)((m == 0 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
					 PERF_RECORD_MISC_BUILD_ID_SIZE),
			      sizeof(struct perf_event_header) + 4 + 24 + padded_len(file, NAME_ALIGN));
		put32(b, m == 0 ? (uint32_t)-1 : pid_of_mod[m]);
		id[20] = (unsigned char)n;     /* with MISC_BUILD_ID_SIZE: the id's length */
		put(b, id, 24);
		put_padded(b, file, NAME_ALIGN);
	}
}

/* The event a sample of the set's unit is: clock ticks are perf's own
 * cpu-clock, a tick's period in nanoseconds; instructions and cycles its
 * hardware counters, and anything else (system-call hits) a counting
 * software event named by HEADER_EVENT_DESC; each of those a sample per
 * count, period 1, and never time. */
static void event_of(const struct sampleset *ss, struct perf_event_attr *a, const char **name)
{
	const struct unit *u = sampleset_unit(ss);

	*name = NULL;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = ss->hz > 0 ? (uint64_t)(1e9 / ss->hz) : 1000000;
	if (u->timed)
		return;
	a->sample_period = 1;
	if (ss->unit == UNIT_INSNS || ss->unit == UNIT_CYCLES) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = ss->unit == UNIT_INSNS ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES;
		return;
	}
	/* a software event that counts (perf script prints no addresses for
	 * its dummy one): perf shows it by the name */
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	*name = u->type;
}

/* HEADER_EVENT_DESC: the one event, its attribute and its name (perf
 * looks the event up by its id: it has one, 1) */
static void event_desc(struct buf *b, const struct perf_event_attr *a, const char *name)
{
	put32(b, 1);
	put32(b, sizeof *a);
	put(b, a, sizeof *a);
	put32(b, 1);
	put32(b, (uint32_t)padded_len(name, NAME_ALIGN));
	put_padded(b, name, NAME_ALIGN);
	put64(b, 1);
}

static int perf_write(FILE *out, const struct wopts *wo, struct symbolizer *sy, const struct sampleset *ss,
		      const struct profile *p)
{
	struct file_header fh;
	struct file_attr fa;
	struct buf data = { 0 }, feat = { 0 }, rec = { 0 };
	uint64_t samples_size = 0;
	size_t n = sampleset_nstacks(ss);
	uint64_t period, time = 0;
	const char *event;
	uint32_t *pid_of_mod = kp_calloc(ss->nmods + 1, sizeof *pid_of_mod);
	uint32_t *pids = kp_calloc(n + 1, sizeof *pids);
	size_t npids = 0;
	const struct kelf *kk = elf_of(sy, 0);
	struct file_section sect[3];
	size_t nsect = 2;
	int r;

	(void)wo, (void)p;
	memset(&fh, 0, sizeof fh);
	memset(&fa, 0, sizeof fa);
	fa.attr.size = sizeof fa.attr;
	event_of(ss, &fa.attr, &event);
	period = fa.attr.sample_period;
	fa.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_CALLCHAIN;
	fa.attr.mmap = 1;
	fa.attr.comm = 1;

	/* the kernel's mapping, then each process's name and program */
	if (kk) {
		uint64_t start, len, off;
		code_segment(kk, &start, &len, &off);
		mmap_record(&data, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, start, len, start, KERNEL_MMAP);
	}
	comm(&data, 0, "swapper");
	ksymbol(&data, MARK_ADDR, MARK_LEN, MARK_TRUNCATED);
	for (size_t i = 0; i < n && ss->stacks; i++) {
		const struct stack *st = &ss->stacks[i];
		char path[PATH_MAX];
		size_t k;

		if (!st->pid || (st->flags & STK_IDLE))
			continue;
		for (k = 0; k < npids && pids[k] != st->pid; k++)
			;
		if (k < npids)
			continue;
		pids[npids++] = st->pid;
		comm(&data, st->pid, st->prog && st->prog < ss->nmods ? stack_root(ss, i) : "[unknown]");
		if (st->prog && st->prog < ss->nmods) {
			const struct kelf *ke = elf_of(sy, st->prog);
			uint64_t start = 0, len = 0, off = 0;

			if (ke)
				code_segment(ke, &start, &len, &off);
			mmap_record(&data, PERF_RECORD_MISC_USER, st->pid, start, len, off,
				    module_file(sy, ss, st->prog, path));
			if (!pid_of_mod[st->prog])
				pid_of_mod[st->prog] = st->pid;
		}
	}

	/* the feature sections, after the data: a table of where each is, in
	 * bit order, then them */
	build_ids(&feat, sy, ss, pid_of_mod);
	sect[0].size = feat.len;
	put32(&feat, (uint32_t)padded_len("i386", NAME_ALIGN));
	put_padded(&feat, "i386", NAME_ALIGN);
	sect[1].size = feat.len - sect[0].size;
	memcpy(fh.magic, PERF_MAGIC, 8);
	fh.size = sizeof fh;
	fh.attr_size = sizeof fa;
	fh.attrs = (struct file_section){ sizeof fh, sizeof fa };
	fh.features[0] = 1ull << HEADER_BUILD_ID | 1ull << HEADER_ARCH;
	if (event) {
		event_desc(&feat, &fa.attr, event);
		sect[2].size = feat.len - sect[0].size - sect[1].size;
		fh.features[0] |= 1ull << HEADER_EVENT_DESC;
		nsect = 3;
	}

	/* a sample per tick, streamed: their size first, for the header */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct frame one;
			uint32_t nfr, nk = 0;
			uint64_t w;
			const struct frame *f = sampleset_stack(ss, i, &one, &nfr, &w);
			const struct stack *st = ss->stacks ? &ss->stacks[i] : NULL;
			int idle = st && (st->flags & STK_IDLE);
			int cut = st && !idle && (st->flags & STACK_TRUNCATED);
			uint32_t pid = idle || !st ? 0 : st->pid;
			uint64_t nchain;
			size_t size;

			if (idle)
				nfr = 0;
			while (nk < nfr && f[nk].mod == 0)
				nk++;
			/* the mark, outermost: in the kernel's context (after
			 * the user's frames, a context of its own) */
			nchain = nfr + (nk > 0) + (nfr > nk) + (cut ? 1 + (nfr > nk || !nk) : 0);
			size = sizeof(struct perf_event_header) + 8 + 8 + 8 + 8 + 8 + 8 * nchain;
			if (size > UINT16_MAX)
				continue;       /* cannot be: 127 frames at most */
			if (pass == 0) {
				samples_size += w * size;
				continue;
			}
			/* the record once, written once a tick with its time */
			rec.len = 0;
			record_header(&rec, PERF_RECORD_SAMPLE,
				      nk > 0 || nfr == 0 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, size);
			put64(&rec, nfr ? f[0].addr : 0);
			put32(&rec, pid);
			put32(&rec, pid);
			put64(&rec, 0);                 /* the time */
			put64(&rec, period);
			put64(&rec, nchain);
			if (nk)
				put64(&rec, PERF_CONTEXT_KERNEL);
			for (uint32_t k = 0; k < nfr; k++) {
				if (k == nk)
					put64(&rec, PERF_CONTEXT_USER);
				put64(&rec, f[k].addr);
			}
			if (cut && (nfr > nk || !nk))
				put64(&rec, PERF_CONTEXT_KERNEL);
			if (cut)
				put64(&rec, MARK_ADDR);
			for (uint64_t t = 0; t < w; t++) {
				time += period;
				memcpy(rec.p + TIME_AT, &time, sizeof time);
				fwrite(rec.p, rec.len, 1, out);
			}
		}
		if (pass == 0) {
			fh.data = (struct file_section){ sizeof fh + sizeof fa, data.len + samples_size };
			sect[0].offset = fh.data.offset + fh.data.size + nsect * sizeof sect[0];
			for (size_t k = 1; k < nsect; k++)
				sect[k].offset = sect[k - 1].offset + sect[k - 1].size;
			fwrite(&fh, sizeof fh, 1, out);
			fwrite(&fa, sizeof fa, 1, out);
			if (data.len)
				fwrite(data.p, data.len, 1, out);
		}
	}
	fwrite(sect, sizeof sect[0], nsect, out);
	fwrite(feat.p, feat.len, 1, out);
	r = ferror(out) ? -1 : 0;
	free(data.p);
	free(rec.p);
	free(feat.p);
	free(pids);
	free(pid_of_mod);
	return r;
}

const struct writer writer_perf = { .name = "perf", .binary = 1, .write = perf_write, .ninputs = 1 };
