/* lines.c: source lines for --lines, from the module's libdwfl session
 * (dwfl_module_getsrc), after checking that the DWARF string sections libdw
 * will read are whole. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "kprof.h"

/* libdw takes DWARF string sections to end in a NUL; a damaged one would
 * have it read past the section. Look at every one by its name, whatever
 * its flags say, and at a compressed one after decompressing it (libdw
 * then finds it decompressed). */
int kelf_strings_terminated(struct kelf *ke)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(ke->elf, &shstrndx) < 0)
		return 1;                   /* then libdw finds no sections by name */
	while ((scn = elf_nextscn(ke->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		size_t n;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(ke->elf, shstrndx, sh.sh_name);
		if (name == NULL || (strncmp(name, ".debug", 6) != 0 && strncmp(name, ".zdebug", 7) != 0))
			continue;
		n = strlen(name);
		if (!(sh.sh_flags & SHF_STRINGS) && !(n >= 3 && strcmp(name + n - 3, "str") == 0) &&
		    !(n >= 7 && strcmp(name + n - 7, "str.dwo") == 0))
			continue;
		if (((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) ||
		    (name[1] == 'z' && elf_compress_gnu(scn, 0, 0) < 0)) {
			kp_error("%s: damaged DWARF: section %s does not decompress: %s", ke->path, name,
				 elf_errmsg(-1));
			return 0;
		}
		d = elf_getdata(scn, NULL);
		if (d && d->d_size > 0 && (d->d_buf == NULL || ((const char *)d->d_buf)[d->d_size - 1] != '\0')) {
			kp_error("%s: damaged DWARF: section %s does not end in a NUL", ke->path, name);
			return 0;
		}
	}
	return 1;
}

int linetab_load(struct linetab *lt, struct kelf *ke)
{
	Dwarf *dw;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Addr bias;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t nlines;

	memset(lt, 0, sizeof *lt);
	if (!kelf_strings_terminated(ke))
		return -1;
	dw = dwfl_module_getdwarf(ke->mod, &bias);
	if (dw == NULL) {
		kp_error("%s: no DWARF debug information (build the kernel with -g) for --lines",
			 ke->path);
		return -1;
	}
	/* a unit with a line table, or there is nothing to look up */
	while (dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL) == 0) {
		cu = next;
		if (dwarf_getsrclines(&cudie, &lines, &nlines) == 0 && nlines > 0) {
			lt->mod = ke->mod;
			return 0;
		}
	}
	kp_error("%s: no DWARF line table (build the kernel with -g) for --lines", ke->path);
	return -1;
}

void linetab_free(struct linetab *lt)
{
	memset(lt, 0, sizeof *lt);
}

/* The source line of addr, by libdwfl; NULL when no line covers it. The
 * file name is libdwfl's, alive until the module is closed. */
const char *linetab_at(const struct linetab *lt, uint64_t addr, int *line)
{
	Dwfl_Line *l;
	const char *file;

	if (lt->mod == NULL || (l = dwfl_module_getsrc(lt->mod, addr)) == NULL)
		return NULL;
	file = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	return file ? file : "??";
}

/* Paths under the current directory print relative, as the build named them. */
const char *linetab_relpath(const char *file)
{
	static char cwd[4096];
	static int init;
	size_t n;

	if (!init) {
		init = 1;
		if (getcwd(cwd, sizeof cwd) == NULL)
			cwd[0] = '\0';
	}
	n = strlen(cwd);
	if (n > 1 && strncmp(file, cwd, n) == 0 && file[n] == '/')
		return file + n + 1;
	return file;
}

/* where the DWARF says code is inlined: every DW_TAG_inlined_subroutine's
 * ranges, merged into sorted, disjoint [lo, hi) pairs, so that a frame
 * outside them needs no walk of its unit's scopes */
struct pairs {
	uint64_t *v;
	size_t n, cap;
};

static void add_ranges(Dwarf_Die *die, Dwarf_Addr bias, struct pairs *p, int depth)
{
	Dwarf_Die kid;

	if (depth > 64)
		return;                 /* a damaged tree: no deeper */
	if (dwarf_tag(die) == DW_TAG_inlined_subroutine) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
			if (p->n + 2 > p->cap) {
				p->cap = p->cap ? 2 * p->cap : 256;
				p->v = kp_reallocarray(p->v, p->cap, sizeof *p->v);
			}
			p->v[p->n++] = lo + bias;
			p->v[p->n++] = hi + bias;
		}
	}
	if (dwarf_child(die, &kid) != 0)
		return;
	do
		add_ranges(&kid, bias, p, depth + 1);
	while (dwarf_siblingof(&kid, &kid) == 0);
}

