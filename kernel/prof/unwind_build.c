/* The unwind-table builder (include/unwtab.h): reads a program's
 * .eh_frame and runs each function's CFI program once, keeping at every
 * address the rule a walk needs. The same file is compiled into the
 * kernel, which builds a table at a program's spawn, and into the host
 * tool, which shows tables and fuzzes this code; so it uses nothing but
 * the compiler's freestanding headers and what its caller passes in.
 *
 * The section is a list of entries, each a length and an id: a CIE
 * (id 0) holds what its FDEs share (the code and data alignment factors,
 * the return address's column, how the FDEs' addresses are encoded, and
 * the CFI every function starts from); an FDE (id: the distance back to
 * its CIE) holds a function's address range and its own CFI. The DWARF 4
 * standard, section 6.4, and the LSB's description of .eh_frame define
 * them.
 *
 * CFI kept (the rest makes the rule UNW_BAD from where it appears):
 *   advance_loc, advance_loc1/2/4, set_loc      moving on
 *   def_cfa, def_cfa_sf, def_cfa_register,
 *   def_cfa_offset, def_cfa_offset_sf            CFA = esp or ebp + offset
 *   offset, offset_extended, offset_extended_sf,
 *   GNU_negative_offset_extended                 ebp or ra saved at CFA + n
 *   restore, restore_extended, same_value,
 *   undefined, remember_state, restore_state,
 *   nop, GNU_args_size                           as DWARF says
 * Not kept: def_cfa_expression, expression and val_expression, register
 * and val_offset, for ebp, the return address or the CFA; rules for the
 * other registers are read and ignored, since a walk needs only these. */
#include "unwtab.h"

#define DW_EH_PE_omit    0xFF
#define DW_EH_PE_absptr  0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2  0x02
#define DW_EH_PE_udata4  0x03
#define DW_EH_PE_udata8  0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2  0x0A
#define DW_EH_PE_sdata4  0x0B
#define DW_EH_PE_sdata8  0x0C
#define DW_EH_PE_pcrel   0x10
#define DW_EH_PE_indirect 0x80

/* i386's DWARF register numbers */
#define REG_ESP 4
#define REG_EBP 5

#define MAXRULES  2048          /* distinct rules a table may hold */
#define HASHSLOTS 4096          /* twice that: probes stay short */
#define MAXSTATE  8             /* remember_state's depth */

