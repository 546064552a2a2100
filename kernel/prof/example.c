/* The example engine of kernel/prof/README.md: counts the clock samples
 * each process gets and prints them when it exits, beside the ticks the
 * clock charged to it. Boot with prof.example to turn it on. */
#include "clock.h"
#include "cmdline.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/prof.h"

struct counts {
	uint32_t all, user, lost;
};
static struct counts counts[NPROC];
static struct prof_engine example;
static bool on_at_boot;
BOOTPARAM_FLAG("prof.example", on_at_boot);

static void ARCH_FASTCALL example_sample(const struct prof_sample *s)
{
	struct proc *p = s->p;
	uint32_t flags = s->flags;
	struct counts *c;

	if (!p)
		return;                 /* the idle loop: no process to charge */
	c = p->prof.slot[example.id];
	prof_add_sat(&c->all, prof_weight(flags), &c->lost);
	if (prof_user(flags))
		prof_add_sat(&c->user, prof_weight(flags), &c->lost);
}

static void example_spawn(struct proc *p, const struct elf_image *img)
{
	(void)img;
	p->prof.slot[example.id] = memset(&counts[p - procs], 0, sizeof counts[0]);
}

static void example_exit(struct proc *p)
{
	struct counts *c = p->prof.slot[example.id];

	if (example.sampling)
		kprintf("example: pid %d (%s): %u samples, %u in user mode; clock charged %u ticks\n",
			p->pid, p->name, c->all, c->user, p->uticks + p->kticks);
}

static struct prof_engine example = {
	.name = "example", .sample = example_sample,
	.spawn = example_spawn, .exit = example_exit,
};

void example_init(void)
{
	prof_register(&example);
	if (on_at_boot) {
		prof_set_hold(&example, true);
		prof_set_sampling(&example, true);
	}
}
