/* Multiboot2 information parser. The tags are walked defensively: a tag
 * that is too short, runs past the total size, or is otherwise malformed is
 * reported and parsing stops there rather than following it. */
#include "multiboot.h"
#include "kalloc.h"
#include "lib.h"

#define TAG_END     0
#define TAG_CMDLINE 1
#define TAG_MODULE  3
#define TAG_MMAP    6
#define MMAP_AVAILABLE 1

struct tag {
	uint32_t type, size;
};

/* a string inside [p, end) that must be NUL-terminated there */
static const char *tagstr(const char *p, const char *end)
{
	return strnlen(p, end - p) < (size_t)(end - p) ? p : NULL;
}

static void bad(struct bootinfo *bi, const char *what, uint32_t off)
{
	kprintf("multiboot: malformed %s at offset %u; ignoring the rest\n", what, off);
	bi->errors++;
}

void multiboot_parse(uint32_t magic, uint32_t mbi_pa, struct bootinfo *bi)
{
	uint32_t total, off, mbi = (uint32_t)P2V(mbi_pa);

	memset(bi, 0, sizeof *bi);
	bi->cmdline = "";
	if (magic != MB2_BOOTLOADER_MAGIC) {
		kprintf("multiboot: bad magic 0x%08x (not booted by a multiboot2 loader)\n", magic);
		bi->errors++;
		return;
	}
	total = *(uint32_t *)mbi;
	if (total < 16 || total > (1u << 20)) {
		bad(bi, "total size", 0);
		return;
	}
	bi->mbi_start = mbi_pa;
	bi->mbi_end = mbi_pa + total;

	for (off = 8; off + 8 <= total; off = ROUNDUP(off + ((struct tag *)(mbi + off))->size, 8)) {
		struct tag *t = (struct tag *)(mbi + off);
		const char *body = (const char *)(t + 1);
		const char *end = (const char *)t + t->size;

		if (t->size < 8 || t->size > total - off) {
			bad(bi, "tag size", off);
			return;
		}
		if (t->type == TAG_END)
			return;
		switch (t->type) {
		case TAG_CMDLINE: {
			const char *s = tagstr(body, end);
			if (!s) {
				bad(bi, "command line tag", off);
				return;
			}
			bi->cmdline = s;
			break;
		}
		case TAG_MODULE: {
			const uint32_t *m = (const uint32_t *)body;
			const char *name;
			if (t->size < 17 || !(name = tagstr(body + 8, end)) || m[1] < m[0]) {
				bad(bi, "module tag", off);
				return;
			}
			if (bi->nmods == MAXMODS) {
				kprintf("multiboot: more than %d modules; ignoring module '%s'\n", MAXMODS, name);
				break;
			}
			bi->mods[bi->nmods++] = (struct module){ m[0], m[1], name };
			break;
		}
		case TAG_MMAP: {
			uint32_t esize = ((const uint32_t *)body)[0];
			if (t->size < 16 || esize < 24 || esize % 8) {
				bad(bi, "memory map tag", off);
				return;
			}
			for (const char *e = body + 8; e + esize <= end; e += esize) {
				uint64_t base = *(const uint64_t *)e, len = *(const uint64_t *)(e + 8);
				uint32_t type = *(const uint32_t *)(e + 16);
				if (type != MMAP_AVAILABLE || base >= 0xFFFFF000ull)
					continue;
				if (len > 0xFFFFF000ull - base)   /* keep end in 32 bits, no wrap */
					len = 0xFFFFF000ull - base;
				bi->mem_kib += (uint32_t)(len >> 10);
				if (bi->navail < MAXREGIONS)
					bi->avail[bi->navail++] = (struct memrange){ (uint32_t)base, (uint32_t)(base + len) };
				if (base + len > bi->ram_top)
					bi->ram_top = (uint32_t)(base + len);
			}
			break;
		}
		default:
			break;
		}
	}
}