/* A cursor over the section: reads past end set bad and give 0. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static inline __attribute__((always_inline)) uint32_t u8(struct rd *r)
{
	if (r->p >= r->end) {
		r->bad = true;
		return 0;
	}
	return *r->p++;
}

static inline __attribute__((always_inline)) uint32_t un(struct rd *r, int n)         /* n bytes, little-endian */
{
	uint32_t v = 0;

	if (r->end - r->p < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (i < 4 ? (uint32_t)r->p[i] << 8 * i : 0);
	r->p += n;
	return v;
}

static inline __attribute__((always_inline)) uint32_t uleb(struct rd *r)
{
	uint32_t v = 0, shift = 0, b;

	do {
		b = u8(r);
		if (shift < 32)
			v |= (b & 0x7F) << shift;
		shift += 7;
	} while ((b & 0x80) && !r->bad);
	return v;
}

static inline __attribute__((always_inline)) int32_t sleb(struct rd *r)
{
	uint32_t v = 0, shift = 0, b;

	do {
		b = u8(r);
		if (shift < 32)
			v |= (b & 0x7F) << shift;
		shift += 7;
	} while ((b & 0x80) && !r->bad);
	if (shift < 32 && (b & 0x40))
		v |= ~0u << shift;
	return (int32_t)v;
}

/* n * f, a factored offset, without signed overflow on hostile bytes */
static inline __attribute__((always_inline)) int32_t factor(uint32_t n, int32_t f)
{
	return (int32_t)(n * (uint32_t)f);
}

static inline __attribute__((always_inline)) void skip(struct rd *r, uint32_t n)
{
	if ((uint32_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* A pointer in encoding enc, at r (the section's first byte is at
 * address addr, sec its first byte in memory). Only what an i386
 * program uses: absolute or pc-relative, of any size. */
static uint32_t pointer(struct rd *r, uint8_t enc, const uint8_t *sec, uint32_t addr, bool *ok)
{
	uint32_t at = addr + (uint32_t)(r->p - sec), v;

	switch (enc & 0x0F) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata4: case DW_EH_PE_sdata4: v = un(r, 4); break;
	case DW_EH_PE_udata2: v = un(r, 2); break;
	case DW_EH_PE_sdata2: v = (uint32_t)(int32_t)(int16_t)un(r, 2); break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: v = un(r, 8); break;
	case DW_EH_PE_uleb128: v = uleb(r); break;
	case DW_EH_PE_sleb128: v = (uint32_t)sleb(r); break;
	default: *ok = false; return 0;
	}
	switch (enc & 0x70) {
	case 0: break;
	case DW_EH_PE_pcrel: v += at; break;
	default: *ok = false;   /* textrel, datarel, funcrel: not in .eh_frame of i386 */
	}
	return v;
}

/* A CIE, read for its FDEs */
struct cie {
	uint32_t off;                   /* where it is in the section */
	uint32_t code_align;
	int32_t data_align;
	uint32_t ra;                    /* the return address's column */
	uint8_t enc;                    /* its FDEs' pointers' encoding */
	bool z;                         /* FDEs have augmentation data */
	const uint8_t *insn, *insn_end; /* the initial instructions */
};

/* an entry's bounds: the body after the length word, or false */
static bool entry(const uint8_t *sec, uint32_t len, uint32_t off, const uint8_t **body,
		  const uint8_t **end, int *err)
{
	uint32_t n;

	if (len - off < 4) {
		*err = UNW_ETRUNC;
		return false;
	}
	n = sec[off] | sec[off + 1] << 8 | sec[off + 2] << 16 | (uint32_t)sec[off + 3] << 24;
	if (n == 0xFFFFFFFF) {
		*err = UNW_E64;
		return false;
	}
	if (n > len - off - 4 || n < 4) {
		*err = n == 0 ? UNW_OK : UNW_ETRUNC;    /* 0: the terminator */
		return false;
	}
	*body = sec + off + 4;
	*end = *body + n;
	return true;
}

static int read_cie(const uint8_t *sec, uint32_t len, uint32_t addr, uint32_t off, struct cie *c)
{
	const uint8_t *body, *end;
	const char *aug;
	struct rd r;
	int err = UNW_ECIE;
	uint32_t version;
	bool ok = true;

	if (off >= len || !entry(sec, len, off, &body, &end, &err))
		return UNW_ECIE;
	r = (struct rd){ body, end, false };
	if (un(&r, 4) != 0)
		return UNW_ECIE;                /* not a CIE */
	version = u8(&r);
	if (version != 1 && version != 3 && version != 4)
		return UNW_ECIE;
	aug = (const char *)r.p;
	while (u8(&r) && !r.bad)
		;
	if (r.bad)
		return UNW_ECIE;
	if (version == 4 && (u8(&r) != 4 || u8(&r) != 0))
		return UNW_ECIE;                /* address size 4, no segment */
	c->off = off;
	c->code_align = uleb(&r);
	c->data_align = sleb(&r);
	c->ra = version == 1 ? u8(&r) : uleb(&r);
	c->enc = DW_EH_PE_absptr;
	c->z = aug[0] == 'z';
	if (c->z) {
		uint32_t n = uleb(&r);
		const uint8_t *next = r.p + (n <= (uint32_t)(r.end - r.p) ? n : 0);

		if (n > (uint32_t)(r.end - r.p))
			return UNW_ECIE;
		for (const char *a = aug + 1; *a && r.p < next; a++) {
			if (*a == 'R') {
				c->enc = (uint8_t)u8(&r);
			} else if (*a == 'L') {
				u8(&r);
			} else if (*a == 'P') {
				uint8_t pe = (uint8_t)u8(&r);

				/* only its size matters: read it as absolute */
				if (pe != DW_EH_PE_omit)
					pointer(&r, pe & 0x0F, sec, addr, &ok);
			} else if (*a != 'S') {
				break;          /* unknown: the length lets us skip the rest */
			}
		}
		r.p = next;
	} else if (aug[0]) {
		return UNW_ECIE;                /* eh, or another we cannot skip */
	}
	if (r.bad || !ok || c->code_align == 0)
		return UNW_ECIE;
	c->insn = r.p;
	c->insn_end = end;
	return 0;
}

/* An FDE: its CIE, its range and its instructions */
struct fde {
	uint32_t pc, range;
	const uint8_t *insn, *insn_end;
};

static int read_fde(const uint8_t *sec, uint32_t len, uint32_t addr, uint32_t off, struct cie *c,
		    struct fde *f)
{
	const uint8_t *body, *end;
	struct rd r;
	uint32_t id, cie_off;
	int err = UNW_ETRUNC, e;
	bool ok = true;

	if (!entry(sec, len, off, &body, &end, &err))
		return err ? err : UNW_ETRUNC;
	r = (struct rd){ body, end, false };
	id = un(&r, 4);
	if (id == 0 || id > off + 4)
		return UNW_ECIE;
	cie_off = off + 4 - id;
	if (cie_off != c->off && (e = read_cie(sec, len, addr, cie_off, c)) != 0) {
		c->off = 0xFFFFFFFF;    /* half read: not a CIE to reuse */
		return e;
	}
	f->pc = pointer(&r, c->enc, sec, addr, &ok);
	f->range = pointer(&r, c->enc & 0x0F, sec, addr, &ok);
	if (!ok)
		return UNW_EENC;
	if (c->z)
		skip(&r, uleb(&r));
	if (r.bad)
		return UNW_ETRUNC;
	f->insn = r.p;
	f->insn_end = end;
	return 0;
}

/* ---- running the CFI ---- */

enum { R_SAME, R_UNDEF, R_OFF, R_OTHER, R_ATEBP };     /* R_ATEBP: saved at ebp + off */

struct cfa_state {
	uint32_t reg;                   /* the CFA's register */
	int32_t off;
	bool expr;                      /* the CFA is an expression... */
	bool deref;                     /* ...but this one: *(ebp + off) */
	uint8_t ra, bp;                 /* R_*: the return address, ebp */
	int32_t ra_off, bp_off;
};

/* the rule a state makes */
static inline __attribute__((always_inline)) struct unw_rule rule_of(const struct cfa_state *s)
{
	struct unw_rule r = { .how = UNW_BAD };

	if (s->ra == R_UNDEF) {
		r.how = UNW_END;
		return r;
	}
	if (s->ra != R_OFF || s->ra_off != -4)
		return r;
	if (s->deref) {
		/* gcc's realigning main: the CFA's address and the caller's
		 * ebp both in the frame ebp points to */
		if (s->bp != R_ATEBP || s->bp_off % 4 || s->bp_off < -508 || s->bp_off > 508 ||
		    s->off < -508 || s->off > 508)
			return r;
		r.how = UNW_DEREF;
		r.ebp = (int8_t)(s->bp_off / 4);
		r.off = (uint32_t)s->off;
		return r;
	}
	if (s->expr || (s->reg != REG_ESP && s->reg != REG_EBP) || s->off < 0)
		return r;
	if (s->bp == R_OFF) {
		if (s->bp_off % 4 || s->bp_off >= 0 || s->bp_off < -4 * 127)
			return r;
		r.ebp = (int8_t)(s->bp_off / 4);
	} else if (s->bp == R_OTHER || s->bp == R_ATEBP) {
		return r;
	}
	r.how = s->reg == REG_ESP ? UNW_ESP : UNW_EBP;
	r.off = (uint32_t)s->off;
	return r;
}

static uint32_t rule_hash(struct unw_rule r)
{
	return ((r.how | (uint32_t)(uint8_t)r.ebp << 8) ^ r.off * 0x85EBCA77u) * 0x9E3779B1u >> 20;
}

/* a row as the builder makes it, before the table's packing */
struct trow {
	uint32_t pc, rule;
};

/* The builder's state: the rules so far, and the rows, made in one pass
 * over every FDE's CFI into tmp (grown as needed), then packed into the
 * table, whose size they tell. */
struct build {
	const uint8_t *sec;
	uint32_t len, addr;
	uint8_t *hkey;                  /* the rules' hash: 1 a slot in use */
	uint16_t *hid;
	struct unw_rule *rules;         /* by index, while building */
	uint32_t nrules;
	bool full;                      /* more rules than MAXRULES */
	struct unw_rule memo[2];        /* the last two rules asked for... */
	uint32_t memo_id[2];            /* ...and their indices (~0: none yet) */
	/* the rows: committed, and the one pending (a row may be replaced
	 * by another at the same address, or merge with the one before) */
	const struct unw_env *env;
	struct trow *tmp;               /* the rows as made, full addresses */
	bool nomem;
	struct unw_row *row;
	uint32_t *blk;
	uint32_t nrows, nblk, last_rule;
	uint32_t cap;                   /* tmp's room */
	bool pending;
	uint32_t pend_pc, pend_rule;
	uint32_t bad;
	uint32_t overlaps, end;         /* FDEs left out; the last one's end */
};

static inline __attribute__((always_inline)) uint32_t rule_id(struct build *b, struct unw_rule r)
{
	uint32_t h;

	/* most rows repeat the rule of the one before but one (a push,
	 * then its pop): the last two asked for are kept */
	for (int i = 0; i < 2; i++)
		if (b->memo[i].how == r.how && b->memo[i].ebp == r.ebp && b->memo[i].off == r.off &&
		    b->memo_id[i] != 0xFFFFFFFF) {
			return b->memo_id[i];
		}
	h = rule_hash(r);       /* 12 bits: HASHSLOTS */

	for (;; h = (h + 1) % HASHSLOTS) {
		const struct unw_rule *q;

		if (!b->hkey[h])
			break;
		q = &b->rules[b->hid[h]];
		if (q->how == r.how && q->ebp == r.ebp && q->off == r.off) {
			h = b->hid[h];
			goto found;
		}
	}
	if (b->nrules == MAXRULES) {
		b->full = true;
		return 0;
	}
	b->hkey[h] = 1;
	b->hid[h] = (uint16_t)b->nrules;
	b->rules[b->nrules] = r;
	b->nrules++;
	h = b->hid[h];
found:
	b->memo[1] = b->memo[0];
	b->memo_id[1] = b->memo_id[0];
	b->memo[0] = r;
	b->memo_id[0] = h;
	return h;
}

/* doubles the rows' room; false when there is no more memory */
static bool grow(struct build *b)
{
	uint32_t cap = b->cap ? 2 * b->cap : 1024;
	struct trow *t;

	if (b->nomem || cap > 0x10000000 || !(t = b->env->alloc(b->env->ctx, cap * (uint32_t)sizeof *t))) {
		b->nomem = true;
		return false;
	}
	for (uint32_t i = 0; i < b->nrows; i++)
		t[i] = b->tmp[i];
	if (b->tmp)
		b->env->free(b->env->ctx, b->tmp, b->cap * (uint32_t)sizeof *t);
	b->tmp = t;
	b->cap = cap;
	return true;
}

static inline __attribute__((always_inline)) void commit(struct build *b, uint32_t pc, uint32_t rule)
{
	if (b->nrows && b->last_rule == rule)
		return;                         /* the same rule goes on */
	if (b->nrows == b->cap && !grow(b))
		return;                         /* out of memory: unw_build says so */
	b->tmp[b->nrows++] = (struct trow){ pc, rule };
	b->last_rule = rule;
}

/* the rule from pc on (pc never goes back) */
static inline __attribute__((always_inline)) void emit(struct build *b, uint32_t pc, uint32_t rule)
{
	if (b->pending && pc == b->pend_pc) {
		b->pend_rule = rule;            /* replaced before it covered a byte */
		return;
	}
	if (b->pending)
		commit(b, b->pend_pc, b->pend_rule);
	b->pending = true;
	b->pend_pc = pc;
	b->pend_rule = rule;
}

static void flush(struct build *b)
{
	if (b->pending)
		commit(b, b->pend_pc, b->pend_rule);
	b->pending = false;
}

/* Reads the n bytes of a DWARF expression at r: true if they are exactly
 * DW_OP_breg5 (ebp) N, followed by DW_OP_deref when deref, with N in *off.
 * The bytes are consumed either way. */
static bool breg5(struct rd *r, uint32_t n, bool deref, int32_t *off)
{
	struct rd e;

	if (n > (uint32_t)(r->end - r->p)) {
		skip(r, n);
		return false;
	}
	e = (struct rd){ r->p, r->p + n, false };
	r->p += n;
	if (u8(&e) != 0x75)             /* DW_OP_breg5 */
		return false;
	*off = sleb(&e);
	if (deref && u8(&e) != 0x06)    /* DW_OP_deref */
		return false;
	return !e.bad && e.p == e.end;
}

/* Runs CFI from r on state s, from address *loc up to end; with emit,
 * the rows of [*loc, end) (an FDE's); without, only the state (a CIE's
 * initial instructions). init: the state after the CIE's, for restore.
 * Every instruction reads at least one byte, so it ends. False: CFI not
 * kept, from *loc on. */
static bool run(struct build *b, struct rd *r, const struct cie *c, struct cfa_state *s,
		const struct cfa_state *init, uint32_t *loc, uint32_t end, bool rows)
{
	struct cfa_state stack[MAXSTATE];
	uint32_t depth = 0;

	while (r->p < r->end) {
		uint32_t op = u8(r), reg, adv = 0, n;
		int32_t off;
		bool moved = false;

		switch (op >> 6) {
		case 1: adv = (op & 0x3F) * c->code_align; moved = true; break;
		case 2:
			reg = op & 0x3F;
			off = factor(uleb(r), c->data_align);
			goto saved;
		case 3:
			reg = op & 0x3F;
			goto restore;
		}
		if (op >> 6)
			goto next;
		switch (op) {
		case 0x00: break;                               /* nop */
		case 0x01: {                                    /* set_loc */
			bool ok = true;
			uint32_t to = pointer(r, c->enc, b->sec, b->addr, &ok);

			if (!ok || to < *loc)
				return false;
			adv = to - *loc;
			moved = true;
			break;
		}
		case 0x02: adv = u8(r) * c->code_align; moved = true; break;
		case 0x03: adv = un(r, 2) * c->code_align; moved = true; break;
		case 0x04: adv = un(r, 4) * c->code_align; moved = true; break;
		case 0x05:                                      /* offset_extended */
			reg = uleb(r);
			off = factor(uleb(r), c->data_align);
			goto saved;
		case 0x06: reg = uleb(r); goto restore;         /* restore_extended */
		case 0x07:                                      /* undefined */
			reg = uleb(r);
			if (reg == c->ra)
				s->ra = R_UNDEF;
			else if (reg == REG_EBP)
				s->bp = R_UNDEF;
			break;
		case 0x08:                                      /* same_value */
			reg = uleb(r);
			if (reg == c->ra)
				s->ra = R_OTHER;        /* the return address in a register */
			else if (reg == REG_EBP)
				s->bp = R_SAME;
			break;
		case 0x09:                                      /* register */
		case 0x14:                                      /* val_offset */
		case 0x15:                                      /* val_offset_sf */
			reg = uleb(r);
			if (op == 0x15)
				sleb(r);
			else
				uleb(r);
			goto other;
		case 0x0A:                                      /* remember_state */
			if (depth == MAXSTATE)
				return false;
			stack[depth++] = *s;
			break;
		case 0x0B:                                      /* restore_state */
			if (depth == 0)
				return false;
			*s = stack[--depth];    /* the whole row, CFA too, as gcc's unwinder does */
			break;
		case 0x0C:                                      /* def_cfa */
			s->reg = uleb(r);
			s->off = (int32_t)uleb(r);
			s->expr = s->deref = false;
			break;
		case 0x0D: s->reg = uleb(r); s->expr = s->deref = false; break; /* def_cfa_register */
		case 0x0E:                                      /* def_cfa_offset */
			s->off = (int32_t)uleb(r);
			s->expr |= s->deref;    /* not an offset of a register: not kept */
			s->deref = false;
			break;
		case 0x0F:                                      /* def_cfa_expression */
			n = uleb(r);
			/* DW_OP_breg5 (ebp) N; DW_OP_deref: the realigning main's */
			s->deref = breg5(r, n, true, &off);
			s->expr = !s->deref;
			if (s->deref)
				s->off = off;
			break;
		case 0x10:                                      /* expression */
			reg = uleb(r);
			n = uleb(r);
			/* DW_OP_breg5 (ebp) N: ebp saved at ebp + N (main's) */
			if (breg5(r, n, false, &off) && reg == REG_EBP) {
				s->bp = R_ATEBP;
				s->bp_off = off;
				break;
			}
			goto other;
		case 0x16:                                      /* val_expression */
			reg = uleb(r);
			n = uleb(r);
			skip(r, n);
			goto other;
		case 0x11:                                      /* offset_extended_sf */
			reg = uleb(r);
			off = factor((uint32_t)sleb(r), c->data_align);
			goto saved;
		case 0x12:                                      /* def_cfa_sf */
			s->reg = uleb(r);
			s->off = factor((uint32_t)sleb(r), c->data_align);
			s->expr = false;
			break;
		case 0x13: s->off = factor((uint32_t)sleb(r), c->data_align); break;     /* def_cfa_offset_sf */
		case 0x2E: uleb(r); break;                      /* GNU_args_size */
		case 0x2F:                                      /* GNU_negative_offset_extended */
			reg = uleb(r);
			off = factor(0 - uleb(r), c->data_align);
			goto saved;
		default:
			return false;                   /* unknown: nothing after it can be read */
		}
		goto next;
	saved:
		if (reg == c->ra) {
			s->ra = R_OFF;
			s->ra_off = off;
		} else if (reg == REG_EBP) {
			s->bp = R_OFF;
			s->bp_off = off;
		}
		goto next;
	restore:
		if (!init)
			return false;                   /* restore in a CIE: nothing to go back to */
		if (reg == c->ra) {
			s->ra = init->ra;
			s->ra_off = init->ra_off;
		} else if (reg == REG_EBP) {
			s->bp = init->bp;
			s->bp_off = init->bp_off;
		}
		goto next;
	other:
		if (reg == c->ra)
			s->ra = R_OTHER;
		else if (reg == REG_EBP)
			s->bp = R_OTHER;
		else if (reg == s->reg && !s->expr && !s->deref)
			s->expr = true;         /* the CFA's register moved elsewhere: cannot follow */
	next:
		if (r->bad)
			return false;
		if (moved) {
			if (adv > end - *loc)
				return false;
			if (rows && adv) {
				emit(b, *loc, rule_id(b, rule_of(s)));
				*loc += adv;
			} else {
				*loc += adv;
			}
		}
	}
	return true;
}

/* the rows of one FDE */
static void fde_rows(struct build *b, const struct cie *c, const struct fde *f)
{
	struct cfa_state init = { .reg = 0xFF, .ra = R_SAME, .bp = R_SAME }, s;
	struct rd r = { c->insn, c->insn_end, false };
	uint32_t loc = f->pc, end = f->pc + f->range, cloc = f->pc;
	bool ok = run(b, &r, c, &init, NULL, &cloc, end, false) && cloc == f->pc;

	s = init;
	if (ok) {
		r = (struct rd){ f->insn, f->insn_end, false };
		ok = run(b, &r, c, &s, &init, &loc, end, true);
	}
	if (!ok) {
		static const struct unw_rule bad = { .how = UNW_BAD };

		b->bad++;
		if (loc < end)          /* a row covers at least a byte */
			emit(b, loc, rule_id(b, bad));
		return;
	}
	if (loc < end)
		emit(b, loc, rule_id(b, rule_of(&s)));
}

/* ---- the FDEs, sorted ---- */

struct fdeix {
	uint32_t pc, off;
};

static int by_pc(const void *a, const void *b)
{
	const struct fdeix *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc ? 1 : x->off < y->off ? -1 : x->off > y->off;
}

/* The FDEs with code, in ix (NULL: only count them). */
static int list_fdes(const uint8_t *sec, uint32_t len, uint32_t addr, struct fdeix *ix, uint32_t *n,
		     struct unw_stats *st)
{
	struct cie c = { .off = 0xFFFFFFFF };
	uint32_t off = 0, k = 0, all = 0;
	int err;

	while (off < len) {
		const uint8_t *body, *end;
		uint32_t id;
		struct fde f;

		if (!entry(sec, len, off, &body, &end, &err)) {
			if (err)
				return -err;
			break;                          /* the terminator */
		}
		id = body[0] | body[1] << 8 | body[2] << 16 | (uint32_t)body[3] << 24;
		if (id != 0) {
			all++;
			if ((err = read_fde(sec, len, addr, off, &c, &f)) != 0)
				return -err;
			if (f.range && f.pc + f.range > f.pc) {
				if (ix)
					ix[k] = (struct fdeix){ f.pc, off };
				k++;
			}
		}
		off = (uint32_t)(end - sec);
	}
	*n = k;
	st->fdes = all;
	return 0;
}

static int pass(struct build *b, const struct fdeix *ix, uint32_t n, struct unw_stats *st)
{
	struct cie c = { .off = 0xFFFFFFFF };
	uint32_t prev_end = 0;
	bool any = false;

	b->nrows = 0;
	b->pending = false;
	b->bad = b->overlaps = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct fde f;

		if (read_fde(b->sec, b->len, b->addr, ix[i].off, &c, &f) != 0)
			return -UNW_ECIE;               /* read once already: cannot happen */
		if (any && f.pc < prev_end) {
			b->overlaps++;                  /* overlaps the one before */
			continue;
		}
		if (any && f.pc > prev_end)
			emit(b, prev_end, 0);           /* a gap: no CFI there */
		fde_rows(b, &c, &f);
		prev_end = f.pc + f.range;
		any = true;
	}
	flush(b);
	b->end = prev_end;
	st->skipped = st->fdes - n + b->overlaps;
	st->bad = b->bad;
	return 0;
}

int unw_build(const uint8_t *sec, uint32_t len, uint32_t addr, const struct unw_env *env,
	      struct unw_table **out, struct unw_stats *st)
{
	struct build b = { .sec = sec, .len = len, .addr = addr, .memo_id = { 0xFFFFFFFF, 0xFFFFFFFF } };
	struct fdeix *ix = NULL;
	uint32_t n = 0, nfde = 0, hbytes, span, lo, shift, nblocks, ncoarse, bytes = 0, blkbytes = 0, ixbytes = 0;
	struct unw_table *t;
	void *h = NULL;
	int err;
	uint8_t *m = NULL;

	*out = NULL;
	*st = (struct unw_stats){ .max_rules = MAXRULES };
	if ((err = list_fdes(sec, len, addr, NULL, &nfde, st)) < 0)
		return err;
	if (nfde == 0)
		return -UNW_ENOFDE;
	ixbytes = nfde * (uint32_t)sizeof *ix;
	hbytes = HASHSLOTS * 2 + MAXRULES * (uint32_t)sizeof(struct unw_rule) + HASHSLOTS;
	ix = env->alloc(env->ctx, ixbytes);
	h = env->alloc(env->ctx, hbytes);
	if (!ix || !h) {
		err = -UNW_ENOMEM;
		goto out;
	}
	if ((err = list_fdes(sec, len, addr, ix, &n, st)) < 0)
		goto out;
	env->sort(ix, n, sizeof *ix, by_pc);
	b.rules = h;
	b.hid = (uint16_t *)(b.rules + MAXRULES);
	b.hkey = (uint8_t *)(b.hid + HASHSLOTS);
	for (uint32_t i = 0; i < HASHSLOTS; i++)
		b.hkey[i] = 0;
	rule_id(&b, (struct unw_rule){ .how = UNW_NONE });      /* rule 0 */

	/* the rows, in one pass over the CFI */
	b.env = env;
	if ((err = pass(&b, ix, n, st)) < 0)
		goto out;
	if (b.full || b.nomem || b.nrows == 0) {
		err = b.full ? -UNW_ERULES : b.nomem ? -UNW_ENOMEM : -UNW_ENOFDE;
		goto out;
	}
	lo = ix[0].pc;
	span = b.end - lo;
	/* blocks: about one for every two rows (a lookup scans one or two
	 * rows on the average), as small as that allows, larger while the
	 * table would outgrow the section, and no larger than 64 KiB */
	for (shift = 4;; shift++) {
		nblocks = (span >> shift) + 1;
		ncoarse = (nblocks >> (16 - shift)) + 2;
		bytes = (uint32_t)sizeof *t + 4 * ncoarse + 4 * b.nrows +
			(uint32_t)sizeof(struct unw_rule) * b.nrules + 2 * (nblocks + 1);
		if (shift == 16 || ((span >> shift) <= b.nrows / 2 && bytes <= len))
			break;
	}
	blkbytes = 4 * (nblocks + 1);
	if (!(m = env->alloc(env->ctx, bytes)) || !(b.blk = env->alloc(env->ctx, blkbytes))) {
		err = -UNW_ENOMEM;
		goto out;
	}
	t = (struct unw_table *)m;
	*t = (struct unw_table){ .lo = lo, .span = span, .shift = shift, .wshift = 16 - shift,
				 .nblocks = nblocks, .nrules = b.nrules, .bytes = bytes };
	{
		uint32_t *coarse = (uint32_t *)(m + sizeof *t);
		struct unw_row *row = (struct unw_row *)(coarse + ncoarse);
		struct unw_rule *rule = (struct unw_rule *)(row + b.nrows);

		for (uint32_t i = 0; i < b.nrules; i++)
			rule[i] = b.rules[i];
		t->coarse = coarse;
		t->row = b.row = row;
		t->rule = rule;
		t->fine = (uint16_t *)(rule + b.nrules);
	}

	/* the rows packed, and the first row of each block */
	b.nblk = 0;
	for (uint32_t i = 0; i < b.nrows; i++) {
		uint32_t d = b.tmp[i].pc - lo;

		while (b.nblk <= d >> shift)
			b.blk[b.nblk++] = i;
		b.row[i] = (struct unw_row){ (uint16_t)(d & 0xFFFF), (uint16_t)b.tmp[i].rule };
	}
	while (b.nblk <= nblocks)
		b.blk[b.nblk++] = b.nrows;
	/* the index, in two levels: a window's first row, and each block's
	 * rows before it within its window (a window of 64 KiB of code
	 * starts fewer than 65536 rows) */
	{
		uint32_t *coarse = (uint32_t *)t->coarse;
		uint16_t *fine = (uint16_t *)t->fine;

		for (uint32_t w = 0; w < ncoarse; w++) {
			uint32_t k = w << t->wshift;

			coarse[w] = k <= nblocks ? b.blk[k] : b.nrows;
		}
		for (uint32_t k = 0; k <= nblocks; k++)
			fine[k] = (uint16_t)(b.blk[k] - coarse[k >> t->wshift]);
	}
	for (uint32_t i = 0; i < UNW_CACHE; i++)
		t->cache[i].key = 0xFFFFFFFF;   /* empty: no code is there */
	t->nrows = b.nrows;
	*out = t;
	m = NULL;
	err = 0;
out:
	if (m)
		env->free(env->ctx, m, bytes);
	if (b.blk)
		env->free(env->ctx, b.blk, blkbytes);
	if (b.tmp)
		env->free(env->ctx, b.tmp, b.cap * (uint32_t)sizeof *b.tmp);
	if (ix)
		env->free(env->ctx, ix, ixbytes);
	if (h)
		env->free(env->ctx, h, hbytes);
	return err;
}

void unw_free(struct unw_table *t, const struct unw_env *env)
{
	if (t)
		env->free(env->ctx, t, t->bytes);
}

const char *unw_strerror(int err)
{
	static const char *const msg[UNW_NERR] = {
		[UNW_OK] = "no error",
		[UNW_ETRUNC] = ".eh_frame: an entry runs past the section",
		[UNW_E64] = ".eh_frame: 64-bit DWARF entry in a 32-bit program",
		[UNW_ECIE] = ".eh_frame: an FDE's CIE is missing or not readable",
		[UNW_EENC] = ".eh_frame: a pointer encoding other than absolute or pc-relative",
		[UNW_ENOFDE] = ".eh_frame: no FDE covers any code",
		[UNW_ERULES] = ".eh_frame: more distinct unwind rules than a table holds",
		[UNW_ENOMEM] = "out of memory for the unwind table",
	};

	if (err < 0)
		err = -err;
	return err > 0 && err < UNW_NERR ? msg[err] : "unknown unwind-table error";
}

/* row i's first address; k: its block, found from the one before */
static uint32_t row_start(const struct unw_table *t, uint32_t i, uint32_t *k)
{
	while (*k < t->nblocks && unw_block(t, *k + 1) <= i)
		(*k)++;
	return t->lo + ((*k << t->shift) & ~0xFFFFu) + t->row[i].off;
}

void unw_rows(const struct unw_table *t, uint32_t from, uint32_t to,
	      void (*f)(void *arg, uint32_t start, uint32_t end, const struct unw_rule *r), void *arg)
{
	uint32_t k = 0, k1 = 0;

	for (uint32_t i = 0; i < t->nrows; i++) {
		uint32_t start = row_start(t, i, &k);
		uint32_t end = i + 1 < t->nrows ? row_start(t, i + 1, &k1) : t->lo + t->span;

		if (end > from && start < to)
			f(arg, start, end, &t->rule[t->row[i].rule]);
	}
}
