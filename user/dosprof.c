/* dosprof: profiles a command, a process or the kernel with OS/2's
 * DosProfile call, prints what it found (the format is in README.md) and
 * writes the raw dumps to /tmp/prof/dosprof.PID for the host tool: a
 * common dump (abi/dump.h) whose payload abi/dosprof.h describes.
 *
 *   dosprof [options] CMD ARGS...   the command and what it spawns (MT)
 *   dosprof [options] -P PID -d MS  a running process, for MS milliseconds
 *   dosprof [options] -k CMD... | -k -d MS   the kernel
 *   dosprof [options] -c CMD ARGS...  the command, which starts and stops
 *                                   its own session (around what it measures)
 * options: -m count|hit|detail  -w (hit table wraps)  -z TIMVAL
 *          -b BUFSZ  -f N,N,... (flgbits)  -r ADDR:SIZE (repeatable)
 *          -p PROG (slots over /bin/PROG's text)  -n N (N slots per range)
 *          -s (PRF_PROCESS_ST)  -t TOP (hits shown) */
#include <stdbool.h>
#include "ulib.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"
#include "abi/dump.h"
#include "abi/kprof.h"

#define MAXRANGES 16
#define DEFAULT_BUFSZ 65536
#define DUMPDIR "/tmp/prof"

struct range {
	uint32_t start, size;
};

/* what the dump's module table says of the code profiled */
struct target {
	char path[PATH_MAX];            /* "" when the slots are ranges of nothing known */
	uint32_t text_start, text_end;
	uint8_t build_id[20];
	bool has_id;
};

static struct {
	uint16_t mode;
	bool wrap, kernel, st, self;
	uint16_t timval;
	uint32_t bufsz;
	uint8_t flg[255];
	int nflg;
	struct range r[MAXRANGES];
	int nr;
	const char *prog;
	unsigned nsplit, top, ms;
	int pid;
} o = { .mode = PRF_VATOTAL, .bufsz = DEFAULT_BUFSZ, .nsplit = 1, .top = 10, .pid = -1 };

static void usage(void)
{
	fprintf(2, "usage: dosprof [-m count|hit|detail] [-w] [-z TIMVAL] [-b BUFSZ] [-f N,N,...]\n"
		   "               [-r ADDR:SIZE]... [-p PROG] [-n N] [-s] [-t TOP]\n"
		   "               (CMD ARGS... | -c CMD ARGS... | -P PID -d MS | -k [-d MS | CMD ARGS...])\n");
	exit(2);
}

/* an option's number, or the option named and why not */
static uint32_t option(const char *opt, const char *s, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (end == s || *end || *s == '-') {
		fprintf(2, "dosprof: %s %s: not a number\n", opt, s);
		exit(2);
	}
	if (v > max) {
		fprintf(2, "dosprof: %s %s: at most %lu\n", opt, s, max);
		exit(2);
	}
	return v;
}

#define number(s) option(opt, (s), 0xFFFFFFFFul)

/* ---- where the slots go: a program's text, or the kernel's ---- */

struct __attribute__((packed)) ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct __attribute__((packed)) phdr {
	uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};
#define PT_LOAD 1
#define PT_NOTE 4
#define PF_X 1

static int readat(int fd, uint32_t off, void *buf, uint32_t n)
{
	return lseek(fd, off, SEEK_SET) == (int)off && read(fd, buf, n) == (int)n ? 0 : -1;
}

