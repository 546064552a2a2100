/* Reading ELF32 executables (elf.h). The header and program headers are
 * checked whole before spawn allocates anything, so a bad or truncated ELF
 * gives -ENOEXEC and touches nothing. */
#include "elf.h"
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "arch.h"
#include "file.h"
#include "lib.h"
#include "linux.h"

int elf_read(const struct elf_image *im, void *buf, uint32_t n, uint32_t off)
{
	if (off > im->size || n > im->size - off)
		return -ENOEXEC;
	return im->v->ops->read(im->v, NULL, buf, n, off) == (int)n ? 0 : -ENOEXEC;
}

/* true if [va, va+n) fits in the part of user space below the stack */
static bool inuser(uint32_t va, uint32_t n)
{
	uint32_t top = USER_TOP - USER_STACK_SIZE;
	return va >= USER_BASE && va <= top && n <= top - va;
}

/* The ABI rule: a program is a Linux one if its header says GNU/Linux
 * (e_ident[EI_OSABI] == ELFOSABI_GNU) or it carries the GNU ABI tag note
 * (a PT_NOTE with owner "GNU", type NT_GNU_ABI_TAG, OS word 0: Linux),
 * as every glibc program does; anything else is the project's own. The
 * project's linker script (user/user.ld) makes neither. */
static bool gnu_abi_tag(const struct elf_image *im, const struct proghdr *p)
{
	for (uint32_t off = 0; off + 12 <= p->filesz;) {
		uint32_t hdr[3], nsz, dsz, os;
		char name[4];
		if (elf_read(im, hdr, sizeof hdr, p->offset + off) < 0)
			return false;
		nsz = ROUNDUP(hdr[0], 4);
		dsz = ROUNDUP(hdr[1], 4);
		if (nsz < hdr[0] || dsz < hdr[1] || nsz > p->filesz - off - 12 ||
		    dsz > p->filesz - off - 12 - nsz)
			return false;
		if (hdr[2] == NT_GNU_ABI_TAG && hdr[0] == 4 && hdr[1] >= 4 &&
		    elf_read(im, name, 4, p->offset + off + 12) == 0 &&
		    memcmp(name, "GNU", 4) == 0 &&
		    elf_read(im, &os, 4, p->offset + off + 12 + nsz) == 0)
			return os == GNU_ABI_TAG_LINUX;
		off += 12 + nsz + dsz;
	}
	return false;
}

int elf_open(struct vnode *v, const char *path, struct elf_image *im)
{
	struct elfhdr *eh = &im->eh;
	struct proghdr p;
	int n = 0;
	bool entry_ok = false;

	im->v = v;
	im->path = path;
	im->size = v->ops->size(v, NULL);
	im->nph = 0;
	im->phdr = 0;
	im->abi = ABI_KPROF;
	if (elf_read(im, eh, sizeof *eh, 0) < 0)
		return -ENOEXEC;
	if (memcmp(eh->ident, "\177ELF", 4) != 0 || eh->ident[4] != 1 /* 32-bit */ ||
	    eh->ident[5] != 1 /* little-endian */ ||
	    (eh->type != ET_EXEC && eh->type != ET_DYN) ||
	    eh->machine != ARCH_ELF_MACHINE || eh->phentsize != sizeof(struct proghdr) ||
	    eh->phnum == 0 || eh->phnum > MAXPHDR || eh->phoff > im->size ||
	    eh->phnum * sizeof(struct proghdr) > im->size - eh->phoff)
		return -ENOEXEC;
	/* a static PIE goes at a fixed base: one address space, no need to
	 * move it, and the same addresses every run */
	im->base = eh->type == ET_DYN ? ELF_DYN_BASE : 0;
	if (eh->ident[EI_OSABI] == ELFOSABI_GNU)
		im->abi = ABI_LINUX;
	for (int i = 0; i < eh->phnum; i++) {
		if (elf_read(im, &p, sizeof p, eh->phoff + i * sizeof p) < 0)
			return -ENOEXEC;
		if (p.type == PT_INTERP) {
			/* no dynamic linker here: say so, or "Exec format
			 * error" is all the user learns */
			kprintf("exec: %s: a dynamically linked program (PT_INTERP); "
				"only static programs run here\n", path);
			return -ENOEXEC;
		}
		if (p.type == PT_NOTE && p.offset <= im->size && p.filesz <= im->size - p.offset &&
		    gnu_abi_tag(im, &p))
			im->abi = ABI_LINUX;
		if (p.type != PT_LOAD)
			continue;
		if (p.vaddr > UINT32_MAX - im->base)
			return -ENOEXEC;
		p.vaddr += im->base;
		if (p.filesz > p.memsz || !inuser(p.vaddr, p.memsz) ||
		    p.offset > im->size || p.filesz > im->size - p.offset)
			return -ENOEXEC;
		/* no two segments may share a byte: the second's load would
		 * overwrite the first's */
		for (int j = 0; j < n; j++)
			if (p.vaddr < im->ph[j].vaddr + im->ph[j].memsz &&
			    im->ph[j].vaddr < p.vaddr + p.memsz)
				return -ENOEXEC;
		if ((p.flags & PF_X) && eh->entry + im->base >= p.vaddr &&
		    eh->entry + im->base - p.vaddr < p.memsz)
			entry_ok = true;
		/* the program headers, if this segment loads them (AT_PHDR) */
		if (eh->phoff >= p.offset && eh->phoff - p.offset <= p.filesz &&
		    eh->phnum * sizeof p <= p.filesz - (eh->phoff - p.offset))
			im->phdr = p.vaddr + (eh->phoff - p.offset);
		im->ph[n++] = p;
	}
	if (n == 0 || !entry_ok)
		return -ENOEXEC;
	/* a Linux program's stack is bigger (linux.h): no segment there */
	for (int i = 0; i < n && im->abi == ABI_LINUX; i++)
		if (im->ph[i].vaddr + im->ph[i].memsz > USER_TOP - LINUX_STACK_MAX)
			return -ENOEXEC;
	im->nph = n;
	return 0;
}

