/* stacks.c: the repair of sampled stacks at a function's edges. A
 * frame-pointer walk loses the leaf's caller whenever the leaf's own
 * frame is not set up at the tick: before its `push ebp; mov ebp, esp`,
 * after its `leave`, or anywhere in a function that never sets one up
 * (assembly, code built without frame pointers). The frame pointer is
 * then still the caller's, so the walk starts at the caller's caller. The
 * kernel kept the two words at the leaf's stack pointer; Capstone follows
 * the leaf's code from its start to the tick's PC and says how deep the
 * stack is there: 0 bytes above the return address, and the caller is
 * [esp]; 4, and it is [esp+4]; anything else, or code it cannot follow,
 * and the caller is lost: the stack is marked truncated, never given a
 * wrong frame. Each stack ends up exact, repaired or truncated, and the
 * report says how many of each. */
#include <stdlib.h>
#include <string.h>
#include <capstone.h>

#include "kprof.h"

/* what the walk missed at an instruction: nothing (the function's frame
 * is set up, or it is the program's entry, which has no caller), the
 * caller whose return address is at [esp] or at [esp+4], or a caller
 * that cannot be found from the two words */
enum { EDGE_NONE, EDGE_AT0, EDGE_AT4, EDGE_LOST };

/* The stack at an instruction, as the function's code from its start
 * leaves it: whether its frame is set up, and how many bytes it has
 * pushed above the return address (when that is known). */
struct sp_state {
	enum { S_UNKNOWN, S_NOFRAME, S_FRAME } st;
	int dk;                 /* depth known */
	int64_t depth;          /* bytes below the return address */
	int fk;                 /* fpdepth known */
	int64_t fpdepth;        /* the depth ebp points at (after its push) */
};

/* a depth no function's frame has: the code is not followed (and the
 * sums of any bytes stay far from overflowing) */
#define DEPTH_MAX (1 << 24)

#define MAXTARGETS 64

static int imm_of(const char *s, int64_t *v)
{
	char *end;
	long long x = strtoll(s, &end, 0);

	if (end == s || *end)
		return 0;
	*v = (int32_t)(uint32_t)x;     /* an immediate is 32 bits, sign-extended */
	return 1;
}

/* lea esp, [REG +/- IMM] */
static int lea_esp(const char *op, char *reg, int64_t *disp)
{
	char sign = '+', num[32] = "0";

	if (sscanf(op, "esp, [%3[a-z]%*[ ]%c%*[ ]%31[0-9a-fx]]", reg, &sign, num) < 1 &&
	    sscanf(op, "esp, [%3[a-z]]", reg) != 1)
		return 0;
	if (!imm_of(num, disp))
		return 0;
	if (sign == '-')
		*disp = -*disp;
	return 1;
}

/* The state at an instruction after an exit (a ret, a jmp): a forward
 * jump's to it, or else the frame's when the function set one up */
static void resume(struct sp_state *s, uint64_t at, const uint64_t *tgt, const struct sp_state *tst,
		   size_t nt, const struct sp_state *frame)
{
	for (size_t k = 0; k < nt && s->st == S_UNKNOWN; k++)
		if (tgt[k] == at)
			*s = tst[k];
	if (s->st == S_UNKNOWN && frame)
		*s = *frame;
}

/* Follows the function's instructions from its start to addr, linearly;
 * the state at addr. A forward jump's target is given the state at the
 * jump, which the code after an unconditional jump or a `ret` (reached
 * only by jumps) takes up when it gets there; with none it is unknown,
 * but for a function that set its frame up, whose code after a `ret`
 * is its body (the compiler's usual layout). */