/* the executable segment of /bin/name, and its GNU build-id if it has one */
static int program_text(const char *name, struct target *m)
{
	char path[PATH_MAX];
	struct ehdr eh;
	int fd;

	snprintf(path, sizeof path, "%s%s", name[0] == '/' ? "" : "/bin/", name);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	if (readat(fd, 0, &eh, sizeof eh) < 0 || memcmp(eh.ident, "\177ELF", 4) != 0) {
		close(fd);
		return -1;
	}
	for (int i = 0; i < eh.phnum && i < 64; i++) {
		struct phdr ph;
		if (readat(fd, eh.phoff + i * sizeof ph, &ph, sizeof ph) < 0)
			break;
		if (ph.type == PT_LOAD && (ph.flags & PF_X) && !m->text_end) {
			m->text_start = ph.vaddr;
			m->text_end = ph.vaddr + ph.memsz;
		}
		if (ph.type == PT_NOTE && ph.filesz >= 12 && ph.filesz <= 256) {
			uint8_t note[256];
			uint32_t *w = (uint32_t *)note;
			/* namesz 4 ("GNU"), descsz 20, type 3: NT_GNU_BUILD_ID */
			if (readat(fd, ph.offset, note, ph.filesz) == 0 && w[0] == 4 && w[1] == 20 &&
			    w[2] == 3 && ph.filesz >= 36) {
				memcpy(m->build_id, note + 16, 20);
				m->has_id = true;
			}
		}
	}
	close(fd);
	strcpy(m->path, path);
	return m->text_end ? 0 : -1;
}

/* the value of a /dev/kpinfo key (abi/kprof.h), or NULL */
static const char *kpinfo(const char *key, char *line, int size)
{
	int fd = open("/dev/kpinfo", O_RDONLY), n = strlen(key);
	const char *v = NULL;

	if (fd < 0)
		return NULL;
	while (!v && getline(fd, line, size) > 0)
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			v = line + n + 1;
	close(fd);
	return v;
}

/* the kernel's text and build-id, from /dev/kpinfo */
static int kernel_text(struct target *m)
{
	char line[160];
	const char *v;

	if ((v = kpinfo(KPINFO_TEXT_START, line, sizeof line)))
		m->text_start = strtoul(v, NULL, 0);
	if ((v = kpinfo(KPINFO_TEXT_END, line, sizeof line)))
		m->text_end = strtoul(v, NULL, 0);
	if ((v = kpinfo(KPINFO_BUILD_ID, line, sizeof line)) && strlen(v) >= 40) {
		for (int i = 0; i < 20; i++) {
			char hex[3] = { v[2 * i], v[2 * i + 1], 0 };
			m->build_id[i] = strtoul(hex, NULL, 16);
		}
		m->has_id = true;
	}
	strcpy(m->path, DPDUMP_KERNEL);
	return m->text_end > m->text_start ? 0 : -1;
}

/* The mean sampling rate in mHz: the clock's achieved rate (kpinfo's, the
 * session's own while it exists), or timval when kpinfo has none; a
 * flgbits divider samples once per N ticks for each byte N. */
static uint32_t rate_mhz(uint16_t timval)
{
	char line[160];
	const char *v = kpinfo(KPINFO_HZ, line, sizeof line);
	uint64_t mhz = (uint64_t)timval * 1000, sum = 0;
	char *dot;

	if (v) {
		uint64_t hz = strtoul(v, &dot, 10) * 1000ull;
		if (*dot == '.')
			hz += strtoul(dot + 1, NULL, 10);
		if (hz)
			mhz = hz;
	}
	for (int i = 0; i < o.nflg; i++)
		sum += o.flg[i];
	if (sum)
		mhz = mhz * o.nflg / sum;
	return mhz ? (uint32_t)mhz : 1;
}

/* ---- the call ---- */

static const char *codename(unsigned r)
{
	switch (r) {
	case NO_ERROR: return "NO_ERROR";
	case ERROR_NOT_ENOUGH_MEMORY: return "NOT_ENOUGH_MEMORY";
	case ERROR_INVALID_PARAMETER: return "INVALID_PARAMETER";
	case ERROR_BUFFER_OVERFLOW: return "BUFFER_OVERFLOW";
	case ERROR_PROTECTION_VIOLATION: return "PROTECTION_VIOLATION";
	case ERROR_MOD_NOT_FOUND: return "MOD_NOT_FOUND";
	case ERROR_INVALID_PROCID: return "INVALID_PROCID";
	case ERROR_SYS_INTERNAL: return "SYS_INTERNAL";
	case PRF_NOT_INITIALIZED: return "PRF_NOT_INITIALIZED";
	case PRF_ALREADY_INITIALIZED: return "PRF_ALREADY_INITIALIZED";
	case PRF_NOT_STARTED: return "PRF_NOT_STARTED";
	case PRF_ALREADY_STARTED: return "PRF_ALREADY_STARTED";
	case PRF_TIMER_OUT_OF_RANGE: return "PRF_TIMER_OUT_OF_RANGE";
	case PRF_TIMER_RESET: return "PRF_TIMER_RESET";
	default: return "?";
	}
}

