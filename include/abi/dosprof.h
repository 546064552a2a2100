/* OS/2's DosProfile call as kprof-os offers it: the packed structures,
 * flags and return codes of the interface (the same bytes as OS/2's), and
 * the payload of the raw dump the dosprof driver writes for the host tool.
 * kernel/prof/dosprof.c says what each field means here. */
#ifndef ABI_DOSPROF_H
#define ABI_DOSPROF_H

#include <stdint.h>
#include "abi/dump.h"

/* functions */
#define PRF_CM_INIT   0
#define PRF_CM_START  1
#define PRF_CM_STOP   2
#define PRF_CM_CLEAR  3
#define PRF_CM_DUMP   4
#define PRF_CM_EXIT   5

/* cm_flags: the target (low two bits) */
#define PRF_PROCESS_MT  0       /* the process and the processes it spawns */
#define PRF_PROCESS_ST  1       /* the process alone */
#define PRF_KERNEL      2       /* the kernel (so does pid 0) */
#define PRF_TARGETMASK  3
/* cm_flags and sl_mode: the slot mode (bits 2 and 3) */
#define PRF_VADETAIL    0       /* detailed counters, one per 2^r0_shift bytes */
#define PRF_VAHIT       4       /* every sampled address into the hit table */
#define PRF_VATOTAL     8       /* one count for the slot */
#define PRF_VAMASK      12
#define PRF_FLGBITS     0x40    /* cm_flgbits/cm_nflgs hold a clock divider */
#define PRF_WRAP        0x80    /* a full hit table becomes a ring */
/* status bits: reported in r0_flags, refused in cm_flags */
#define PRFS_RUNNING    0x100
#define PRFS_THRDS      0x200   /* the session follows spawned processes */
#define PRFS_HITOVFL    0x800   /* the hit table filled up */
#define PRFS_HEADER     0x1000
#define PRFS_MASK       0xFF00

/* sl_mode: 0 is a simple count; PRF_VAHIT or PRF_VATOTAL pick that mode;
 * any other nonzero value takes cm_flags' mode, the only way to ask for
 * PRF_VADETAIL, which is 0. */
#define PRF_SL_CMFLAGS  1

/* us_cmd */
#define PRF_RET_GLOBAL    0     /* PRFRET0 */
#define PRF_RET_VASLOTS   1     /* PRFRET1 */
#define PRF_RET_VAHITS    2     /* PRFRET2 */
#define PRF_RET_VADETAIL  3     /* PRFRET3 of the detailed slot holding us_vaddr */

/* return codes (OS/2's numbers) */
#define NO_ERROR                 0
#define ERROR_NOT_ENOUGH_MEMORY  8
#define ERROR_INVALID_PARAMETER  87
#define ERROR_BUFFER_OVERFLOW    111
#define ERROR_PROTECTION_VIOLATION 115
#define ERROR_MOD_NOT_FOUND      126
#define ERROR_INVALID_PROCID     303
#define ERROR_SYS_INTERNAL       328
#define PRF_NOT_INITIALIZED      543
#define PRF_ALREADY_INITIALIZED  544
#define PRF_NOT_STARTED          545
#define PRF_ALREADY_STARTED      546
#define PRF_TIMER_OUT_OF_RANGE   547
#define PRF_TIMER_RESET          548

#define PRF_MAXSLOTS     255    /* r1_nslots is one byte */
#define PRF_DEFAULT_TIMVAL 1000
#define PRF_MAX_TIMVAL   65535  /* cm_timval is 16 bits; make profile checks HZ= by it */
#define PRF_MAXSESSIONS  16     /* sessions at once, one per target */
#define PRF_MAXBUF       (16u << 20)    /* cm_bufsz above: not enough memory */

/* A share in tenths of a percent, rounded to nearest (half up): the one
 * rule of the guest's dosprof report and of kprof dosprof, so that both
 * print 98.9 % for the same counts. The count a share is of is the same
 * on both sides too: every sample of the session (idle, vm86, kernel,
 * shrmem, unknown and each slot's). */
static inline uint32_t prf_permille(uint64_t part, uint64_t whole)
{
	return whole ? (uint32_t)((part * 2000 / whole + 1) / 2) : 0;
}

typedef struct __attribute__((packed)) {
	uint32_t sl_vaddr;
	uint32_t sl_size;
	uint32_t sl_mode;
} PRFSLOT;

