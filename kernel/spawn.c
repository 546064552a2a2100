/* spawn: a new process built straight from an ELF32 executable (see the
 * comment at the top of proc.c for why there is no fork). The file is
 * checked whole (elf.c) before anything is allocated. */
#include "abi/errno.h"
#include "abi/memlayout.h"
#include "abi/syscall.h"
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
	arch_user_entry_frame(p->tf, im.eh.entry, sp);
	prof_spawn(p, &im);
	p->state = P_READY;
	return p->pid;
bad:
	arch_pgdir_free(pgdir);
	freeproc(p);
	return r;
}