static void follow(csh cs, cs_insn *insn, const unsigned char *code, size_t avail, uint64_t a,
		   uint64_t addr, struct sp_state *s, int *misaligned)
{
	uint64_t tgt[MAXTARGETS];
	struct sp_state tst[MAXTARGETS], framest = { S_UNKNOWN, 0, 0, 0, 0 };
	size_t nt = 0;
	int framed = 0;         /* it set a frame up before: framest is that frame */

	*s = (struct sp_state){ S_NOFRAME, 1, 0, 0, 0 };
	*misaligned = 0;
	while (a < addr) {
		uint64_t at = a;
		const char *op;
		unsigned id;
		int64_t v;
		char reg[4];

		if (!cs_disasm_iter(cs, &code, &avail, &a, insn)) {
			s->st = S_UNKNOWN;
			return;
		}
		resume(s, at, tgt, tst, nt, framed ? &framest : NULL);
		op = insn->op_str;
		id = insn->id;
		if (s->st == S_UNKNOWN && !(id == X86_INS_MOV && !strcmp(op, "ebp, esp")))
			continue;
		if ((id >= X86_INS_JAE && id <= X86_INS_JS) || (id >= X86_INS_LOOP && id <= X86_INS_LOOPNE)) {
			if (imm_of(op, &v) && (uint32_t)v > at && nt < MAXTARGETS) {
				tgt[nt] = (uint32_t)v;
				tst[nt++] = *s;
			}
			if (id == X86_INS_JMP)
				s->st = S_UNKNOWN;      /* what follows is reached by jumps */
			continue;
		}
		switch (id) {
		case X86_INS_PUSH:
			if (!strncmp(op, "word", 4))
				s->dk = 0;
			s->depth += 4;
			break;
		case X86_INS_PUSHFD: s->depth += 4; break;
		case X86_INS_PUSHAL: s->depth += 32; break;
		case X86_INS_POPFD: s->depth -= 4; break;
		case X86_INS_POPAL: s->depth -= 32; break;
		case X86_INS_POP:
			s->depth -= 4;
			/* the saved frame pointer back (a framed function's code
			 * does not use ebp otherwise): the frame is torn down */
			if (!strcmp(op, "ebp") && s->st == S_FRAME && (!s->dk || !s->fk || s->depth + 4 == s->fpdepth))
				*s = (struct sp_state){ S_NOFRAME, s->fk || s->dk,
							s->fk ? s->fpdepth - 4 : s->depth, 0, 0 };
			else if (strstr(op, "esp"))
				s->dk = 0;
			break;
		case X86_INS_LEAVE:
			*s = (struct sp_state){ s->st == S_FRAME ? S_NOFRAME : S_UNKNOWN, s->fk, s->fpdepth - 4, 0, 0 };
			break;
		case X86_INS_ENTER:
			*s = (struct sp_state){ S_FRAME, 0, 0, s->dk, s->depth + 4 };
			framest = *s;
			framed = 1;
			break;
		case X86_INS_RET:
			s->st = S_UNKNOWN;
			break;
		default:
			if (id == X86_INS_MOV && !strcmp(op, "ebp, esp")) {
				int k = s->st != S_UNKNOWN && s->dk;

				*s = (struct sp_state){ S_FRAME, k, s->depth, k, s->depth };
				framest = (struct sp_state){ S_FRAME, 0, 0, k, s->depth };
				framed = 1;
			} else if (id == X86_INS_MOV && !strcmp(op, "esp, ebp") && s->st == S_FRAME) {
				s->dk = s->fk;
				s->depth = s->fpdepth;
			} else if ((id == X86_INS_SUB || id == X86_INS_ADD) && !strncmp(op, "esp, ", 5) &&
				   imm_of(op + 5, &v)) {
				s->depth += id == X86_INS_SUB ? v : -v;
			} else if (id == X86_INS_LEA && lea_esp(op, reg, &v) && !strcmp(reg, "esp")) {
				s->depth -= v;
			} else if (id == X86_INS_LEA && lea_esp(op, reg, &v) && !strcmp(reg, "ebp") &&
				   s->st == S_FRAME) {
				s->dk = s->fk;
				s->depth = s->fpdepth - v;
			} else if (!strncmp(op, "esp,", 4) && id != X86_INS_CMP && id != X86_INS_TEST) {
				s->dk = 0;      /* esp written some other way: and, mov, xchg */
			}
		}
		if (s->depth > DEPTH_MAX || s->depth < -DEPTH_MAX || s->fpdepth > DEPTH_MAX ||
		    s->fpdepth < -DEPTH_MAX) {
			s->st = S_UNKNOWN;
			framed = 0;
		}
	}
	resume(s, a, tgt, tst, nt, framed ? &framest : NULL);
	*misaligned = a != addr;
}

/* the program's entry (crt0's _start) has no caller to lose */
static int is_entry(const struct kelf *ke, const struct krange *r)
{
	GElf_Ehdr eh;
	const struct krange *e;

	if (!ke->elf || !gelf_getehdr(ke->elf, &eh) || !eh.e_entry)
		return 0;
	e = kelf_range(ke, eh.e_entry + ke->load, NULL);
	return e && e->sym == r->sym;
}

/* What the walk missed at the instruction at addr (see the enum) */
static int edge(csh cs, cs_insn *insn, const struct kelf *ke, uint64_t addr)
{
	const struct krange *r = kelf_range(ke, addr, NULL);
	const unsigned char *code;
	size_t avail;
	uint64_t start;
	struct sp_state s;
	int misaligned;

	if (!r)
		return EDGE_NONE;       /* code of no function: nothing to follow */
	start = ke->syms[r->sym].value;
	if (!(code = kelf_bytes(ke, start, &avail)))
		return EDGE_NONE;
	follow(cs, insn, code, avail, start, addr, &s, &misaligned);
	if (s.st == S_FRAME)
		return EDGE_NONE;
	if (is_entry(ke, r))
		return EDGE_NONE;
	if (misaligned || s.st == S_UNKNOWN || !s.dk)
		return EDGE_LOST;
	return s.depth == 0 ? EDGE_AT0 : s.depth == 4 ? EDGE_AT4 : EDGE_LOST;
}

