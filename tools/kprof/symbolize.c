/* symbolize.c: each ELF a module of its own libdwfl session (user programs
 * are all linked at one address, so they cannot share one), its build-id,
 * its executable sections, and the ranges of addresses that libdwfl gives
 * one answer for. The ranges are made once, sorted, so a profile is one
 * merge of sorted counts against them, and libdwfl has the last word on
 * nested functions, aliases and assembler labels. And a frame's name, for
 * every writer: its function, the functions inlined there as frames of
 * their own (unless --no-inline), a kernel frame's suffix, [unknown]. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "kprof.h"

/* The ELF named on the command line is the debug information: never look
 * for another file. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file, const char *debuglink,
			GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file;
	(void)debuglink, (void)crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int cmp_sect(const void *a, const void *b)
{
	const struct ksect *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The executable section holding addr, by binary search. */
static const struct ksect *sect_at(const struct kelf *ke, uint64_t addr)
{
	size_t lo = 0, hi = ke->ntext;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < ke->text[mid].addr)
			hi = mid;
		else if (addr - ke->text[mid].addr >= ke->text[mid].size)
			lo = mid + 1;
		else
			return &ke->text[mid];
	}
	return NULL;
}

/* The checks that give a clear message before libdwfl sees the file. */
static int check_file(const char *path, int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	int r = -1;

	if (e == NULL || elf_kind(e) != ELF_K_ELF)
		kp_error("%s: not an ELF file", path);
	else if (gelf_getclass(e) != ELFCLASS32)
		kp_error("%s: a 64-bit ELF; the kernel is a 32-bit (ELFCLASS32) i386 ELF", path);
	else if (gelf_getehdr(e, &eh) == NULL)
		kp_error("%s: damaged ELF header: %s", path, elf_errmsg(-1));
	else if (eh.e_machine != EM_386)
		kp_error("%s: not an i386 ELF (e_machine %d)", path, eh.e_machine);
	else
		r = 0;
	if (e)
		elf_end(e);
	return r;
}

static int read_sections(struct kelf *ke, Dwarf_Addr bias)
{
	size_t cap = 0;

	for (Elf_Scn *scn = elf_nextscn(ke->elf, NULL); scn; scn = elf_nextscn(ke->elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		struct ksect *t;

		if (gelf_getshdr(scn, &sh) == NULL ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
		    sh.sh_size == 0 || sh.sh_addr + bias + sh.sh_size > 0x100000000ull)
			continue;
		if (ke->ntext == cap) {
			cap = cap ? 2 * cap : 8;
			ke->text = kp_reallocarray(ke->text, cap, sizeof *ke->text);
		}
		t = &ke->text[ke->ntext++];
		t->addr = sh.sh_addr + bias;
		t->size = sh.sh_size;
		t->bytes = NULL;
		d = sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size == sh.sh_size)
			t->bytes = d->d_buf;
	}
	if (ke->ntext == 0) {
		kp_error("%s: no executable sections", ke->path);
		return -1;
	}
	qsort(ke->text, ke->ntext, sizeof *ke->text, cmp_sect);
	/* overlapping sections would make "the section at addr" ambiguous */
	for (size_t i = 1; i < ke->ntext; i++)
		if (ke->text[i].addr < ke->text[i - 1].addr + ke->text[i - 1].size) {
			kp_error("%s: executable sections overlap at 0x%08jx", ke->path,
				 (uintmax_t)ke->text[i].addr);
			return -1;
		}
	ke->text_lo = ke->text[0].addr;
	ke->text_hi = ke->text[ke->ntext - 1].addr + ke->text[ke->ntext - 1].size;
	return 0;
}

/* A range's answer before it has an index in syms. */
struct answer {
	struct ksym s;
	size_t range;
};

static int cmp_answer(const void *a, const void *b)
{
	const struct answer *x = a, *y = b;
	int c;

	if (x->s.value != y->s.value)
		return x->s.value < y->s.value ? -1 : 1;
	if (x->s.name != y->s.name && (c = strcmp(x->s.name, y->s.name)) != 0)
		return c;
	return x->range < y->range ? -1 : x->range > y->range;
}

