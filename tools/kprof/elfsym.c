/* elfsym.c: open the kernel ELF with libelf: its build-id note, its
 * executable sections and its text symbols, sorted once by address. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprof.h"

static const struct ksect *section_of(const struct kelf *ke, size_t index)
{
	for (size_t i = 0; i < ke->ntext; i++)
		if (ke->text[i].index == index)
			return &ke->text[i];
	return NULL;
}

static int cmp_sect(const void *a, const void *b)
{
	const struct ksect *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* At one address keep the most telling name: a sized function before a
 * bare label, global before weak before local, then by name. */
static int rank(const GElf_Sym *s)
{
	int r = 0;

	if (s->st_size == 0)
		r += 8;
	if (GELF_ST_TYPE(s->st_info) != STT_FUNC)
		r += 4;
	if (GELF_ST_BIND(s->st_info) == STB_WEAK)
		r += 1;
	else if (GELF_ST_BIND(s->st_info) == STB_LOCAL)
		r += 2;
	return r;
}

struct rawsym {
	GElf_Sym sym;
	const char *name;
	uint32_t secend;
};

static int cmp_raw(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;

	if (x->sym.st_value != y->sym.st_value)
		return x->sym.st_value < y->sym.st_value ? -1 : 1;
	if (rank(&x->sym) != rank(&y->sym))
		return rank(&x->sym) - rank(&y->sym);
	return strcmp(x->name, y->name);
}

static void hex(char *out, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static void read_build_id(struct kelf *ke, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (d == NULL || d->d_buf == NULL)
		return;
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz * 2 < sizeof ke->build_id) {
			hex(ke->build_id, (unsigned char *)d->d_buf + desc_off, nh.n_descsz);
			return;
		}
		off = next;
	}
}

static int read_symbols(struct kelf *ke, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, esz, kept = 0;
	struct rawsym *raw;

	if (d == NULL || d->d_buf == NULL) {
		kp_error("%s: unreadable symbol table: %s", ke->path, elf_errmsg(-1));
		return -1;
	}
	/* count from the data actually read, not from a header that may lie */
	esz = gelf_fsize(ke->elf, ELF_T_SYM, 1, EV_CURRENT);
	n = esz ? d->d_size / esz : 0;
	raw = kp_calloc(n, sizeof *raw);
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const struct ksect *sec;
		const char *name;
		int type;

		if (gelf_getsym(d, (int)i, &s) == NULL)
			break;
		type = GELF_ST_TYPE(s.st_info);
		/* nasm labels are NOTYPE, so they count as well as functions */
		if (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC)
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		sec = section_of(ke, s.st_shndx);
		if (sec == NULL || s.st_value < sec->addr || s.st_value >= (uint64_t)sec->addr + sec->size)
			continue;
		name = elf_strptr(ke->elf, sh->sh_link, s.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		raw[kept].sym = s;
		raw[kept].name = name;
		raw[kept].secend = sec->addr + sec->size;
		kept++;
	}
	qsort(raw, kept, sizeof *raw, cmp_raw);

	/* one symbol per address; each owns up to its size, the next symbol
	 * or its section's end, whichever comes first */
	ke->syms = kp_calloc(kept, sizeof *ke->syms);
	for (size_t i = 0; i < kept; i++) {
		struct ksym *k;
		uint64_t end;

		if (i > 0 && raw[i].sym.st_value == raw[i - 1].sym.st_value)
			continue;
		end = raw[i].sym.st_size ? raw[i].sym.st_value + raw[i].sym.st_size : raw[i].secend;
		if (end > raw[i].secend)
			end = raw[i].secend;
		for (size_t j = i + 1; j < kept; j++)
			if (raw[j].sym.st_value != raw[i].sym.st_value) {
				if (raw[j].sym.st_value < end)
					end = raw[j].sym.st_value;
				break;
			}
		k = &ke->syms[ke->nsyms++];
		k->start = (uint32_t)raw[i].sym.st_value;
		k->end = (uint32_t)end;
		k->name = raw[i].name;
		k->type = (unsigned char)GELF_ST_TYPE(raw[i].sym.st_info);
		k->bind = (unsigned char)GELF_ST_BIND(raw[i].sym.st_info);
	}
	free(raw);
	if (ke->nsyms == 0) {
		kp_error("%s: the symbol table has no symbols in executable sections", ke->path);
		return -1;
	}
	return 0;
}