static void call(unsigned func, unsigned pid, PRFCMD *cmd, PRFRET *ret, const char *what)
{
	unsigned r = DosProfile(func, pid, cmd, ret);
	if (r != NO_ERROR) {
		fprintf(2, "dosprof: %s: %u %s\n", what, r, codename(r));
		exit(1);
	}
}

/* one DUMP into a buffer of the size the kernel says it needs */
static void *dump(unsigned pid, uint8_t cmd, uint32_t vaddr, uint32_t *len)
{
	PRFRET r = { .us_cmd = cmd, .us_vaddr = vaddr, .us_bufsz = 0, .us_buf = NULL };
	unsigned code = DosProfile(PRF_CM_DUMP, pid, NULL, &r);
	void *buf;

	if (code != ERROR_BUFFER_OVERFLOW) {
		fprintf(2, "dosprof: dump %u: %u %s\n", cmd, code, codename(code));
		exit(1);
	}
	buf = malloc(r.us_bufsz);
	r.us_buf = buf;
	call(PRF_CM_DUMP, pid, NULL, &r, "dump");
	*len = r.us_bufsz;
	return buf;
}

/* ---- the report ---- */

static void sort_desc(uint32_t *addr, uint32_t *cnt, uint32_t n)
{
	for (uint32_t gap = n / 2; gap; gap /= 2)
		for (uint32_t i = gap; i < n; i++)
			for (uint32_t j = i; j >= gap && cnt[j - gap] < cnt[j]; j -= gap) {
				uint32_t a = addr[j], c = cnt[j];
				addr[j] = addr[j - gap], cnt[j] = cnt[j - gap];
				addr[j - gap] = a, cnt[j - gap] = c;
			}
}

static void pct(uint32_t part, uint32_t whole, char *buf)
{
	unsigned t = prf_permille(part, whole);     /* the host's rule too */
	snprintf(buf, 12, "%u.%u%%", t / 10, t % 10);
}

static void top_hits(const PRFRET2 *r2, uint32_t total)
{
	uint32_t n = r2->r2_nhits, k = 0;
	uint32_t *addr = malloc(n * 4 + 4), *cnt = malloc(n * 4 + 4);
	char p[12];

	/* distinct addresses and their counts: sorted by address first */
	memcpy(addr, r2->r2_hits, n * 4);
	for (uint32_t gap = n / 2; gap; gap /= 2)
		for (uint32_t i = gap; i < n; i++)
			for (uint32_t j = i; j >= gap && addr[j - gap] > addr[j]; j -= gap) {
				uint32_t a = addr[j];
				addr[j] = addr[j - gap], addr[j - gap] = a;
			}
	for (uint32_t i = 0; i < n; i++) {
		if (k && addr[k - 1] == addr[i]) {
			cnt[k - 1]++;
		} else {
			addr[k] = addr[i];
			cnt[k++] = 1;
		}
	}
	sort_desc(addr, cnt, k);
	for (uint32_t i = 0; i < k && (o.top == 0 || i < o.top); i++) {
		pct(cnt[i], total, p);
		printf("hit 0x%08x %u %s\n", addr[i], cnt[i], p);
	}
}

