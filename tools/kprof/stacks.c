/* stacks.c: the repair of sampled stacks at a function's edges. A
 * frame-pointer walk loses the leaf's caller when the tick fell before the
 * leaf's frame was set up (at its first instruction, `push ebp`, or its
 * second, `mov ebp, esp`) or after it was torn down (at its `ret`): the
 * frame pointer is still, or again, the caller's, so the walk starts at
 * the caller's caller. The kernel kept the words at the leaf's stack
 * pointer; Capstone says which instruction the leaf is at, and so which
 * word is the lost return address: [esp] at the first instruction and at
 * `ret`, [esp+4] after the push. Each stack ends up exact, repaired or
 * truncated, and the report says how many of each. */
#include <stdlib.h>
#include <string.h>
#include <capstone.h>

#include "kprof.h"

/* the frame-pointer state at an instruction: set up (none to repair), at
 * the function's entry, after its push of ebp, or torn down before ret */
enum { EDGE_NONE, EDGE_ENTRY, EDGE_PUSHED, EDGE_RET };

/* Where in its function's frame set-up the instruction at addr is: the
 * function's instructions are decoded from its start to addr, and the
 * frame-pointer state followed: `push ebp` at the start, then `mov ebp,
 * esp`, sets it up; `pop ebp` or `leave` tears it down (the compiler may
 * put more instructions between that and the `ret`); after a `ret`, the
 * code that follows is reached from the body, with the frame set up. */
static int edge(csh cs, cs_insn *insn, const struct kelf *ke, uint64_t addr)
{
	const struct krange *r = kelf_range(ke, addr, NULL);
	const unsigned char *code;
	size_t avail;
	uint64_t a, start;
	int state = EDGE_ENTRY;

	if (!r)
		return EDGE_NONE;
	start = a = ke->syms[r->sym].value;
	if (!(code = kelf_bytes(ke, a, &avail)))
		return EDGE_NONE;
	while (a < addr) {
		uint64_t at = a;
		if (!cs_disasm_iter(cs, &code, &avail, &a, insn))
			return EDGE_NONE;
		if (insn->id == X86_INS_PUSH && !strcmp(insn->op_str, "ebp") && at == start)
			state = EDGE_PUSHED;
		else if (insn->id == X86_INS_MOV && !strcmp(insn->op_str, "ebp, esp") && state == EDGE_PUSHED)
			state = EDGE_NONE;
		else if ((insn->id == X86_INS_POP && !strcmp(insn->op_str, "ebp")) || insn->id == X86_INS_LEAVE)
			state = EDGE_RET;
		else if (insn->id == X86_INS_RET)
			state = EDGE_NONE;
		else if (state == EDGE_ENTRY)
			return EDGE_NONE;       /* no frame set up at all: nothing to say */
	}
	return a == addr ? state : EDGE_NONE;
}

/* the edge state of each leaf address, found once: a profile's stacks
 * share their leaves, and finding one decodes the function up to it */
static int edge_cached(struct kvmap *cache, csh cs, cs_insn *insn, const struct kelf *ke, uint32_t mod,
		       uint64_t addr)
{
	int made;
	uintptr_t *v = kvmap_slot(cache, addr, mod, &made);

	if (made)
		*v = (uintptr_t)edge(cs, insn, ke, addr);
	return (int)*v;
}

void stacks_repair(struct symbolizer *sy, struct sampleset *ss)
{
	struct kvmap cache = { 0 };
	struct frame *out;
	size_t nf = 0;
	uint64_t exact = 0, repaired = 0, truncated = 0;
	csh cs;
	cs_insn *insn;

	if (!ss->stacks || cs_open(CS_ARCH_X86, CS_MODE_32, &cs) != CS_ERR_OK)
		return;
	insn = cs_malloc(cs);
	out = kp_calloc(ss->nframes + ss->nstacks + 1, sizeof *out);
	for (size_t i = 0; i < ss->nstacks; i++) {
		struct stack *st = &ss->stacks[i];
		const struct frame *f = ss->frames + st->first;
		uint32_t n = st->n, caller = 0;

		if (n == 0) {                   /* the idle loop */
			st->first = nf;
			exact += st->weight;
			continue;
		}
		if (f[0].mod < sy->nof && sy->of[f[0].mod] >= 0 && insn) {
			const struct kelf *ke = &sy->elfs[sy->of[f[0].mod]];
			switch (edge_cached(&cache, cs, insn, ke, f[0].mod, f[0].addr)) {
			case EDGE_ENTRY: case EDGE_RET: caller = st->ret; break;
			case EDGE_PUSHED: caller = st->ret1; break;
			}
			/* a return address in the same module's code, and not the
			 * frame the walk found anyway */
			if (caller && (caller < ke->text_lo || caller >= ke->text_hi ||
				       (n > 1 && f[1].addr == caller && f[1].mod == f[0].mod)))
				caller = 0;
		}
		memcpy(out + nf, f, sizeof *f);
		if (caller)
			out[nf + 1] = (struct frame){ f[0].mod, caller };
		if (n > 1)
			memcpy(out + nf + 1 + !!caller, f + 1, (n - 1) * sizeof *f);
		st->first = nf;
		if (caller) {
			st->n++;
			st->flags |= STACK_REPAIRED;
			repaired += st->weight;
		} else if (st->flags & (STK_KTRUNC | STK_UTRUNC)) {
			truncated += st->weight;
		} else {
			exact += st->weight;
		}
		nf += st->n;
	}
	free(ss->frames);
	ss->frames = out;
	ss->nframes = nf;
	snprintf(ss->note + strlen(ss->note), sizeof ss->note - strlen(ss->note),
		 "%sstacks: %ju exact, %ju repaired (a tick at a function's edge), %ju truncated",
		 ss->note[0] ? "; " : "", (uintmax_t)exact, (uintmax_t)repaired, (uintmax_t)truncated);
	kvmap_free(&cache);
	cs_free(insn, 1);
	cs_close(&cs);
}
