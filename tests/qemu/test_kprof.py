# devkprof end to end: profile the kernel workload in the guest, export the
# dump, and read it on the host with build/kprof (and util-linux readprofile).
import os
import re
import shutil
import struct
import subprocess

from annotate import hot_in_loop
from harness import build_path, test
from qemu import ROOT, VMError, header_defines

KERNEL = build_path("kernel.elf")


def words(path):
    data = open(path, "rb").read()
    assert len(data) % 4 == 0 and len(data) >= 8, "kpdata size %d" % len(data)
    return struct.unpack(">%dI" % (len(data) // 4), data)


def kpinfo(path):
    return dict(l.split(" ", 1) for l in open(path).read().splitlines() if " " in l)


def kprof(*args):
    r = subprocess.run([build_path("kprof")] + list(args), capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    if r.returncode != 0:
        raise VMError("kprof %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def rows(report):
    """{symbol: samples} from the rows of a kprof report."""
    return {sym: int(n) for n, sym in
            re.findall(r"^\s+[\d.]+\s+[\d.]+\s+(\d+)\s+(\S+)$", report, re.M)}


def profile(m, workload, hz=None):
    """Runs workload commands under startclr/stop and exports the dump;
    returns the export's number, for dump() after the halt."""
    if hz:
        assert m.run("echo hz %d > /dev/kpctl" % hz) == ""
    # one line, so no wait for the harness's typing falls inside the profile
    # (under icount, virtual time runs on while the guest idles)
    m.run("; ".join(["echo startclr > /dev/kpctl"] + workload + ["echo stop > /dev/kpctl"]))
    m.check(m.run("export /dev/kpdata /dev/kpinfo"), [r"^export: 2 files, \d+ bytes$"])
    m.nexport = getattr(m, "nexport", 0) + 1
    return m.nexport - 1


def dump(m, k):
    """After the halt (only then is COM2 complete): export number k's kpdata
    and kpinfo, written under the scratch directory; returns their paths."""
    files = m.archives()[k]
    dest = os.path.join(m.scratch, "out%d" % k, "dev")
    os.makedirs(dest, exist_ok=True)
    paths = []
    for name in ("kpdata", "kpinfo"):
        paths.append(os.path.join(dest, name))
        with open(paths[-1], "wb") as f:
            f.write(files["dev/" + name])
    return tuple(paths)


@test("kprof_idle", timeout=120, icount=True)
def kprof_idle(m):
    """The idle loop's ticks are counted apart (kpinfo's idle_ticks) and the
    report shows them as idle beside kernel and user, so that "kernel" is
    work: a second asleep (sleep 1000) is about 1000 idle ticks, the loop's work is
    kernel."""
    m.wait_prompt()
    k = profile(m, ["kwork loop 1000000 20; sleep 1000"])
    m.halt()
    data, info = dump(m, k)
    w, inf = words(data), kpinfo(info)
    idle = int(inf["idle_ticks"])
    assert 950 <= idle <= w[1], (idle, w[:2])
    report = kprof(KERNEL, data)
    m.text += report
    m.check(report, [r"^kernel\s+%d ticks" % (w[1] - idle), r"^idle\s+%d ticks" % idle])
    r = rows(report)
    assert r["kwork_loop"] >= 0.8 * (w[1] - idle), (r, w[:2], idle)


@test("kprof_workload", timeout=120, icount=True)
def kprof_workload(m):
    """profile `kwork loop` in the guest: kpdata format, word 0 >= word 1 >=
    sum of bins, `kwork_loop` on top with >= 90 % of kernel ticks, its
    hottest instruction (kprof annotate) in its loop, readprofile agrees
    with kprof per function"""
    m.wait_prompt()
    k = profile(m, ["kwork loop 2000000 50"])
    m.halt()
    data, info = dump(m, k)
    w, inf = words(data), kpinfo(info)
    # the format: header words, one bin per byte of text, the kpinfo keys
    nbins = int(inf["nbins"])
    assert len(w) == 2 + nbins, "%d words for %d bins" % (len(w), nbins)
    assert nbins == int(inf["text_end"], 16) - int(inf["text_start"], 16) and inf["res"] == "0"
    assert w[0] == int(inf["ticks"]) and w[1] == int(inf["kernel_ticks"]), (w[:2], inf)
    assert inf["state"] == "off" and inf["saturated"] == "0"
    # about 100 ms of kernel work at 1 kHz
    assert w[0] >= 80 and w[0] >= w[1] >= sum(w[2:]), "words 0,1 %s, bins %d" % (w[:2], sum(w[2:]))
    report = kprof(KERNEL, data)
    m.text += "\n--- kprof report ---\n" + report
    r = rows(report)
    top = max(r, key=r.get)
    assert top == "kwork_loop", "top function %s: %s" % (top, r)
    # the workload is built to spend nearly all its kernel time there
    assert r["kwork_loop"] >= 0.9 * w[1], "kwork_loop %d of %d kernel ticks" % (r["kwork_loop"], w[1])
    # its instructions: the hottest is in its loop, the rows sum to its row
    ann = kprof("annotate", KERNEL, data, "kwork_loop")
    m.text += "\n--- kprof annotate ---\n" + ann
    assert hot_in_loop(ann, "kwork_loop")[2] == r["kwork_loop"], ann
    idle = int(inf["idle_ticks"])
    m.check(report, [r"^total\s+%d ticks" % w[0], r"^kernel\s+%d ticks" % (w[1] - idle),
                     r"^idle\s+%d ticks" % idle])

    # the same dump for util-linux readprofile: equal counts per function
    rp = os.path.join(m.scratch, "rp")
    kprof("--format", "readprofile", "-o", rp, KERNEL, data)
    exe = shutil.which("readprofile") or "/usr/sbin/readprofile"
    out = subprocess.run([exe, "-p", os.path.join(rp, "profile"), "-m",
                          os.path.join(rp, "System.map")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, "readprofile: %s" % out.stderr
    theirs = {sym: int(n) for n, sym in re.findall(r"^\s*(\d+) (\S+)", out.stdout, re.M)}
    for sym, n in r.items():
        if not sym.startswith("<"):
            assert theirs.get(sym) == n, "%s: kprof %d, readprofile %s" % (sym, n, theirs.get(sym))


@test("kprof_splpc", timeout=120, icount=True)
def kprof_splpc(m):
    """Ticks held off by a cli are charged to the function that did the cli."""
    m.wait_prompt()
    k = profile(m, ["kwork cli 2000000 30"])
    m.halt()
    data, info = dump(m, k)
    r = rows(kprof(KERNEL, data))
    top = max(r, key=r.get)
    assert top == "kwork_cli", "top function %s: %s" % (top, r)
    assert r["kwork_cli"] >= 0.9 * words(data)[1], r
    # nothing lands on the instruction after splx's sti
    assert "splx" not in r and "splx_landing" not in r, r


@test("kprof_rate", timeout=180, icount=True)
def kprof_rate(m):
    """The same work at 10 kHz gives about ten times the ticks of 1 kHz."""
    m.wait_prompt()
    k1 = profile(m, ["kwork loop 2000000 30"], hz=1000)
    k10 = profile(m, ["kwork loop 2000000 30"], hz=10000)
    m.halt()
    (d1, _), (d10, i10) = dump(m, k1), dump(m, k10)
    t1, t10 = words(d1)[0], words(d10)[0]
    assert 9.0 <= t10 / t1 <= 11.0, "ticks %d at 1 kHz, %d at 10 kHz" % (t1, t10)
    pit = header_defines("clock.h")["PIT_INPUT_HZ"]
    want = pit / round(pit / 10000)             # the PIT divisor is rounded
    assert abs(float(kpinfo(i10)["hz"]) - want) < 0.001, (kpinfo(i10)["hz"], want)
    assert rows(kprof(KERNEL, d10)).get("kwork_loop", 0) >= 0.9 * words(d10)[1]


@test("kprof_res", timeout=120, cmdline="kprof.res=4", icount=True)
def kprof_res(m):
    """kprof.res= sets the bin size; res N changes it while stopped; kprof
    annotate shows the bins' counts at their instructions."""
    m.wait_prompt()
    k = profile(m, ["kwork loop 2000000 20"])
    assert m.run("echo res 2 > /dev/kpctl") == ""
    res2 = m.run("cat /dev/kpinfo")
    m.halt()
    data, info = dump(m, k)
    inf = kpinfo(info)
    assert inf["res"] == "4", inf
    span = int(inf["text_end"], 16) - int(inf["text_start"], 16)
    assert int(inf["nbins"]) == (span + 15) // 16 == len(words(data)) - 2, inf
    assert max(rows(kprof(KERNEL, data)).items(), key=lambda kv: kv[1])[0] == "kwork_loop"
    # annotated by 16-byte bins: the hottest bin's instruction is in the loop
    ann = kprof("annotate", KERNEL, data, "kwork_loop")
    m.check(ann, [r"^bins    16 bytes a count \(kpdata\): per-bin granularity"])
    hot_in_loop(ann, "kwork_loop")
    m.check(res2, [r"^res 2$", r"^nbins %d$" % ((span + 3) // 4)])


@test("kprof_kpctl_errors", timeout=120, icount=True)
def kprof_kpctl_errors(m):
    """Bad kpctl writes fail with EINVAL, say why on the console, are
    recorded as refused in kpinfo's last, and leave the counts alone;
    cat /dev/kpctl lists the commands."""
    m.wait_prompt()
    assert m.run("echo startclr > /dev/kpctl") == ""
    m.run("kwork loop 2000000 10")
    m.check(m.run("echo start > /dev/kpctl; cat /dev/kpinfo"),
            [r"^state on \(start while on: no change\)$"])
    m.check(m.run("put /dev/kpctl 'res 3'"), [r"^kpctl: res 3: profiling is on: stop first$",
                                               r"^put: write: Invalid argument$"])   # res while on
    assert m.run("echo stop > /dev/kpctl") == ""
    m.check(m.run("echo stop > /dev/kpctl; cat /dev/kpinfo"),
            [r"^state off \(stop while off: no change\)$"])
    counts = lambda: re.sub(r"^last .*\n", "", m.run("cat /dev/kpinfo; cksum /dev/kpdata"), flags=re.M)
    before = counts()
    why = {"hz 18": "out of range 19..596591", "hz 596592": "out of range 19..596591",
           "bogus": "not a command (start | stop | startclr | clear | hz N | res N (while stopped))",
           "res 9": "out of range 0..8"}
    for bad in ["", "\\n", "bogus", "Start", "start now", "starts", "hz", "hz abc", "hz 18",
                "hz 596592", "hz 99999999999", "res 9", "res -1", "res", " stop", "stop  ",
                "x" * 70, "clear 1"]:
        out = m.run("put /dev/kpctl '%s'" % bad)
        assert re.match(r"^kpctl: .+\nput: write: Invalid argument\nsh: put: exit status 1\n$", out), \
            "kpctl %r: %r" % (bad, out)
        if bad in why:
            assert out.startswith("kpctl: %s: %s\n" % (bad, why[bad])), (bad, out)
            m.check(m.run("cat /dev/kpinfo"), [r"^last %s: refused, %s$" % (re.escape(bad), re.escape(why[bad]))])
    after = counts()
    assert after == before, "counts changed:\n%s\n%s" % (before, after)
    m.check(before, [r"^ticks [1-9]\d*$"])
    assert m.run("cat /dev/kpctl") == "start | stop | startclr | clear | hz N | res N (while stopped)\n"
    # good ones still work, with or without the newline
    m.check(m.run("put /dev/kpctl 'res 1'"), [r"^put: wrote 5 bytes$"])
    m.check(m.run("put /dev/kpctl clear; cat /dev/kpinfo"), [r"^ticks 0$", r"^res 1$", r"^last clear$"])
    m.halt()


@test("kprof_repeat", timeout=300, qemu=False)
def kprof_repeat(h):
    """make profile's path (kpr, export, kprof) three times, each in a fresh
    QEMU under icount: the kpdata must be the same bytes every time. The
    PIT restarts when profiling starts, so the host's typing speed does not
    shift the samples."""
    import profile as prof      # tests/qemu/profile.py
    line = "kwork loop 1000000 30; kwork copy 500; spin 50"
    dumps = []
    for i in range(3):
        out = os.path.join(build_path("test-repeat"), str(i))
        _, out, console, _ = prof.profile(line, engine="devkprof", out=out)
        h.text += console
        dumps.append(open(os.path.join(out, "dev", "kpdata"), "rb").read())
    w = [words(os.path.join(build_path("test-repeat"), str(i), "dev", "kpdata"))[:2]
         for i in range(3)]
    assert dumps[0] == dumps[1] == dumps[2], "kpdata differs between runs: words 0, 1 %s" % w
    assert w[0][0] >= 80 and w[0][1] >= 30, "too few ticks to tell: %s" % (w[0],)
    report = kprof(KERNEL, os.path.join(build_path("test-repeat"), "0", "dev", "kpdata"))
    r = rows(report)
    assert max(r, key=r.get) == "kwork_loop", r
    shutil.rmtree(build_path("test-repeat"), ignore_errors=True)


@test("kprof_res_bins", timeout=300, qemu=False)
def kprof_res_bins(h):
    """The same command line in two fresh QEMUs under icount, one at
    kprof.res=0 and one at kprof.res=4: every res-4 bin holds exactly the
    sixteen res-0 bins of its bytes, so a bin index off by one at res > 0
    shows."""
    import profile as prof      # tests/qemu/profile.py
    # nothing in it depends on the bins' memory: no console output (the
    # UART's timing), no /dev/sysstat (the free pages)
    line = ("kwork loop 300000 10 > /dev/null; kwork copy 3000 > /dev/null; "
            "ls /bin > /dev/null; cksum /bin/sh > /dev/null")
    bins = {}
    for res in (0, 4):
        out = os.path.join(build_path("test-res"), str(res))
        _, out, console, _ = prof.profile(line, engine="devkprof", out=out,
                                          cmdline="kprof.res=%d hz=50000" % res)
        h.text += console
        bins[res] = words(os.path.join(out, "dev", "kpdata"))
    w0, w4 = bins[0], bins[4]
    assert w0[:2] == w4[:2], "the runs differ: total and kernel ticks %s and %s" % (w0[:2], w4[:2])
    b0, b4 = w0[2:], w4[2:]
    assert len(b4) == (len(b0) + 15) // 16, (len(b0), len(b4))
    summed = [sum(b0[16 * i:16 * i + 16]) for i in range(len(b4))]
    bad = [i for i in range(len(b4)) if summed[i] != b4[i]]
    assert not bad, "res 4 bin %d holds %d, its res 0 bins %d (and %d more bins differ)" % (
        bad[0], b4[bad[0]], summed[bad[0]], len(bad) - 1)
    assert sum(1 for v in b4 if v) >= 20, "too few nonzero bins to tell: %s" % [v for v in b4 if v]
    shutil.rmtree(build_path("test-res"), ignore_errors=True)
