/* lines.c: the DWARF line table of every compile unit (libdw, through the
 * module's libdwfl session), flattened and sorted by address once, so
 * --lines is one merge with the bins. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "kprof.h"

static int cmp_row(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* a sequence's end sorts before a row starting at the same address,
	 * so the row wins; otherwise the table's order holds */
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* libdw takes DWARF string sections to end in a NUL; a damaged one would
 * have it read past the section. Look at every one by its name, whatever
 * its flags say, and at a compressed one after decompressing it (libdw
 * then finds it decompressed). */
static int strings_terminated(struct kelf *ke)
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
	Dwarf_CU *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0;

	memset(lt, 0, sizeof *lt);
	if (!strings_terminated(ke))
		return -1;
	dw = dwfl_module_getdwarf(ke->mod, &bias);
	if (dw == NULL) {
		kp_error("%s: no DWARF debug information (build the kernel with -g) for --lines",
			 ke->path);
		return -1;
	}
	for (;;) {
		Dwarf_CU *next;
		Dwarf_Half version;
		uint8_t type;
		Dwarf_Die cudie;
		Dwarf_Lines *lines;
		size_t nlines;

		if (dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL) != 0)
			break;
		cu = next;
		if (dwarf_getsrclines(&cudie, &lines, &nlines) != 0)
			continue;
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr addr;
			bool end = false;
			int lineno = 0;
			const char *file;
			struct lrow *r;

			if (l == NULL || dwarf_lineaddr(l, &addr) != 0 || addr + bias > UINT32_MAX)
				continue;
			dwarf_lineno(l, &lineno);
			dwarf_lineendsequence(l, &end);
			file = dwarf_linesrc(l, NULL, NULL);
			if (lt->n == cap) {
				cap = cap ? 2 * cap : 4096;
				lt->rows = kp_reallocarray(lt->rows, cap, sizeof *lt->rows);
			}
			r = &lt->rows[lt->n];
			r->addr = addr + bias;
			r->line = lineno;
			r->end = end;
			r->seq = lt->n;
			r->file = file ? file : "??";
			lt->n++;
		}
	}
	if (lt->n == 0) {
		kp_error("%s: no DWARF line table (build the kernel with -g) for --lines", ke->path);
		linetab_free(lt);
		return -1;
	}
	qsort(lt->rows, lt->n, sizeof *lt->rows, cmp_row);
	return 0;
}

/* The file names stay libdwfl's, alive until the module is closed. */
void linetab_free(struct linetab *lt)
{
	free(lt->rows);
	memset(lt, 0, sizeof *lt);
}

/* The row covering addr; calls must come with addr not decreasing. */
const struct lrow *linetab_next(const struct linetab *lt, size_t *cursor, uint64_t addr)
{
	const struct lrow *r;

	while (*cursor < lt->n && lt->rows[*cursor].addr <= addr)
		(*cursor)++;
	if (*cursor == 0)
		return NULL;
	r = &lt->rows[*cursor - 1];
	return r->end ? NULL : r;
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
