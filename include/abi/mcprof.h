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
 * since boot) and prints it on the console; beside it, the raw dump
 * mc.N.dump for the host tool: a common dump (abi/dump.h, engine
 * DUMP_ENGINE_MONTE) whose modules are the kernel (path "kernel") and the
 * programs (/bin/NAME, with their build-ids), each at load 0, then a
 * struct mc_dump and nrecs records. Buffered, a record is a sample (its PC
 * and weight); unbuffered, a routine's hits at its first byte, and a
 * module's hits in no routine at pc 0. Samples in no module have module
 * MC_DUMP_NOMOD. */
#define MC_REPORT_DIR       "/tmp/prof"

struct mc_dump {                /* 32 bytes */
	uint32_t options;       /* ProfileStart's */
	uint32_t nrecs;
	uint32_t idle;          /* samples in the idle loop */
	uint32_t dropped;       /* samples a full buffer dropped */
	uint64_t ticks;         /* clock ticks while the session ran */
	uint32_t reserved[2];
};

struct mc_dumprec {             /* 16 bytes */
	uint32_t pc;
	uint16_t mod;           /* index in the dump's module table */
	uint16_t reserved;
	uint32_t count;
	uint32_t reserved2;
};
#define MC_DUMP_NOMOD       0xFFFFu

#endif
