# User-space tests: export to the host, usertests, user faults, fair share.
import os
import re
import subprocess

from harness import build_path, test
import qemu

TEXT = "exported from the guest: 0123456789\n"


def guest_cksums(out):
    """{path: (crc, size)} from cksum's "CRC SIZE NAME" lines."""
    return {name: (crc, size) for crc, size, name in
            re.findall(r"^(\d+) (\d+) (\S+)$", out, re.M)}


@test("export", timeout=60)
def export(m):
    """a text file and a binary come out byte-exact (guest `cksum` = host
    `cksum`); real `tar` reads the stream"""
    m.wait_prompt()
    m.run("echo '%s' > /tmp/t.txt" % TEXT.rstrip("\n"))
    size = len(TEXT) + os.path.getsize(build_path("user", "bin", "cksum"))
    m.check(m.run("export /tmp/t.txt /bin/cksum"), [r"^export: 2 files, %d bytes$" % size])
    guest = guest_cksums(m.run("cksum /tmp/t.txt /bin/cksum"))
    # A second archive after the first, and a relative name.
    m.run("cd /tmp")
    m.check(m.run("export t.txt"), [r"^export: 1 file, %d bytes$" % len(TEXT)])
    m.halt()

    # The real tar reads the archives: the first alone, then all with -i.
    tar = subprocess.run(["tar", "-tf", m.com2], capture_output=True, text=True, timeout=30)
    assert tar.returncode == 0 and tar.stdout == "tmp/t.txt\nbin/cksum\n", \
        "tar -tf: status %d, %r %r" % (tar.returncode, tar.stdout, tar.stderr)
    tar = subprocess.run(["tar", "-itf", m.com2], capture_output=True, text=True, timeout=30)
    assert tar.stdout == "tmp/t.txt\nbin/cksum\ntmp/t.txt\n", "tar -itf: %r" % tar.stdout

    dest = os.path.join(m.scratch, "out")
    names = m.exports(dest)
    assert names == ["tmp/t.txt", "bin/cksum", "tmp/t.txt"], "extracted %s" % names
    host = subprocess.run(["cksum", "tmp/t.txt", "bin/cksum"], cwd=dest, capture_output=True,
                          text=True, timeout=30, check=True).stdout
    host = guest_cksums(host)
    for name in ("tmp/t.txt", "bin/cksum"):
        assert guest.get("/" + name) == host.get(name), \
            "cksum of %s: guest %s, host %s" % (name, guest.get("/" + name), host.get(name))
    with open(os.path.join(dest, "tmp", "t.txt"), "rb") as f:
        assert f.read() == TEXT.encode(), "tmp/t.txt differs from what was echoed"
    with open(os.path.join(dest, "bin", "cksum"), "rb") as a, \
            open(build_path("user", "bin", "cksum"), "rb") as b:
        assert a.read() == b.read(), "bin/cksum differs from build/user/bin/cksum"


@test("usertests", timeout=120,
      forbid=(r"FAILED", r"^panic", r"^kernel trap"))
def usertests(m):
    """the xv6-style user tests (bad pointers at the edges of user space,
    unknown system calls, faults, kill (and `kill(1)` is EPERM), many
    processes, sbrk, files, bad ELFs, a spawn bomb, no leaked pages) end
    with `ALL TESTS PASSED`"""
    m.wait_prompt()
    out = m.run("usertests")
    m.check(out, [r"^ALL TESTS PASSED$"])
    m.halt()


LAYOUT = qemu.header_defines("memlayout.h")
USER_BASE = LAYOUT["USER_BASE"]
FAULTS = {"null": 0, "kernel": LAYOUT["KERN_LINK"], "wild": None}    # addresses from user/fault.c


@test("user_fault", timeout=30)
def user_fault(m):
    """a user fault kills only that process"""
    m.wait_prompt()
    for kind in ("null", "kernel", "wild"):
        out = m.run("fault " + kind)
        addr = r"0x[0-9a-f]{8}" if FAULTS[kind] is None else "0x%08x" % FAULTS[kind]
        m.check(out, [r"^pid \d+ \(fault\): page fault at %s eip 0x[0-9a-f]{8}$" % addr,
                      r"^sh: fault: exit status 139\b"],
                forbid=[r"did not fault"], ordered=True)
        eip = int(re.search(r" eip (0x[0-9a-f]{8})$", out, re.M).group(1), 16)
        assert eip >= USER_BASE, "fault %s: eip %#x is not in user space" % (kind, eip)
        out = m.run("echo alive")
        assert out == "alive\n", "after fault %s: echo printed %r" % (kind, out)
    m.halt()


SPIN = r"^spin (\d+): user ticks (\d+) of elapsed (\d+)$"


@test("fair_share", timeout=120, icount=True)
def fair_share(m):
    """two CPU-bound programs each get 40-60 % of the CPU"""
    m.wait_prompt()
    # One line, so that both start together, whatever the host's speed.
    m.type_line("spin 2000 & spin 2000")
    bg = int(m.expect(r"^\[(\d+)\]$").group(1))
    # The two lines come in either order, maybe after the next prompt.
    spins = {}
    for _ in range(2):
        pid, u, e = (int(x) for x in m.expect(SPIN).groups())
        spins[pid] = (u, e)
    # A typed line with a unique echo to resynchronise with the shell (an
    # empty line's echo could not be told from the shell's own newlines);
    # the shell reports the background job before one of the next prompts.
    for _ in range(3):
        m.run("echo synced")
        if re.search(r"^\[%d\] done 0$" % bg, m.transcript(), re.M):
            break
    m.check(m.transcript(), [r"^\[%d\] done 0$" % bg])
    assert bg in spins and len(spins) == 2, "spin lines for pids %s, bg is %d" % (
        sorted(spins), bg)
    (u1, e1), (u2, e2) = spins.values()
    share = u1 / max(1, u1 + u2)
    assert 0.4 <= share <= 0.6, "user ticks %d and %d: a %.0f%% share" % (u1, u2, 100 * share)
    # They competed for the whole time, so each also got about half of its
    # own elapsed ticks: a coarse scheduler that runs one of them for long
    # stretches can pass the test above but not this one.
    for u, e in spins.values():
        assert 0.4 <= u / max(1, e) <= 0.6, "user ticks %d of elapsed %d" % (u, e)
    m.halt()
