/* Unwind tables: for every address of a program's code, where its
 * caller's frame is, so that a stack can be walked through code built
 * without frame pointers. They are made from the program's .eh_frame, the
 * DWARF call-frame information (CFI) gcc writes for every function, by
 * kernel/prof/unwind_build.c: the kernel makes one at a program's spawn
 * while the stack engine wants them, and the host tool makes the same one
 * to show it (kprof unwind) and to fuzz the builder.
 *
 * The CFI is a small program per function (an FDE) that a DWARF unwinder
 * runs up to the address it unwinds from. A profiler's tick cannot run
 * programs, so the builder runs them all once, in advance, and keeps only
 * what a walk needs at each address, as Linux's ORC unwinder and the
 * OpenTelemetry eBPF profiler do:
 *
 *   CFA       the canonical frame address: the caller's stack pointer
 *             (the address just above the return address), as esp or ebp
 *             plus an offset
 *   ra        the return address, at CFA - 4 (the i386 call pushes it)
 *   ebp       where the caller's ebp was saved, CFA - 4k; or not saved:
 *             ebp still holds it
 *
 * A row says the rule from its address up to the next row's. The rows are
 * sorted, and found through a two-level index: the code is cut into blocks
 * of 1 << shift bytes, the first row that starts in each block is
 * coarse[] (one a 64 KiB window of code) plus fine[] (one a block, 16
 * bits, since a window holds fewer than 65536 rows), and a short scan of
 * the block's rows finds the last one at or before the address. A row
 * keeps only the low 16 bits of its offset from lo: a block never
 * straddles a 64 KiB window (counting from lo), so within one block those
 * bits compare rightly. The
 * rules are few (a few hundred in a program of thousands of functions),
 * so a row names its rule by a 16-bit index: a row is 4 bytes. A table is
 * smaller than the .eh_frame it was made from. */
#ifndef UNWTAB_H
#define UNWTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* how a rule finds the CFA */
enum {
	UNW_NONE,       /* no CFI here: the frame pointer (rule 0 is always this) */
	UNW_ESP,        /* CFA = esp + off */
	UNW_EBP,        /* CFA = ebp + off */
	UNW_END,        /* the return address is undefined: the outermost frame */
	UNW_BAD,        /* CFI this table does not keep (an expression, a register
	                 * rule, a CFA in another register): the walk stops here */
	UNW_DEREF,      /* CFA = *(ebp + (int32_t)off), the caller's ebp at
	                 * ebp + 4 * ebp: gcc's main() on i386, which realigns
	                 * its stack and keeps the old stack pointer's address
	                 * in its frame (the "DRAP") */
};

struct unw_rule {               /* 8 bytes */
	uint8_t how;            /* UNW_* */
	int8_t ebp;             /* the caller's ebp is at CFA + 4 * ebp (< 0); 0: in ebp
	                         * (UNW_DEREF: at ebp + 4 * ebp) */
	uint16_t unused;
	uint32_t off;           /* the CFA's offset from esp or ebp (a frame may be
	                         * larger than 64 KiB: glibc has some) */
};

struct unw_row {                /* 4 bytes */
	uint16_t off;           /* (the row's first address - lo) & 0xFFFF */
	uint16_t rule;          /* its rule: an index into rule[] */
};

/* A walk meets the same return addresses tick after tick (a hot loop's
 * callers): it keeps the last rules it looked up, by address, so that
 * most frames cost a load and a compare instead of a search. */
#define UNW_CACHE 64
struct unw_cached {             /* 16 bytes: an index is a shift */
	uint32_t key;           /* the address looked up; ~0 (no code there): empty */
	struct unw_rule rule;
	uint32_t unused;
};

/* A table, in one allocation of `bytes` bytes from the struct on. */
struct unw_table {
	struct unw_cached cache[UNW_CACHE];     /* the walk's; the builder zeroes it */
	uint32_t lo, span;      /* covers [lo, lo + span); outside it, rule 0 */
	uint32_t shift;         /* a block is 1 << shift bytes: 16 at most */
	uint32_t nrows, nrules, nblocks;
	uint32_t wshift;        /* 16 - shift: a block's window is k >> wshift */
	const uint32_t *coarse; /* (nblocks >> wshift) + 2 entries */
	const uint16_t *fine;   /* nblocks + 1 entries */
	const struct unw_row *row;
	const struct unw_rule *rule;
	uint32_t bytes;
};

