# OS/2's DosProfile (kernel/prof/dosprof*.c): the guest's own test program
# drives every function and return code and checks the modes against the
# workload's known page profile; the dosprof driver's report and raw dump
# are checked here, and read back by build/kprof: its DosProfile views
# (kprof dosprof) and the report every dump gets (its reader rd_dosprof.c).
import os
import re
import subprocess

from engines import DOSPROF
from harness import build_path, test
from qemu import VMError


@test("dosprof_calls", timeout=300, cmdline="prof.test", icount=True)
def dosprof_calls(m):
    """dptest: every function and return code, the three modes against
    pages a/b/c at 50/30/20 %, flgbits {5,6,7,8} sampling at ticks 8, 15,
    21, 26, 34, ..., MT following spawned processes, two sessions apart,
    the wrapping hit table keeping the newest, 16 sessions, saturation."""
    m.wait_prompt()
    out = m.run("dptest", timeout=280)
    m.halt()
    m.check(out, [r"^dptest: flgbits samples at ticks 8 15 21 26 34 41 47 52 60 67 73 78$",
                  r"^dptest: ok codes$", r"^dptest: ok modes$", r"^dptest: ok lookup tiled$", r"^dptest: ok lookup bytes$",
                  r"^dptest: ok flgbits$",
                  r"^dptest: ok threads$", r"^dptest: ok apart$", r"^dptest: ok wrap$",
                  r"^dptest: ok sessions$", r"^dptest: ok kernel$", r"^dptest: ok saturate$",
                  r"^dptest: ALL PASSED$"],
            forbid=[r"FAIL", r"untested"])


def symbol(elf, name):
    out = subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^([0-9a-f]+) \w %s$" % name, out, re.M).group(1), 16)


