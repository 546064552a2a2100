/* Test engines, for the QEMU suite and the benchmarks; present only with
 * the boot option prof.test.
 *
 *   hooks  records the order in which each process's spawn, userret and
 *          exit hooks ran, and what its spawn hook could read of its ELF;
 *          at exit it appends one line to the log:
 *            pid 5 (echo) spawn 1 userret 12 exit 1 order ok
 *                build-id 3f2a... main 0x40000010
 *   noop   samples and does nothing: the cost of the fan-out
 *
 *   /dev/proftest  write "hooks on|off", "noop on|off" or "clear";
 *                  read the log
 *                  "failonce N": the Nth page allocation from now fails,
 *                  once (fault injection walked along a path) */
#include "abi/errno.h"
#include "ctl.h"
#include "ctldev.h"
#include "dev.h"
#include "buildid.h"
#include "elf.h"
#include "kalloc.h"
#include "lib.h"
#include "proc.h"
#include "prof/engines.h"
#include "prof/prof.h"

struct rec {
	uint32_t nspawn, nuserret, nexit;
	bool order_bad;         /* a hook ran out of turn */
	char buildid[41];
	uint32_t main;          /* the address of main from .symtab, or 0 */
};
static struct rec recs[NPROC];
static char log[8192];
static uint32_t loglen, logdropped;
static struct prof_engine hooks, noop;

/* samples and does nothing */
static void ARCH_FASTCALL nothing(const struct prof_sample *s)
{
	(void)s;
}

static void hooks_spawn(struct proc *p, const struct elf_image *img)
{
	struct rec *r = &recs[p - procs];
	struct secthdr symtab;
	struct elfsym sym;
	char name[8];

	memset(r, 0, sizeof *r);
	r->nspawn = 1;
	strlcpy(r->buildid, p->prof.prog.idlen ? p->prof.prog.build_id_hex : "none", sizeof r->buildid);
	if (elf_find_section(img, SHT_SYMTAB, &symtab) >= 0)
		for (uint32_t i = 0; elf_symbol(img, &symtab, i, &sym, name, sizeof name) == 0; i++)
			if (strcmp(name, "main") == 0)
				r->main = sym.value;
	p->prof.slot[hooks.id] = r;
}

static void ARCH_FASTCALL hooks_userret(struct proc *p, struct trapframe *tf)
{
	struct rec *r = p->prof.slot[hooks.id];
	(void)tf;
	if (r->nspawn != 1 || r->nexit)
		r->order_bad = true;
	r->nuserret++;
}

static void hooks_exit(struct proc *p)
{
	struct rec *r = p->prof.slot[hooks.id];
	char line[160];
	int n;

	if (r->nspawn != 1 || r->nexit)
		r->order_bad = true;
	r->nexit++;
	if (!hooks.hooked)
		return;
	n = ksnprintf(line, sizeof line,
		      "pid %d (%s) spawn %u userret %u exit %u order %s build-id %s main 0x%08x\n",
		      p->pid, p->name, r->nspawn, r->nuserret, r->nexit,
		      r->order_bad ? "BAD" : "ok", r->buildid, r->main);
	if (n > 0 && loglen + n <= sizeof log) {
		memcpy(log + loglen, line, n);
		loglen += n;
	} else {
		logdropped++;
	}
}

static struct prof_engine hooks = {
	.name = "test.hooks",
	.spawn = hooks_spawn, .userret = hooks_userret, .exit = hooks_exit,
};
static struct prof_engine noop = { .name = "test.noop", .sample = nothing };

static void pt_text(struct textbuf *t)
{
	text_add(t, "%.*s", (int)loglen, log);
	if (logdropped)
		text_add(t, "dropped %u lines: the log is full\n", logdropped);
}

static int pt_ctl(const char *buf, uint32_t n)
{
	struct ctlmsg m;
	struct prof_engine *e;
	bool on;
	int r;

	if ((r = ctl_parse(buf, n, 32, &m)) < 0)
		return r;
	if (ctl_cmd(&m, "failonce", 1)) {
		uint32_t v;
		if (!ctl_uint(&m, 1, &v))
			return -EINVAL;
		kalloc_failonce(v);
		return 0;
	}
	if (ctl_cmd(&m, "clear", 0)) {
		loglen = logdropped = 0;
		return 0;
	}
	if (m.nw != 2 || !(ctl_is(&m, 1, "on") || ctl_is(&m, 1, "off")))
		return -EINVAL;
	if (ctl_is(&m, 0, "hooks"))
		e = &hooks;
	else if (ctl_is(&m, 0, "noop"))
		e = &noop;
	else
		return -EINVAL;
	/* on: what the engine has (hooks, samples), and the rate, as an
	 * engine that records would */
	on = ctl_is(&m, 1, "on");
	prof_set_hold(e, on);
	if (e->sample)
		prof_set_sampling(e, on);
	else
		prof_set_hooks(e, on);
	return 0;
}

static const struct ctlfile files[] = {
	{ .name = "proftest", .ctl = pt_ctl, .text = pt_text },
};

static struct ctldev proftestdev = { .name = "proftest", .files = files, .nfiles = NELEM(files) };

void testeng_init(void)
{
	if (!prof_testing)
		return;
	prof_register(&hooks);
	prof_register(&noop);
	ctldev_register(&proftestdev);
}
