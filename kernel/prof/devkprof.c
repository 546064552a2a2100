/* devkprof, after Plan 9's kprof(3): an engine that samples the
 * interrupted kernel PC on every clock tick into an array of counters, one
 * per 2^res bytes of kernel text. The format is in include/abi/kprof.h.
 *
 *   /dev/kpctl   start, stop, startclr, clear, hz N, res N
 *   /dev/kpdata  big-endian words: total ticks, kernel ticks, the bins
 *   /dev/kpinfo  text: text bounds, res, rate, state, build-id ...
 *
 * The counters live in one contiguous buffer, allocated when profiling
 * first starts and sized from the real text bounds; they are kept in
 * native order and turned big-endian only when kpdata is opened. */
#include "abi/be32.h"
#include "abi/errno.h"
#include "abi/kprof.h"
#include "buildid.h"
#include "clock.h"
#include "cmdline.h"
#include "ctl.h"
#include "ctldev.h"
#include "dev.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/prof.h"

extern char _text_start[], _text_end[];


static struct ctldev kprofdev;

static uint32_t boot_res = KPROF_RES_DEFAULT;
BOOTPARAM_NUM("kprof.res", boot_res, 0, KPROF_RES_MAX);

static struct {
	uint32_t total, kernel; /* kpdata's first two words; here, not in buf,
	                         * so the sample adds to them without a load */
	uint32_t *bins;         /* the nbins counters, or NULL until first start */
	uint32_t npages;        /* pages behind buf */
	uint32_t nbins, res;
	uint32_t saturated;     /* samples that found their counter full */
	uint32_t idle;          /* of the kernel ticks, the idle loop's */
	uint32_t lost, lost_at; /* ticks lost while on: before the last start, and the clock's count then */
	bool on;
	char note[48];          /* what the last harmless command did */
	char last[KPCTL_MAXLEN + 96];
} kp;

/* Every tick but a user one of weight 1: count it, and if the PC was in
 * the kernel, its bin. Counters saturate at KPDATA_MAX. */
__attribute__((noinline, optimize("omit-frame-pointer")))
static void ARCH_FASTCALL kprof_other(const struct prof_sample *s)
{
	uint32_t flags = s->flags, w = prof_weight(flags), i;

	if (prof_user(flags)) {         /* merged ticks in user mode */
		prof_add_sat(&kp.total, w, &kp.saturated);
		return;
	}
	if (!s->p)              /* no process: the idle loop */
		prof_add_sat(&kp.idle, w, &kp.saturated);
	prof_add_sat(&kp.total, w, &kp.saturated);
	prof_add_sat(&kp.kernel, w, &kp.saturated);
	i = (s->pc - (uint32_t)_text_start) >> kp.res;     /* a link-time constant */
	if (i < kp.nbins)
		prof_add_sat(&kp.bins[i], w, &kp.saturated);
}

/* The sample, at interrupt time. A user tick of weight 1 (its flags are
 * 1) is a compare of the flags in memory and an add, kept first and
 * short; the rest is a jump to kprof_other. No frame: nothing walks the
 * stack from in here, and a frame would cost every tick. */
__attribute__((optimize("omit-frame-pointer")))
static void ARCH_FASTCALL kprof_sample(const struct prof_sample *s)
{
	if (__builtin_expect(s->flags != 1, 0)) {
		kprof_other(s);
		return;
	}
	prof_add_sat(&kp.total, 1, &kp.saturated);
}

static struct prof_engine engine = {
	.name = "devkprof",
	.sample = kprof_sample,
};

static uint32_t nbins_for(uint32_t res)
{
	uint32_t len = (uint32_t)_text_end - (uint32_t)_text_start;
	return (len + (1u << res) - 1) >> res;
}

static uint32_t kpdata_size(void)
{
	return KPDATA_WORD * (KPDATA_HDR_WORDS + kp.nbins);
}

static uint32_t buf_size(void)
{
	return KPDATA_WORD * kp.nbins;
}

static int alloc_buf(void)
{
	uint32_t npages = ROUNDUP(buf_size(), PGSIZE) / PGSIZE;
	uint32_t *b = kalloc_contig(npages);

	if (!b)
		return -ENOMEM;
	kp.bins = b;
	kp.npages = npages;
	return 0;
}

/* Zeroes the counts. Sampling stops meanwhile instead of interrupts being
 * held off: the memset of a res-0 buffer takes long enough to lose ticks. */
static void clear(void)
{
	prof_set_sampling(&engine, false);
	if (kp.bins)
		memset(kp.bins, 0, buf_size());
	kp.total = kp.kernel = kp.idle = 0;
	kp.saturated = 0;
	kp.lost = 0;
	kp.lost_at = lost_ticks;
	if (kp.on)
		prof_set_sampling(&engine, true);
}

static int start(void)
{
	kp.note[0] = 0;
	if (kp.on) {
		strlcpy(kp.note, " (start while on: no change)", sizeof kp.note);
		return 0;
	}
	if (!kp.bins && alloc_buf() < 0)
		return -ENOMEM;
	kp.on = true;
	kp.lost_at = lost_ticks;
	prof_set_hold(&engine, true);
	prof_set_sampling(&engine, true);
	return 0;
}

static void stop(void)
{
	kp.note[0] = 0;
	if (!kp.on) {
		strlcpy(kp.note, " (stop while off: no change)", sizeof kp.note);
		return;
	}
	prof_set_sampling(&engine, false);
	prof_set_hold(&engine, false);
	kp.on = false;
	kp.lost += lost_ticks - kp.lost_at;
}

void kprof_init(void)
{
	kp.res = boot_res;
	kp.nbins = nbins_for(kp.res);
	prof_register(&engine);
	ctldev_register(&kprofdev);
}

