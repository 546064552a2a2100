/* Monte Carlo profiling, after Windows CE's kernel profiler: the system
 * calls ProfileStart and ProfileStop, their options, and the limits of a
 * session. Shared by the kernel (kernel/prof/mc*.c), the `prof` command and
 * the tests. The option bits are Windows CE's own values. */
#ifndef ABI_MCPROF_H
#define ABI_MCPROF_H

#include <stdint.h>

/* ProfileStart(usec, options, params): usec is the sampling period in
 * microseconds (0: keep the clock's rate); options: */
#define PROFILE_OBJCALL     0x00000001u /* -s: each system call is a hit on its handler */
#define PROFILE_KCALL       0x00000002u /* -k: time system calls, interrupts-off sections, switches */
#define PROFILE_BUFFER      0x00000004u /* -b: store (PC, module) and resolve at stop */
#define PROFILE_PAUSE       0x00000008u /* a running session: one more pause */
#define PROFILE_CONTINUE    0x00000010u /* a running session: one more continue */
#define PROFILE_STARTPAUSED 0x00000020u /* -P: start paused; runs while continues > pauses */
/* this kernel's own */
#define PROFILE_PERPID      0x00010000u /* -p: one module per process, "name[pid]" */

#define PROFILE_DATATYPES   (PROFILE_OBJCALL | PROFILE_KCALL)
#define PROFILE_START_OPTS  (PROFILE_OBJCALL | PROFILE_KCALL | PROFILE_BUFFER | \
			     PROFILE_STARTPAUSED | PROFILE_PERPID)

/* the optional third argument of ProfileStart; NULL takes the defaults */
struct profile_params {
	uint32_t buf_kib;       /* buffered: the sample buffer, KiB (0: MC_BUF_KIB_DEFAULT) */
	uint32_t top;           /* routines in the report (0: all; MC_TOP_DEFAULT if no params) */
};
#define MC_BUF_KIB_DEFAULT  1024    /* 131072 samples of 8 bytes */
#define MC_BUF_KIB_MAX      65536
#define MC_TOP_DEFAULT      50

/* one buffered sample: the PC and the module it is charged to */
struct mc_entry {
	uint32_t pc;
	uint32_t mod;           /* index in the session's module table */
};

/* the session's module table: the kernel, and each program (or process,
 * with PROFILE_PERPID) that was sampled */
#define MC_MAXMODS          64
#define MC_MOD_KERNEL       0

/* ProfileStop writes the report to MC_REPORT_DIR/mc.N (N counts sessions
 * since boot) and prints it on the console. */
#define MC_REPORT_DIR       "/tmp/prof"

#endif