static int same_answer(const struct ksym *a, const struct ksym *b)
{
	return a->value == b->value && (a->name == b->name || strcmp(a->name, b->name) == 0);
}

/* A sized symbol starting (+1) or ending (-1) at addr. */
struct edge {                   /* the address first: kp_sort_by_u64 sorts by it */
	uint64_t addr;
	int delta;
	size_t sym;
};

static void add_range(struct kelf *ke, struct answer *ans, size_t *na, uint64_t start,
		      uint64_t end, const struct ksym *k)
{
	struct krange *last = ke->nranges ? &ke->ranges[ke->nranges - 1] : NULL;

	if (last && last->end == start && same_answer(&ans[*na - 1].s, k)) {
		last->end = end;
		return;
	}
	ke->ranges[ke->nranges].start = start;
	ke->ranges[ke->nranges].end = end;
	ans[*na].s = *k;
	ans[*na].range = ke->nranges++;
	(*na)++;
}

/* Every address where libdwfl's answer may change is a symbol's start or
 * end or a section's edge, so between two of them one answer holds. Where
 * exactly one sized symbol covers the addresses that symbol is the answer
 * (libdwfl takes a covering sized symbol over any other); only where none
 * or several do (padding, assembler labels, nested functions, aliases) is
 * libdwfl asked, since each of its answers is a walk of the whole table. */
static int read_ranges(struct kelf *ke)
{
	Dwfl_Module *mod = ke->mod;
	int nsym = dwfl_module_getsymtab(mod);
	size_t nb = 0, na = 0, ne = 0, e = 0, covering = 0, which = 0;
	uint64_t *b;
	struct ksym *sized;
	struct edge *edges;
	struct answer *ans;

	if (nsym <= 0) {
		kp_error("%s: no symbol table (stripped?); kprof needs the unstripped kernel", ke->path);
		return -1;
	}
	b = kp_calloc(2 * ke->ntext + 2 * (size_t)nsym, sizeof *b);
	sized = kp_calloc((size_t)nsym, sizeof *sized);
	edges = kp_calloc(2 * (size_t)nsym, sizeof *edges);
	for (size_t i = 0; i < ke->ntext; i++) {
		b[nb++] = ke->text[i].addr;
		b[nb++] = ke->text[i].addr + ke->text[i].size;
	}
	for (int i = 0; i < nsym; i++) {
		GElf_Sym s;
		GElf_Addr addr, end;
		GElf_Word shndx;
		const struct ksect *t;
		const char *name;
		int type;

		name = dwfl_module_getsym_info(mod, i, &s, &addr, &shndx, NULL, NULL);
		if (name == NULL)
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS ||
		    (t = sect_at(ke, addr)) == NULL)
			continue;
		b[nb++] = addr;
		if (s.st_size == 0)
			continue;
		end = s.st_size < t->addr + t->size - addr ? addr + s.st_size : t->addr + t->size;
		b[nb++] = end;
		/* the symbols libdwfl would weigh: named and defined */
		if (name[0] == '\0' || s.st_shndx == SHN_UNDEF)
			continue;
		sized[i].name = name;
		sized[i].value = addr;
		sized[i].size = s.st_size;
		sized[i].type = (unsigned char)type;
		sized[i].bind = (unsigned char)GELF_ST_BIND(s.st_info);
		edges[ne++] = (struct edge){ addr, 1, (size_t)i };
		edges[ne++] = (struct edge){ end, -1, (size_t)i };
	}
	kp_sort_by_u64(b, nb, sizeof *b);
	kp_sort_by_u64(edges, ne, sizeof *edges);      /* by address: struct edge starts with it */

	ke->ranges = kp_calloc(nb, sizeof *ke->ranges);
	ans = kp_calloc(nb, sizeof *ans);
	for (size_t i = 0; i + 1 < nb; i++) {
		GElf_Off off;
		GElf_Sym s;
		const char *name;
		struct ksym k;

		/* the sized symbols covering [b[i], b[i + 1]): a count, and the
		 * sum of their indexes, which is the index when the count is 1 */
		for (; e < ne && edges[e].addr <= b[i]; e++) {
			covering += (size_t)edges[e].delta;
			which += edges[e].delta > 0 ? edges[e].sym : -edges[e].sym;
		}
		if (b[i] == b[i + 1] || sect_at(ke, b[i]) == NULL)
			continue;
		if (covering == 1) {
			add_range(ke, ans, &na, b[i], b[i + 1], &sized[which]);
			continue;
		}
		name = dwfl_module_addrinfo(mod, b[i], &off, &s, NULL, NULL, NULL);
		if (name == NULL || name[0] == '\0' || off > b[i])
			continue;
		k.name = name;
		k.value = b[i] - off;
		k.size = s.st_size;
		k.type = (unsigned char)GELF_ST_TYPE(s.st_info);
		k.bind = (unsigned char)GELF_ST_BIND(s.st_info);
		add_range(ke, ans, &na, b[i], b[i + 1], &k);
	}
	free(b);
	free(sized);
	free(edges);
	if (na == 0) {
		free(ans);
		kp_error("%s: the symbol table has no symbols in executable sections", ke->path);
		return -1;
	}
	/* one entry per symbol, however many ranges it owns (an outer function
	 * around an inner one owns two) */
	qsort(ans, na, sizeof *ans, cmp_answer);
	ke->syms = kp_calloc(na, sizeof *ke->syms);
	for (size_t i = 0; i < na; i++) {
		if (ke->nsyms == 0 || !same_answer(&ke->syms[ke->nsyms - 1], &ans[i].s))
			ke->syms[ke->nsyms++] = ans[i].s;
		ke->ranges[ans[i].range].sym = (uint32_t)(ke->nsyms - 1);
	}
	free(ans);
	return 0;
}

