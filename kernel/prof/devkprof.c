/* devkprof: samples the interrupted kernel PC on every clock tick into an
 * array of counters, one per 2^res bytes of kernel text (the format is
 * in include/abi/kprof.h).
 *
 *   /dev/kpctl   start, stop, startclr, clear, hz N, res N
 *   /dev/kpdata  big-endian words: total ticks, kernel ticks, the bins
 *   /dev/kpinfo  text: text bounds, res, rate, state, build-id ...
 *
 * The counters live in one contiguous buffer, allocated when profiling
 * first starts and sized from the real text bounds; they are kept in
 * native order and turned big-endian only when kpdata is opened. */
#include "abi/errno.h"
#include "abi/kprof.h"
#include "arch.h"
#include "dev.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/kprof.h"
#include "prof/prof.h"

extern char _text_start[], _text_end[];
const char *kernel_build_id(void);

static const struct dev kprofdev;

static struct {
	uint32_t *buf;          /* KPDATA_HDR_WORDS + nbins counters, or NULL */
	uint32_t *bins;         /* buf + KPDATA_HDR_WORDS */
	uint32_t npages;        /* pages behind buf */
	uint32_t nbins, res;
	uint32_t text_start;
	uint32_t saturated;     /* samples that found their counter full */
	bool on;
	char note[48];          /* what the last harmless command did */
	char last[KPCTL_MAXLEN + 32];
} kp;

/* The sample, at interrupt time: count the tick, and if the PC was in the
 * kernel, its bin. A tick held back by a cli is charged to the PC that
 * turned interrupts off (splpc). Counters saturate at KPDATA_MAX. */
__attribute__((regparm(2), optimize("omit-frame-pointer")))
static void kprof_sample(struct trapframe *tf, struct proc *p)
{
	uint32_t *b = kp.buf, pc, i;
	(void)p;

	arch_inc_sat(&b[KPDATA_TOTAL], &kp.saturated);
	if (arch_frame_user(tf))
		return;
	arch_inc_sat(&b[KPDATA_KERNEL], &kp.saturated);
	pc = arch_frame_pc(tf);
	if (pc == (uint32_t)splx_landing)
		pc = splpc;
	i = (pc - kp.text_start) >> kp.res;
	if (i < kp.nbins)
		arch_inc_sat(&kp.bins[i], &kp.saturated);
}

static uint32_t nbins_for(uint32_t res)
{
	uint32_t len = (uint32_t)_text_end - kp.text_start;
	return (len + (1u << res) - 1) >> res;
}

static uint32_t kpdata_size(void)
{
	return KPDATA_WORD * (KPDATA_HDR_WORDS + kp.nbins);
}

static int alloc_buf(void)
{
	uint32_t npages = ROUNDUP(kpdata_size(), 4096) / 4096;
	uint32_t *b = kalloc_contig(npages);

	if (!b)
		return -ENOMEM;
	kp.buf = b;
	kp.bins = b + KPDATA_HDR_WORDS;
	kp.npages = npages;
	return 0;
}

/* Zeroes the counts. Sampling is paused instead of interrupts held off:
 * the memset of a res-0 buffer takes long enough to lose ticks. */
static void clear(void)
{
	prof_tick_fn was = prof_tick;

	prof_tick = NULL;
	if (kp.buf)
		memset(kp.buf, 0, kpdata_size());
	kp.saturated = 0;
	prof_tick = was;
}

static int start(void)
{
	kp.note[0] = 0;
	if (kp.on) {
		strlcpy(kp.note, " (start while on: no change)", sizeof kp.note);
		return 0;
	}
	if (!kp.buf && alloc_buf() < 0)
		return -ENOMEM;
	arch_pit_restart();     /* the first sample one period from here, in every run */
	kp.on = true;
	prof_tick = kprof_sample;
	return 0;
}

static void stop(void)
{
	kp.note[0] = 0;
	if (!kp.on) {
		strlcpy(kp.note, " (stop while off: no change)", sizeof kp.note);
		return;
	}
	prof_tick = NULL;
	kp.on = false;
}

void kprof_init(uint32_t res)
{
	kp.text_start = (uint32_t)_text_start;
	kp.res = res;
	kp.nbins = nbins_for(res);
	devfs_register(&kprofdev);
}

static bool word_is(const char *w, uint32_t n, const char *s)
{
	return strlen(s) == n && strncmp(w, s, n) == 0;
}

int kprof_ctl(const char *cmd, uint32_t n)
{
	const char *arg = NULL;
	uint32_t wlen = 0, alen = 0, v = 0;
	int r = 0;

	if (n > 0 && cmd[n - 1] == '\n')
		n--;
	if (n == 0 || n > KPCTL_MAXLEN)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (cmd[i] < ' ' || cmd[i] > '~')
			return -EINVAL;
	while (wlen < n && cmd[wlen] != ' ')
		wlen++;
	if (wlen < n) {
		arg = cmd + wlen + 1;
		alen = n - wlen - 1;
		if (!parse_uint(arg, alen, &v))
			return -EINVAL;
	}

	if (word_is(cmd, wlen, KPCTL_START) && !arg)
		r = start();
	else if (word_is(cmd, wlen, KPCTL_STOP) && !arg)
		stop();
	else if (word_is(cmd, wlen, KPCTL_STARTCLR) && !arg) {
		clear();
		if (!kp.on)
			r = start();
	} else if (word_is(cmd, wlen, KPCTL_CLEAR) && !arg)
		clear();
	else if (word_is(cmd, wlen, KPCTL_HZ) && arg) {
		if (v < PIT_MIN_HZ || v > PIT_MAX_HZ)
			return -EINVAL;
		clock_set_hz(v);
	} else if (word_is(cmd, wlen, KPCTL_RES) && arg) {
		if (kp.on || v > KPROF_RES_MAX)
			return -EINVAL;
		if (v != kp.res) {
			if (kp.buf)
				kfree_contig(kp.buf, kp.npages);
			kp.buf = kp.bins = NULL;
			kp.res = v;
			kp.nbins = nbins_for(v);
			kp.saturated = 0;
		}
	} else
		return -EINVAL;
	if (r == 0) {
		if (!word_is(cmd, wlen, KPCTL_START) && !word_is(cmd, wlen, KPCTL_STOP))
			kp.note[0] = 0;
		ksnprintf(kp.last, sizeof kp.last, "%.*s", (int)n, cmd);
	}
	return r;
}

