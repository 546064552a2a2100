/* The heat engine's files (formats in include/abi/heat.h):
 *   /dev/heatctl   pid N | child | stop | clear | limit N
 *   /dev/heat      the dump: a PROF line per instruction that ran
 *   /dev/heatinfo  state and memory use, "key value" lines */
#include "abi/errno.h"
#include "abi/heat.h"
#include "arch.h"
#include "ctl.h"
#include "ctldev.h"
#include "dev.h"
#include "lib.h"
#include "proc.h"
#include "prof/heat.h"

static void dump_line(uint32_t va, const struct heat_rec *r, void *arg)
{
	struct textbuf *t = arg;
	uint64_t dur = r->raw - (uint64_t)r->count * heat_overhead();

	if (r->raw < (uint64_t)r->count * heat_overhead())
		dur = 0;
	text_add(t, "%s 0x%08X %u %llu%s%s%s\n", HEAT_TAG, va, r->count, (unsigned long long)dur,
		 r->flags & HEAT_F_CALLED ? " " HEAT_CALLED : "",
		 r->flags & HEAT_F_ENTER ? " " HEAT_BLOCK_ENTER : "",
		 r->flags & HEAT_F_EXIT ? " " HEAT_BLOCK_EXIT : "");
}

/* The dump is the table as the walk finds it. A reader preempted during
 * the walk lets a still-traced process run between two lines, so a dump
 * taken while tracing is not one instant: stop first for that. */
static void heat_dump(struct textbuf *t)
{
	heattab_walk(dump_line, t);
}

static void heat_info(struct textbuf *t)
{
	uint32_t pages = heattab_dirpages() + heattab_recpages();

	text_add(t, "%s %s\n", HEATINFO_STATE, heat.tracing ? "tracing" : heat.parent ? "armed" :
		 heat.why[0] ? heat.why : "off");
	text_add(t, "%s %d\n", HEATINFO_PID, heat.pid);
	text_add(t, "%s %s\n", HEATINFO_NAME, heat.name[0] ? heat.name : "none");
	text_add(t, "%s %llu\n", HEATINFO_STEPS, (unsigned long long)heat.steps);
	text_add(t, "%s %u\n", HEATINFO_ADDRS, heat.addrs);
	text_add(t, "%s %llu\n", HEATINFO_OUTSIDE, (unsigned long long)heat.outside);
	text_add(t, "%s %u\n", HEATINFO_PAGES, pages);
	text_add(t, "%s %u\n", HEATINFO_RECPAGES, heattab_recpages());
	text_add(t, "%s %u\n", HEATINFO_BYTES, pages * 4096);
	text_add(t, "%s %u\n", HEATINFO_LIMIT, heattab_limit);
	text_add(t, "%s %llu\n", HEATINFO_OVERHEAD, (unsigned long long)heat_overhead());
	text_add(t, "%s %u\n", HEATINFO_TSC_KHZ, arch_tsc_khz());
	text_add(t, "%s %s\n", HEATINFO_BUILD_ID, heat.build_id[0] ? heat.build_id : "none");
}

static int heatctl(const char *buf, uint32_t n)
{
	struct ctlmsg m;
	uint32_t v;
	int r;

	if ((r = ctl_parse(buf, n, HEATCTL_MAXLEN, &m)) < 0)
		return r;
	if (ctl_cmd(&m, HEATCTL_PID, 1) && ctl_uint(&m, 1, &v))
		return heat_trace_pid(v);
	if (ctl_cmd(&m, HEATCTL_CHILD, 0))
		return heat_trace_child(curproc()->pid);
	if (ctl_cmd(&m, HEATCTL_STOP, 0)) {
		heat_stop("stopped by heatctl");
		return 0;
	}
	if (ctl_cmd(&m, HEATCTL_CLEAR, 0)) {
		heat_clear();
		return 0;
	}
	if (ctl_cmd(&m, HEATCTL_LIMIT, 1) && ctl_uint(&m, 1, &v)) {
		heattab_limit = v;
		return 0;
	}
	return -EINVAL;
}

static const struct ctlfile files[] = {
	{ .name = "heatctl", .ctl = heatctl },
	{ .name = "heat", .text = heat_dump },
	{ .name = "heatinfo", .text = heat_info },
};

static struct ctldev heatdev = { .name = "heat", .files = files, .nfiles = NELEM(files) };

void heatdev_init(void)
{
	ctldev_register(&heatdev);
}
