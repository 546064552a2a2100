# The kernel's symbol service (kernel/symtab.c): the table the build embeds
# against nm, the names in a panic's backtrace against addr2line, and a
# program whose symbols cannot be loaded.
import re
import subprocess

import qemu
from harness import build_path, test


def nm_text(elf):
    """{(address, size, name)} of nm's t and T symbols, as /dev/ksyms has them"""
    out = subprocess.run(["nm", "-S", "--defined-only", elf], capture_output=True, text=True,
                         check=True).stdout
    syms = set()
    for l in out.splitlines():
        f = l.split()
        if len(f) == 4 and f[2] in "tT":
            syms.add((int(f[0], 16), int(f[1], 16), f[3]))
        elif len(f) == 3 and f[1] in "tT":
            syms.add((int(f[0], 16), 0, f[2]))
    return syms


@test("symtab_kernel_vs_nm", timeout=60)
def symtab_kernel_vs_nm(m):
    """/dev/ksyms, the table the kernel looks names up in at run time, is
    nm's list of the kernel's functions: every address, size and name."""
    m.wait_prompt()
    m.run("export /dev/ksyms")
    m.halt()
    (files,) = [a for a in m.archives() if "dev/ksyms" in a]
    got = set()
    for l in files["dev/ksyms"].decode().splitlines():
        a, s, n = l.split()
        got.add((int(a, 16), int(s, 16), n))
    want = nm_text(build_path("kernel.elf"))
    assert len(want) > 100
    assert got == want, "only in /dev/ksyms: %s; only in nm: %s" % (
        sorted(got - want)[:5], sorted(want - got)[:5])


@test("symtab_panic_names", timeout=30, cmdline="crash=panic", forbid=())
def symtab_panic_names(m):
    """A panic's backtrace names each frame as symbol+0xoff, and addr2line
    puts each address in the function named (each is a return address:
    the call is the byte before)."""
    m.panic_ok = True
    m.expect(r"^halting \(status \d+\)$")
    frames = re.findall(r"^  #\d+ 0x([0-9a-f]{8}) (\w+)\+0x([0-9a-f]+)$", m.transcript(), re.M)
    assert len(frames) >= 3, m.transcript()
    addrs = ["0x%x" % (int(a, 16) - 1) for a, _, _ in frames]
    out = subprocess.run(["addr2line", "-f", "-e", build_path("kernel.elf")] + addrs,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    for (a, name, off), fn in zip(frames, out[0::2]):
        assert fn == name, "0x%s: the backtrace says %s, addr2line %s" % (a, name, fn)
    names = [n for _, n, _ in frames]
    assert "boottest_crash" in names and "kmain" in names, names
    for a, name, off in frames:
        assert int(a, 16) - int(off, 16) == nm_text_addr(name), (a, name, off)
    assert m.wait_exit(10) == qemu.STATUS_PANIC


def nm_text_addr(name):
    return min(a for a, s, n in nm_text(build_path("kernel.elf")) if n == name)


@test("symtab_spawn_without_memory", timeout=240, cmdline="prof.test", icount=True)
def symtab_spawn_without_memory(m):
    """Fault injection walked along a spawn: the Nth page allocation after
    the write fails, for N = 1, 2, ... A spawn either fails cleanly or runs;
    one whose symbols could not be loaded (the spawn's last allocation)
    runs and exits normally, and the profile shows it as a module without
    symbols."""
    m.wait_prompt()
    assert m.run("prof on -u -p") == ""
    for n in range(1, 120):
        out = m.run("echo failonce %d > /dev/proftest; mcwork run 5 0 0" % n)
        lost = re.search(r"^symtab: pid (\d+) \(mcwork\): no memory for its symbols", out, re.M)
        if lost:
            break
    else:
        raise AssertionError("no spawn lost its symbols:\n" + out)
    m.check(out, [r"^mcwork: beta user ticks \d+, all \d+$"], forbid=[r"exit status"])
    rep = m.run("prof off")
    m.check(rep, [r"^\s*\d+\s+\d+\.\d\s+mcwork\[%s\]\s*:<no symbols>$" % lost.group(1)])
    m.halt()
