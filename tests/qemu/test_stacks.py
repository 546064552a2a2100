# The stack engine (kernel/prof/stacks.c) and the folded writer: stacks of
# a known call tree, a system call's kernel frames on its user stack,
# broken user stacks, and a full table's drops, under icount.
import os
import re
import struct
import subprocess
import sys

from harness import build_path, test
from qemu import ROOT

KPROF = build_path("kprof")
KERNEL = build_path("kernel.elf")
STACKWORK = build_path("user", "bin", "stackwork")


def folded(dump_path, *extra):
    r = subprocess.run([KPROF, "--format", "folded", "--elf", STACKWORK] + list(extra) +
                       [KERNEL, dump_path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = {}
    for l in r.stdout.splitlines():
        stack, n = l.rsplit(" ", 1)
        lines[stack] = lines.get(stack, 0) + int(n)
    return lines


def check_flamegraph(dump_path, hot):
    """kprof's SVG: well-formed, every box as wide as its samples (one
    scale for all), the title's total that of the root, kernel frames in
    orange, and the hot function's box the widest at its depth."""
    import xml.dom.minidom
    r = subprocess.run([KPROF, "--format", "flamegraph", "--elf", STACKWORK, KERNEL, dump_path],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    d = xml.dom.minidom.parseString(r.stdout)
    total = int(re.search(r"Flame graph: (\d+) samples", r.stdout).group(1))
    boxes = []
    for g in d.getElementsByTagName("g"):
        title = g.getElementsByTagName("title")[0].firstChild.data
        rect = g.getElementsByTagName("rect")[0]
        name, n = re.match(r"^(.*) \((\d+) samples, [\d.]+%\)$", title).groups()
        boxes.append((name, int(n), float(rect.getAttribute("width")), float(rect.getAttribute("y")),
                      rect.getAttribute("fill")))
    root = [b for b in boxes if b[0] == "all"]
    assert root and root[0][1] == total, (root, total)
    scale = root[0][2] / total
    for name, n, w, y, fill in boxes:
        assert abs(w - n * scale) < 0.01, (name, n, w, scale)
        if name.endswith("_[k]"):
            assert int(re.match(r"rgb\((\d+),", fill).group(1)) >= 230, (name, fill)
    hot_y = [b for b in boxes if b[0] == hot]
    assert hot_y, boxes
    at_depth = [b for b in boxes if b[3] == max(hot_y, key=lambda b: b[2])[3]]
    assert max(at_depth, key=lambda b: b[2])[0] == hot, at_depth


def check_speedscope(dump_path):
    """kprof's speedscope JSON is valid under the schema npm's speedscope
    ships, a sampled profile per process, whose weights are the samples"""
    import json
    import os
    import jsonschema
    schema = subprocess.run([os.path.join(os.path.dirname(KPROF), "..", "tools", "deps.sh"),
                             "speedscope"], capture_output=True, text=True).stdout.strip()
    assert schema and os.path.exists(schema), "no speedscope schema: tools/deps.sh speedscope"
    r = subprocess.run([KPROF, "--format", "speedscope", "--elf", STACKWORK, KERNEL, dump_path],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, json.load(open(schema)))
    frames = [f["name"] for f in doc["shared"]["frames"]]
    prof = [p for p in doc["profiles"] if p["type"] == "sampled"]
    assert prof and all(p["unit"] == "none" for p in prof), doc["profiles"]
    leafb = sum(w for p in prof for s, w in zip(p["samples"], p["weights"])
                if [frames[i] for i in s][-3:] == ["a", "b", "leaf"])
    leafc = sum(w for p in prof for s, w in zip(p["samples"], p["weights"])
                if [frames[i] for i in s][-2:] == ["c", "leaf"])
    return leafb, leafc


def pprof_top(dump_path, *base):
    """`go tool pprof -top` of kprof's pprof export, in samples: {function: flat}"""
    import os
    import tempfile
    go = subprocess.run([os.path.join(os.path.dirname(KPROF), "..", "tools", "deps.sh"), "go"],
                        capture_output=True, text=True).stdout.strip()
    assert go, "no go: tools/deps.sh go"
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i, p in enumerate((dump_path,) + base):
            f = os.path.join(d, "p%d.pb.gz" % i)
            with open(f, "wb") as out:
                r = subprocess.run([KPROF, "--format", "pprof", "--elf", STACKWORK, KERNEL, p],
                                   stdout=out, stderr=subprocess.PIPE, timeout=60)
            assert r.returncode == 0, r.stderr
            files.append(f)
        args = [go, "tool", "pprof", "-top", "-sample_index=samples"]
        if base:
            args += ["-diff_base", files[1]]
        r = subprocess.run(args + [files[0]], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, HOME=d))
        assert r.returncode == 0, r.stderr
        traces = subprocess.run([go, "tool", "pprof", "-traces", files[0]], capture_output=True,
                                text=True, timeout=300, env=dict(os.environ, HOME=d)).stdout
    flat = {name: int(n) for n, name in
            re.findall(r"^\s*(-?\d+)\s+[-\d.]+%\s+[-\d.]+%\s+-?\d+\s+[-\d.]+%\s+(\S+)$", r.stdout, re.M)}
    total = re.search(r"of (-?\d+) total", r.stdout)
    return flat, int(total.group(1)) if total else None, traces


def perf_script(dump_path):
    """kprof's perf.data of a dump, read back by the installed perf script:
    {folded stack: samples}, the kernel's frames suffixed _[k] as in
    kprof's folded output, and the header's arch."""
    data = dump_path + ".perf.data"
    with open(data, "wb") as f:
        r = subprocess.run([KPROF, "--format", "perf", "--elf", STACKWORK, KERNEL, dump_path], stdout=f,
                           stderr=subprocess.PIPE, text=False, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["perf", "script", "-i", data, "--vmlinux", KERNEL], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    stacks = {}
    for block in r.stdout.strip("\n").split("\n\n"):
        head, *frames = block.split("\n")
        names = []
        for fr in frames:
            mt = re.match(r"^\s+[0-9a-f]+ (\S+?)(?:\+0x[0-9a-f]+)? \((.*)\)$", fr)
            assert mt, fr
            names.append(mt.group(1) + ("_[k]" if mt.group(2) == "[kernel.kallsyms]" else ""))
        key = ";".join([head.split()[0]] + names[::-1])
        stacks[key] = stacks.get(key, 0) + 1
    hdr = subprocess.run(["perf", "script", "-i", data, "--header-only"], capture_output=True, text=True)
    arch = re.search(r"^# arch : (\S+)", hdr.stdout, re.M)
    return stacks, arch and arch.group(1)


def run_stacks(m, line, setup=""):
    """Profiles one command line with the stack engine; the dump's path on the host."""
    m.run("echo clear > /dev/stackctl")
    for s in setup.split(";") if setup else []:
        assert m.run("echo %s > /dev/stackctl" % s.strip()) == "", s
    m.run("echo start > /dev/stackctl; %s; echo stop > /dev/stackctl" % line, timeout=120)
    m.run("export /dev/stacks")


def dumps(m, tmp):
    paths = []
    for i, a in enumerate(m.archives()):
        p = "%s/stacks%d" % (tmp, i)
        open(p, "wb").write(a["dev/stacks"])
        paths.append(p)
    return paths


def totals(path):
    """(samples, dropped, truncated, sum of the records' counts) from a dump"""
    b = open(path, "rb").read()
    size = struct.unpack_from("<I", b, 20)[0]
    nrecs, depth, samples, dropped, truncated = struct.unpack_from("<5I", b, size)
    off, total = size + 32, 0
    for _ in range(nrecs):
        count, pid, umod, nk, nu = struct.unpack_from("<IIHBB", b, off)
        total += count
        off += 24 + 4 * (nk + nu)
    assert off == len(b)
    return samples, dropped, truncated, total


@test("stacks_call_tree", timeout=180, icount=True)
def stacks_call_tree(m):
    """main -> a -> b -> leaf twice as long as main -> c -> leaf: exactly
    those two stacks (with crt0's _start under main), in that ratio within
    noise, and drawn so in kprof's flame graph, speedscope's JSON and
    pprof's profile, and perf script reads the same stacks from kprof's
    perf.data; --callers leaf and --callees main name the tree's edges;
    and a system call's kernel frames sit on its exact user stack."""
    m.wait_prompt()
    run_stacks(m, "stackwork tree 40")
    run_stacks(m, "stackwork sys 30")
    m.halt()
    tree, sysc = dumps(m, m.scratch)
    lines = folded(tree)
    ab = lines.get("stackwork;_start;main;a;b;leaf", 0)
    c = lines.get("stackwork;_start;main;c;leaf", 0)
    assert ab > 30 and c > 15, lines
    assert abs(ab / c - 2) < 0.35, "a->b->leaf %d, c->leaf %d: not 2:1" % (ab, c)
    mine = {k: v for k, v in lines.items() if k.startswith("stackwork;")}
    paths = ("stackwork;_start;main;a;b;leaf", "stackwork;_start;main;c;leaf")
    for k in mine:
        assert any(p.startswith(k) or k.startswith(p) for p in paths) or "_[k]" in k, \
            "not a path of the call tree: %s" % k
    check_flamegraph(tree, "leaf")
    assert check_speedscope(tree) == (ab, c)
    for opt, func, want in (("--callers", "leaf", {"b": ab, "c": c}),
                            ("--callees", "main", {"a": ab, "c": c})):
        r = subprocess.run([KPROF, opt, func, "--elf", STACKWORK, KERNEL, tree], capture_output=True,
                           text=True, timeout=60)
        got = {n: int(k) for k, n in re.findall(r"^\s+(\d+)\s+[\d.]+%\s+(\S+)$", r.stdout, re.M)}
        assert r.returncode == 0 and got == want, (opt, r.stdout, want)
    flat, total, traces = pprof_top(tree)
    assert flat.get("leaf") == ab + c and total == sum(lines.values()), (flat, total)
    assert re.search(r"^\s+\S+\s+leaf\n\s+b\n\s+a\n\s+main\n\s+_start$", traces, re.M), traces
    flat, _, _ = pprof_top(tree, tree)           # a profile against itself: no change
    assert not any(flat.values()), flat
    lines = folded(sysc)
    kern = [k for k in lines if k.startswith("stackwork;_start;main;s1;s2;kwork;")]
    assert kern and all(k.endswith("sys_kwork_[k];kwork_loop_[k]") for k in kern
                        if "kwork_loop" in k), lines
    assert sum(lines[k] for k in kern if k.endswith("kwork_loop_[k]")) > 20, lines
    # perf script reads kprof's perf.data: the same stacks, the same samples
    for dump in (tree, sysc):
        # perf script shows no inlined frames (this perf has no --inline for these)
        want = {k: v for k, v in folded(dump, "--no-inline").items() if k.startswith("stackwork;")}
        got, arch = perf_script(dump)
        assert arch == "i386", arch
        assert {k: v for k, v in got.items() if k.startswith("stackwork;")} == want, (got, want)


@test("stacks_broken_user_stacks", timeout=180, icount=True)
def stacks_broken_user_stacks(m):
    """A frame pointer that is null, points at itself, into the kernel, at
    an unmapped page, or is misaligned: the kernel never faults, every
    such sample is kept and its stack is marked truncated."""
    m.wait_prompt()
    for how in ("null", "self", "kernel", "unmapped", "odd"):
        run_stacks(m, "stackwork broken " + how)
    m.halt()
    for how, path in zip(("null", "self", "kernel", "unmapped", "odd"), dumps(m, m.scratch)):
        lines = folded(path)
        mine = {k: v for k, v in lines.items() if k.startswith("stackwork;") and k.endswith(";broken")}
        assert sum(mine.values()) > 20, "%s: %s" % (how, lines)
        assert all(";[truncated];" in k for k in mine), "%s: %s" % (how, mine)
        samples, dropped, truncated, total = totals(path)
        assert truncated >= sum(mine.values()) and total + dropped == samples, (how, samples, dropped, total)


@test("stacks_table_full", timeout=180, icount=True)
def stacks_table_full(m):
    """A 4 KiB table holds few stacks: the rest of the new ones are dropped
    and counted exactly (the records' counts plus the drops are every
    tick), and the stacks already in it go on counting."""
    m.wait_prompt()
    run_stacks(m, "manysyms 400000", setup="table 4; depth 8")
    m.halt()
    (path,) = dumps(m, m.scratch)
    samples, dropped, truncated, total = totals(path)
    assert dropped > 0 and total > 0 and total + dropped == samples, (samples, dropped, total)


@test("stacks_edges_repaired", timeout=180, icount=True)
def stacks_edges_repaired(m):
    """Most of stackwork tiny's time is in a tiny leaf, so many ticks land
    at its first instructions or after its frame is torn down, where a
    frame-pointer walk loses the caller: kprof puts it back from the
    leaf's stack words, and every stack of the folded output is a real
    path of the call tree; the report counts the stacks it repaired."""
    m.wait_prompt()
    run_stacks(m, "stackwork tiny 300")
    m.halt()
    (path,) = dumps(m, m.scratch)
    lines = folded(path)
    real = {"stackwork;_start;main" + t for t in
            ("", ";t1", ";t1;tiny", ";t2", ";t2;tiny")} | {"stackwork;_start"}
    mine = {k: v for k, v in lines.items() if k.startswith("stackwork;") and "_[k]" not in k}
    assert sum(mine.values()) > 100, lines
    assert set(mine) <= real, "not paths of the call tree: %s" % (set(mine) - real)
    r = subprocess.run([KPROF, "--elf", STACKWORK, KERNEL, path], capture_output=True, text=True)
    rep = re.search(r"stacks: (\d+) exact, (\d+) repaired", r.stdout)
    assert rep and int(rep.group(2)) > 10, r.stdout


def kdiff(base, new, *extra):
    r = subprocess.run([KPROF, "diff", "--elf", STACKWORK] + list(extra) + [KERNEL, base, new],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    tables = r.stdout.split("\n\n")
    funcs = re.findall(r"^\s*([\d.]+)\s+([\d.]+)\s+([-+][\d.]+)\s+(\S+)$", tables[0], re.M)
    stacks = re.findall(r"^\s*\d+\s+\d+\s+[-+]\d+\s+(\S+)$", tables[1], re.M)
    return r.returncode, funcs, stacks


@test("stacks_diff", timeout=240, icount=True)
def stacks_diff(m):
    """kprof diff: a dump against itself is empty with exit 0, and so is a
    second run of the same command (the same run under icount, within
    the threshold); against a build of the tree where c's call does twice
    the work, c tops the table of what grew, a and b shrank, the exit is
    1, and the differential flame graph colours c red and a blue."""
    m.wait_prompt()
    run_stacks(m, "stackwork tree 30")
    run_stacks(m, "stackwork tree 30")
    run_stacks(m, "stackwork tree2 30")
    m.halt()
    one, two, slow = dumps(m, m.scratch)
    rc, funcs, stacks = kdiff(one, one)
    assert rc == 0 and funcs == [] and stacks == [], (funcs, stacks)
    rc, funcs, stacks = kdiff(one, two)
    assert rc == 0, funcs
    svg = m.scratch + "/diff.svg"
    rc, funcs, stacks = kdiff(one, slow, "-o", svg)
    assert rc == 1 and funcs, funcs
    assert funcs[0][3] == "c" and float(funcs[0][2]) > 10, funcs   # 1/3 of the time to 1/2
    shrank = [f[3] for f in funcs if f[2].startswith("-")]
    assert set(shrank[:2]) == {"a", "b"}, funcs
    assert stacks and stacks[0].endswith(";main;c;leaf"), stacks
    rc, _, _ = kdiff(one, slow, "--threshold", "40")            # c moved by ~17 points
    assert rc == 0
    import xml.dom.minidom
    doc = xml.dom.minidom.parse(svg)
    fill = {}
    for g in doc.getElementsByTagName("g"):
        t = g.getElementsByTagName("title")
        r = g.getElementsByTagName("rect")
        if t and r:
            fill[t[0].firstChild.data.split(" (")[0]] = r[0].getAttribute("fill")
    red = lambda f: re.match(r"rgb\(255,(\d+),\1\)", f)
    blue = lambda f: re.match(r"rgb\((\d+),\1,255\)", f)
    assert red(fill["c"]) and int(red(fill["c"]).group(1)) < 230, fill
    assert blue(fill["a"]) and int(blue(fill["a"]).group(1)) < 230, fill


@test("stacks_inline", timeout=180, icount=True)
def stacks_inline(m):
    """stackwork inline spends its time in inner, which the compiler
    inlined into outer: no frame of its own on the stack, but the DWARF
    knows it, so kprof's stacks show it as a frame of its own (as perf
    report --inline does), in the folded output and in pprof's locations
    (go tool pprof -traces marks it inline); --no-inline leaves only
    outer."""
    m.wait_prompt()
    run_stacks(m, "stackwork inline 30")
    m.halt()
    (path,) = dumps(m, m.scratch)
    lines = {k: v for k, v in folded(path).items() if k.startswith("stackwork;")}
    assert lines.get("stackwork;_start;main;outer;inner", 0) > 0.9 * sum(lines.values()) > 50, lines
    plain = {k: v for k, v in folded(path, "--no-inline").items() if k.startswith("stackwork;")}
    assert plain.get("stackwork;_start;main;outer", 0) == lines["stackwork;_start;main;outer;inner"], plain
    _, _, traces = pprof_top(path)
    assert re.search(r"^\s+\S+\s+inner \(inline\)\n\s+outer\n\s+main\n\s+_start$", traces, re.M), traces


FRAMELESS = {"stackwork;_start;main;f0;fl0", "stackwork;_start;main;f4;fl4",
             "stackwork;[truncated];_start;main;fl12"}


@test("stacks_frameless_leaf", timeout=180, icount=True)
def stacks_frameless_leaf(m):
    """Leaves with no frame pointer (assembly), each called from a function
    with one: a frame-pointer walk from inside one loses its caller. kprof
    follows the leaf's code to the tick's PC: fl0 has pushed nothing, so
    its caller is the word at the stack pointer, fl4 one word, so the word
    above it; both put back and counted repaired. fl12 has pushed three
    words, which the dump does not keep: its stacks are marked truncated,
    never given a wrong caller. The three take a third of the time each."""
    m.wait_prompt()
    run_stacks(m, "stackwork frameless 80")
    m.halt()
    (path,) = dumps(m, m.scratch)
    lines = {k: v for k, v in folded(path).items() if k.startswith("stackwork;") and "_[k]" not in k}
    total = sum(lines.values())
    assert total > 60, lines
    for k in lines:
        assert k in FRAMELESS or k in ("stackwork;_start;main" + t for t in ("", ";f0", ";f4", ";f12")), \
            "not a path of the call tree, or unmarked: %s" % k
    for k in FRAMELESS:
        assert abs(lines.get(k, 0) / total - 1 / 3) < 0.08, (k, lines)
    r = subprocess.run([KPROF, "--elf", STACKWORK, KERNEL, path], capture_output=True, text=True)
    rep = re.search(r"stacks: (\d+) exact, (\d+) repaired \(a caller put back\), (\d+) truncated", r.stdout)
    want = lines["stackwork;_start;main;f0;fl0"] + lines["stackwork;_start;main;f4;fl4"]
    assert rep and int(rep.group(2)) >= want and int(rep.group(3)) >= \
        lines["stackwork;[truncated];_start;main;fl12"], (r.stdout, want)


@test("stacks_marks_exported", timeout=240, icount=True)
def stacks_marks_exported(m):
    """A stack missing frames (a frameless leaf's lost caller, a broken
    frame pointer) carries its "[truncated]" mark in every export, read
    back by the real tools: the folded lines, perf script on kprof's
    perf.data (the same stacks, marks and samples as the folded lines),
    go tool pprof (-traces: the mark the outermost frame and the label
    stack:truncated; -raw: stack:[repaired] on the repaired ones),
    speedscope's JSON and the flame graph (a box of the marked samples)."""
    import json
    import os
    m.wait_prompt()
    run_stacks(m, "stackwork frameless 30")
    run_stacks(m, "stackwork broken null")
    m.halt()
    go = subprocess.run([os.path.join(os.path.dirname(KPROF), "..", "tools", "deps.sh"), "go"],
                        capture_output=True, text=True).stdout.strip()
    assert go, "no go: tools/deps.sh go"
    for path, marked in zip(dumps(m, m.scratch), (";main;fl12", ";broken")):
        lines = {k: v for k, v in folded(path).items() if k.startswith("stackwork;")}
        cut = sum(v for k, v in lines.items() if k.startswith("stackwork;[truncated];"))
        assert cut > 10 and all(k.startswith("stackwork;[truncated];") for k in lines if k.endswith(marked)), lines
        # perf: the mark a frame of its own, where the folded lines have it
        want = {k: v for k, v in folded(path, "--no-inline").items() if k.startswith("stackwork;")}
        got, _ = perf_script(path)
        assert {k: v for k, v in got.items() if k.startswith("stackwork;")} == want, (got, want)
        # pprof: the mark outermost, and a label
        _, _, traces = pprof_top(path)
        blocks = [b for b in traces.split("-+-") if "[truncated]" in b]
        assert blocks and all("stack:  truncated" in b and
                              re.search(r"\n\s+\[truncated\]\n", b + "\n") for b in blocks), traces
        pb = path + ".pb.gz"
        with open(pb, "wb") as out:
            subprocess.run([KPROF, "--format", "pprof", "--elf", STACKWORK, KERNEL, path], stdout=out, check=True)
        raw = subprocess.run([go, "tool", "pprof", "-raw", pb], capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, HOME=m.scratch)).stdout
        counts = re.findall(r"^\s+(\d+)\s+\d+: [\d ]+\n\s+stack:\[truncated\]", raw, re.M)
        assert sum(map(int, counts)) == cut, (cut, raw)
        if marked == ";main;fl12":
            assert "stack:[repaired]" in raw, raw
        # speedscope: the mark after the root, in the samples of the marked stacks
        r = subprocess.run([KPROF, "--format", "speedscope", "--elf", STACKWORK, KERNEL, path],
                           capture_output=True, text=True, timeout=60)
        doc = json.loads(r.stdout)
        frames = [f["name"] for f in doc["shared"]["frames"]]
        ss = sum(w for p in doc["profiles"] for s, w in zip(p["samples"], p["weights"])
                 if [frames[i] for i in s][:2] == ["stackwork", "[truncated]"])
        assert ss == cut, (ss, cut)
        # the flame graph: a box of the marked samples
        svg = subprocess.run([KPROF, "--format", "flamegraph", "--elf", STACKWORK, KERNEL, path],
                             capture_output=True, text=True, timeout=60).stdout
        boxes = re.findall(r"<title>\[truncated\] \((\d+) samples", svg)
        assert boxes and cut <= sum(map(int, boxes)), (boxes, cut)


@test("stacks_host_errors", timeout=240, qemu=False)
def stacks_host_errors(h):
    """kprof on a real stack dump, used wrongly: with no --elf for its
    programs it says on stderr which modules had none and how to give one
    (exit 0, the report still out); a program's ELF in the kernel's place
    is refused; a dump cut short is told by its magic and named a stacks
    dump, never read as a kpdata; --format calls asks for --callers or
    --callees; pprof and perf are not written to a terminal (-o FILE)."""
    import pty
    import tempfile
    kprof = os.path.join(ROOT, "build", "kprof")
    kernel = os.path.join(ROOT, "build", "kernel.elf")
    sw = os.path.join(ROOT, "build", "user", "bin", "stackwork")
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "qemu", "profile.py"),
                            "--out", out, "--", "stackwork tree 5"], capture_output=True, text=True,
                           timeout=200, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        dump = os.path.join(out, "dev", "stacks")

        def run(*args, stdout=subprocess.PIPE):
            r = subprocess.run([kprof] + list(args), stdout=stdout, stderr=subprocess.PIPE, text=True,
                               timeout=60)
            r.stdout = r.stdout or ""
            h.text += "$ kprof %s\n%s%s" % (" ".join(args), r.stdout, r.stderr)
            return r
        r = run(kernel, dump)
        assert r.returncode == 0 and "<unknown>" in r.stdout, r.stderr
        assert re.search(r"no ELF for .*/bin/stackwork \(build-id [0-9a-f]+\).*--elf", r.stderr), r.stderr
        r = run("--elf", sw, kernel, dump)
        assert r.returncode == 0 and "/bin/stackwork" not in r.stderr, r.stderr
        r = run(sw, dump)
        assert r.returncode == 2 and "is the program /bin/stackwork" in r.stderr and "not the kernel" in r.stderr, \
            r.stderr
        data = open(dump, "rb").read()
        for n in (4, 20, 40, len(data) // 2):
            cut = os.path.join(out, "cut%d" % n)
            open(cut, "wb").write(data[:n])
            r = run("--elf", sw, kernel, cut)
            assert r.returncode == 2 and r.stderr.count("\n") == 1 and "kpdata" not in r.stderr, r.stderr
            assert ("cut off" in r.stderr if n < 32 else "a stacks dump: " in r.stderr), r.stderr
        r = run("--format", "calls", "--elf", sw, kernel, dump)
        assert r.returncode == 2 and "--callers FUNC" in r.stderr and not r.stdout, r.stderr
        for fmt in ("pprof", "perf"):
            master, slave = pty.openpty()
            try:
                r = run("--format", fmt, "--elf", sw, kernel, dump, stdout=slave)
            finally:
                os.close(slave)
                os.close(master)
            assert r.returncode == 2 and "give -o FILE" in r.stderr, r.stderr
            f = os.path.join(out, "x." + fmt)
            r = run("--format", fmt, "-o", f, "--elf", sw, kernel, dump)
            piped = subprocess.run([kprof, "--format", fmt, "--elf", sw, kernel, dump], capture_output=True,
                                   timeout=60).stdout
            assert r.returncode == 0 and open(f, "rb").read() == piped and piped, r.stderr