static int by_lo(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void inline_ranges(struct kelf *ke)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(ke->mod, &bias);
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie;
	struct pairs p = { 0 };
	size_t out = 0;

	while (dw && dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL) == 0) {
		cu = next;
		add_ranges(&cudie, bias, &p, 0);
	}
	if (p.n)                        /* none: p.v is NULL, which qsort may not take */
		qsort(p.v, p.n / 2, 2 * sizeof *p.v, by_lo);
	for (size_t i = 0; i < p.n; i += 2) {
		if (out && p.v[i] <= p.v[out - 1]) {
			if (p.v[i + 1] > p.v[out - 1])
				p.v[out - 1] = p.v[i + 1];
		} else {
			p.v[out++] = p.v[i];
			p.v[out++] = p.v[i + 1];
		}
	}
	ke->inl = p.v;
	ke->ninl = out / 2;
}

static int in_inlined(const struct kelf *ke, uint64_t addr)
{
	size_t lo = 0, hi = ke->ninl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < ke->inl[2 * mid])
			hi = mid;
		else if (addr >= ke->inl[2 * mid + 1])
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* Whether addr is in code the DWARF says is inlined: its ranges are read
 * the first time (0 for an ELF without usable DWARF). */
int kelf_in_inlined(struct kelf *ke, uint64_t addr)
{
	if (ke->inlines == 0) {         /* first use: are its string sections whole? */
		ke->inlines = ke->mod && kelf_strings_terminated(ke) ? 1 : -1;
		if (ke->inlines > 0)
			inline_ranges(ke);
	}
	return ke->inlines > 0 && in_inlined(ke, addr);
}

/* The functions inlined at addr by the DWARF (DW_TAG_inlined_subroutine
 * scopes, by libdw), outermost first, at most max in names (strings of
 * the DWARF), as many as fit in a name of 1024 bytes joined by ';', and
 * with files and lines not NULL where each is called (DW_AT_call_file,
 * DW_AT_call_line: NULL, 0 unknown); their number (0: none, or no usable
 * DWARF). The function they are inlined into is the symbol's. */
int kelf_inlined(struct kelf *ke, uint64_t addr, const char **names, const char **files, int *lines, int max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, *scopes = NULL;
	int ns, count = 0;
	size_t len = 0;

	if (!kelf_in_inlined(ke, addr) || !(cu = dwfl_module_addrdie(ke->mod, addr, &bias)))
		return 0;
	ns = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = ns - 1; i >= 0 && count < max; i--) {
		Dwarf_Attribute a;
		const char *name;
		size_t k;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &a));
		if (!name)
			name = "[inlined]";
		k = strlen(name);
		if (len + k + 2 > 1024)
			break;
		len += k + (len != 0);
		if (files) {
			Dwarf_Files *fs;
			Dwarf_Word fi, ln;
			size_t nf;

			files[count] = NULL;
			lines[count] = 0;
			if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &fi) == 0 &&
			    dwarf_getsrcfiles(cu, &fs, &nf) == 0 && fi < nf)
				files[count] = dwarf_filesrc(fs, fi, NULL, NULL);
			if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &ln) == 0)
				lines[count] = (int)ln;
		}
		names[count++] = name;
	}
	free(scopes);
	return count;
}
