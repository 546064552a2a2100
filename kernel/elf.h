/* ELF32 executables: checking them for spawn, and reading their sections,
 * notes and symbols for the profilers' spawn hooks. Every read is
 * bounds-checked against the file, so a hostile ELF gives an error, never
 * a kernel fault. */
#ifndef ELF_H
#define ELF_H

#include <stdbool.h>
#include <stdint.h>
#include "abi/memlayout.h"

#define EI_NIDENT 16
#define EI_OSABI  7
#define ELFOSABI_GNU 3          /* e_ident[EI_OSABI] of a GNU/Linux program */
#define ET_EXEC   2
#define ET_DYN    3             /* position-independent: loaded at ELF_DYN_BASE */
#define PT_LOAD   1
#define PT_INTERP 3
#define PT_NOTE   4
#define PT_PHDR   6
#define PF_X      1
#define NT_GNU_ABI_TAG 1        /* owner "GNU": the OS word, then the version */
#define GNU_ABI_TAG_LINUX 0
/* Where a static PIE's (ET_DYN's) address 0 goes: the bottom of user
 * space, where the project's programs are linked too. */
#define ELF_DYN_BASE USER_BASE
#define MAXPHDR   16
#define SHT_SYMTAB 2
#define SHT_NOTE   7

struct elfhdr {
	uint8_t ident[EI_NIDENT];
	uint16_t type, machine;
	uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct proghdr {
	uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

struct secthdr {
	uint32_t name, type, flags, addr, offset, size, link, info, addralign, entsize;
};

struct elfsym {
	uint32_t name, value, size;
	uint8_t info, other;
	uint16_t shndx;
};

struct vnode;
struct proc;

/* The system-call interface a program is written for (struct proc's abi). */
enum abi {
	ABI_KPROF,      /* the project's own (include/abi/syscall.h) */
	ABI_LINUX,      /* Linux i386 (kernel/linux.c) */
};

/* An executable being spawned: its file, its header and its loadable
 * segments, checked. */
struct elf_image {
	struct vnode *v;
	uint32_t size;          /* of the file */
	const char *path;
	struct elfhdr eh;
	struct proghdr ph[MAXPHDR];     /* the PT_LOAD ones, relocated by base */
	int nph;
	uint32_t base;          /* what was added to the vaddrs: 0, or ELF_DYN_BASE */
	uint32_t phdr;          /* where the program headers are in memory; 0: nowhere */
	enum abi abi;           /* see elf_open */
};

/* Reads and checks the header and program headers; 0 or -ENOEXEC (and a
 * console line for a refusal a user could not guess: a dynamic program).
 * Sets the program's ABI (elf.c says how it is chosen). */
int elf_open(struct vnode *v, const char *path, struct elf_image *im);

/* n bytes at off of the file; 0, or -ENOEXEC if they are not all there */
int elf_read(const struct elf_image *im, void *buf, uint32_t n, uint32_t off);
/* section header i; 0 or -ENOEXEC */
int elf_section(const struct elf_image *im, uint32_t i, struct secthdr *sh);
/* the first section of the given type; its index, or -ENOENT */
int elf_find_section(const struct elf_image *im, uint32_t type, struct secthdr *sh);
/* the section named name (".eh_frame"); its index, or -ENOENT */
int elf_find_section_named(const struct elf_image *im, const char *name, struct secthdr *sh);
/* Copies the descriptor of the first note with this owner and type into
 * desc (at most max bytes); its full size, or -ENOENT. */
#define NT_GNU_BUILD_ID 3      /* the note type of a GNU build-id (owner "GNU") */
int elf_find_note(const struct elf_image *im, const char *owner, uint32_t type,
		  void *desc, uint32_t max);
/* symbol i of the symbol table sh (from elf_find_section), with its name
 * copied into name (NUL-terminated, cut to max); 0 or -ENOEXEC */
int elf_symbol(const struct elf_image *im, const struct secthdr *sh, uint32_t i,
	       struct elfsym *sym, char *name, uint32_t max);

#endif
