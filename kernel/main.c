/* kprof-os: the boot sequence, in order. boot/boot.asm jumps here with the
 * multiboot2 magic and information address. */
#include "abi/memlayout.h"
#include "arch.h"
#include "boottest.h"
#include "buildid.h"
#include "clock.h"
#include "cmdline.h"
#include "console.h"
#include "dev.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "symtab.h"
#include "multiboot.h"
#include "proc.h"
#include "prof/prof.h"

#include "abi/version.h"

extern char _kernel_end[];

static void start_init(void)
{
	static char *argv[] = { "sh", NULL };
	struct file *cons;
	struct file *fds[3];
	int r;

	if ((r = vfs_open("/dev/cons", O_RDWR, &cons)) < 0)
		panic("cannot open /dev/cons: %d", r);
	fds[0] = fds[1] = fds[2] = cons;
	if ((r = proc_spawn("/bin/sh", 1, argv, fds)) < 0)
		panic("cannot start /bin/sh: error %d", -r);
	file_close(cons);
}

void kmain(uint32_t magic, uint32_t mbi)
{
	static struct bootinfo bi;
	static struct bootcfg cfg;
	static char cmdline[512], extra[256];
	struct memrange reserved[2 + MAXMODS + 1];
	int nres = 0, nextra;

	arch_uart_init();
	console_init();
	kprintf("\nkprof-os %s  build-id %s\n", KPROF_VERSION, kernel_build_id());

	multiboot_parse(magic, mbi, &bi);
	nextra = arch_fwcfg_read("opt/kprof/cmdline", extra, sizeof extra);
	ksnprintf(cmdline, sizeof cmdline, "%s%s%s", bi.cmdline,
		  nextra > 0 && bi.cmdline[0] ? " " : "", nextra > 0 ? extra : "");
	kprintf("cmdline: '%s'\n", cmdline);
	cmdline_defaults(&cfg);
	cmdline_parse(cmdline, &cfg, true);

	arch_init();
	arch_uart_enable_rx();

	reserved[nres++] = (struct memrange){ 0, 0x100000 };
	reserved[nres++] = (struct memrange){ 0x100000, V2P(_kernel_end) };
	if (bi.mbi_end)
		reserved[nres++] = (struct memrange){ ROUNDDOWN(bi.mbi_start, PGSIZE), bi.mbi_end };
	for (int i = 0; i < bi.nmods; i++)
		reserved[nres++] = (struct memrange){ bi.mods[i].start, bi.mods[i].end };
	kalloc_init(bi.avail, bi.navail, reserved, nres, KERN_TOP - KERNBASE);
	arch_paging_init(bi.ram_top);
	symtab_init();          /* from here on, a trap report names functions */
	kprintf("mem: %u KiB usable in %d regions, %u pages free\n", bi.mem_kib, bi.navail,
		kalloc_free_pages());
	for (int i = 0; i < bi.nmods; i++)
		kprintf("module: '%s' at 0x%08x, %u bytes\n", bi.mods[i].name, bi.mods[i].start,
			bi.mods[i].end - bi.mods[i].start);

	arch_tsc_calibrate();
	if (cfg.ktest)
		ktest_run();
	clock_init(cfg.hz, cfg.quantum);
	if (cfg.pit_jitter)
		clock_set_jitter(cfg.pit_jitter);
	arch_timer_report(cfg.hz, clock_hz_mhz(), cfg.quantum);
	if (cfg.crash[0])
		boottest_crash(cfg.crash);
	if (cfg.pitcheck)
		boottest_pitcheck(&cfg);

	tmpfs_init();
	devfs_init();
	devcons_init();
	sysstat_init();
	prof_init();
	for (int i = 0; i < bi.nmods; i++)
		if (strcmp(bi.mods[i].name, "initrd") == 0)
			initrd_init(P2V(bi.mods[i].start), bi.mods[i].end - bi.mods[i].start);
	proc_init();
	start_init();
	if (cfg.failalloc_every)
		kprintf("failalloc: every %uth page allocation fails\n", cfg.failalloc_every);
	else if (cfg.failalloc_permille)
		kprintf("failalloc: %u of 1000 page allocations fail (start %u)\n",
			cfg.failalloc_permille, cfg.failalloc_start);
	kalloc_failinject(cfg.failalloc_every, cfg.failalloc_start, cfg.failalloc_permille);
	kprintf("kprof-os: ready\n");
	scheduler();
}