int kelf_open(struct kelf *ke, const char *path, uint64_t load)
{
	struct stat st;
	const unsigned char *id;
	GElf_Addr idaddr;
	Dwarf_Addr bias;
	int fd, idlen;

	memset(ke, 0, sizeof *ke);
	ke->path = path;
	ke->load = load;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		kp_error("libelf is out of date");
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		kp_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		kp_error("%s: not a regular file", path);
		close(fd);
		return -1;
	}
	/* libelf maps the file, but a damaged one can still make it allocate */
	if ((uintmax_t)st.st_size > KELF_MAX_BYTES) {
		kp_error("%s: too large for a kernel or program ELF (%jd bytes, at most %u)", path,
			 (intmax_t)st.st_size, KELF_MAX_BYTES);
		close(fd);
		return -1;
	}
	if (check_file(path, fd) < 0) {
		close(fd);
		return -1;
	}
	ke->dwfl = dwfl_begin(&callbacks);
	if (ke->dwfl == NULL) {
		kp_error("libdwfl: %s", dwfl_errmsg(-1));
		close(fd);
		return -1;
	}
	dwfl_report_begin(ke->dwfl);
	ke->mod = dwfl_report_elf(ke->dwfl, path, path, fd, load, false);
	if (ke->mod == NULL) {
		kp_error("%s: %s", path, dwfl_errmsg(-1));
		close(fd);                  /* consumed only on success */
		goto fail;
	}
	dwfl_report_end(ke->dwfl, NULL, NULL);
	ke->elf = dwfl_module_getelf(ke->mod, &bias);
	if (ke->elf == NULL) {
		kp_error("%s: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	idlen = dwfl_module_build_id(ke->mod, &id, &idaddr);
	if (idlen > 0)
		kp_hex(ke->build_id, sizeof ke->build_id, id, (size_t)idlen);
	if (read_sections(ke, bias) < 0 || read_ranges(ke) < 0)
		goto fail;
	return 0;
fail:
	kelf_close(ke);
	return -1;
}

void kelf_close(struct kelf *ke)
{
	free(ke->syms);
	free(ke->ranges);
	free(ke->text);
	free(ke->inl);
	if (ke->dwfl)
		dwfl_end(ke->dwfl);
	memset(ke, 0, sizeof *ke);
}

/* The range holding addr. With a cursor, calls must come with addr not
 * decreasing (the merge); without one it is a binary search. */
const struct krange *kelf_range(const struct kelf *ke, uint64_t addr, size_t *cursor)
{
	size_t lo = 0, hi = ke->nranges;

	if (cursor) {
		while (*cursor < ke->nranges && ke->ranges[*cursor].end <= addr)
			(*cursor)++;
		lo = *cursor;
		if (lo < ke->nranges && ke->ranges[lo].start <= addr)
			return &ke->ranges[lo];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < ke->ranges[mid].start)
			hi = mid;
		else if (addr >= ke->ranges[mid].end)
			lo = mid + 1;
		else
			return &ke->ranges[mid];
	}
	return NULL;
}

