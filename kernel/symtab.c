/* The symbol service (symtab.h): the kernel's table, embedded by the
 * build, and programs' tables, read from their ELF .symtab at spawn while
 * a profiler holds the service. Both are sorted arrays of (address, size,
 * name) with an index: bucket b of 2^shift bytes names the last symbol
 * that starts at or before the bucket's start, so a lookup is one load and
 * a scan over the few symbols that start inside one bucket. The buckets
 * are about as many as the symbols, so the scan is short on average
 * whatever the table's size. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "ctldev.h"
#include "dev.h"
#include "elf.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "symtab.h"

extern char _text_start[], _text_end[];

static struct symtab ktab;
const struct symtab symtab_none;        /* an empty span: every lookup misses */
static int holds;
static uint32_t loaded;

/* the bucket size for n symbols over span bytes: the smallest power of
 * two that makes at most 4n buckets, so that a bucket is about a quarter
 * of the mean symbol and the scan from it rarely takes a step */
static uint32_t shift_for(uint32_t span, uint32_t n)
{
	uint32_t s = 0;

	while (s < 31 && (span >> s) > 4 * MAX(n, 1))
		s++;
	return s;
}

static uint32_t nbuckets(const struct symtab *t)
{
	return ((t->hi - t->lo) >> t->shift) + 1;
}

static void build_index(struct symtab *t)
{
	uint32_t i = 0;

	for (uint32_t b = 0; b < nbuckets(t); b++) {
		uint32_t at = t->lo + (b << t->shift);
		while (i + 1 < t->n && t->syms[i + 1].addr <= at)
			i++;
		t->index[b] = i;
	}
}

void symtab_init(void)
{
	if (ktab.index)
		return;         /* the in-kernel tests came first */
	ktab.syms = ksym_table;
	ktab.names = ksym_names;
	ktab.n = ksym_count;
	ktab.lo = (uint32_t)_text_start;
	ktab.hi = (uint32_t)_text_end;
	ktab.shift = shift_for(ktab.hi - ktab.lo, ktab.n);
	ktab.index = kalloc_contig(ROUNDUP(nbuckets(&ktab) * 4, PGSIZE) / PGSIZE);
	if (!ktab.index)
		panic("symtab: no memory for the kernel's index");
	build_index(&ktab);
}

const struct symtab *symtab_kernel(void)
{
	return &ktab;
}

bool symtab_covers(const struct symtab *t, uint32_t pc)
{
	return t && pc - t->lo < t->hi - t->lo;
}

uint32_t symtab_count(const struct symtab *t)
{
	return t ? t->n : 0;
}

const char *symtab_name(const struct symtab *t, int i)
{
	return t->names + t->syms[i].name;
}

uint32_t symtab_addr(const struct symtab *t, int i)
{
	return t->syms[i].addr;
}

uint32_t symtab_size(const struct symtab *t, int i)
{
	return t->syms[i].size;
}

void symtab_format(char *buf, size_t n, uint32_t pc, bool ret)
{
	int i = ktab.n ? symtab_find(&ktab, ret ? pc - 1 : pc) : -1;

	if (i < 0)
		ksnprintf(buf, n, "0x%08x", pc);
	else
		ksnprintf(buf, n, "%s+0x%x", symtab_name(&ktab, i), pc - symtab_addr(&ktab, i));
}

/* ---- programs ---- */

void symtab_hold(void)
{
	holds++;
}

void symtab_release(void)
{
	if (holds > 0)
		holds--;
}

uint32_t symtab_loaded(void)
{
	return loaded;
}

#define STT_NOTYPE 0
#define STT_FUNC   2
#define NAMEMAX    64

/* a symbol worth a name: a function, or an assembly label, inside the
 * program's executable segment */
static bool wanted(const struct elfsym *s, const char *name, uint32_t lo, uint32_t hi)
{
	uint32_t type = s->info & 0xf;

	return (type == STT_FUNC || type == STT_NOTYPE) && s->shndx != 0 && name[0] &&
	       name[0] != '$' && s->value - lo < hi - lo;
}