static uint32_t min_u(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void put(int fd, const void *p, uint32_t n)
{
	if (writeall(fd, p, n) < 0) {
		fprintf(2, "dosprof: writing the dump: %s\n", strerror(errno));
		exit(1);
	}
}

static void put_rec(int fd, uint32_t cmd, uint32_t vaddr, const void *p, uint32_t n)
{
	struct dpdump_rec rec = { cmd, vaddr, n };
	put(fd, &rec, sizeof rec);
	put(fd, p, n);
}

static const char *modename(uint32_t m)
{
	return m == PRF_VAHIT ? "hit" : m == PRF_VADETAIL ? "detail" : "count";
}

/* Reads everything back, prints it, writes the raw dump, ends the session. */
/* The common header and its module table: the target, at load 0. */
static void put_header(int fd, const struct target *t, uint32_t mhz)
{
	static uint8_t m[DUMP_MODULE_SIZE_MAX];
	uint32_t n = dump_module_encode(m, t->build_id, t->has_id ? 20 : 0, t->path, strlen(t->path));
	struct dump_header h = dump_header_make(DUMP_ENGINE_DOSPROF, mhz, 1, n);

	put(fd, &h, sizeof h);
	put(fd, m, n);
}

static int report(unsigned pid, struct target *mod, unsigned nslots)
{
	uint32_t len, samples, nrec = 2, fd;
	PRFRET0 *r0 = dump(pid, PRF_RET_GLOBAL, 0, &len);
	PRFRET1 *r1 = dump(pid, PRF_RET_VASLOTS, 0, &len);
	PRFRET2 *r2 = NULL;
	char path[64], p[12];
	struct dpdump d;

	samples = r0->r0_idle + r0->r0_vm86 + r0->r0_kernel + r0->r0_shrmem + r0->r0_unknown;
	for (unsigned s = 0; s < r1->r1_nslots; s++)
		samples += r1->r1_slots[s].va_cnt;
	printf("dosprof: pid %u target %s mode %s timval %u slots %u\n", pid,
	       o.kernel ? "kernel" : o.st ? "st" : "mt", modename(o.mode), r0->r0_timval, nslots);
	printf("global flags 0x%04x shift %u idle %u vm86 %u kernel %u shrmem %u unknown %u "
	       "samples %u ticks %u errcnt %u processes %u\n",
	       r0->r0_flags, r0->r0_shift, r0->r0_idle, r0->r0_vm86, r0->r0_kernel, r0->r0_shrmem,
	       r0->r0_unknown, samples, r0->r0_reserved1, r0->r0_errcnt, r0->r0_nstruc2);
	if (o.self && r0->r0_reserved1 == 0)
		fprintf(2, "dosprof: no tick while the session ran: with -c the command starts it "
			   "itself, DosProfile(PRF_CM_START, its pid)\n");
	if (r0->r0_nhitbufs) {
		printf("hits %u of %u overwritten %u\n", r0->r0_hitbufcnt, r0->r0_nhitbufs,
		       r0->r0_reserved2);
		r2 = dump(pid, PRF_RET_VAHITS, 0, &len);
		nrec++;
	}
	for (unsigned s = 0; s < r1->r1_nslots; s++) {
		PRFVA *v = &r1->r1_slots[s];
		pct(v->va_cnt, samples, p);
		printf("slot %u 0x%08x 0x%x %s %u %s\n", s, v->va_vaddr, v->va_size,
		       modename(v->va_reserved), v->va_cnt, p);
	}
	if (r2)
		top_hits(r2, samples);

	mkdir(DUMPDIR);
	snprintf(path, sizeof path, DUMPDIR "/dosprof.%u", pid);
	if ((int)(fd = open(path, O_WRONLY | O_CREAT | O_TRUNC)) < 0) {
		fprintf(2, "dosprof: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (unsigned s = 0; s < r1->r1_nslots; s++)
		nrec += r1->r1_slots[s].va_reserved == PRF_VADETAIL;
	d = (struct dpdump){ pid, nrec, mod->text_start, mod->text_end };
	put_header(fd, mod, rate_mhz(r0->r0_timval));
	put(fd, &d, sizeof d);
	put_rec(fd, PRF_RET_GLOBAL, 0, r0, sizeof *r0);
	put_rec(fd, PRF_RET_VASLOTS, 0, r1, sizeof *r1 + r1->r1_nslots * sizeof(PRFVA));
	if (r2)
		put_rec(fd, PRF_RET_VAHITS, 0, r2, 4 + r2->r2_nhits * 4);
	for (unsigned s = 0; s < r1->r1_nslots; s++) {
		PRFVA *v = &r1->r1_slots[s];
		PRFRET3 *r3;
		if (v->va_reserved != PRF_VADETAIL)
			continue;
		r3 = dump(pid, PRF_RET_VADETAIL, v->va_vaddr, &len);
		put_rec(fd, PRF_RET_VADETAIL, v->va_vaddr, r3, len);
		for (uint32_t c = 0; c < r3->r3_ncnts; c++) {
			if (!r3->r3_cnts[c])
				continue;
			pct(r3->r3_cnts[c], samples, p);
			printf("page 0x%08x %u %s\n",
			       (v->va_vaddr & ~(r3->r3_size - 1)) + c * r3->r3_size, r3->r3_cnts[c], p);
		}
		free(r3);
	}
	close(fd);
	printf("dump %s\n", path);
	call(PRF_CM_EXIT, pid, NULL, NULL, "exit");
	return 0;
}

int main(int argc, char **argv)
{
	PRFCMD cmd;
	PRFSLOT slots[PRF_MAXSLOTS];
	struct target mod;
	unsigned pid, nslots = 0;
	int i = 1, child = -1, status = 0;

	memset(&mod, 0, sizeof mod);
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *opt = argv[i];
		if (strcmp(opt, "-w") == 0) { o.wrap = true; continue; }
		if (strcmp(opt, "-k") == 0) { o.kernel = true; continue; }
		if (strcmp(opt, "-s") == 0) { o.st = true; continue; }
		if (strcmp(opt, "-c") == 0) { o.self = true; continue; }
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (strcmp(opt, "-m") == 0) {
			o.mode = strcmp(v, "count") == 0 ? PRF_VATOTAL : strcmp(v, "hit") == 0 ? PRF_VAHIT :
				 strcmp(v, "detail") == 0 ? PRF_VADETAIL : 0xFFFF;
			if (o.mode == 0xFFFF) {
				fprintf(2, "dosprof: -m %s: not count, hit or detail\n", v);
				exit(2);
			}
		} else if (strcmp(opt, "-z") == 0) {
			o.timval = (uint16_t)option(opt, v, PRF_MAX_TIMVAL);   /* cm_timval is 16 bits */
		} else if (strcmp(opt, "-b") == 0) {
			o.bufsz = number(v);
		} else if (strcmp(opt, "-f") == 0) {
			for (const char *p = v; *p && o.nflg < 255; ) {
				o.flg[o.nflg++] = strtoul(p, (char **)&p, 0);
				if (*p == ',')
					p++;
				else if (*p)
					usage();
			}
		} else if (strcmp(opt, "-r") == 0 && o.nr < MAXRANGES) {
			const char *colon = strchr(v, ':');
			char *end;
			if (!colon) {
				fprintf(2, "dosprof: -r %s: not ADDR:SIZE\n", v);
				exit(2);
			}
			o.r[o.nr].start = strtoul(v, &end, 0);
			if (end != colon) {
				fprintf(2, "dosprof: -r %s: not ADDR:SIZE\n", v);
				exit(2);
			}
			o.r[o.nr++].size = number(colon + 1);
		} else if (strcmp(opt, "-p") == 0) {
			o.prog = v;
		} else if (strcmp(opt, "-n") == 0) {
			o.nsplit = number(v);
		} else if (strcmp(opt, "-t") == 0) {
			o.top = number(v);
		} else if (strcmp(opt, "-P") == 0) {
			o.pid = number(v);
		} else if (strcmp(opt, "-d") == 0) {
			o.ms = number(v);
		} else {
			usage();
		}
	}
	if ((o.pid >= 0 || (o.kernel && i == argc)) ? (i != argc || !o.ms) : i == argc)
		usage();
	if (o.self && (o.kernel || o.pid >= 0))
		usage();

	/* the slots: the ranges given, or the text of the program */
	if (o.kernel ? kernel_text(&mod) < 0 && !o.nr :
	    program_text(o.prog ? o.prog : i < argc ? argv[i] : "", &mod) < 0 && !o.nr) {
		fprintf(2, "dosprof: no text to profile: give -r ADDR:SIZE or -p PROG\n");
		return 1;
	}
	if (!o.nr) {
		o.r[0].start = mod.text_start;
		o.r[0].size = mod.text_end - mod.text_start;
		o.nr = 1;
	}
	for (int r = 0; r < o.nr; r++) {
		/* N slots of about size / N bytes each, or of a byte each */
		uint32_t n = min_u(o.nsplit, o.r[r].size);
		for (uint32_t k = 0; k < n && nslots < PRF_MAXSLOTS; k++) {
			uint32_t from = (uint64_t)o.r[r].size * k / n;
			uint32_t to = (uint64_t)o.r[r].size * (k + 1) / n;
			slots[nslots] = (PRFSLOT){ o.r[r].start + from, to - from,
						   o.mode == PRF_VATOTAL ? 0 : o.mode == PRF_VAHIT ?
						   PRF_VAHIT : PRF_SL_CMFLAGS };
			nslots++;
		}
	}

	pid = o.kernel ? 0 : o.pid >= 0 ? (unsigned)o.pid : (unsigned)getpid();
	cmd = (PRFCMD){
		.cm_slots = slots, .cm_nslots = nslots, .cm_bufsz = o.bufsz, .cm_timval = o.timval,
		.cm_flags = (o.kernel ? PRF_KERNEL : o.st ? PRF_PROCESS_ST : PRF_PROCESS_MT) |
			    o.mode | (o.wrap ? PRF_WRAP : 0) | (o.nflg ? PRF_FLGBITS : 0),
		.cm_flgbits = o.flg, .cm_nflgs = o.nflg,
	};
	if (!o.self) {
		call(PRF_CM_INIT, pid, &cmd, NULL, "init");
		call(PRF_CM_START, pid, NULL, NULL, "start");
	}
	if (i < argc) {
		/* the command is spawned by this process, so an MT session on
		 * it follows the command; this process itself sleeps in wait.
		 * With -c the session is the command's own, set up but not
		 * started: the command starts it (retrying while it gets
		 * PRF_NOT_INITIALIZED, as it may run before this INIT) */
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s%s", argv[i][0] == '/' ? "" : "/bin/", argv[i]);
		if ((child = spawn(path, argv + i, NULL)) < 0) {
			fprintf(2, "dosprof: %s: %s\n", argv[i], strerror(errno));
			if (!o.self)
				DosProfile(PRF_CM_EXIT, pid, NULL, NULL);
			return 1;
		}
		if (o.self) {
			unsigned r;
			pid = child;
			if ((r = DosProfile(PRF_CM_INIT, pid, &cmd, NULL)) != NO_ERROR) {
				fprintf(2, "dosprof: init: %u %s\n", r, codename(r));
				kill(child);
				wait(child, &status, 0);
				return 1;
			}
		}
		wait(child, &status, 0);
	} else {
		sleep(o.ms);
	}
	if (o.self) {
		unsigned r = DosProfile(PRF_CM_STOP, pid, NULL, NULL);
		if (r != NO_ERROR && r != PRF_NOT_STARTED)
			call(PRF_CM_STOP, pid, NULL, NULL, "stop");
	} else
		call(PRF_CM_STOP, pid, NULL, NULL, "stop");
	if (child >= 0 && status)
		fprintf(2, "dosprof: %s exited with status %d\n", argv[i], status);
	return report(pid, &mod, nslots);
}