/* the first row that starts in block k (or after it, if none does) */
static inline uint32_t unw_block(const struct unw_table *t, uint32_t k)
{
	return t->coarse[k >> t->wshift] + t->fine[k];
}

/* The rule at pc: the index of the row's, or 0 (no CFI: frame pointer).
 * The rows that start in pc's block are [i, e); the last of them at or
 * before pc is found by halving (a block holds a few to a dozen rows);
 * if none is, the row before them, which started in an earlier block,
 * covers pc (block 0 starts at lo, where row 0 does, so i - 1 is never
 * -1 there). */
static inline uint32_t unw_find(const struct unw_table *t, uint32_t pc)
{
	uint32_t d = pc - t->lo, k, i, n, key;

	if (d >= t->span)
		return 0;
	k = d >> t->shift;
	i = unw_block(t, k) - 1;
	n = unw_block(t, k + 1) - i;    /* row i and the block's */
	key = d & 0xFFFF;
	/* row i covers pc; of the n rows from i, the last that starts at
	 * or before pc: each turn halves the rows in question */
	while (n > 1) {
		uint32_t half = n / 2;

		if (t->row[i + half].off <= key)
			i += half;
		n -= half;
	}
	return t->row[i].rule;
}

/* The rule at pc, through the cache: what a walk calls (a hot loop's
 * few instructions are leaves tick after tick too) */
static inline struct unw_rule unw_lookup(struct unw_table *t, uint32_t pc)
{
	struct unw_cached *c = &t->cache[(pc ^ pc >> 6) % UNW_CACHE];

	if (__builtin_expect(c->key != pc, 0)) {
		c->rule = t->rule[unw_find(t, pc)];
		c->key = pc;
	}
	return c->rule;
}

/* What the builder asks of its caller: memory (returned zeroed or not:
 * the builder fills what it uses) and a sort. The kernel passes its page
 * allocator and ksort, the host malloc and qsort. */
struct unw_env {
	void *(*alloc)(void *ctx, uint32_t bytes);
	void (*free)(void *ctx, void *p, uint32_t bytes);
	void (*sort)(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
	void *ctx;
};

/* What the builder met, for a report line and the tests */
struct unw_stats {
	uint32_t fdes;          /* FDEs in the section */
	uint32_t skipped;       /* left out: empty, or overlapping an earlier one */
	uint32_t bad;           /* FDEs with CFI the table does not keep (UNW_BAD rows) */
	uint32_t max_rules;     /* the distinct rules a table may have */
};

/* errors, returned negative */
enum {
	UNW_OK,
	UNW_ETRUNC,             /* an entry runs past the section */
	UNW_E64,                /* 64-bit DWARF: not in an i386 program */
	UNW_ECIE,               /* an FDE's CIE is not a CIE, or not one we read */
	UNW_EENC,               /* a pointer encoding not handled */
	UNW_ENOFDE,             /* nothing to unwind: no FDE with code */
	UNW_ERULES,             /* more distinct rules than a table holds */
	UNW_ENOMEM,
	UNW_NERR
};

/* Builds the table of the .eh_frame section sec[0..len), loaded at addr
 * (what its pc-relative pointers are relative to). 0 and *out, or a
 * negative UNW_E*; *st is filled either way. Every read is bounds-checked
 * and every loop bounded by the section's size, so any bytes give a
 * table or an error, never a fault or a hang. */
int unw_build(const uint8_t *sec, uint32_t len, uint32_t addr, const struct unw_env *env,
	      struct unw_table **out, struct unw_stats *st);
/* gives back a table's memory */
void unw_free(struct unw_table *t, const struct unw_env *env);
const char *unw_strerror(int err);

/* The rows of [from, to): calls f for each with its first and last+1
 * address, for a reader (kprof unwind). */
void unw_rows(const struct unw_table *t, uint32_t from, uint32_t to,
	      void (*f)(void *arg, uint32_t start, uint32_t end, const struct unw_rule *r), void *arg);

#endif
