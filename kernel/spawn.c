/* spawn: a new process built straight from an ELF32 executable (see the
 * comment at the top of proc.c for why there is no fork). The file is
 * checked whole (elf.c) before anything is allocated. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "abi/syscall.h"
#include <linux/auxvec.h>       /* AT_*: Linux's auxiliary vector */
#include "elf.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/prof.h"

/* maps zeroed pages over [va, va+n) where none are mapped yet */
static int mapzero(uint32_t *pgdir, uint32_t va, uint32_t n)
{
	for (uint32_t pg = ROUNDDOWN(va, PGSIZE); pg < va + n; pg += PGSIZE) {
		void *page;
		if (arch_user_page(pgdir, pg))
			continue;
		if (!(page = kalloc()))
			return -ENOMEM;
		if (!arch_map_user(pgdir, pg, page)) {
			kfree(page);
			return -ENOMEM;
		}
	}
	return 0;
}

static int load(const struct elf_image *im, uint32_t *pgdir, const struct proghdr *ph)
{
	int r = mapzero(pgdir, ph->vaddr, ph->memsz);
	if (r < 0)
		return r;
	for (uint32_t done = 0; done < ph->filesz;) {
		uint32_t va = ph->vaddr + done;
		uint32_t chunk = MIN(ph->filesz - done, PGSIZE - va % PGSIZE);
		uint8_t *k = arch_user_kptr(pgdir, va);
		if (elf_read(im, k, chunk, ph->offset + done) < 0)
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
			*(char *)arch_user_kptr(pgdir, va) = argv[i][j];
		}
		uargv[i] = sp;
	}
	uargv[argc] = 0;
	sp = ROUNDDOWN(sp, 4);
	sp -= 4 * (argc + 1);
	for (int i = 0; i <= argc; i++) {
		uint32_t va = sp + 4 * i;
		*(uint32_t *)arch_user_kptr(pgdir, va) = uargv[i];
	}
	uint32_t argvp = sp;
	sp -= 8;
	*(uint32_t *)arch_user_kptr(pgdir, sp) = argc;
	*(uint32_t *)arch_user_kptr(pgdir, sp + 4) = argvp;
	return sp;
}

/* n bytes at user va of pgdir, mapped (the new stack) */
static void put(uint32_t *pgdir, uint32_t va, const void *src, uint32_t n)
{
	const uint8_t *s = src;

	while (n) {
		uint32_t chunk = MIN(n, PGSIZE - va % PGSIZE);
		memcpy(arch_user_kptr(pgdir, va), s, chunk);
		va += chunk;
		s += chunk;
		n -= chunk;
	}
}

static uint32_t putstr(uint32_t *pgdir, uint32_t *sp, const char *s)
{
	uint32_t len = strlen(s) + 1;

	*sp -= len;
	put(pgdir, *sp, s, len);
	return *sp;
}

/* A Linux program's environment: fixed, so a run is the same each time. */
static const char *const linux_env[] = { "PATH=/bin", "HOME=/", "TERM=dumb" };
#define NAUXV 20

/* The stack Linux's execve builds (fs/binfmt_elf.c), which glibc's start
 * code reads: argc, argv[], NULL, envp[], NULL, the auxiliary vector
 * (type, value pairs ending in AT_NULL), then the strings and AT_RANDOM's
 * bytes above. sp is 16-byte aligned at argc, as the i386 ABI wants.
 * Returns esp. */
