/* The devkprof dump format, shared by the kernel's /dev/kpdata and
 * /dev/kpinfo and by the host tool tools/kprof.
 *
 * kpdata is an array of 32-bit big-endian words:
 *   word 0        clock ticks while profiling was on
 *   word 1        of those, ticks whose interrupted PC was in kernel mode
 *   word 2 + i    ticks whose kernel PC fell in bin i,
 *                 i = (pc - text_start) >> res
 * so its size is 4 * (KPDATA_HDR_WORDS + nbins). Counters saturate at
 * KPDATA_MAX instead of wrapping; kpinfo's `saturated` counts the samples
 * that hit a full counter.
 *
 * kpinfo is text, one "key value" pair a line, keys as below. kpdata has
 * no header of its own; the newer binary dumps start with include/abi/dump.h.
 */
#ifndef ABI_KPROF_H
#define ABI_KPROF_H

#define KPDATA_WORD        4            /* bytes per word */
#define KPDATA_HDR_WORDS   2            /* total ticks, kernel ticks */
#define KPDATA_TOTAL       0            /* word index: total ticks */
#define KPDATA_KERNEL      1            /* word index: kernel-mode ticks */
#define KPDATA_MAX         0xFFFFFFFFu  /* a counter saturates here */

#define KPROF_RES_DEFAULT  0            /* log2 bytes of text per bin */
#define KPROF_RES_MAX      8

/* kpinfo keys */
#define KPINFO_TEXT_START  "text_start"  /* 0x%08x: first byte of kernel text */
#define KPINFO_TEXT_END    "text_end"    /* 0x%08x: one past the last byte */
#define KPINFO_RES         "res"         /* decimal */
#define KPINFO_NBINS       "nbins"       /* decimal */
#define KPINFO_HZ          "hz"          /* achieved PIT rate, decimal with 3 places */
#define KPINFO_TICKS       "ticks"       /* = word 0 */
#define KPINFO_KTICKS      "kernel_ticks"/* = word 1 */
#define KPINFO_IDLE        "idle_ticks"  /* of the kernel ticks, the idle loop's */
#define KPINFO_STATE       "state"       /* on | off */
#define KPINFO_SATURATED   "saturated"   /* samples that hit a full counter */
#define KPINFO_LOST        "lost_ticks"  /* ticks merged while interrupts were off, while this profile was on */
#define KPINFO_BUILD_ID    "build_id"    /* the kernel's GNU build-id, hex */
#define KPINFO_LAST        "last"        /* the last kpctl command and what it did */

/* Every kpinfo key once, with the form of its value, for code that walks
 * them all (the host tool's parser): X(ID, KEY, FORM). The forms:
 * HEX32 0x%08x, DEC decimal, RATE decimal with a fraction, STATE on|off and
 * a note, HEXID hex digits or "none", TEXT free text. */
#define KPINFO_KEYS(X) \
	X(TEXT_START, KPINFO_TEXT_START, HEX32) \
	X(TEXT_END,   KPINFO_TEXT_END,   HEX32) \
	X(RES,        KPINFO_RES,        DEC)   \
	X(NBINS,      KPINFO_NBINS,      DEC)   \
	X(HZ,         KPINFO_HZ,         RATE)  \
	X(TICKS,      KPINFO_TICKS,      DEC)   \
	X(KTICKS,     KPINFO_KTICKS,     DEC)   \
	X(IDLE,       KPINFO_IDLE,       DEC)   \
	X(STATE,      KPINFO_STATE,      STATE) \
	X(SATURATED,  KPINFO_SATURATED,  DEC)   \
	X(LOST,       KPINFO_LOST,       DEC)   \
	X(BUILD_ID,   KPINFO_BUILD_ID,   HEXID) \
	X(LAST,       KPINFO_LAST,       TEXT)

/* kpctl commands */
#define KPCTL_START        "start"
#define KPCTL_STOP         "stop"
#define KPCTL_STARTCLR     "startclr"
#define KPCTL_CLEAR        "clear"
#define KPCTL_HZ           "hz"          /* hz N */
#define KPCTL_RES          "res"         /* res N, only while stopped */
#define KPCTL_MAXLEN       64            /* longer writes are EINVAL */
#define KPCTL_HELP         "start | stop | startclr | clear | hz N | res N (while stopped)"

#endif