int elf_section(const struct elf_image *im, uint32_t i, struct secthdr *sh)
{
	const struct elfhdr *eh = &im->eh;

	if (eh->shentsize != sizeof *sh || i >= eh->shnum)
		return -ENOEXEC;
	return elf_read(im, sh, sizeof *sh, eh->shoff + i * sizeof *sh);
}

int elf_find_section(const struct elf_image *im, uint32_t type, struct secthdr *sh)
{
	for (uint32_t i = 0; i < im->eh.shnum; i++)
		if (elf_section(im, i, sh) == 0 && sh->type == type)
			return (int)i;
	return -ENOENT;
}

int elf_find_section_named(const struct elf_image *im, const char *name, struct secthdr *sh)
{
	struct secthdr names;
	uint32_t n = strlen(name) + 1;
	char buf[32];

	if (n > sizeof buf || elf_section(im, im->eh.shstrndx, &names) < 0)
		return -ENOENT;
	for (uint32_t i = 0; i < im->eh.shnum; i++)
		if (elf_section(im, i, sh) == 0 && sh->name < names.size && names.size - sh->name >= n &&
		    elf_read(im, buf, n, names.offset + sh->name) == 0 && memcmp(buf, name, n) == 0)
			return (int)i;
	return -ENOENT;
}

/* A note: namesz, descsz, type, then the name and the descriptor, each
 * padded to 4 bytes. */
int elf_find_note(const struct elf_image *im, const char *owner, uint32_t type,
		  void *desc, uint32_t max)
{
	uint32_t olen = strlen(owner) + 1;
	struct secthdr sh;
	char name[32];

	for (uint32_t i = 0; i < im->eh.shnum; i++) {
		if (elf_section(im, i, &sh) < 0 || sh.type != SHT_NOTE)
			continue;
		for (uint32_t off = 0; off + 12 <= sh.size;) {
			uint32_t hdr[3], nsz, dsz;
			if (elf_read(im, hdr, sizeof hdr, sh.offset + off) < 0)
				break;
			nsz = ROUNDUP(hdr[0], 4);
			dsz = ROUNDUP(hdr[1], 4);
			/* the padded sizes must fit the section: no wrap-around */
			if (nsz < hdr[0] || dsz < hdr[1] || nsz > sh.size - off - 12 ||
			    dsz > sh.size - off - 12 - nsz)
				break;
			if (hdr[2] == type && hdr[0] == olen && olen <= sizeof name &&
			    elf_read(im, name, olen, sh.offset + off + 12) == 0 &&
			    memcmp(name, owner, olen) == 0) {
				if (elf_read(im, desc, MIN(hdr[1], max), sh.offset + off + 12 + nsz) < 0)
					return -ENOEXEC;
				return (int)hdr[1];
			}
			off += 12 + nsz + dsz;
		}
	}
	return -ENOENT;
}

int elf_symbol(const struct elf_image *im, const struct secthdr *sh, uint32_t i,
	       struct elfsym *sym, char *name, uint32_t max)
{
	struct secthdr strtab;
	uint32_t n;

	if (sh->entsize != sizeof *sym || i >= sh->size / sizeof *sym || max == 0)
		return -ENOEXEC;
	if (elf_read(im, sym, sizeof *sym, sh->offset + i * sizeof *sym) < 0 ||
	    elf_section(im, sh->link, &strtab) < 0 || sym->name >= strtab.size)
		return -ENOEXEC;
	/* the name in one read (a read a byte made a glibc program's spawn
	 * under a profiler cost 3x the spawn), cut at max - 1 or the table's
	 * end: the NUL in it, or the one put after it, ends the string */
	n = MIN(max - 1, strtab.size - sym->name);
	if (elf_read(im, name, n, strtab.offset + sym->name) < 0)
		return -ENOEXEC;
	name[n] = 0;
	return 0;
}
