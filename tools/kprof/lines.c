/* lines.c: source lines for --lines, from the module's libdwfl session
 * (dwfl_module_getsrc), after checking that the DWARF string sections libdw
 * will read are whole. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "kprof.h"

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
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Addr bias;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t nlines;

	memset(lt, 0, sizeof *lt);
	if (!strings_terminated(ke))
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