int kelf_open(struct kelf *ke, const char *path)
{
	struct stat st;
	size_t cap = 0;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	Elf_Scn *symtab = NULL;
	GElf_Shdr symsh = { 0 };

	memset(ke, 0, sizeof *ke);
	ke->path = path;
	ke->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		kp_error("libelf is out of date");
		return -1;
	}
	ke->fd = open(path, O_RDONLY | O_NONBLOCK);
	if (ke->fd < 0) {
		kp_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(ke->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		kp_error("%s: not a regular file", path);
		goto fail;
	}
	ke->elf = elf_begin(ke->fd, ELF_C_READ, NULL);
	if (ke->elf == NULL || elf_kind(ke->elf) != ELF_K_ELF) {
		kp_error("%s: not an ELF file", path);
		goto fail;
	}
	if (gelf_getclass(ke->elf) != ELFCLASS32) {
		kp_error("%s: a 64-bit ELF; the kernel is a 32-bit (ELFCLASS32) i386 ELF", path);
		goto fail;
	}
	if (gelf_getehdr(ke->elf, &eh) == NULL) {
		kp_error("%s: damaged ELF header: %s", path, elf_errmsg(-1));
		goto fail;
	}
	if (eh.e_machine != EM_386) {
		kp_error("%s: not an i386 ELF (e_machine %d)", path, eh.e_machine);
		goto fail;
	}
	for (scn = elf_nextscn(ke->elf, NULL); scn; scn = elf_nextscn(ke->elf, scn)) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_NOTE && ke->build_id[0] == '\0')
			read_build_id(ke, scn);
		if (sh.sh_type == SHT_SYMTAB && symtab == NULL) {
			symtab = scn;
			symsh = sh;
		}
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR) &&
		    sh.sh_size > 0 && sh.sh_addr + sh.sh_size < 0x100000000ull) {
			Elf_Data *d = sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
			struct ksect *t;

			if (ke->ntext == cap) {
				cap = cap ? 2 * cap : 8;
				t = kp_calloc(cap, sizeof *t);
				if (ke->ntext)
					memcpy(t, ke->text, ke->ntext * sizeof *t);
				free(ke->text);
				ke->text = t;
			}
			t = &ke->text[ke->ntext++];

			t->addr = (uint32_t)sh.sh_addr;
			t->size = (uint32_t)sh.sh_size;
			t->index = elf_ndxscn(scn);
			if (d && d->d_buf && d->d_size == sh.sh_size)
				t->bytes = d->d_buf;
		}
	}
	if (ke->ntext == 0) {
		kp_error("%s: no executable sections", path);
		goto fail;
	}
	qsort(ke->text, ke->ntext, sizeof *ke->text, cmp_sect);
	ke->text_lo = ke->text[0].addr;
	for (size_t i = 0; i < ke->ntext; i++)
		if (ke->text[i].addr + ke->text[i].size > ke->text_hi)
			ke->text_hi = ke->text[i].addr + ke->text[i].size;
	if (symtab == NULL) {
		kp_error("%s: no symbol table (stripped?); kprof needs the unstripped kernel", path);
		goto fail;
	}
	if (read_symbols(ke, symtab, &symsh) < 0)
		goto fail;
	return 0;
fail:
	kelf_close(ke);
	return -1;
}

void kelf_close(struct kelf *ke)
{
	free(ke->syms);
	free(ke->text);
	ke->syms = NULL;
	ke->text = NULL;
	ke->nsyms = ke->ntext = 0;
	if (ke->elf)
		elf_end(ke->elf);
	ke->elf = NULL;
	if (ke->fd >= 0)
		close(ke->fd);
	ke->fd = -1;
}

/* The section bytes at addr, for the disassembler. */
const unsigned char *kelf_bytes(const struct kelf *ke, uint32_t addr, size_t *avail)
{
	for (size_t i = 0; i < ke->ntext; i++) {
		const struct ksect *t = &ke->text[i];

		if (addr >= t->addr && addr - t->addr < t->size && t->bytes) {
			*avail = t->size - (addr - t->addr);
			return t->bytes + (addr - t->addr);
		}
	}
	*avail = 0;
	return NULL;
}