static int byaddr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;     /* the sized one last */
}

static inline bool before(const struct ksym *x, const struct ksym *y)
{
	return x->addr != y->addr ? x->addr < y->addr : x->size < y->size;
}

/* Sorts n symbols by byaddr's order: a bottom-up merge sort through tmp
 * (room for n), its compare inline, a tenth of the heapsort's
 * instructions on a glibc program's 3,000 functions (a sort at spawn);
 * ksort, in place, when there is no memory for tmp. */
static void sort_syms(struct ksym *a, uint32_t n)
{
	uint32_t pages = ROUNDUP(n * sizeof *a, PGSIZE) / PGSIZE;
	struct ksym *tmp = n > 1 ? kalloc_contig(pages) : NULL, *src = a, *dst = tmp;

	if (!tmp) {
		ksort(a, n, sizeof *a, byaddr);
		return;
	}
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = MIN(lo + w, n), hi = MIN(lo + 2 * w, n), i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct ksym *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	kfree_contig(tmp, pages);
}

/* A program's symbol and string tables, read whole (two reads, not two
 * or three a symbol: a glibc program has thousands), while load runs. */
struct symfile {
	const struct elfsym *syms;
	uint32_t nsyms;
	const char *strs;       /* NUL after its last byte */
	uint32_t strsize;
	void *mem;
	uint32_t pages;
};

static int symfile_open(const struct elf_image *img, const struct secthdr *sh, struct symfile *f)
{
	struct secthdr str;
	uint32_t symbytes = ROUNDUP(sh->size, 4);

	memset(f, 0, sizeof *f);
	if (sh->entsize != sizeof(struct elfsym) || elf_section(img, sh->link, &str) < 0 ||
	    sh->size > img->size || str.size > img->size)
		return -ENOEXEC;
	f->pages = ROUNDUP(symbytes + str.size + 1, PGSIZE) / PGSIZE;
	if (!(f->mem = kalloc_contig(f->pages)))
		return -ENOMEM;
	if (elf_read(img, f->mem, sh->size, sh->offset) < 0 ||
	    elf_read(img, (char *)f->mem + symbytes, str.size, str.offset) < 0) {
		kfree_contig(f->mem, f->pages);
		return -ENOEXEC;
	}
	f->syms = f->mem;
	f->nsyms = sh->size / sizeof(struct elfsym);
	f->strs = (char *)f->mem + symbytes;
	f->strsize = str.size;
	return 0;       /* kalloc_contig zeroed it: the NUL after the strings is there */
}

/* the next function symbol from *i on, and its name; NULL at the end */
static const struct elfsym *next_wanted(const struct symfile *f, uint32_t *i, uint32_t lo, uint32_t hi,
					const char **name)
{
	for (; *i < f->nsyms; ++*i) {
		const struct elfsym *s = &f->syms[*i];
		if (s->name >= f->strsize)
			continue;
		*name = f->strs + s->name;
		if (wanted(s, *name, lo, hi)) {
			++*i;
			return s;
		}
	}
	return NULL;
}

/* Reads a program's function symbols into one allocation: the table,
 * then the syms, the index and the names. NULL if it has none (*err 0)
 * or there is no memory (*err -ENOMEM). Two passes over the tables read
 * whole: count, then copy. */
static struct symtab *load(const struct elf_image *img, int *err)
{
	struct secthdr sh;
	struct symfile f;
	const struct elfsym *s;
	const char *name;
	uint32_t lo = ~0u, hi = 0, n = 0, bytes = 0, size, total;
	struct symtab *t;
	char *names;
	int r;

