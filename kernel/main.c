/* kprof-os: the boot sequence, in order. boot/boot.asm jumps here with the
 * multiboot2 magic and information address. */
#include "abi/kprof.h"
#include "abi/memlayout.h"
#include "abi/qemu_exit.h"
#include "arch.h"
#include "cmdline.h"
#include "console.h"
#include "dev.h"
#include "file.h"
#include "kalloc.h"
#include "lib.h"
#include "multiboot.h"
#include "proc.h"
#include "prof/kprof.h"

#define VERSION "0.1"

extern char _kernel_end[], _build_id_note[], _build_id_note_end[];
void tsc_calibrate(void);
void ktest_run(void);

/* The GNU build-id from the kernel's own note, as hex. */
const char *kernel_build_id(void)
{
	static char hex[41];
	const uint32_t *n = (const uint32_t *)_build_id_note;
	uint32_t namesz, descsz;
	const uint8_t *desc;

	if (hex[0])
		return hex;
	if (_build_id_note_end - _build_id_note < 16)
		return "none";
	namesz = n[0];
	descsz = n[1];
	desc = (const uint8_t *)(n + 3) + ROUNDUP(namesz, 4);
	for (uint32_t i = 0; i < descsz && i < 20; i++)
		ksnprintf(hex + 2 * i, 3, "%02x", desc[i]);
	return hex;
}

static void crash(const char *how)
{
	if (strcmp(how, "null") != 0 && strcmp(how, "divide") != 0 && strcmp(how, "panic") != 0) {
		kprintf("crash: unknown mode '%s' (null, divide, panic); not crashing\n", how);
		return;
	}
	kprintf("crash: faulting on purpose (%s), as the command line asked\n", how);
	if (strcmp(how, "null") == 0)
		*(volatile uint32_t *)0 = 0xdead;
	else if (strcmp(how, "divide") == 0) {
		/* a real div instruction: gcc may turn 1/x into a compare */
		volatile uint32_t a = 1234, b = 0;
		kprintf("%u\n", a / b);
	} else if (strcmp(how, "panic") == 0)
		panic("crash=panic from the command line");
}

/* Counts clock ticks over two seconds of TSC time and prints the measured
 * rate beside the configured one. */
static void pitcheck(const struct bootcfg *cfg)
{
	uint64_t span = (uint64_t)arch_tsc_khz() * 2000, t0, t1;
	uint64_t k0, k1, mhz;
	uint32_t want = clock_hz_mhz();

	arch_enable_interrupts();
	k0 = ticks;
	while (ticks == k0)
		arch_idle();
	k0 = ticks;
	t0 = arch_read_tsc();
	while (arch_read_tsc() - t0 < span)
		arch_idle();
	k1 = ticks;
	t1 = arch_read_tsc();
	mhz = (k1 - k0) * (uint64_t)arch_tsc_khz() * 1000000 / (t1 - t0);
	kprintf("pitcheck: hz=%u divisor=%u achieved=%u.%03u measured=%u.%03u ticks=%u span_ms=%u\n",
		cfg->hz, arch_pit_divisor(cfg->hz), want / 1000, want % 1000,
		(uint32_t)(mhz / 1000), (uint32_t)(mhz % 1000), (uint32_t)(k1 - k0),
		(uint32_t)((t1 - t0) / arch_tsc_khz()));
	arch_poweroff(KEXIT_OK);
}

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
	uint32_t mhz;

	arch_uart_init();
	console_init();
	kprintf("\nkprof-os %s  build-id %s\n", VERSION, kernel_build_id());

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
	reserved[nres++] = (struct memrange){ 0x100000, (uint32_t)_kernel_end };
	if (bi.mbi_end)
		reserved[nres++] = (struct memrange){ ROUNDDOWN(bi.mbi_start, PGSIZE), bi.mbi_end };
	for (int i = 0; i < bi.nmods; i++)
		reserved[nres++] = (struct memrange){ bi.mods[i].start, bi.mods[i].end };
	kalloc_init(bi.avail, bi.navail, reserved, nres, KERN_TOP);
	arch_paging_init(bi.ram_top);
	kprintf("mem: %u KiB usable in %d regions, %u pages free\n", bi.mem_kib, bi.navail,
		kalloc_free_pages());
	for (int i = 0; i < bi.nmods; i++)
		kprintf("module: '%s' at 0x%08x, %u bytes\n", bi.mods[i].name, bi.mods[i].start,
			bi.mods[i].end - bi.mods[i].start);

	tsc_calibrate();
	if (cfg.ktest)
		ktest_run();
	clock_init(cfg.hz, cfg.quantum);
	mhz = clock_hz_mhz();
	kprintf("pit: %u Hz requested, divisor %u, %u.%03u Hz achieved; quantum %u ms; tsc %u kHz\n",
		cfg.hz, arch_pit_divisor(cfg.hz), mhz / 1000, mhz % 1000, cfg.quantum, arch_tsc_khz());
	if (cfg.crash[0])
		crash(cfg.crash);
	if (cfg.pitcheck)
		pitcheck(&cfg);

	tmpfs_init();
	devfs_init();
	devcons_init();
	kprof_init(cfg.kprof_res);
	for (int i = 0; i < bi.nmods; i++)
		if (strcmp(bi.mods[i].name, "initrd") == 0)
			initrd_init((const void *)bi.mods[i].start, bi.mods[i].end - bi.mods[i].start);
	proc_init();
	start_init();
	kprintf("kprof-os: ready\n");
	scheduler();
}
