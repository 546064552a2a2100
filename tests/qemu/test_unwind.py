# The stack engine's unwind tables (include/unwtab.h): made from each
# program's .eh_frame by the builder the kernel and kprof share
# (kernel/prof/unwind_build.c), held to readelf's own reading of the same
# CFI, and used at the tick to walk code built without frame pointers.
import glob
import math
import os
import re
import subprocess

from harness import build_path, test
from qemu import VMError
from test_stacks import dumps, folded as _folded_stackwork, run_stacks

KPROF = build_path("kprof")
KERNEL = build_path("kernel.elf")
BIN = build_path("user", "bin")
ROOT_PATH = "_start;__libc_start_main_impl;__libc_start_call_main;main"


def folded(dump, *elfs):
    args = [KPROF, "--format", "folded"]
    for e in elfs:
        args += ["--elf", os.path.join(BIN, e)]
    r = subprocess.run(args + [KERNEL, dump], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = {}
    for l in r.stdout.splitlines():
        stack, n = l.rsplit(" ", 1)
        lines[stack] = lines.get(stack, 0) + int(n)
    return lines


def readelf_rules(elf):
    """{address: rule} at every row readelf --debug-dump=frames-interp
    prints, in kprof unwind's words, and each FDE's end"""
    out = subprocess.run(["readelf", "--debug-dump=frames-interp", elf], capture_output=True,
                         text=True, check=True).stdout
    rows, cols, end = [], None, None
    for line in out.splitlines():
        m = re.search(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
        if m:
            end, cols = int(m.group(2), 16), None
            continue
        if " CIE " in line or "ZERO terminator" in line:
            end, cols = None, None
            continue
        if line.strip().startswith("LOC"):
            cols = line.split()
            continue
        m = re.match(r"^([0-9a-f]{8}) ", line)
        if not (m and cols and end):
            continue
        d = dict(zip(cols, re.sub(r"r\d+ \(\w+\)", "reg", line).split()))
        cfa, ra, bp = d["CFA"], d.get("ra", "u"), d.get("ebp", "u")
        c = re.match(r"(esp|ebp)\+(\d+)$", cfa)
        if ra == "u":
            rule = "end: the outermost frame"
        elif c and ra == "c-4" and (bp in ("u", "s") or re.match(r"c-\d+$", bp)):
            rule = "cfa=%s+%s ra=cfa-4 ebp=%s" % (c.group(1), c.group(2),
                                                    "same" if bp in ("u", "s") else "cfa-" + bp[2:])
        else:
            rule = None                 # an expression: checked by hand below
        rows.append([int(m.group(1), 16), end, rule])
    # a row ends where the next of its FDE starts
    for a, b in zip(rows, rows[1:]):
        if b[1] == a[1] and b[0] > a[0]:
            a[1] = b[0]
    return rows


def table_rows(elf, func=None):
    r = subprocess.run([KPROF, "unwind", elf] + ([func] if func else []), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = [(int(a, 16), int(b, 16), rule) for a, b, rule in
            re.findall(r"^  0x([0-9a-f]+)\.\.0x([0-9a-f]+)  (.*)$", r.stdout, re.M)]
    size = re.search(r"^table: .*: (\d+) bytes \(\.eh_frame (\d+)\)", r.stdout, re.M)
    return rows, int(size.group(1)), int(size.group(2)), r.stdout


@test("unwind_tables_match_readelf", timeout=240, qemu=False)
def unwind_tables_match_readelf(h):
    """kprof unwind (the kernel's builder, compiled for the host) against
    readelf's own reading of the CFI, at every row of every FDE of glibc
    programs (Lua, bzip2, the test program): the same CFA, return address
    and ebp everywhere readelf's rule is one the table keeps; gcc's
    realigning main() as the DRAP rule; every table smaller than its
    .eh_frame; a program without .eh_frame refused with a clear error"""
    import bisect
    elfs = [os.path.join(BIN, "omitfp"), os.path.join(BIN, "omitfp-fp"), os.path.join(BIN, "hello")]
    elfs += glob.glob(build_path("debian", "bin", "*"))
    text = []
    for elf in elfs:
        got, size, ehsize, _ = table_rows(elf)
        assert size <= ehsize, "%s: table %d bytes, .eh_frame %d" % (elf, size, ehsize)
        starts = [g[0] for g in got]
        checked = 0
        for pc, end, rule in readelf_rules(elf):
            if rule is None or end <= pc:
                continue
            for a in (pc, end - 1):
                i = bisect.bisect_right(starts, a) - 1
                mine = got[i][2] if i >= 0 and got[i][1] > a else "none"
                assert mine == rule, "%s 0x%x: readelf says %s, the table %s" % (elf, a, rule, mine)
                checked += 1
        text.append("%s: %d rows, %d bytes of %d: %d addresses agree" %
                    (os.path.basename(elf), len(got), size, ehsize, checked))
        assert checked > 1000, text
    # gcc's main() realigns its stack: CFA = *(ebp-16), ebp at *(ebp)
    rows, _, _, out = table_rows(os.path.join(BIN, "omitfp"), "main")
    assert any(r[2] == "cfa=*(ebp-16) ra=cfa-4 ebp=*(ebp+0)" for r in rows), out
    assert rows[0][2] == "cfa=esp+4 ra=cfa-4 ebp=same", out
    # _start: the outermost frame
    rows, _, _, out = table_rows(os.path.join(BIN, "omitfp"), "_start")
    assert rows and all(r[2] == "end: the outermost frame" for r in rows), out
    r = subprocess.run([KPROF, "unwind", os.path.join(BIN, "stackwork")], capture_output=True, text=True)
    assert r.returncode == 2 and "no .eh_frame section" in r.stderr, (r.returncode, r.stderr)
    h.text = "\n".join(text)


TREE = {"alpha": 1, "beta": 2, "rec;rec;rec;rec": 1, "gamma_": 2}


def plain(stack):
    """a stack's function names without gcc's clone suffixes (.constprop.0),
    which vary with the build's flags"""
    return re.sub(r"\.(constprop|isra|part)\.\d+", "", stack)


def check_tree(lines, prog):
    """omitfp tree's stacks: every one a path the program takes, whole down
    to _start, and spin's time split 1:2:1:2 between its callers"""
    mine = {}
    for k, v in lines.items():
        if k.startswith(prog + ";") and "_[k]" not in k:
            mine[plain(k)] = mine.get(plain(k), 0) + v
    spin = {}
    for k, v in mine.items():
        assert "[truncated]" not in k, "%s: cut short: %s" % (prog, k)
        if ";main;" not in k + ";" and not k.endswith(";main"):
            continue                    # glibc's start-up and exit
        assert k.startswith(prog + ";" + ROOT_PATH), "%s: not rooted at _start: %s" % (prog, k)
        rest = k[len(prog + ";" + ROOT_PATH):].lstrip(";")
        # a PIE-compiled function's call for its own address is a real leaf
        rest = re.sub(r";?__x86\.get_pc_thunk\.\w+$", "", rest)
        ok = rest == "" or any((caller + ";spin").startswith(rest) or rest == caller
                               for caller in TREE) or rest.startswith("__libc") or \
            rest in ("printf", "strtoul") or rest.startswith(("printf;", "strtoul;", "_IO", "__"))
        assert ok, "%s: a path the program never takes: %s" % (prog, k)
        for caller in TREE:
            if rest == caller + ";spin":
                spin[caller] = spin.get(caller, 0) + v
    total = sum(spin.values())
    assert total > 300, (prog, spin)
    for caller, share in TREE.items():
        p = share / 6
        got = spin.get(caller, 0)
        sigma = math.sqrt(total * p * (1 - p))
        assert abs(got - total * p) < 4 * sigma + 2, \
            "%s: %s;spin %d of %d, built to be %.0f" % (prog, caller, got, total, total * p)
    return spin


@test("unwind_omit_frame_pointer", timeout=300, icount=True)
def unwind_omit_frame_pointer(m):
    """a glibc program built without frame pointers in any function
    (omitfp), with them in half of it (omitfp-mix) and everywhere
    (omitfp-fp): every sampled path is one the program takes (recursion, a
    call through a pointer, a leaf reached from four callers), whole down
    to _start through glibc's own frames, and spin's time splits between
    its callers as the program is built to split it, within noise; glibc's
    qsort calling the comparator shows main;qsort;...;cmp"""
    m.wait_prompt()
    run_stacks(m, "omitfp tree 4000; omitfp-mix tree 4000; omitfp-fp tree 4000")
    run_stacks(m, "omitfp qsort 1500")
    m.halt()
    tree, qs = dumps(m, m.scratch)
    lines = folded(tree, "omitfp", "omitfp-mix", "omitfp-fp")
    shares = {p: check_tree(lines, p) for p in ("omitfp", "omitfp-mix", "omitfp-fp")}
    m.text += "\nshares: %r\n" % shares
    lines = folded(qs, "omitfp")
    incmp = {k: v for k, v in lines.items() if ";cmp" in k}
    assert sum(incmp.values()) > 30, lines
    for k in incmp:
        assert k.startswith("omitfp;" + ROOT_PATH + ";qsort;__qsort_r;msort_with_tmp"), \
            "the comparator without qsort's frames under it: %s" % k
    # a walk that cannot go on ends with the mark, never with a wrong
    # frame: glibc's own memcpy pushes a register its CFI does not declare
    # (from 0x...dd to its pop: `kprof unwind omitfp memcpy` shows one
    # row for all of it), so its ticks there have no caller to give
    cut = {k: v for k, v in lines.items() if k.startswith("omitfp;") and "[truncated]" in k}
    for k in cut:
        assert re.match(r"omitfp;\[truncated\];memcpy(;\S+_\[k\])*$", k), "a wrong frame: %s" % k


@test("stacks_syscall_stub", timeout=240, icount=True)
def stacks_syscall_stub(m):
    """ticks in the system-call gate's entry and exit stubs (vector_syscall,
    alltraps before pusha, trapret after popa), where the user's ebp is in
    the register and not in the frame: a program of the project's own
    (frame pointers) making a million getpid calls has no truncated stack,
    and the stub's ticks carry the whole user stack"""
    m.wait_prompt()
    run_stacks(m, "stackwork cheap 1000000")
    m.halt()
    dump, = dumps(m, m.scratch)
    lines = _folded_stackwork(dump)
    mine = {k: v for k, v in lines.items() if k.startswith("stackwork;")}
    stub = {k: v for k, v in mine.items()
            if re.search(r";(vector_syscall|alltraps|trapret)_\[k\]$", k)}
    assert sum(stub.values()) >= 10, mine
    for k in stub:
        assert k.startswith("stackwork;_start;main;g1;g2;getpid;usyscall;"), \
            "a tick in the gate's stub lost the user's stack: %s" % k
    assert not any("[truncated]" in k for k in mine), mine


def pairs(lines, prog):
    """{caller;leaf: samples} of a program's user stacks (the kernel's
    frames dropped), clone suffixes dropped; and how many are rooted at
    _start and how many are cut"""
    got, rooted, cut, total = {}, 0, 0, 0
    for k, v in lines.items():
        if not k.startswith(prog + ";"):
            continue
        frames = [f for f in plain(k).split(";")[1:] if not f.endswith("_[k]")]
        total += v
        rooted += v if frames[:1] == ["_start"] else 0
        cut += v if "[truncated]" in frames else 0
        key = ";".join(frames[-2:])
        got[key] = got.get(key, 0) + v
    return got, rooted, cut, total


@test("unwind_lua_with_and_without_frame_pointers", timeout=420, icount=True)
def unwind_lua_with_and_without_frame_pointers(m):
    """lua (built with frame pointers) and lua-nofp (the same sources with
    plain -O2, none) on the same n-body run: both walked to _start, and the
    shares of every caller;leaf pair of their flame graphs agree within
    statistical noise (4 sigma of the difference of two proportions)"""
    m.wait_prompt()
    m.run("echo hz 10000 > /dev/kpctl")
    run_stacks(m, "lua /bin/share/lua/nbody.lua 4000 > /tmp/a; lua-nofp /bin/share/lua/nbody.lua 4000 > /tmp/b")
    m.halt()
    dump, = dumps(m, m.scratch)
    lines = folded(dump, "../../debian/bin/lua", "../../debian/bin/lua-nofp")
    a, ra, ca, na = pairs(lines, "lua")
    b, rb, cb, nb = pairs(lines, "lua-nofp")
    m.text += "\nlua: %d samples, %d rooted at _start, %d cut; lua-nofp: %d, %d, %d\n" % (na, ra, ca, nb, rb, cb)
    assert na > 1000 and nb > 1000, (na, nb)
    assert ra >= 0.98 * na and rb >= 0.98 * nb, m.text
    worst = []
    for key in set(a) | set(b):
        pa, pb = a.get(key, 0) / na, b.get(key, 0) / nb
        p = (a.get(key, 0) + b.get(key, 0)) / (na + nb)
        sigma = math.sqrt(max(p * (1 - p), 1e-9) * (1 / na + 1 / nb))
        worst.append((abs(pa - pb) / sigma, key, a.get(key, 0), b.get(key, 0)))
    worst.sort(reverse=True)
    m.text += "".join("  %.1f sigma  %s  %d / %d\n" % w for w in worst[:8])
    assert worst[0][0] < 4, "lua and lua-nofp disagree:\n" + m.text


@test("unwind_signal_frames", timeout=240, icount=True)
def unwind_signal_frames(m):
    """ticks in a signal handler (omitfp signal: raise() from main ->
    sigchain, handlers that spin): the handler, the signal's trampoline
    (glibc's __restore for a plain frame, __restore_rt for a SA_SIGINFO
    one, found by their sigreturn bytes), then the code the signal
    interrupted, down to _start, read from the frame's sigcontext"""
    m.wait_prompt()
    m.run("echo hz 10000 > /dev/kpctl")
    run_stacks(m, "omitfp signal 300")
    m.halt()
    dump, = dumps(m, m.scratch)
    lines = folded(dump, "omitfp")
    under = "omitfp;" + ROOT_PATH + ";sigchain;raise;__pthread_kill_implementation;_dl_sysinfo_int80;"
    for tramp, handler in (("__restore", "on_usr1"), ("__restore_rt", "on_usr2")):
        got = {plain(k): v for k, v in lines.items() if (";%s;" % handler) in k}
        assert sum(got.values()) >= 50, (handler, lines)
        for k in got:
            assert k.startswith(under + tramp + ";" + handler), "a handler's stack: %s" % k