/* ---- the device ---- */

enum { Qkpctl, Qkpdata, Qkpinfo };

static const struct dirtab kproftab[] = {
	{ "kpctl", Qkpctl, false },
	{ "kpdata", Qkpdata, false },
	{ "kpinfo", Qkpinfo, false },
};

static inline uint32_t be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

/* The snapshot is read bins first, then the kernel count, then the total:
 * the clock bumps total, kernel and bin in that order, so even while
 * profiling runs, total >= kernel >= the sum of the bins in the copy. */
static int kpdata_open(struct file *f)
{
	uint32_t size = kpdata_size(), chunk[256];
	int r;

	if ((r = snap_open(f, NULL, 0)) < 0)
		return r;
	for (uint32_t i = 0; i < kp.nbins; i += NELEM(chunk)) {
		uint32_t k = MIN(NELEM(chunk), kp.nbins - i);
		for (uint32_t j = 0; j < k; j++)
			chunk[j] = kp.buf ? be32(kp.bins[i + j]) : 0;
		if (snap_write(f, KPDATA_WORD * (KPDATA_HDR_WORDS + i), chunk, 4 * k) < 0)
			goto nomem;
	}
	chunk[KPDATA_KERNEL] = kp.buf ? be32(kp.buf[KPDATA_KERNEL]) : 0;
	chunk[KPDATA_TOTAL] = kp.buf ? be32(kp.buf[KPDATA_TOTAL]) : 0;
	if (snap_write(f, 0, chunk, KPDATA_WORD * KPDATA_HDR_WORDS) < 0)
		goto nomem;
	f->privsize = size;
	return 0;
nomem:
	snap_close(f);
	return -ENOMEM;
}

static int kpinfo_open(struct file *f)
{
	struct textbuf t;
	uint32_t mhz = clock_hz_mhz();

	if (!text_begin(&t))
		return -ENOMEM;
	text_add(&t, "%s 0x%08x\n", KPINFO_TEXT_START, kp.text_start);
	text_add(&t, "%s 0x%08x\n", KPINFO_TEXT_END, (uint32_t)_text_end);
	text_add(&t, "%s %u\n", KPINFO_RES, kp.res);
	text_add(&t, "%s %u\n", KPINFO_NBINS, kp.nbins);
	text_add(&t, "%s %u.%03u\n", KPINFO_HZ, mhz / 1000, mhz % 1000);
	text_add(&t, "%s %u\n", KPINFO_TICKS, kp.buf ? kp.buf[KPDATA_TOTAL] : 0);
	text_add(&t, "%s %u\n", KPINFO_KTICKS, kp.buf ? kp.buf[KPDATA_KERNEL] : 0);
	text_add(&t, "%s %s%s\n", KPINFO_STATE, kp.on ? "on" : "off", kp.note);
	text_add(&t, "%s %u\n", KPINFO_SATURATED, kp.saturated);
	text_add(&t, "%s %u\n", KPINFO_LOST, lost_ticks);
	text_add(&t, "%s %s\n", KPINFO_BUILD_ID, kernel_build_id());
	text_add(&t, "%s %s\n", KPINFO_LAST, kp.last[0] ? kp.last : "none");
	return text_finish(&t, f);
}

static int kpopen(int id, struct file *f)
{
	switch (id) {
	case Qkpdata: return kpdata_open(f);
	case Qkpinfo: return kpinfo_open(f);
	default: return 0;
	}
}

static void kpclose(int id, struct file *f)
{
	if (id != Qkpctl)
		snap_close(f);
}

static int kpread(int id, struct file *f, void *buf, uint32_t n, uint32_t off)
{
	switch (id) {
	case Qkpdata:
		if (off % KPDATA_WORD)
			return -EINVAL;
		return snap_read(f, buf, n, off);
	case Qkpinfo:
		return snap_read(f, buf, n, off);
	default:
		return 0;       /* kpctl reads as empty */
	}
}

static int kpwrite(int id, struct file *f, const void *buf, uint32_t n, uint32_t off)
{
	int r;
	(void)f, (void)off;
	if (id != Qkpctl)
		return -EPERM;
	r = kprof_ctl(buf, n);
	return r < 0 ? r : (int)n;
}

static uint32_t kpsize(int id, struct file *f)
{
	switch (id) {
	case Qkpdata: return f ? snap_size(f) : kpdata_size();
	case Qkpinfo: return f ? snap_size(f) : 0;
	default: return 0;
	}
}

static const struct dev kprofdev = {
	"kprof", kproftab, NELEM(kproftab), kpopen, kpclose, kpread, kpwrite, kpsize,
};
