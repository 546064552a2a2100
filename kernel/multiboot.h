/* What the kernel keeps from the multiboot2 information GRUB hands over. */
#ifndef MULTIBOOT_H
#define MULTIBOOT_H

#include <stdint.h>
#include "kalloc.h"

#define MB2_BOOTLOADER_MAGIC 0x36D76289
#define MAXMODS    8
#define MAXREGIONS 32

struct module {
	uint32_t start, end;
	const char *name;       /* the module's command line, e.g. "initrd" */
};

struct bootinfo {
	const char *cmdline;
	struct module mods[MAXMODS];
	int nmods;
	struct memrange avail[MAXREGIONS];
	int navail;
	uint32_t mem_kib;       /* usable RAM in the map */
	uint32_t ram_top;       /* end of the highest usable region */
	uint32_t mbi_start, mbi_end;
	int errors;             /* malformed tags seen (and not followed) */
};

/* Parses the information at physical address mbi, reporting any malformed
 * tag. The modules' and the information's own ranges stay physical. */
void multiboot_parse(uint32_t magic, uint32_t mbi, struct bootinfo *bi);

/* main.c: boot/boot.asm calls it with the magic and the information address */
void kmain(uint32_t magic, uint32_t mbi);

#endif