/* The section bytes at addr, for the disassembler. */
const unsigned char *kelf_bytes(const struct kelf *ke, uint64_t addr, size_t *avail)
{
	const struct ksect *t = sect_at(ke, addr);

	*avail = 0;
	if (t == NULL || t->bytes == NULL)
		return NULL;
	*avail = t->size - (addr - t->addr);
	return t->bytes + (addr - t->addr);
}

int symbolizer_open(struct symbolizer *sy, const char *const *paths, size_t n)
{
	memset(sy, 0, sizeof *sy);
	sy->elfs = kp_calloc(n, sizeof *sy->elfs);
	for (size_t i = 0; i < n; i++) {
		if (kelf_open(&sy->elfs[i], paths[i], 0) < 0) {
			symbolizer_close(sy);
			return -1;
		}
		sy->n++;
	}
	return 0;
}

void symbolizer_close(struct symbolizer *sy)
{
	for (size_t i = 0; i < sy->n; i++)
		kelf_close(&sy->elfs[i]);
	free(sy->elfs);
	free(sy->of);
	for (size_t i = 0; i < sy->names.names.cap; i++)
		if (sy->names.names.s && sy->names.names.s[i].tag)
			free((void *)sy->names.names.s[i].val);
	kvmap_free(&sy->names.names);
	strtab_free(&sy->names.chains);
	kvmap_free(&sy->names.suffixed);
	memset(sy, 0, sizeof *sy);
}

/* ---- a frame's name, the same in every writer ---- */

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

#define INLINED_MAX 64            /* the inlined frames of one physical frame kept */

/* the chain of names as one string, one pointer per string */
static const char *joined(struct symbolizer *sy, const struct kchain *c)
{
	size_t len = 0, k;
	char *s;

	if (c->n == 1)
		return c->f[0].name;
	for (size_t j = 0; j < c->n; j++)
		len += strlen(c->f[j].name) + 1;
	s = kp_calloc(len, 1);
	for (size_t j = 0; j < c->n; j++) {
		if (j)
			strcat(s, ";");
		strcat(s, c->f[j].name);
	}
	k = strtab_index(&sy->names.chains, s);
	free(s);
	return sy->names.chains.v[k];
}

static struct kchain *lookup_chain(struct symbolizer *sy, const struct frame *f, int leaf)
{
	struct kelf *ke = NULL;
	const struct krange *r = NULL;
	uint64_t at = leaf ? f->addr : f->addr - 1;     /* a return address: its call */
	const char *inl[INLINED_MAX], *files[INLINED_MAX];
	int ninl = 0, lines[INLINED_MAX];
	struct kchain *c;

	if (f->mod < sy->nof && sy->of[f->mod] >= 0) {
		ke = &sy->elfs[sy->of[f->mod]];
		r = kelf_range(ke, at, NULL);
	}
	if (r && !sy->no_inline)
		ninl = kelf_inlined(ke, at, inl, sy->lines ? files : NULL, lines, INLINED_MAX);
	c = kp_calloc(1, sizeof *c + (1 + (size_t)ninl) * sizeof c->f[0]);
	c->n = 1 + (size_t)ninl;
	c->f[0] = (struct kframe){ f->mod, r ? ke->syms[r->sym].name : FRAME_UNKNOWN, 0, NULL, 0 };
	for (int j = 0; j < ninl; j++) {
		size_t k = strtab_index(&sy->names.chains, inl[j]);        /* one pointer per name */

		c->f[1 + j] = (struct kframe){ f->mod, sy->names.chains.v[k], 1, NULL, 0 };
	}
	if (sy->lines && r) {           /* each frame's line: its call of the next, the last the address's */
		Dwfl_Line *l = ke->mod ? dwfl_module_getsrc(ke->mod, at) : NULL;

		for (int j = 0; j < ninl; j++) {
			c->f[j].file = files[j];
			c->f[j].line = lines[j];
		}
		if (l)
			c->f[ninl].file = dwfl_lineinfo(l, NULL, &c->f[ninl].line, NULL, NULL, NULL);
	}
	c->joined = joined(sy, c);
	return c;
}