	*err = 0;
	for (int i = 0; i < img->nph; i++)
		if (img->ph[i].flags & 1) {     /* PF_X */
			lo = MIN(lo, img->ph[i].vaddr);
			hi = MAX(hi, img->ph[i].vaddr + img->ph[i].memsz);
		}
	if (lo >= hi || elf_find_section(img, SHT_SYMTAB, &sh) < 0)
		return NULL;
	if ((r = symfile_open(img, &sh, &f)) < 0) {
		*err = r == -ENOMEM ? r : 0;
		return NULL;
	}
	for (uint32_t i = 0; next_wanted(&f, &i, lo, hi, &name);) {
		n++;
		bytes += strnlen(name, NAMEMAX - 1) + 1;       /* a longer name is cut */
	}
	if (n == 0) {
		kfree_contig(f.mem, f.pages);
		return NULL;
	}
	t = NULL;
	{
		struct symtab probe = { .n = n, .lo = lo, .hi = hi, .shift = shift_for(hi - lo, n) };
		size = ROUNDUP(sizeof *t, 8) + (n + 1) * sizeof(struct ksym) + nbuckets(&probe) * 4 + bytes;
		total = ROUNDUP(size, PGSIZE) / PGSIZE;
		if (!(t = kalloc_contig(total))) {
			kfree_contig(f.mem, f.pages);
			*err = -ENOMEM;
			return NULL;
		}
		*t = probe;
	}
	t->npages = total;
	t->syms = (struct ksym *)((char *)t + ROUNDUP(sizeof *t, 8));
	t->index = (uint32_t *)(t->syms + n + 1);     /* after the sentinel */
	names = (char *)(t->index + nbuckets(t));
	t->names = names;
	n = bytes = 0;
	for (uint32_t i = 0; n < t->n && (s = next_wanted(&f, &i, lo, hi, &name));) {
		struct ksym *k = (struct ksym *)&t->syms[n];
		*k = (struct ksym){ s->value, s->value + s->size, s->size, bytes };
		strlcpy(names + bytes, name, NAMEMAX);
		bytes += strnlen(name, NAMEMAX - 1) + 1;
		n++;
	}
	kfree_contig(f.mem, f.pages);
	t->n = n;
	sort_syms((struct ksym *)t->syms, n);
	((struct ksym *)t->syms)[n] = (struct ksym){ 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0 };
	/* a symbol without a size runs to the next that starts after it, the
	 * last one to the text's end */
	for (uint32_t i = 0; i < n; i++) {
		struct ksym *k = (struct ksym *)&t->syms[i];
		uint32_t j = i + 1;
		if (k->size)
			continue;
		while (j < n && t->syms[j].addr <= k->addr)
			j++;
		k->end = j < n ? t->syms[j].addr : hi;
	}
	build_index(t);
	t->refs = 1;
	loaded++;
	return t;
}

/* A program whose table cannot be had runs without one: its samples are
 * a module without symbols. Running out of memory for it is said, since
 * the report would otherwise not tell why. */
void symtab_spawn(struct proc *p, const struct elf_image *img)
{
	int err;

	p->syms = holds > 0 ? load(img, &err) : NULL;
	if (holds > 0 && !p->syms && err)
		kprintf("symtab: pid %d (%s): no memory for its symbols; it runs without them\n",
			p->pid, p->name);
}

void symtab_exit(struct proc *p)
{
	symtab_put(p->syms);
	p->syms = NULL;
}

struct symtab *symtab_get(struct proc *p)
{
	if (p->syms)
		p->syms->refs++;
	return p->syms;
}

void symtab_put(struct symtab *t)
{
	if (!t || t == &ktab || --t->refs > 0)
		return;
	loaded--;
	kfree_contig(t, t->npages);
}

/* /dev/ksyms: the kernel's table, one "address size name" line each, in
 * the table's order */
static void ksyms_text(struct textbuf *t)
{
	for (uint32_t i = 0; i < ktab.n; i++)
		text_add(t, "%08x %08x %s\n", ktab.syms[i].addr, ktab.syms[i].size,
			 ktab.names + ktab.syms[i].name);
}

static const struct ctlfile files[] = { { .name = "ksyms", .text = ksyms_text } };
static struct ctldev ksymsdev = { .name = "ksyms", .files = files, .nfiles = NELEM(files) };

void symtab_devinit(void)
{
	ctldev_register(&ksymsdev);
}