/* applies one kpctl command (bytes already in the kernel); 0 or -errno,
 * and then why, on the console and in kpinfo's last */
static int kprof_ctl(const char *cmd, uint32_t n)
{
	struct ctlmsg m;
	uint32_t v = 0;
	int r = 0;
	char why[80];

	why[0] = 0;
	if ((r = ctl_parse(cmd, n, KPCTL_MAXLEN, &m)) < 0) {
		kprintf("kpctl: a command of at most %u bytes, one line: %s\n", KPCTL_MAXLEN, KPCTL_HELP);
		return r;
	}
	if (ctl_cmd(&m, KPCTL_START, 0)) {
		if ((r = start()) < 0)
			ksnprintf(why, sizeof why, "no memory for %u bins", kp.nbins);
	} else if (ctl_cmd(&m, KPCTL_STOP, 0))
		stop();
	else if (ctl_cmd(&m, KPCTL_STARTCLR, 0)) {
		clear();
		if (!kp.on && (r = start()) < 0)
			ksnprintf(why, sizeof why, "no memory for %u bins", kp.nbins);
	} else if (ctl_cmd(&m, KPCTL_CLEAR, 0))
		clear();
	else if (ctl_cmd(&m, KPCTL_HZ, 1) && ctl_uint(&m, 1, &v)) {
		if ((r = prof_set_hz(&engine, v)) == -EBUSY)
			ksnprintf(why, sizeof why, "another engine holds the rate");
		else if (r < 0)
			ksnprintf(why, sizeof why, "out of range %u..%u", CLOCK_MIN_HZ, clock_max_hz());
	} else if (ctl_cmd(&m, KPCTL_RES, 1) && ctl_uint(&m, 1, &v)) {
		if (kp.on) {
			r = -EINVAL;
			ksnprintf(why, sizeof why, "profiling is on: stop first");
		} else if (v > KPROF_RES_MAX) {
			r = -EINVAL;
			ksnprintf(why, sizeof why, "out of range 0..%u", KPROF_RES_MAX);
		} else if (v != kp.res) {
			if (kp.bins)
				kfree_contig(kp.bins, kp.npages);
			kp.bins = NULL;
			kp.total = kp.kernel = kp.idle = 0;
			kp.res = v;
			kp.nbins = nbins_for(v);
			kp.saturated = 0;
		}
	} else {
		r = -EINVAL;
		ksnprintf(why, sizeof why, "not a command (%s)", KPCTL_HELP);
	}
	if (r == 0) {
		if (!ctl_is(&m, 0, KPCTL_START) && !ctl_is(&m, 0, KPCTL_STOP))
			kp.note[0] = 0;
		ksnprintf(kp.last, sizeof kp.last, "%.*s", (int)m.n, cmd);
	} else {
		kprintf("kpctl: %.*s: %s\n", (int)m.n, cmd, why);
		ksnprintf(kp.last, sizeof kp.last, "%.*s: refused, %s", (int)m.n, cmd, why);
	}
	return r;
}

/* cat /dev/kpctl: the commands it takes */
static void kpctl_text(struct textbuf *t)
{
	text_add(t, "%s\n", KPCTL_HELP);
}

/* ---- the device ---- */

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
			be32_put(&chunk[j], kp.bins ? kp.bins[i + j] : 0);
		if (snap_write(f, KPDATA_WORD * (KPDATA_HDR_WORDS + i), chunk, 4 * k) < 0)
			goto nomem;
	}
	be32_put(&chunk[KPDATA_KERNEL], kp.kernel);
	be32_put(&chunk[KPDATA_TOTAL], kp.total);
	if (snap_write(f, 0, chunk, KPDATA_WORD * KPDATA_HDR_WORDS) < 0)
		goto nomem;
	f->privsize = size;
	return 0;
nomem:
	snap_close(f);
	return -ENOMEM;
}

static void kpinfo_text(struct textbuf *t)
{
	uint32_t mhz = clock_hz_mhz();

	text_add(t, "%s 0x%08x\n", KPINFO_TEXT_START, (uint32_t)_text_start);
	text_add(t, "%s 0x%08x\n", KPINFO_TEXT_END, (uint32_t)_text_end);
	text_add(t, "%s %u\n", KPINFO_RES, kp.res);
	text_add(t, "%s %u\n", KPINFO_NBINS, kp.nbins);
	text_add(t, "%s %u.%03u\n", KPINFO_HZ, mhz / 1000, mhz % 1000);
	text_add(t, "%s %u\n", KPINFO_TICKS, kp.total);
	text_add(t, "%s %u\n", KPINFO_KTICKS, kp.kernel);
	text_add(t, "%s %u\n", KPINFO_IDLE, kp.idle);
	text_add(t, "%s %s%s\n", KPINFO_STATE, kp.on ? "on" : "off", kp.note);
	text_add(t, "%s %u\n", KPINFO_SATURATED, kp.saturated);
	text_add(t, "%s %u\n", KPINFO_LOST, kp.lost + (kp.on ? lost_ticks - kp.lost_at : 0));
	text_add(t, "%s %s\n", KPINFO_BUILD_ID, kernel_build_id());
	text_add(t, "%s %s\n", KPINFO_LAST, kp.last[0] ? kp.last : "none");
}

static const struct ctlfile kproffiles[] = {
	{ .name = "kpctl", .ctl = kprof_ctl, .text = kpctl_text },
	{ .name = "kpdata", .open = kpdata_open, .size = kpdata_size, .align = KPDATA_WORD },
	{ .name = "kpinfo", .text = kpinfo_text },
};

static struct ctldev kprofdev = { .name = "kprof", .files = kproffiles, .nfiles = NELEM(kproffiles) };