static uint32_t linux_pushargs(uint32_t *pgdir, const struct elf_image *im, const char *path,
			       int argc, char *const argv[])
{
	enum { NENV = NELEM(linux_env) };
	uint32_t sp = USER_TOP, uargv[SPAWN_MAXARGS], uenv[NENV], words, auxv[2 * NAUXV];
	uint32_t execfn, platform, random, phdr = im->phdr;
	uint8_t rnd[16];
	int na = 0;

	execfn = putstr(pgdir, &sp, path);
	for (int i = argc - 1; i >= 0; i--)
		uargv[i] = putstr(pgdir, &sp, argv[i]);
	for (int i = NENV - 1; i >= 0; i--)
		uenv[i] = putstr(pgdir, &sp, linux_env[i]);
	platform = putstr(pgdir, &sp, "i686");
	linux_random(rnd, sizeof rnd);
	sp = ROUNDDOWN(sp - sizeof rnd, 16);
	random = sp;
	put(pgdir, random, rnd, sizeof rnd);
	/* program headers in no loaded segment: a copy here */
	if (!phdr) {
		sp = ROUNDDOWN(sp - im->eh.phnum * sizeof(struct proghdr), 16);
		for (int i = 0; i < im->eh.phnum; i++) {
			struct proghdr ph;
			elf_read(im, &ph, sizeof ph, im->eh.phoff + i * sizeof ph);   /* elf_open read them: no error */
			put(pgdir, sp + i * sizeof ph, &ph, sizeof ph);
		}
		phdr = sp;
	}
#define AUX(t, v) (auxv[na++] = (t), auxv[na++] = (v))
	AUX(AT_PHDR, phdr);
	AUX(AT_PHENT, sizeof(struct proghdr));
	AUX(AT_PHNUM, im->eh.phnum);
	AUX(AT_PAGESZ, PGSIZE);
	AUX(AT_BASE, 0);                /* no interpreter */
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, im->eh.entry + im->base);
	AUX(AT_UID, 0);
	AUX(AT_EUID, 0);
	AUX(AT_GID, 0);
	AUX(AT_EGID, 0);
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, random);
	AUX(AT_HWCAP, arch_hwcap());
	AUX(AT_CLKTCK, 100);            /* what times() would count in */
	AUX(AT_EXECFN, execfn);
	AUX(AT_PLATFORM, platform);
	AUX(AT_NULL, 0);
#undef AUX
	words = 1 + argc + 1 + NENV + 1 + na;
	sp = ROUNDDOWN(sp - 4 * words, 16);
	put(pgdir, sp, &argc, 4);
	put(pgdir, sp + 4, uargv, 4 * argc);
	put(pgdir, sp + 4 + 4 * argc, &(uint32_t){ 0 }, 4);
	put(pgdir, sp + 8 + 4 * argc, uenv, 4 * NENV);
	put(pgdir, sp + 8 + 4 * (argc + NENV), &(uint32_t){ 0 }, 4);
	put(pgdir, sp + 12 + 4 * (argc + NENV), auxv, 4 * na);
	return sp;
}

int proc_spawn(const char *path, int argc, char *const argv[], struct file *const files[3])
{
	struct elf_image im;
	struct vnode *v;
	struct proc *p, *parent = curproc();
	uint32_t *pgdir, end = 0, sp;
	const char *base;
	int r;

	if ((r = vfs_lookup(path, &v)) < 0)
		return r;
	if (v->type != S_IFILE)
		return -ENOEXEC;
	if ((r = elf_open(v, path, &im)) < 0)
		return r;
	if (!(p = allocproc()))
		return -EAGAIN;
	if (!(pgdir = arch_pgdir_new())) {
		freeproc(p);
		return -ENOMEM;
	}
	for (int i = 0; i < im.nph; i++) {
		if ((r = load(&im, pgdir, &im.ph[i])) < 0)
			goto bad;
		end = MAX(end, im.ph[i].vaddr + im.ph[i].memsz);
	}
	if (im.abi == ABI_LINUX) {
		if ((r = mapzero(pgdir, USER_TOP - LINUX_STACK_INIT, LINUX_STACK_INIT)) < 0)
			goto bad;
		sp = linux_pushargs(pgdir, &im, path, argc, argv);
	} else {
		if ((r = mapzero(pgdir, USER_TOP - USER_STACK_SIZE, USER_STACK_SIZE)) < 0)
			goto bad;
		sp = pushargs(pgdir, argc, argv);
	}

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
	p->abi = im.abi;
	strlcpy(p->lx.exe, path, sizeof p->lx.exe);
	arch_fpu_reset(&p->fpu);
	arch_user_entry_frame(p->tf, im.eh.entry + im.base, sp);
	prof_spawn(p, &im);
	p->state = P_READY;
	return p->pid;
bad:
	arch_pgdir_free(pgdir);
	freeproc(p);
	return r;
}