typedef struct __attribute__((packed)) {
	uint16_t r0_flags;
	uint16_t r0_shift;
	uint32_t r0_idle;
	uint32_t r0_vm86;
	uint32_t r0_kernel;
	uint32_t r0_shrmem;
	uint32_t r0_unknown;
	uint32_t r0_nhitbufs;           /* the hit table's size, in entries */
	uint32_t r0_hitbufcnt;          /* entries in it */
	uint32_t r0_reserved1;          /* clock ticks while running */
	uint32_t r0_reserved2;          /* hits the ring overwrote */
	uint16_t r0_timval;
	uint8_t r0_errcnt;
	uint16_t r0_nstruc1;            /* slots */
	uint16_t r0_nstruc2;            /* processes the session has followed */
} PRFRET0;

typedef struct __attribute__((packed)) {
	uint32_t va_vaddr;
	uint32_t va_size;
	uint32_t va_flags;              /* PRF_VATOTAL (va_cnt valid) | the slot's mode */
	uint32_t va_reserved;           /* the mode alone: PRF_VADETAIL, _VAHIT or _VATOTAL */
	uint32_t va_cnt;
} PRFVA;

typedef struct __attribute__((packed)) {
	uint8_t r1_nslots;
	PRFVA r1_slots[];
} PRFRET1;

typedef struct __attribute__((packed)) {
	uint32_t r2_nhits;
	uint32_t r2_hits[];             /* oldest first */
} PRFRET2;

typedef struct __attribute__((packed)) {
	uint32_t r3_size;               /* bytes per counter: 2^r0_shift */
	uint32_t r3_ncnts;
	uint32_t r3_cnts[];             /* from the slot's start rounded down to r3_size */
} PRFRET3;

_Static_assert(sizeof(PRFSLOT) == 12, "PRFSLOT is 12 bytes");
_Static_assert(sizeof(PRFRET0) == 47, "PRFRET0 is 47 bytes");
_Static_assert(sizeof(PRFVA) == 20, "PRFVA is 20 bytes");
_Static_assert(sizeof(PRFRET1) == 1, "PRFRET1 is 1 byte and the slots");
_Static_assert(sizeof(PRFRET2) == 4 && sizeof(PRFRET3) == 8, "PRFRET2/3 headers");

/* The call's structures hold user pointers, so they exist only for the
 * i386 guest; the host tool reads the results alone. */
#if defined(__i386__)
typedef struct __attribute__((packed)) {
	PRFSLOT *cm_slots;
	uint16_t cm_nslots;
	uint16_t cm_flags;
	uint32_t cm_bufsz;
	uint16_t cm_timval;
	uint8_t *cm_flgbits;
	uint8_t cm_nflgs;
} PRFCMD;

typedef struct __attribute__((packed)) {
	uint8_t us_cmd;
	uint16_t us_thrdno;
	uint32_t us_vaddr;
	uint32_t us_bufsz;              /* in: room; out: bytes written or needed */
	void *us_buf;
} PRFRET;

_Static_assert(sizeof(PRFCMD) == 19, "PRFCMD is 19 bytes");
_Static_assert(sizeof(PRFRET) == 15, "PRFRET is 15 bytes");
#endif

/* The raw dump (/tmp/prof/dosprof.PID) is a common dump (abi/dump.h,
 * engine DUMP_ENGINE_DOSPROF) with one module: the program profiled (its
 * path) or DPDUMP_KERNEL, its build-id, load 0 (both are linked where they
 * run). rate_mhz is the mean sampling rate: the clock's, divided by the
 * flgbits divider when there is one. The payload is a struct dpdump, then
 * nrecords records, each a struct dpdump_rec and the bytes one PRF_CM_DUMP
 * returned. All numbers little-endian. */
#define DPDUMP_KERNEL   DUMP_PATH_KERNEL

struct __attribute__((packed)) dpdump {
	uint32_t pid;                   /* 0: the kernel */
	uint32_t nrecords;
	uint32_t text_start, text_end;  /* the module's text (0, 0: unknown) */
};

struct __attribute__((packed)) dpdump_rec {
	uint32_t us_cmd;                /* PRF_RET_* */
	uint32_t us_vaddr;
	uint32_t len;                   /* bytes that follow */
};

_Static_assert(sizeof(struct dpdump) == 16, "dpdump: a multiple of 8, as abi/dump.h asks");
_Static_assert(sizeof(struct dpdump_rec) == 12, "dpdump_rec");

#endif
