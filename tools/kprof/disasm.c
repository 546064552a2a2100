/* disasm.c: the instruction text for --addr, from the ELF's own bytes with
 * Capstone (32-bit x86, Intel syntax). */
#include <stdio.h>
#include <string.h>
#include <capstone.h>

#include "kprof.h"

void disasm_open(struct disasm *d)
{
	csh h;

	memset(d, 0, sizeof *d);
	d->ok = cs_open(CS_ARCH_X86, CS_MODE_32, &h) == CS_ERR_OK;
	d->handle = h;
	if (d->ok) {
		d->insn = cs_malloc(h);
		if (d->insn == NULL) {
			cs_close(&h);
			d->ok = 0;
		}
	}
}

void disasm_close(struct disasm *d)
{
	csh h = d->handle;

	if (d->ok) {
		cs_free(d->insn, 1);
		cs_close(&h);
	}
	d->ok = 0;
}

/* Decode one instruction at *addr; on success advance *addr past it. */
static int one(struct disasm *d, const struct kelf *ke, uint64_t *addr, char *buf, size_t n)
{
	const unsigned char *code;
	size_t avail;
	uint64_t a = *addr;
	cs_insn *insn = d->insn;
	int ok;

	code = kelf_bytes(ke, *addr, &avail);
	if (code == NULL)
		return 0;
	ok = cs_disasm_iter(d->handle, &code, &avail, &a, insn);
	if (ok) {
		if (insn->op_str[0])
			snprintf(buf, n, "%s %s", insn->mnemonic, insn->op_str);
		else
			snprintf(buf, n, "%s", insn->mnemonic);
		*addr = a;
	}
	return ok;
}

/* At res 0 the bin is a sampled PC: decode there. At res > 0 the bin may
 * start inside an instruction, so walk the symbol's range from its start
 * (resuming where the last bin of the same range stopped) to the first
 * instruction that starts in the bin. */
void disasm_bin(struct disasm *d, const struct kelf *ke, const struct krange *s,
		uint64_t bin, uint64_t step, char *buf, size_t n)
{
	uint64_t at;

	buf[0] = '\0';
	if (!d->ok)
		return;
	if (step == 1) {
		at = bin;
		if (!one(d, ke, &at, buf, n))
			snprintf(buf, n, "(bad)");
		return;
	}
	if (s == NULL)
		return;
	at = (d->sweep == s && d->sweep_at <= bin) ? d->sweep_at : s->start;
	while (at < s->end && at < bin + step) {
		uint64_t here = at;
		char text[128];

		if (!one(d, ke, &at, text, sizeof text)) {
			snprintf(buf, n, "(bad)");
			break;
		}
		if (here >= bin) {
			snprintf(buf, n, "%s", text);
			at = here;
			break;
		}
	}
	d->sweep = s;
	d->sweep_at = at;
}