/* Whether addr is a return address: a call instruction ends there (the
 * direct call's 5 bytes, or an indirect call's 2 to 7). A word of the
 * stack that is not one is not a caller. */
static int after_call(csh cs, cs_insn *insn, const struct kelf *ke, uint64_t addr)
{
	static const int len[] = { 5, 2, 3, 6, 7, 4 };

	for (size_t i = 0; i < sizeof len / sizeof len[0]; i++) {
		const unsigned char *code;
		size_t avail;
		uint64_t a = addr - len[i];

		if (addr < (uint64_t)len[i] || !(code = kelf_bytes(ke, a, &avail)) || avail < (size_t)len[i])
			continue;
		if (cs_disasm_iter(cs, &code, &avail, &a, insn) && insn->id == X86_INS_CALL && a == addr)
			return 1;
	}
	return 0;
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

/* whether the word at a leaf's stack pointer is its caller, found once
 * for each word: a return address in the module's code, after a call */
static int after_call_cached(struct kvmap *cache, csh cs, cs_insn *insn, const struct kelf *ke,
			     uint32_t mod, uint64_t addr)
{
	int made;
	uintptr_t *v = kvmap_slot(cache, addr, mod, &made);

	if (made)
		*v = addr >= ke->text_lo && addr < ke->text_hi && after_call(cs, insn, ke, addr);
	return (int)*v;
}

static const struct kelf *elf_of(const struct symbolizer *sy, uint32_t mod)
{
	return mod < sy->nof && sy->of[mod] >= 0 ? &sy->elfs[sy->of[mod]] : NULL;
}

void stacks_repair(struct symbolizer *sy, struct sampleset *ss)
{
	struct kvmap cache = { 0 }, calls = { 0 };
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
		const struct kelf *ke = insn ? elf_of(sy, f[0].mod) : NULL;
		uint32_t n = st->n, caller = 0, u;
		int lost = 0;

		if (n == 0) {                   /* the idle loop */
			st->first = nf;
			exact += st->weight;
			continue;
		}
		/* user frames the kernel found through the program's unwind
		 * table are exact at every instruction: nothing to repair; nor
		 * is a kernel leaf right above the user's frames (a tick in the
		 * trap's entry or exit stub): it has no kernel caller to lose */
		if (ke && !(f[0].mod != 0 && (st->flags & STK_UNWOUND)) &&
		    !(f[0].mod == 0 && (n == 1 || f[1].mod != 0))) {
			switch (edge_cached(&cache, cs, insn, ke, f[0].mod, f[0].addr)) {
			case EDGE_AT0: caller = st->ret; break;
			case EDGE_AT4: caller = st->ret1; break;
			case EDGE_LOST: lost = 1; break;
			}
			if (caller && !after_call_cached(&calls, cs, insn, ke, f[0].mod, caller)) {
				caller = 0;     /* not a return address: no caller to give */
				lost = 1;
			} else if (caller && n > 1 && f[1].addr == caller && f[1].mod == f[0].mod) {
				caller = 0;     /* the frame the walk found anyway */
			} else if (caller && edge_cached(&cache, cs, insn, ke, f[0].mod, caller) != EDGE_NONE) {
				lost = 1;       /* the caller had no frame either: its own caller is lost */
			}
		}
		/* a kernel stack's user part starts where the trap interrupted the
		 * user's code: if its function had no frame set up there, the
		 * user walk lost that function's caller, and no words can say it */
		for (u = 0; u < n && f[u].mod == 0; u++)
			;
		if (u > 0 && u < n && insn && !(st->flags & STK_UNWOUND) && elf_of(sy, f[u].mod) &&
		    edge_cached(&cache, cs, insn, elf_of(sy, f[u].mod), f[u].mod, f[u].addr) != EDGE_NONE)
			lost = 1;
		memcpy(out + nf, f, sizeof *f);
		if (caller)
			out[nf + 1] = (struct frame){ f[0].mod, caller };
		if (n > 1)
			memcpy(out + nf + 1 + !!caller, f + 1, (n - 1) * sizeof *f);
		st->first = nf;
		if (caller) {
			st->n++;
			st->flags |= STACK_REPAIRED;
		}
		if (lost)
			st->flags |= STACK_LOST;
		if (st->flags & STACK_TRUNCATED)
			truncated += st->weight;
		else if (caller)
			repaired += st->weight;
		else
			exact += st->weight;
		nf += st->n;
	}
	free(ss->frames);
	ss->frames = out;
	ss->nframes = nf;
	snprintf(ss->note + strlen(ss->note), sizeof ss->note - strlen(ss->note),
		 "%sstacks: %ju exact, %ju repaired (a caller put back), %ju truncated",
		 ss->note[0] ? "; " : "", (uintmax_t)exact, (uintmax_t)repaired, (uintmax_t)truncated);
	kvmap_free(&cache);
	kvmap_free(&calls);
	cs_free(insn, 1);
	cs_close(&cs);
}
