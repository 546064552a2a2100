/* The length of one i386 instruction in 32-bit code, and whether it is a
 * call, for the per-instruction profiler: it needs the length to tell a
 * control transfer (the next EIP is not this one plus its length) and the
 * call forms to mark call targets. Only the encoding is decoded, not the
 * meaning; a byte string that runs out, or an opcode with no known length,
 * gives 0. */
#include "arch.h"

/* Iz: a 32-bit immediate, 16-bit under the operand-size prefix */
static uint32_t iz(bool opsize) { return opsize ? 2 : 4; }

/* the bytes of ModRM, SIB and displacement at b[0..n), or 0 */
static uint32_t modrm_len(const uint8_t *b, uint32_t n, bool addr16)
{
	uint32_t mod, rm, len = 1;

	if (n < 1)
		return 0;
	mod = b[0] >> 6;
	rm = b[0] & 7;
	if (mod == 3)
		return 1;
	if (addr16) {
		if (mod == 0 && rm == 6)
			return 3;
		return 1 + (mod == 1 ? 1 : mod == 2 ? 2 : 0);
	}
	if (rm == 4) {                  /* a SIB byte follows */
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (b[1] & 7) == 5)
			return len + 4;
	} else if (mod == 0 && rm == 5) {
		return len + 4;         /* disp32, no base */
	}
	return len + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* the two-byte map (after 0F): bytes after the opcode, or -1 for none */
static int map2(const uint8_t *b, uint32_t n, bool opsize, bool addr16, uint32_t *imm)
{
	uint8_t op = b[0];
	uint32_t ml;

	*imm = 0;
	if (op >= 0x80 && op <= 0x8F) {         /* jcc rel32 */
		*imm = iz(opsize);
		return 0;
	}
	if ((op >= 0x05 && op <= 0x0B) || op == 0x0E || (op >= 0x30 && op <= 0x37) ||
	    op == 0x77 || (op >= 0xA0 && op <= 0xA2) || (op >= 0xA8 && op <= 0xAA) ||
	    (op >= 0xC8 && op <= 0xCF))
		return 0;                       /* no ModRM */
	if (op == 0x38 || op == 0x3A) {         /* 0F 38 xx /r, 0F 3A xx /r ib */
		ml = n > 2 ? modrm_len(b + 2, n - 2, addr16) : 0;
		*imm = op == 0x3A;
		return ml ? 1 + (int)ml : -1;
	}
	if ((op >= 0x70 && op <= 0x73) || op == 0xA4 || op == 0xAC || op == 0xBA ||
	    (op >= 0xC2 && op <= 0xC6) || op == 0x0F)
		*imm = 1;
	ml = n > 1 ? modrm_len(b + 1, n - 1, addr16) : 0;
	return ml ? (int)ml : -1;
}

uint32_t arch_insn_decode(const uint8_t *b, uint32_t n, bool *is_call)
{
	bool opsize = false, addr16 = false;
	uint32_t p = 0, len, imm = 0, m = 0;
	uint8_t op;

	*is_call = false;
	for (;; p++) {                          /* prefixes */
		if (p >= n || p >= 14)
			return 0;
		op = b[p];
		if (op == 0x66)
			opsize = true;
		else if (op == 0x67)
			addr16 = true;
		else if (!(op == 0xF0 || op == 0xF2 || op == 0xF3 || op == 0x2E || op == 0x36 ||
			   op == 0x3E || op == 0x26 || op == 0x64 || op == 0x65))
			break;
	}
	len = p + 1;                            /* prefixes and the opcode */
	if (op == 0x0F) {
		int r;
		if (p + 1 >= n)
			return 0;
		r = map2(b + p + 1, n - p - 1, opsize, addr16, &imm);
		if (r < 0)
			return 0;
		len += 1 + (uint32_t)r;
		goto done;
	}
	if (op < 0x40) {                        /* the ALU rows */
		switch (op & 7) {
		case 0: case 1: case 2: case 3: m = 1; break;
		case 4: imm = 1; break;
		case 5: imm = iz(opsize); break;
		default: break;                 /* push/pop seg, daa, aaa ... */
		}
	} else if (op < 0x60 || (op >= 0x90 && op <= 0x99) || (op >= 0x9B && op <= 0x9F) ||
		   (op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF) ||
		   (op >= 0x6C && op <= 0x6F) || op == 0x60 || op == 0x61 || op == 0xC3 ||
		   op == 0xC9 || op == 0xCB || op == 0xCC || op == 0xCE || op == 0xCF ||
		   op == 0xD6 || op == 0xD7 || (op >= 0xEC && op <= 0xEF) || op == 0xF1 ||
		   (op >= 0xF4 && op <= 0xF5) || (op >= 0xF8 && op <= 0xFD)) {
		/* one byte */
	} else if ((op >= 0x70 && op <= 0x7F) || op == 0x6A || (op >= 0xB0 && op <= 0xB7) ||
		   op == 0xA8 || op == 0xCD || op == 0xD4 || op == 0xD5 ||
		   (op >= 0xE0 && op <= 0xE7) || op == 0xEB) {
		imm = 1;
	} else if (op == 0x68 || op == 0xA9 || (op >= 0xB8 && op <= 0xBF) || op == 0xE8 ||
		   op == 0xE9) {
		imm = iz(opsize);
	} else if (op == 0x9A || op == 0xEA) {  /* far pointer: offset, selector */
		imm = iz(opsize) + 2;
	} else if (op >= 0xA0 && op <= 0xA3) {  /* moffs: an address */
		imm = addr16 ? 2 : 4;
	} else if (op == 0xC2 || op == 0xCA) {
		imm = 2;
	} else if (op == 0xC8) {
		imm = 3;
	} else if (op == 0x69 || op == 0x81 || op == 0xC7) {
		m = 1, imm = iz(opsize);
	} else if (op == 0x6B || op == 0x80 || op == 0x82 || op == 0x83 || op == 0xC0 ||
		   op == 0xC1 || op == 0xC6) {
		m = 1, imm = 1;
	} else if (op == 0xF6 || op == 0xF7) {  /* test r/m, imm only for /0 and /1 */
		m = 1;
		if (p + 1 >= n)
			return 0;
		if (((b[p + 1] >> 3) & 7) < 2)
			imm = op == 0xF6 ? 1 : iz(opsize);
	} else {                                /* 62 63 84-8F C4 C5 D0-D3 D8-DF FE FF */
		m = 1;
	}
	if (m) {
		uint32_t ml = p + 1 < n ? modrm_len(b + p + 1, n - p - 1, addr16) : 0;
		if (!ml)
			return 0;
		if (op == 0xFF) {
			uint32_t reg = (b[p + 1] >> 3) & 7;
			*is_call = reg == 2 || reg == 3;        /* call near / far, indirect */
		}
		len += ml;
	}
	*is_call = *is_call || op == 0xE8 || op == 0x9A;
done:
	len += imm;
	if (len > 15 || len > n)
		return 0;
	return len;
}