/* A frame's chain; the same frame (a big profile has many) is looked up
 * once: the answers are kept in the symbolizer. */
const struct kchain *frame_chain(struct symbolizer *sy, const struct frame *f, int leaf)
{
	int made;
	uintptr_t *v = kvmap_slot(&sy->names.names, f->addr, f->mod << 1 | (leaf != 0), &made);

	if (made)
		*v = (uintptr_t)lookup_chain(sy, f, leaf);
	return (const struct kchain *)*v;
}

const char *frame_name(struct symbolizer *sy, const struct frame *f, int leaf)
{
	return frame_chain(sy, f, leaf)->joined;
}

/* a frame's name with the suffix, as a string of the symbolizer: by the
 * name's pointer (the chains give each name once), so made once */
static const char *suffixed(struct symbolizer *sy, const char *name, const char *suffix)
{
	struct namecache *c = &sy->names;
	uintptr_t *v;
	int made;

	if (!*suffix)
		return name;
	if (c->suffix && strcmp(c->suffix, suffix))     /* another writer's suffix: start again */
		kvmap_free(&c->suffixed);
	c->suffix = suffix;
	v = kvmap_slot(&c->suffixed, (uintptr_t)name, 0, &made);
	if (made) {
		char *s = kp_fmt("%s%s", name, suffix);
		size_t k = strtab_index(&sy->names.chains, s);

		*v = (uintptr_t)sy->names.chains.v[k];
		free(s);
	}
	return (const char *)*v;
}

size_t stack_frames(struct symbolizer *sy, const struct sampleset *ss, size_t i, const char *ksuffix,
		    const char **out, size_t max, uint64_t *w)
{
	struct frame one;
	uint32_t nfr;
	const struct frame *f = sampleset_stack(ss, i, &one, &nfr, w);
	const struct stack *st = ss->stacks ? &ss->stacks[i] : NULL;
	size_t n = 0;

	if (max)
		out[n++] = stack_root(ss, i);
	if (st && (st->flags & STK_IDLE))
		return n;
	if (st && (st->flags & STACK_TRUNCATED) && n < max)
		out[n++] = "[truncated]";
	for (uint32_t k = nfr; k-- > 0;) {
		const struct kchain *c = frame_chain(sy, &f[k], k == 0);
		const char *suffix = f[k].mod == 0 && ss->stacks ? ksuffix : "";

		for (size_t j = 0; j < c->n && n < max; j++)
			out[n++] = suffixed(sy, c->f[j].name, suffix);
	}
	return n;
}

const char *stack_root(const struct sampleset *ss, size_t i)
{
	const struct stack *st = ss->stacks ? &ss->stacks[i] : NULL;
	const struct module *root = NULL;

	if (st && (st->flags & STK_IDLE))
		return "idle";
	if (st && st->prog && st->prog < ss->nmods && ss->mods[st->prog].path)
		root = &ss->mods[st->prog];
	else if (!st && ss->mods[ss->flat[i].mod].path)
		root = &ss->mods[ss->flat[i].mod];
	return root ? base(root->path) : FRAME_UNKNOWN;
}

/* A flat report's row for a leaf frame's name: as frame_name gives it,
 * after its module's name ("prog!main;bubble") when the dump has several
 * modules (the dump's own name for it, which tells apart two modules
 * named by one ELF: a program and its stripped copy). The caller frees. */
char *frame_label(const struct symbolizer *sy, const struct sampleset *ss, uint32_t mod, const char *name)
{
	if (ss->nmods <= 1)
		return kp_strdup(name);
	return kp_fmt("%s!%s", module_name(sy, ss, mod), name);
}

const char *module_name(const struct symbolizer *sy, const struct sampleset *ss, uint32_t mod)
{
	if (mod < ss->nmods && ss->mods[mod].path)
		return base(ss->mods[mod].path);
	if (mod < sy->nof && sy->of[mod] >= 0)
		return base(sy->elfs[sy->of[mod]].path);
	return FRAME_UNKNOWN;
}
