/* Exact per-instruction heat: the text formats of /dev/heatctl, /dev/heat
 * and /dev/heatinfo (kernel/prof/heat*.c), shared with the host tool
 * (tools/kprof/heat.c) and the user programs.
 *
 * /dev/heat is one line per user instruction that ran, ascending by address:
 *   PROF 0x%08X count duration [CALLED] [BLOCK_ENTER] [BLOCK_EXIT]
 * count     how many times the instruction completed
 * duration  TSC ticks from its start to the next instruction's start, the
 *           kernel's fixed cost per step taken off (heatinfo's overhead)
 * CALLED      some call instruction went to it
 * BLOCK_ENTER it was reached by a control transfer (a jump, call, return
 *             or system call return to somewhere other than the next byte)
 * BLOCK_EXIT  the next instruction after it was not at its address plus
 *             its length
 *
 * /dev/heatinfo is "key value" text, one a line, keys below.
 * An "address count" sample file (the host tool's accuracy input) is one
 * "0x%08x count" line per sampled PC.
 */
#ifndef ABI_HEAT_H
#define ABI_HEAT_H

#define HEAT_TAG           "PROF"
#define HEAT_CALLED        "CALLED"
#define HEAT_BLOCK_ENTER   "BLOCK_ENTER"
#define HEAT_BLOCK_EXIT    "BLOCK_EXIT"

/* heatctl commands */
#define HEATCTL_PID        "pid"         /* pid N: trace process N from now */
#define HEATCTL_CHILD      "child"       /* trace the writer's next spawned child */
#define HEATCTL_STOP       "stop"        /* stop tracing, keep the heat */
#define HEATCTL_CLEAR      "clear"       /* throw the heat away (tracing stops) */
#define HEATCTL_LIMIT      "limit"       /* limit N: at most N pages of records */
#define HEATCTL_MAXLEN     64

/* heatinfo keys */
#define HEATINFO_STATE     "state"       /* off | armed | tracing | stopped: why */
#define HEATINFO_PID       "pid"         /* the traced process, 0 if none yet */
#define HEATINFO_NAME      "name"        /* its program name */
#define HEATINFO_STEPS     "steps"       /* instructions counted, all together */
#define HEATINFO_ADDRS     "addresses"   /* distinct instructions (dump lines) */
#define HEATINFO_OUTSIDE   "outside"     /* steps to an address outside user space */
#define HEATINFO_PAGES     "pages"       /* kernel pages used: directory + records */
#define HEATINFO_RECPAGES  "record_pages"/* of those, pages of per-instruction records */
#define HEATINFO_BYTES     "bytes"       /* = pages * 4096 */
#define HEATINFO_LIMIT     "limit"       /* the page limit (0: until memory runs short) */
#define HEATINFO_OVERHEAD  "overhead"    /* TSC ticks taken off each step's duration */
#define HEATINFO_TSC_KHZ   "tsc_khz"
#define HEATINFO_BUILD_ID  "build_id"    /* the traced program's GNU build-id, hex, or none */

#endif
