/* disasm.c: the instruction text for --addr and kprof annotate, from the ELF's own bytes with
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
int disasm_one(struct disasm *d, const struct kelf *ke, uint64_t *addr, char *buf, size_t n)
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

/* A bin of one byte is a sampled PC: decode there. A wider bin (kpdata at
 * res > 0, gmon's 2-byte bins) may start inside an instruction, so walk
 * the symbol's range from its start (resuming where the last bin of the
 * same range stopped) and show the instructions that start in the bin,
 * "; " between them; when none does, the one the bin lies inside, with
 * where it starts. Never bytes decoded from the middle of an instruction. */
void disasm_bin(struct disasm *d, const struct kelf *ke, const struct krange *s,
		uint64_t bin, uint64_t step, char *buf, size_t n)
{
	uint64_t at, covering = 0;
	char text[128], cover[128] = "";
	size_t len = 0;

	buf[0] = '\0';
	if (!d->ok)
		return;
	if (step <= 1) {
		at = bin;
		if (!disasm_one(d, ke, &at, buf, n))
			snprintf(buf, n, "(bad)");
		return;
	}
	if (s == NULL)
		return;
	at = (d->sweep == s && d->sweep_at <= bin) ? d->sweep_at : s->start;
	while (at < s->end && at < bin + step) {
		uint64_t here = at;

		if (!disasm_one(d, ke, &at, text, sizeof text)) {
			snprintf(buf, n, "(bad)");
			return;
		}
		if (here < bin) {
			if (at > bin) {         /* it runs into the bin */
				covering = here;
				snprintf(cover, sizeof cover, "%s", text);
			}
			d->sweep_at = at;
			continue;
		}
		if (len < n)
			len += snprintf(buf + len, n - len, "%s%s", len ? "; " : "", text);
	}
	if (!len && cover[0])
		snprintf(buf, n, "(inside %s at 0x%jx)", cover, (uintmax_t)covering);
	d->sweep = s;
	if (d->sweep_at < s->start || d->sweep_at > bin)
		d->sweep_at = s->start;
}