def kprof(*args):
    r = subprocess.run([build_path("kprof")] + list(args), capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise VMError("kprof %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def report_rows(elf, dump):
    """{symbol: samples} of the plain report (build/kprof ELF DUMP), which
    must know the dump by its header."""
    rep = kprof(elf, dump)
    assert re.search(r"^clock\s+[\d.]+ Hz  \(dosprof\)$", rep, re.M), rep
    return rep, {n: int(c) for c, n in
                 re.findall(r"^\s+[\d.]+\s+[\d.]+\s+(\d+)  (\S+)$", rep, re.M)}


def near(got, want, tol, what):
    assert abs(got - want) <= tol, "%s: %.1f %%, want %.1f +- %.1f" % (what, got, want, tol)


@test("dosprof_driver", timeout=300, icount=True)
def dosprof_driver(m):
    """The dosprof driver over dpwork (pages a/b/c at 50/30/20 %) in each
    mode: its report, then its raw dumps read by build/kprof, which must
    name dp_page_a/b/c with the same shares (kprof dosprof, and the plain
    report with the same hits per function as kprof dosprof's hit table); a
    rate owned by devkprof gives PRF_TIMER_RESET."""
    elf = build_path("user", "bin", "dpwork")
    a = symbol(elf, "dp_page_a")
    m.wait_prompt()
    run = "dosprof -z 4000 %s -r 0x%x:0x3000 dpwork aaaaabbbcc:4000"
    count = m.run(run % ("-m count -n 3", a))
    hit = m.run(run % ("-m hit -b 65536", a))
    detail = m.run(run % ("-m detail -b 12", a))
    m.check(count, [r"^dosprof: pid (\d+) target mt mode count timval 4000 slots 3$",
                    r"^global flags 0x0208 shift 0 idle \d+ vm86 0 kernel \d+ shrmem 0 "
                    r"unknown \d+ samples \d+ ticks \d+ errcnt 0 processes 2$",
                    DOSPROF.dump])
    shares = [float(s) for s in re.findall(r"^slot \d 0x[0-9a-f]+ 0x1000 count \d+ ([\d.]+)%$",
                                            count, re.M)]
    assert len(shares) == 3, count
    for got, want in zip(shares, (50, 30, 20)):
        near(got, want, 4, "count slot")
    m.check(hit, [r"^hits (\d+) of 16384 overwritten 0$", r"^hit 0x%x \d+ [\d.]+%%$" % (a + 0x20)])
    pages = {int(p, 16): float(s) for p, s in
             re.findall(r"^page 0x([0-9a-f]+) \d+ ([\d.]+)%$", detail, re.M)}
    m.check(detail, [r"^global flags 0x0200 shift 12 "])
    for off, want in ((0, 50), (0x1000, 30), (0x2000, 20)):
        near(pages.get(a + off, 0), want, 4, "page 0x%x" % (a + off))
    # -c: the session is the command's to start; one that never does gets
    # an empty report and a hint, and accwork without dosprof -c a clear error
    m.check(m.run("dosprof -c spin 10"),
            [r"^dosprof: pid \d+ target mt mode count ", r"^global .* samples 0 ticks 0 ",
             r"^dosprof: no tick while the session ran: with -c the command starts it itself"])
    m.check(m.run("accwork mix 10 dosprof"),
            [r"^accwork: DosProfile start: 543 \(no session: run it under dosprof -c\)$"])
    out = m.run("dosprof -c -m hit accwork mix 20000 dosprof")
    m.check(out, [r"^hits [1-9]\d* of \d+ overwritten 0$"], forbid=[r"no tick", r"accwork: "])
    # another engine on: the rate is not DosProfile's to set
    m.check(m.run("echo start > /dev/kpctl; dosprof -z 2000 dpwork a:1; echo stop > /dev/kpctl"),
            [r"^dosprof: init: 548 PRF_TIMER_RESET$"])
    # a bad option value names the option; -z must fit cm_timval's 16 bits
    for opts, why in (("-z 70000", "-z 70000: at most 65535"), ("-z x", "-z x: not a number"),
                      ("-m fast", "-m fast: not count, hit or detail"),
                      ("-r 0x1000", "-r 0x1000: not ADDR:SIZE"), ("-r 1x:2", "-r 1x:2: not ADDR:SIZE")):
        assert m.run("dosprof %s dpwork a:1" % opts) == \
            "dosprof: %s\nsh: dosprof: exit status 2\n" % why, opts
    pids = [DOSPROF.dumps(t)[0] for t in (count, hit, detail)]
    m.run("export " + " ".join(pids))
    m.halt()
    got = m.exports(m.scratch + "/out")
    dumps = [os.path.join(m.scratch, "out", p.lstrip("/")) for p in pids]
    assert all(os.path.exists(d) for d in dumps), got
    rep = kprof("dosprof", elf, dumps[1])
    m.text += "\n--- kprof dosprof (hit) ---\n" + rep
    fn = {n: float(s) for s, n in re.findall(r"^\s+\d+\s+([\d.]+)%\s+(\w+)$", rep, re.M)}
    for name, want in (("dp_page_a", 50), ("dp_page_b", 30), ("dp_page_c", 20)):
        near(fn.get(name, 0), want, 4, "kprof hit table %s" % name)
    # the plain report charges each function the hits kprof dosprof does
    hits = {n: int(c) for c, n in re.findall(r"^\s+(\d+)\s+[\d.]+%\s+(\S+)$", rep, re.M)}
    text, rows = report_rows(elf, dumps[1])
    m.text += "\n--- kprof (hit) ---\n" + text
    assert rows == hits and sum(hits.values()) > 900, (rows, hits)
    # and the counts of the count and detail dumps at their ranges' starts
    for dump, what in ((dumps[0], "count"), (dumps[2], "detail")):
        _, rows = report_rows(elf, dump)
        total = sum(rows.values())
        for name, want in (("dp_page_a", 50), ("dp_page_b", 30), ("dp_page_c", 20)):
            near(100.0 * rows.get(name, 0) / total, want, 4, "kprof %s %s" % (what, name))
    rep = kprof("dosprof", "--addr", "--top", "3", elf, dumps[1])
    rows = re.findall(r"^\s+\d+\s+[\d.]+%\s+0x([0-9a-f]{8}) (\w+)\+0x([0-9a-f]+)$", rep, re.M)
    # the hottest addresses are in page a's loop, each named by its offset
    assert len(rows) == 3 and all(n == "dp_page_a" and int(x, 16) == a + int(o, 16)
                                  for x, n, o in rows), rep
    rep = kprof("dosprof", elf, dumps[2])
    m.text += "\n--- kprof dosprof (detail) ---\n" + rep
    # each page holds its function alone
    for off, name in ((0, "dp_page_a"), (0x1000, "dp_page_b"), (0x2000, "dp_page_c")):
        assert re.search(r"^\s+\d+\s+[\d.]+%%\s+0x%08x  %s 100%%$" % (a + off, name), rep, re.M), rep


@test("dosprof_one_count", timeout=300, icount=True)
def dosprof_one_count(m):
    """A slot over pages a and b of dpwork only, so that page c's hits fall
    outside every slot: the plain report's rows (with a row for those,
    <outside the slots>) sum to its user count, and the guest's report
    and kprof dosprof give each slot and each hot address the same share,
    by the one rounding rule of abi/dosprof.h."""
    elf = build_path("user", "bin", "dpwork")
    a = symbol(elf, "dp_page_a")
    m.wait_prompt()
    out = m.run("dosprof -m hit -t 8 -z 4000 -r 0x%x:0x2000 dpwork aaaaabbbcc:4000" % a)
    unknown = int(re.search(r"^global .* unknown (\d+) ", out, re.M).group(1))
    assert unknown > 100, out                 # page c's 20 %, and the start-up
    dump = DOSPROF.dumps(out)[0]
    m.run("export " + dump)
    m.halt()
    m.exports(m.scratch + "/out")
    dump = os.path.join(m.scratch, "out", dump.lstrip("/"))
    text = kprof(elf, dump)
    m.text += "\n--- kprof ---\n" + text
    user = int(re.search(r"^user\s+(\d+) ticks", text, re.M).group(1))
    rows = [int(c) for c in re.findall(r"^\s+[\d.]+\s+[\d.]+\s+(\d+)  ", text, re.M)]
    assert sum(rows) == user and "%% of the %d user ticks" % user in text, text
    assert re.search(r"^\s+[\d.]+\s+[\d.]+\s+%d  <outside the slots>$" % unknown, text, re.M), text
    view = kprof("dosprof", "--addr", elf, dump)
    m.text += "\n--- kprof dosprof --addr ---\n" + view
    slot = re.search(r"^slot 0 0x[0-9a-f]+ 0x2000 hit (\d+) ([\d.]+)%$", out, re.M)
    assert re.search(r"^\s+0 0x[0-9a-f]+ 0x2000\s+hit\s+%s\s+%s%%$" % slot.groups(), view, re.M), view
    hits = re.findall(r"^hit 0x([0-9a-f]+) (\d+) ([\d.]+)%$", out, re.M)
    assert len(hits) == 8, out
    for addr, n, share in hits:
        assert re.search(r"^\s+%s\s+%s%%\s+0x%s " % (n, share, addr), view, re.M), \
            "guest: 0x%s %s %s%%; kprof dosprof:\n%s" % (addr, n, share, view)


@test("dosprof_dump_bad", timeout=300, icount=True)
def dosprof_dump_bad(m):
    """kprof dosprof and the plain report (the ASan and UBSan build) on a
    real dump cut at every length and with each header and record field
    broken: exit 0 or 2 with one "kprof: " line, never a crash; the
    kernel's dump checks its build-id against the ELF given."""
    m.wait_prompt()
    m.check(m.run("dosprof -k -m hit kwork loop 1000000 1"), [r"^dump /tmp/prof/dosprof\.0$"])
    out = m.run("dosprof -z 4000 -m detail -b 64 dpwork aaaaabbbcc:500")
    path = DOSPROF.dumps(out)[0]
    m.run("export /tmp/prof/dosprof.0 " + path)
    m.halt()
    m.exports(m.scratch + "/out")
    kdump = os.path.join(m.scratch, "out", "tmp", "prof", "dosprof.0")
    udump = os.path.join(m.scratch, "out", path.lstrip("/"))
    m.text += "\n--- kprof dosprof (kernel) ---\n" + kprof("dosprof", build_path("kernel.elf"), kdump)
    for view in (["dosprof"], []):
        r = subprocess.run([build_path("kprof")] + view + [build_path("user", "bin", "dpwork"), kdump],
                           capture_output=True, text=True)
        assert r.returncode == 2 and "build-id" in r.stderr, (r.returncode, r.stderr)
    data = open(udump, "rb").read()
    bad = os.path.join(m.scratch, "bad")
    variants = [data[:n] for n in range(0, len(data), 7)]
    # the dump header, module table, payload header and records
    for off in range(0, min(len(data), 400), 4):
        for v in (0, 0xFFFFFFFF, 0x7FFFFFFF, 3):
            variants.append(data[:off] + v.to_bytes(4, "little") + data[off + 4:])
    asan = build_path("kprof-asan")
    for i, v in enumerate(variants):
        open(bad, "wb").write(v)
        for view in (["dosprof"], []):
            r = subprocess.run([asan] + view + [build_path("user", "bin", "dpwork"), bad],
                               capture_output=True, text=True, timeout=60)
            assert r.returncode in (0, 2), "variant %d: exit %d\n%s" % (i, r.returncode, r.stderr[-2000:])
            assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-2000:]
            if r.returncode == 2:
                assert re.match(r"^kprof: .+\n$", r.stderr), "variant %d: %r" % (i, r.stderr)
