/* usample: a plain clock-tick sampler of one user process's PCs, kept as
 * "address count" text for the host tool's accuracy check against the
 * heat engine. It is independent of heat: it sees only the clock's
 * samples, never a single step.
 *   /dev/usamplectl  child (sample the writer's next child) | pid N | stop
 *   /dev/usample     one "0x%08x count" line per PC sampled, then
 *                    "# samples N dropped N" */
#include "abi/errno.h"
#include "ctl.h"
#include "ctldev.h"
#include "dev.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/prof.h"

#define NSLOT 4096              /* distinct PCs kept; more are dropped */
#define PROBES 16

static struct { uint32_t pc, count; } slot[NSLOT];
static uint32_t nsamples, dropped, lost;
static struct proc *target;
static int parent;              /* sample this pid's next child */
static struct prof_engine engine;

static void ARCH_FASTCALL us_sample(const struct prof_sample *s)
{
	uint32_t pc = s->pc, flags = s->flags;
	struct proc *p = s->p;

	if (p != target || !prof_user(flags))
		return;
	nsamples += prof_weight(flags);
	for_each_probe(h, pc * 2654435761u, NSLOT, PROBES) {
		if (slot[h].count == 0)
			slot[h].pc = pc;
		if (slot[h].pc == pc) {
			prof_add_sat(&slot[h].count, prof_weight(flags), &lost);
			return;
		}
	}
	dropped += prof_weight(flags);
}

/* sampling and the rate hold go on and off together */
static void run(bool on)
{
	prof_set_hold(&engine, on);
	prof_set_sampling(&engine, on);
}

static void clear(void)
{
	run(false);
	target = NULL;
	parent = 0;
	memset(slot, 0, sizeof slot);
	nsamples = dropped = lost = 0;
}

static void us_spawn(struct proc *p, const struct elf_image *img)
{
	(void)img;
	if (parent && p->ppid == parent) {
		parent = 0;
		target = p;
		run(true);
	}
}

static void us_exit(struct proc *p)
{
	if (p == target) {
		run(false);
		target = NULL;
	}
	if (p->pid == parent)
		parent = 0;
}

static struct prof_engine engine = {
	.name = "usample", .sample = us_sample, .spawn = us_spawn, .exit = us_exit,
};

static int ctl(const char *buf, uint32_t n)
{
	struct ctlmsg m;
	uint32_t v;
	int r;

	if ((r = ctl_parse(buf, n, 32, &m)) < 0)
		return r;
	if (ctl_cmd(&m, "child", 0)) {
		clear();
		parent = curproc()->pid;
		return 0;
	}
	if (ctl_cmd(&m, "pid", 1) && ctl_uint(&m, 1, &v)) {
		clear();
		if (!(target = proc_lookup(v)))
			return -ESRCH;
		run(true);
		return 0;
	}
	if (ctl_cmd(&m, "stop", 0)) {
		run(false);
		target = NULL;
		parent = 0;
		return 0;
	}
	return -EINVAL;
}

static void us_text(struct textbuf *t)
{
	for (int i = 0; i < NSLOT; i++)
		if (slot[i].count)
			text_add(t, "0x%08x %u\n", slot[i].pc, slot[i].count);
	text_add(t, "# samples %u dropped %u\n", nsamples, dropped + lost);
}

static const struct ctlfile files[] = {
	{ .name = "usamplectl", .ctl = ctl },
	{ .name = "usample", .text = us_text },
};

static struct ctldev usampledev = { .name = "usample", .files = files, .nfiles = NELEM(files) };

void usample_init(void)
{
	prof_register(&engine);
	ctldev_register(&usampledev);
}
