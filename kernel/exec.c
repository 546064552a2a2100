/* spawn: a new process from an ELF32 executable. The whole file is checked
 * before anything is allocated, so a bad or truncated ELF gives -ENOEXEC
 * and touches nothing. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "abi/syscall.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"

#define EI_NIDENT 16
#define PT_LOAD   1
#define MAXPHDR   16

struct elfhdr {
	uint8_t ident[EI_NIDENT];
	uint16_t type, machine;
	uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct proghdr {
	uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

static int readat(struct vnode *v, void *buf, uint32_t n, uint32_t off)
{
	int r = v->ops->read(v, NULL, buf, n, off);
	return r == (int)n ? 0 : -ENOEXEC;
}

/* true if [va, va+n) fits in the part of user space below the stack */
static bool inuser(uint32_t va, uint32_t n)
{
	uint32_t top = USER_TOP - USER_STACK_SIZE;
	return va >= USER_BASE && va <= top && n <= top - va;
}

static int check(struct vnode *v, struct elfhdr *eh, struct proghdr *ph, int *nph)
{
	uint32_t size = v->ops->size(v, NULL);
	int n = 0;

	if (size < sizeof *eh || readat(v, eh, sizeof *eh, 0) < 0)
		return -ENOEXEC;
	if (memcmp(eh->ident, "\177ELF", 4) != 0 || eh->ident[4] != 1 /* 32-bit */ ||
	    eh->ident[5] != 1 /* little-endian */ || eh->type != 2 /* EXEC */ ||
	    eh->machine != 3 /* i386 */ || eh->phentsize != sizeof(struct proghdr) ||
	    eh->phnum == 0 || eh->phnum > MAXPHDR || eh->phoff > size ||
	    eh->phnum * sizeof(struct proghdr) > size - eh->phoff)
		return -ENOEXEC;
	for (int i = 0; i < eh->phnum; i++) {
		struct proghdr *p = &ph[n];
		if (readat(v, p, sizeof *p, eh->phoff + i * sizeof *p) < 0)
			return -ENOEXEC;
		if (p->type != PT_LOAD)
			continue;
		if (p->filesz > p->memsz || !inuser(p->vaddr, p->memsz) ||
		    p->offset > size || p->filesz > size - p->offset)
			return -ENOEXEC;
		n++;
	}
	if (n == 0 || !inuser(eh->entry, 1))
		return -ENOEXEC;
	*nph = n;
	return 0;
}

/* maps zeroed pages over [va, va+n) where none are mapped yet */
static int mapzero(uint32_t *pgdir, uint32_t va, uint32_t n)
{
	for (uint32_t pg = ROUNDDOWN(va, PGSIZE); pg < va + n; pg += PGSIZE) {
		void *page;
		if (arch_user_page(pgdir, pg))
			continue;
		if (!(page = kalloc()))
			return -ENOMEM;
		if (!arch_map_user(pgdir, pg, (uint32_t)page)) {
			kfree(page);
			return -ENOMEM;
		}
	}
	return 0;
}

static int load(struct vnode *v, uint32_t *pgdir, struct proghdr *ph)
{
	int r = mapzero(pgdir, ph->vaddr, ph->memsz);
	if (r < 0)
		return r;
	for (uint32_t done = 0; done < ph->filesz;) {
		uint32_t va = ph->vaddr + done;
		uint32_t chunk = MIN(ph->filesz - done, PGSIZE - va % PGSIZE);
		uint8_t *k = (uint8_t *)(arch_user_page(pgdir, ROUNDDOWN(va, PGSIZE)) + va % PGSIZE);
		if (readat(v, k, chunk, ph->offset + done) < 0)
			return -ENOEXEC;
		done += chunk;
	}
	return 0;
}

/* argc, argv and the strings at the top of the new stack; returns esp */
static uint32_t pushargs(uint32_t *pgdir, int argc, char *const argv[])
{
	uint32_t sp = USER_TOP, uargv[SPAWN_MAXARGS + 1];

	for (int i = argc - 1; i >= 0; i--) {
		uint32_t len = strlen(argv[i]) + 1;
		sp -= len;
		for (uint32_t j = 0; j < len; j++) {
			uint32_t va = sp + j;
			*(char *)(arch_user_page(pgdir, ROUNDDOWN(va, PGSIZE)) + va % PGSIZE) = argv[i][j];
		}
		uargv[i] = sp;
	}
	uargv[argc] = 0;
	sp = ROUNDDOWN(sp, 4);
	sp -= 4 * (argc + 1);
	for (int i = 0; i <= argc; i++) {
		uint32_t va = sp + 4 * i;
		*(uint32_t *)(arch_user_page(pgdir, ROUNDDOWN(va, PGSIZE)) + va % PGSIZE) = uargv[i];
	}
	uint32_t argvp = sp;
	sp -= 8;
	*(uint32_t *)(arch_user_page(pgdir, ROUNDDOWN(sp, PGSIZE)) + sp % PGSIZE) = argc;
	*(uint32_t *)(arch_user_page(pgdir, ROUNDDOWN(sp, PGSIZE)) + sp % PGSIZE + 4) = argvp;
	return sp;
}

int proc_spawn(const char *path, int argc, char *const argv[], struct file *const files[3])
{
	struct elfhdr eh;
	struct proghdr ph[MAXPHDR];
	struct vnode *v;
	struct proc *p, *parent = curproc();
	uint32_t *pgdir, end = 0, sp;
	const char *base;
	int nph, r;

	if ((r = vfs_lookup(path, &v)) < 0)
		return r;
	if (v->type != S_IFILE)
		return -ENOEXEC;
	if ((r = check(v, &eh, ph, &nph)) < 0)
		return r;
	if (!(p = allocproc()))
		return -EAGAIN;
	if (!(pgdir = arch_pgdir_new())) {
		freeproc(p);
		return -ENOMEM;
	}
	for (int i = 0; i < nph; i++) {
		if ((r = load(v, pgdir, &ph[i])) < 0)
			goto bad;
		end = MAX(end, ph[i].vaddr + ph[i].memsz);
	}
	if ((r = mapzero(pgdir, USER_TOP - USER_STACK_SIZE, USER_STACK_SIZE)) < 0)
		goto bad;
	sp = pushargs(pgdir, argc, argv);

	p->pgdir = pgdir;
	p->heap_start = p->brk = ROUNDUP(end, PGSIZE);
	p->ppid = parent ? parent->pid : 0;
	base = strchr(path, 0);
	while (base > path && base[-1] != '/')
		base--;
	strlcpy(p->name, base, sizeof p->name);
	strlcpy(p->cwd, parent ? parent->cwd : "/", sizeof p->cwd);
	for (int i = 0; i < 3; i++)
		p->ofile[i] = files[i] ? file_dup(files[i]) : NULL;
	arch_user_entry_frame(p->tf, eh.entry, sp);
	p->state = P_READY;
	return p->pid;
bad:
	arch_pgdir_free(pgdir);
	freeproc(p);
	return r;
}
