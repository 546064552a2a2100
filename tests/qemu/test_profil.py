# profil(2) end to end: profiled programs run in the guest, their gmon
# files come out, and GNU gprof on the host reads them with the programs'
# ELFs: exact call counts, the built time shares, kprof's flat profile
# equal to gprof's, every error, a kill and a fault, two at once.
import os
import re
import shutil
import struct
import subprocess

from harness import build_path, test
from qemu import ROOT, VMError, header_defines

GMON = header_defines("gmon.h")
PROFDIR = re.search(r'^#define GMON_PROFDIR\s+"([^"]+)"',
                    open(os.path.join(ROOT, "include", "abi", "gmon.h")).read(), re.M).group(1)
HDR = struct.Struct("<8I")      # struct gmonhdr
# gprof leaves its own profiling functions out of the flat profile and its total
GPROF_HIDES = {"mcount", "_mcount", "__mcount"}


def gprof_exe():
    """The gprof that reads i386 ELF: the cross one, else the host's
    (Debian's reads elf32-i386 too)."""
    for exe in ("i686-linux-gnu-gprof", "gprof"):
        if shutil.which(exe):
            return exe
    raise VMError("no gprof on the host (binutils)")


def gprof(prog, gmon, *args):
    r = subprocess.run([gprof_exe(), "-b"] + list(args) + [build_path("user", "bin", prog), gmon],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise VMError("gprof %s %s: %s" % (prog, gmon, r.stderr.strip()))
    return r.stdout


def flat(text):
    """gprof's flat profile: {name: (percent, self seconds, calls or None)}."""
    rows = {}
    for pct, _cum, self_s, calls, name in re.findall(
            r"^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:(\d+)\s+[\d.]+\s+[\d.]+\s+)?(\S+)$",
            text, re.M):
        rows[name] = (float(pct), float(self_s), int(calls) if calls else None)
    return rows


def callgraph(text):
    """gprof's call graph: {name: (called, {parent: "n/m"})}; a recursive
    function's count reads "1+10" and its self-call shows as parent "self: 10"."""
    graph = {}
    for block in text.split("-----------------------------------------------"):
        parents = {}
        for line in block.splitlines():
            prim = re.match(r"^\[\d+\]\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(\S+)\s+(\S+) \[\d+\]$", line)
            if prim:
                graph[prim.group(2)] = (prim.group(1), parents)
                break
            par = re.match(r"^\s+[\d.]+\s+[\d.]+\s+(\d+/\d+)\s+(\S+) \[\d+\]$", line)
            rec = re.match(r"^\s+(\d+)\s+(\S+) \[\d+\]$", line)
            if par:
                parents[par.group(2)] = par.group(1)
            elif rec:
                parents["self: " + rec.group(2)] = rec.group(1)
    return graph


def kprof_gmon(prog, gmon):
    r = subprocess.run([build_path("kprof"), "gmon", build_path("user", "bin", prog), gmon],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise VMError("kprof gmon: %s" % r.stderr.strip())
    rows = {name: (int(s), int(c)) for _p, s, c, name in
            re.findall(r"^\s*([\d.]+)\s+(\d+)\s+(\d+)\s+(\S+)$", r.stdout, re.M)}
    return r.stdout, rows


def check_wrong_elf(prog, other, gmon):
    """A gmon file read with another build of its program (the plain one
    for the -pg one) is refused, with the reason, unless --force: its
    functions are elsewhere, and the report would blame the wrong ones."""
    for args in (["gmon", build_path("user", "bin", other), gmon],
                 [build_path("user", "bin", other), gmon]):
        r = subprocess.run([build_path("kprof")] + args, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and re.match(r"^kprof: .* is not the program that wrote this "
                                              r"gmon file: .*\(--force to go on\)\n$", r.stderr), \
            "kprof %s: status %d\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr)
    r = subprocess.run([build_path("kprof"), "gmon", "--force", build_path("user", "bin", other), gmon],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "kprof: warning: " in r.stderr, r.stderr


def check_addr_whole(prog, gmon):
    """kprof --addr on 2-byte bins: each row's instruction is the one that
    starts in the bin (objdump's, Intel syntax), or says which one the bin
    lies inside; never bytes decoded from the middle of an instruction."""
    dis = subprocess.run(["objdump", "-d", "-M", "intel", "--no-show-raw-insn",
                          build_path("user", "bin", prog)], capture_output=True, text=True,
                         check=True).stdout
    insns = {int(a, 16): m for a, m in re.findall(r"^\s*([0-9a-f]+):\s+(\w+)", dis, re.M)}
    r = subprocess.run([build_path("kprof"), "--addr", build_path("user", "bin", prog), gmon],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = re.findall(r"^\s+[\d.]+\s+[\d.]+\s+\d+\s+([0-9a-f]{8})\s+\S+\s+(.*)$", r.stdout, re.M)
    assert len(rows) >= 5, r.stdout
    for a, text in rows:
        a = int(a, 16)
        starts = [x for x in (a, a + 1) if x in insns]
        if starts:
            assert text.split()[0] == insns[starts[0]], \
                "bin 0x%x: %r, but the instruction at 0x%x is %s" % (a, text, starts[0], insns[starts[0]])
        else:
            assert text.startswith("(inside "), "bin 0x%x: %r, and no instruction starts in it" % (a, text)


def check_reader(prog, gmon):
    """The pipeline's gmon reader (kprof PROG FILE, the report every dump
    gets) charges each function what kprof gmon does."""
    r = subprocess.run([build_path("kprof"), build_path("user", "bin", prog), gmon],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, "kprof %s: %s" % (prog, r.stderr.strip())
    assert re.search(r"^clock\s+[\d.]+ Hz  \(gmon\)$", r.stdout, re.M), r.stdout
    report = {sym: int(n) for n, sym in
              re.findall(r"^\s+[\d.]+\s+[\d.]+\s+(\d+)\s+(\S+)$", r.stdout, re.M)}
    _text, rows = kprof_gmon(prog, gmon)
    flat_rows = {name: s for name, (s, _c) in rows.items() if s and not name.startswith("(")}
    assert report == flat_rows, "report %s, kprof gmon %s" % (report, flat_rows)


def header(path):
    data = open(path, "rb").read()
    h = HDR.unpack_from(data)
    return dict(zip(("lpc", "hpc", "ncnt", "version", "profrate", "lost_bins", "lost_arcs"),
                    h[:7])), data


def bins(path):
    h, data = header(path)
    return struct.unpack_from("<%dH" % ((h["ncnt"] - HDR.size) // 2), data, HDR.size)


def gmon_files(m, directory=PROFDIR):
    """{(program, pid): guest path} of the gmon files in directory."""
    out = m.run("ls %s" % directory)
    return {(p, int(pid)): "%s/gmon.%s.%s.out" % (directory, p, pid)
            for p, pid in re.findall(r"^file\s+\d+ gmon\.(\S+)\.(\d+)\.out$", out, re.M)}


def export(m, paths):
    """Exports guest paths; returns {guest path: host path}. The host files
    are written by written() after the halt: only then is COM2 complete."""
    m.check(m.run("export " + " ".join(paths)), [r"^export: %d files?, \d+ bytes$" % len(paths)])
    m.nexport = getattr(m, "nexport", 0) + 1
    dest = os.path.join(m.scratch, "out%d" % (m.nexport - 1))
    return {p: os.path.join(dest, p.lstrip("/")) for p in paths}


def written(m):
    """After the halt: every export's files, under the paths export() gave."""
    for k, files in enumerate(m.archives()):
        for name, data in files.items():
            path = os.path.join(m.scratch, "out%d" % k, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)


def check_calls(prog, gmon):
    """calls' graph: main -> a 1000 times, a -> b 3000, rec 1 + 10, no c."""
    g = callgraph(gprof(prog, gmon, "-q"))
    assert g.get("a") == ("1000", {"main": "1000/1000"}), "a: %s" % (g.get("a"),)
    assert g.get("b") == ("3000", {"a": "3000/3000"}), "b: %s" % (g.get("b"),)
    assert g.get("rec") == ("1+10", {"main": "1/1", "self: rec": "10"}), "rec: %s" % (g.get("rec"),)
    assert "c" not in g, "c was never called: %s" % (g.get("c"),)


def check_shares(prog, gmon, want):
    f = flat(gprof(prog, gmon, "-p"))
    for name, share in want.items():
        assert name in f and abs(f[name][0] - share) <= 3.0, \
            "%s: %s%% of the time, built for %d%%: %s" % (name, f.get(name), share, f)
    return f


def check_kprof_agrees(prog, gmon):
    """kprof's samples per function are gprof's: gprof prints percentages
    of its total to 0.01, which pins each count exactly below 10000 samples,
    and seconds to 0.01, checked against the count at the file's rate."""
    f = flat(gprof(prog, gmon, "-p"))
    text, k = kprof_gmon(prog, gmon)
    rate = header(gmon)[0]["profrate"]
    total = sum(s for name, (s, _c) in k.items() if name not in GPROF_HIDES)
    assert total > 0, "%s: no samples at all\n%s" % (prog, text)
    assert total < 10000, "%d samples: too many to pin from gprof's percentages" % total
    for name, (pct, self_s, calls) in f.items():
        mine = k.get(name, (0, 0))[0]
        assert round(pct * total / 100.0) == mine, \
            "%s: gprof %.2f%% of %d samples, kprof %d\n%s" % (name, pct, total, mine, text)
        assert abs(self_s - mine / rate) <= 0.0051, "%s: gprof %.2f s, kprof %d samples" % (
            name, self_s, mine)
        if calls is not None:
            assert k[name][1] == calls, "%s: gprof %d calls, kprof %d" % (name, calls, k[name][1])
    for name, (s, _c) in k.items():
        if s and name not in GPROF_HIDES:
            assert name in f, "kprof has %d samples in %s, gprof none\n%s" % (s, name, text)
    return text


@test("profil_gprof", timeout=240, cmdline="hz=10000", icount=True)
def profil_gprof(m):
    """calls.pg and hotcold.pg through GNU gprof: exact call counts, the
    60/30/10 split within 3 points, kprof equal to gprof sample for sample;
    kwork.pg's time in the kernel is charged to the PC it returns to. kprof
    refuses hotcold.pg's file with the plain hotcold, and its --addr rows
    show whole instructions."""
    m.wait_prompt()
    m.run("calls.pg")
    m.run("hotcold.pg 4000000")
    m.check(m.run("kwork.pg loop 2000000 10"), [r"^kwork: loop done$"])
    files = gmon_files(m)
    assert sorted(p for p, _ in files) == ["calls.pg", "hotcold.pg", "kwork.pg"], files
    host = export(m, sorted(files.values()))
    m.halt()
    written(m)
    got = {prog: host[path] for (prog, _pid), path in files.items()}
    h = header(got["hotcold.pg"])[0]
    assert h["version"] == GMON["GMON_VERSION_BSD44"] and 10000 <= h["profrate"] <= 10100, h
    check_calls("calls.pg", got["calls.pg"])
    check_shares("hotcold.pg", got["hotcold.pg"], {"hot": 60, "warm": 30, "cold": 10})
    m.text += "\n--- kprof gmon hotcold.pg ---\n" + check_kprof_agrees("hotcold.pg", got["hotcold.pg"])
    check_reader("hotcold.pg", got["hotcold.pg"])
    check_reader("calls.pg", got["calls.pg"])
    check_wrong_elf("hotcold.pg", "hotcold", got["hotcold.pg"])
    check_addr_whole("hotcold.pg", got["hotcold.pg"])
    # kwork.pg spends nearly all its time inside the kwork system call: with
    # system time charged to the PC it returns to, its libc stub holds it;
    # without, the profile would be nearly empty
    f = flat(gprof("kwork.pg", got["kwork.pg"], "-p"))
    assert f.get("kwork", (0,))[0] >= 90.0, "kwork's stub: %s" % f
    check_kprof_agrees("kwork.pg", got["kwork.pg"])


@test("profil_errors", timeout=120, icount=True)
def profil_errors(m):
    """Each error of profil(2) from a program in the guest, and dirfd."""
    m.wait_prompt()
    m.check(m.run("profiltest eperm"), [r"^profiltest: eperm: ok$"])
    out = m.run("profiltest.pg errors")
    m.check(out, [r"^profiltest: %s: ok$" % n for n in (
        "ebadf", "ebadf-negative", "enotdir", "erofs", "einval-scale", "einval-scale-max",
        "einval-size", "efault-kernel", "efault-unmapped", "efault-wrap", "ealready")],
        forbid=[r"FAIL"])
    m.check(m.run("profiltest.pg dir /tmp/pt"), [r"^profiltest: dir: ok$"])
    there = gmon_files(m, "/tmp/pt")
    assert [p for p, _ in there] == ["profiltest.pg"], there
    # the default directory got only the errors run's file
    assert sorted(p for p, _ in gmon_files(m)) == ["profiltest.pg"]
    m.halt()
    written(m)


@test("profil_kill_fault", timeout=180, cmdline="hz=10000", icount=True)
def profil_kill_fault(m):
    """A profiled program that faults, or is killed, gets its gmon file
    (the README says so) with what was counted up to the end; the kernel
    carries on and gives back every page."""
    m.wait_prompt()

    def freepages():
        return int(re.search(r"^freepages (\d+)$", m.run("cat /dev/sysstat"), re.M).group(1))

    def kill_one():
        pid = int(re.search(r"^\[(\d+)\]$", m.run("hotcold.pg 400000000 &"), re.M).group(1))
        m.run("sleep 30")
        m.run("kill %d" % pid)
        m.fresh_prompt()
        m.run("sleep 10")
        return pid

    m.check(m.run("calls.pg fault"), [r"^pid \d+ \(calls\.pg\): page fault at 0x00000000"])
    pid = kill_one()
    files = gmon_files(m)
    assert sorted(p for p, _ in files) == ["calls.pg", "hotcold.pg"], files
    host = export(m, sorted(files.values()))
    got = {prog: host[path] for (prog, _pid), path in files.items()}
    assert ("hotcold.pg", pid) in files
    # no page kept: a second kill, its file removed, leaves the count as it was
    m.run("rm " + " ".join(files.values()))
    before = freepages()
    pid = kill_one()
    m.run("rm %s/gmon.hotcold.pg.%d.out" % (PROFDIR, pid))
    after = freepages()
    m.check(m.run("echo alive"), [r"^alive$"])
    m.halt()
    written(m)
    assert after == before, "free pages %d before a profiled kill, %d after" % (before, after)
    check_calls("calls.pg", got["calls.pg"])
    f = flat(gprof("hotcold.pg", got["hotcold.pg"], "-p"))
    assert f.get("hot", (0, 0))[1] > 0 and "warm" not in f, \
        "killed in hot() with the samples so far: %s" % f


@test("profil_two", timeout=240, cmdline="hz=10000", icount=True)
def profil_two(m):
    """Two profiled programs at once: each file is its own, with its own
    split; devkprof samples the kernel meanwhile (two engines share each
    tick through the framework's fan-out)."""
    m.wait_prompt()
    out = m.run("echo startclr > /dev/kpctl; hotcold.pg 2000000 & hotcold.pg 2500000; "
                "echo stop > /dev/kpctl")
    bg = int(re.search(r"^\[(\d+)\]$", out, re.M).group(1))
    m.run("sleep 20")
    m.check(m.run("cat /dev/kpinfo"), [r"^ticks [1-9]\d*$"])
    files = gmon_files(m)
    assert len(files) == 2 and ("hotcold.pg", bg) in files, files
    host = export(m, sorted(files.values()))
    m.halt()
    written(m)
    totals = {}
    for (prog, pid), path in files.items():
        check_shares(prog, host[path], {"hot": 60, "warm": 30, "cold": 10})
        totals[pid] = sum(bins(host[path]))
    # the work differs by 2.5/2: so do the samples, each counted once
    ratio = totals[max(totals)] / totals[bg]
    assert 1.15 <= ratio <= 1.35, "samples %s: the second did 1.25 times the work" % totals


@test("profil_limits", timeout=240, cmdline="hz=500000", icount=True)
def profil_limits(m):
    """A bin stops at 65535 and the rest is counted; an arc table too small
    for the calls counts what it dropped; both are in the file's header and
    on the console. moncontrol(0) hides what runs while it is off."""
    m.wait_prompt()
    out = m.run("kwork.pg loop 3000000 10; profiltest.pg arcs; profiltest.pg off 3000000")
    m.check(out, [r"^profil: pid \d+ \(kwork\.pg\): [1-9]\d* samples lost \(.*\), 0 calls",
                  r"^profil: pid \d+ \(profiltest\.pg\): 0 samples lost \(.*\), "
                  r"[1-9]\d* calls \(full arc table\)$"])
    files = gmon_files(m)
    host = export(m, sorted(files.values()))
    # the bins given back to the kernel by sbrk: the samples are lost, in
    # user and in kernel mode, and nothing is written where they were
    m.run("rm " + " ".join(files.values()))
    m.check(m.run("profiltest.pg sbrk 1000000"),
            [r"^profiltest: sbrk: ok$", r"^profil: pid \d+ \(profiltest\.pg\): [1-9]\d* samples lost"])
    sb = gmon_files(m)
    sbhost = export(m, sorted(sb.values()))
    # a full bin stays full and every sample after counts as lost: the same
    # loop over bins set to 0 shows how many samples that is
    m.run("rm " + " ".join(sb.values()))
    m.check(m.run("profiltest.pg fill 0 1000000"), [r"^profiltest: fill: ok$"])
    m.check(m.run("profiltest.pg fill 65535 1000000"),
            [r"^profiltest: fill: ok$", r"^profil: pid \d+ \(profiltest\.pg\): [1-9]\d* samples lost"])
    fl = gmon_files(m)
    flhost = export(m, sorted(fl.values()))
    m.halt()
    written(m)
    got = {}
    for (prog, pid), path in sorted(files.items()):
        got.setdefault(prog, []).append(host[path])
    kw = got["kwork.pg"][0]
    h = header(kw)[0]
    assert max(bins(kw)) == GMON["GMON_BIN_MAX"] and h["lost_bins"] > 0, h
    arcs, off = got["profiltest.pg"]
    h = header(arcs)[0]
    f = flat(gprof("profiltest.pg", arcs, "-p"))
    assert h["lost_arcs"] > 0 and f["leaf"][2] + h["lost_arcs"] == 3000, \
        "leaf: %s calls recorded, %d lost, of 3000" % (f.get("leaf"), h["lost_arcs"])
    f = flat(gprof("profiltest.pg", off, "-p"))
    assert "unseen" not in f or f["unseen"][1] == 0, "moncontrol(0) let samples in: %s" % f
    (path,) = sbhost.values()
    h = header(path)[0]
    # 1M loops in each mode at 597 kHz: thousands of samples, none kept
    assert sum(bins(path)) == 0 and h["lost_bins"] > 1000, (sum(bins(path)), h)
    (_, zero), (_, full) = sorted(fl.items())
    n = sum(bins(flhost[zero]))
    h = header(flhost[full])[0]
    assert set(bins(flhost[full])) == {GMON["GMON_BIN_MAX"]}, "a full bin moved"
    assert n > 1000 and abs(h["lost_bins"] - n) <= n // 20, \
        "%d samples lost over full bins; %d counted over empty ones" % (h["lost_bins"], n)


@test("profil_kprof_bad_gmon", timeout=60, qemu=False)
def profil_kprof_bad_gmon(h):
    """kprof gmon (the ASan+UBSan build) on damaged files: one "kprof: "
    line and status 2 each, never a crash; a good file still reads."""
    import tempfile
    elf = build_path("user", "bin", "hotcold.pg")
    good = HDR.pack(0x40000000, 0x40000010, HDR.size + 16, GMON["GMON_VERSION_BSD44"],
                    1000, 0, 0, 0) + struct.pack("<8H", 0, 5, 0, 0, 0, 0, 0, 0) + \
        struct.pack("<3I", 0x40000020, 0x40000000, 7)
    bad = {
        "empty": b"",
        "short header": good[:20],
        "old version": HDR.pack(0x40000000, 0x40000010, HDR.size + 16, 0x51878, 1000,
                                0, 0, 0) + good[HDR.size:],
        "bins past the end": good[:HDR.size + 8],
        "odd arc tail": good + b"\x01\x02\x03",
        "hpc below lpc": HDR.pack(0x40000010, 0x40000000, HDR.size + 16,
                                  GMON["GMON_VERSION_BSD44"], 1000, 0, 0, 0) + good[HDR.size:],
        "ncnt below the header": HDR.pack(0x40000000, 0x40000010, 4, GMON["GMON_VERSION_BSD44"],
                                          1000, 0, 0, 0) + good[HDR.size:],
    }
    with tempfile.TemporaryDirectory() as d:
        for name, data in list(bad.items()) + [("good", good)]:
            path = os.path.join(d, name.replace(" ", "_"))
            open(path, "wb").write(data)
            r = subprocess.run([build_path("kprof-asan"), "gmon", elf, path], capture_output=True,
                               text=True, timeout=30)
            h.text += "--- %s: status %d\n%s%s" % (name, r.returncode, r.stdout, r.stderr)
            if name == "good":
                assert r.returncode == 0, r.stderr
                h.check(r.stdout, [r"^gmon: 5 samples at 1000 Hz, 1 arcs$"])
            else:
                assert r.returncode == 2 and re.match(r"^kprof: .+\n$", r.stderr), \
                    "%s: status %d, stderr %r" % (name, r.returncode, r.stderr)
