# Boot tests: the banner and command line, ktest, kernel traps, the PIT rate.
import re

from harness import build_path, test
import qemu

VERSION = r"^kprof-os \d+\.\d+  build-id [0-9a-f]{40}$"
MEM = r"^mem: \d+ KiB usable in \d+ regions, \d+ pages free$"
MODULE = r"^module: 'initrd' at 0x[0-9a-f]{8}, \d+ bytes$"
PIT = r"^pit: %s Hz requested, divisor %s, %s Hz achieved; quantum %s ms; tsc \d+ kHz$"
PANIC_HALT = r"^halting \(status %d\)$" % qemu.CODES["KEXIT_PANIC"]
CMDLINE = qemu.header_defines("cmdline.h")
PIT_INPUT_HZ = qemu.header_defines("clock.h")["PIT_INPUT_HZ"]


def pit_default():
    """The pit: line at the default rate and quantum; the divisor is
    rounded to nearest, so the achieved rate is a little off the request."""
    hz = CMDLINE["HZ_DEFAULT"]
    div = (PIT_INPUT_HZ + hz // 2) // hz
    mhz = (PIT_INPUT_HZ * 1000 + div // 2) // div
    return PIT % (hz, div, re.escape("%d.%03d" % (mhz // 1000, mhz % 1000)),
                  CMDLINE["QUANTUM_DEFAULT"])


@test("boot_banner", timeout=30)
def boot_banner(m):
    """The banner: version and build-id, the command line, the memory and
    modules found, and the PIT rate achieved."""
    out = m.wait_prompt()
    m.check(out, [VERSION, r"^cmdline: ' *'$", MEM, MODULE,
                  pit_default(),
                  r"^initrd: \d+ files$", r"^kprof-os: ready$"],
            forbid=[r"^cmdline: (bad|unknown)"], ordered=True)
    m.halt()


@test("boot_mem_768", timeout=60, extra=("-m", "768M"))
def boot_mem_768(m):
    """With -m 768M all of RAM is usable: the kernel maps it at KERNBASE
    (the high quarter), so RAM up to 896 MiB fits beside 3 GiB of user
    space. The free list hands out the highest pages first, so hog's pages
    come from the top of RAM."""
    out = m.wait_prompt()
    kib, pages = map(int, re.search(r"^mem: (\d+) KiB usable in \d+ regions, (\d+) pages free$",
                                     out, re.M).groups())
    assert kib > 760 * 1024, "only %d KiB usable of 768 MiB" % kib
    # free: all of it but the kernel, its tables and the initrd GRUB loaded
    import os
    initrd = os.path.getsize(build_path("initrd.tar")) // 4096
    assert pages > 760 * 256 - 2048 - initrd, "only %d pages free (initrd %d pages)" % (pages, initrd)
    out = m.run("hog 60")
    m.check(out, [r"^hog: 60 MB, freepages \d+$"])
    m.halt()


@test("boot_cmdline_bad", timeout=30, cmdline="hz=abc foo=1")
def boot_cmdline_bad(m):
    """A bad `hz=` and an unknown key are reported and the default used."""
    out = m.wait_prompt()
    m.check(out, [r"^cmdline: '.*hz=abc foo=1'$",
                  r"^cmdline: bad value 'abc' for hz \(\d+\.\.\d+\), using %d$" % CMDLINE["HZ_DEFAULT"],
                  r"^cmdline: unknown key 'foo', ignored$",
                  pit_default()], ordered=True)
    m.halt()


@test("boot_cmdline_hz", timeout=30, cmdline="hz=5000 quantum=20")
def boot_cmdline_hz(m):
    """`hz=5000` gives divisor 239, and `quantum=` is taken."""
    out = m.wait_prompt()
    # 1193182 / 239 = 4992.39 Hz: the nearest divisor, 0.15% off.
    m.check(out, [PIT % (5000, 239, r"4992\.\d{3}", 20)],
            forbid=[r"^cmdline: (bad|unknown)"])
    m.halt()


@test("ktest", timeout=120, cmdline="ktest")
def ktest(m):
    """the in-kernel unit tests (command-line parser, multiboot2 parser with
    malformed tags, page allocator, ring buffer, printf formats, strings,
    the saturating counter, control messages, the text builder,
    `copyin_array` at the edges, two profiling engines' sampling switched on
    and off in every order and from inside a sample, the rate's hold apart
    from sampling and hooks, the walk from the sample's frame the same for
    one engine and beside another (`sample_frame_walk`, a clock interrupt
    raised at a known place), engines' own boot words, heapsort (`ksort`),
    the kernel's symbol table (each symbol found at its first and last byte,
    not one past its end), frame-pointer walks over null, misaligned,
    cyclic, kernel-pointing and unmapped user frames) print KTAP and all
    pass"""
    status = m.wait_exit()
    out = m.transcript()
    m.check(out, [r"^KTAP version 1$", r"^1\.\.\d+$", r"^ok 1 \S+$",
                  r"^# ktest: \d+ tests, 0 failed"], forbid=[r"^not ok"], ordered=True)
    plan = int(re.search(r"^1\.\.(\d+)$", out, re.M).group(1))
    oks = [int(n) for n in re.findall(r"^ok (\d+) ", out, re.M)]
    assert plan > 0 and oks == list(range(1, plan + 1)), \
        "plan 1..%d but ok lines numbered %s" % (plan, oks)
    assert status == qemu.STATUS_OK, "ktest: QEMU status %s" % qemu.describe_status(status)


def kernel_text():
    """The kernel text's bounds, from build/kernel.sym (nm output)."""
    with open(build_path("kernel.sym")) as f:
        syms = dict((name, int(addr, 16)) for addr, _, name in
                    (line.split()[:3] for line in f if len(line.split()) >= 3))
    return syms["_text_start"], syms["_text_end"]


def kernel_crash(m, trapno, name, extra):
    """The kernel must print the trap report and panic, not carry on."""
    m.panic_ok = True
    m.expect(r"^(halting \(status \d+\)|kprof-os: ready)$")
    m.check(m.transcript(),
            [r"^kernel trap %d \(%s\) err 0x[0-9a-f]+$" % (trapno, re.escape(name))] + extra +
            [r"^  eip 0x[0-9a-f]{8} \w+\+0x[0-9a-f]+$", r"^backtrace:$",
             r"^  #0 0x[0-9a-f]{8} \w+\+0x[0-9a-f]+$",
             r"^panic: trap %d \(%s\) in kernel$" % (trapno, re.escape(name)), PANIC_HALT],
            forbid=[r"^kprof-os: ready$", r"^crash: unknown mode"], ordered=True)
    eip = int(re.search(r"^  eip (0x[0-9a-f]{8}) ", m.transcript(), re.M).group(1), 16)
    lo, hi = kernel_text()
    assert lo <= eip < hi, "eip %#x is outside the kernel text %#x..%#x" % (eip, lo, hi)
    status = m.wait_exit(10)
    assert status == qemu.STATUS_PANIC, "QEMU status %s, want %s" % (
        qemu.describe_status(status), qemu.describe_status(qemu.STATUS_PANIC))


@test("kernel_fault_null", timeout=30, cmdline="crash=null", forbid=())
def kernel_fault_null(m):
    """a kernel fault prints the trap report and backtrace and exits with the
    panic status"""
    kernel_crash(m, 14, "page fault", [r"^  fault address 0x00000000$"])


@test("kernel_fault_divide", timeout=30, cmdline="crash=divide", forbid=())
def kernel_fault_divide(m):
    """a kernel fault prints the trap report and backtrace and exits with the
    panic status"""
    kernel_crash(m, 0, "divide error", [])


@test("kernel_crash_unknown", timeout=30, cmdline="crash=bogus")
def kernel_crash_unknown(m):
    """An unknown crash= mode says so, and only so; the boot goes on."""
    out = m.wait_prompt()
    m.check(out, [r"^crash: unknown mode 'bogus' \(null, divide, panic\); not crashing$",
                  r"^kprof-os: ready$"], forbid=[r"on purpose"], ordered=True)
    m.halt()


def pit_rate(hz):
    @test("pit_rate_%d" % hz, timeout=90, cmdline="pitcheck hz=%d" % hz, icount=True)
    def check(m):
        """Ticks counted over 2 s of TSC time under icount are within 1 % of the rate."""
        line = m.expect(r"^pitcheck: hz=(\d+) divisor=(\d+) achieved=([\d.]+) "
                        r"measured=([\d.]+) ticks=(\d+) span_ms=(\d+)$")
        want, divisor, achieved, measured, ticks, span_ms = (
            float(x) for x in line.groups())
        assert want == hz, "pitcheck ran at hz=%g, want %d" % (want, hz)
        assert abs(measured - hz) <= 0.01 * hz, \
            "measured %.3f Hz, more than 1%% off %d Hz" % (measured, hz)
        # The tick count over the span must give the same rate.
        from_ticks = ticks * 1000 / span_ms
        assert span_ms >= 1000 and abs(from_ticks - measured) <= 0.01 * measured, \
            "ticks=%d over %d ms is %.1f Hz, but measured=%.3f" % (ticks, span_ms,
                                                                  from_ticks, measured)
        status = m.wait_exit(10)
        assert status == qemu.STATUS_OK, "QEMU status %s" % qemu.describe_status(status)


for _hz in (100, 1000, 10000):
    pit_rate(_hz)
