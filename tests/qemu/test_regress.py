# Regression tests for bugs the rest of the suite let through: each test
# fails on one bug that changed what the project prints while every other
# test still passed. The Monte Carlo engine's idle ticks after the buffer
# filled and its merged ticks' weight, the stack table's key comparison,
# and the host tool's kernel suffix on inlined kernel frames.
import json
import re
import struct
import subprocess

from harness import build_path, test
from test_mc import report
from test_stacks import KERNEL, KPROF, STACKWORK, dumps, folded, run_stacks

KWORK = build_path("user", "bin", "kwork")


@test("regress_mc_idle_after_full", timeout=90, cmdline="hz=10000", icount=True)
def regress_mc_idle_after_full(m):
    """Once the buffer is full and a tick has been dropped, idle ticks are
    dropped too (mc.c's sample_slow), so the idle count stops where the
    recording did: a 4 KiB buffer filled by mcwork, then 300 ms of sleep
    (3000 idle ticks at 10 kHz), must count those ticks as dropped, not
    as idle; the non-idle samples recorded are the buffer's 512."""
    m.wait_prompt()
    r = report(m.run("prof on -z 4; mcwork run 50 50 50; sleep 300; prof off"))
    sleep_ticks = 300 * 10000 // 1000
    assert r["recorded"] + r["dropped"] == r["ticks"], \
        "recorded %d + dropped %d != ticks elapsed %d\n%s" % (r["recorded"], r["dropped"], r["ticks"],
                                                           r["text"])
    assert r["dropped"] >= sleep_ticks, \
        "the %d idle ticks of the sleep after the buffer filled were not dropped: dropped %d\n%s" \
        % (sleep_ticks, r["dropped"], r["text"])
    assert r["idle"] < sleep_ticks // 10, \
        "idle ticks after the first drop were counted as idle, not dropped: idle %d\n%s" \
        % (r["idle"], r["text"])
    assert r["recorded"] - r["idle"] == 4096 // 8, r["text"]
    m.halt()


@test("regress_mc_merged_weight", timeout=90, cmdline="hz=20000", icount=True)
def regress_mc_merged_weight(m):
    """A tick that ends an interrupts-off section carries the ticks merged
    into it as its weight, and a buffered sample keeps that weight to the
    report (mc.c's sample_slow stores it, mcreport.c's mc_resolve adds
    it): the samples recorded plus dropped account for every tick elapsed
    while on, and the section's routine, kwork_cli, has most of them.
    With the weight ignored the whole 0.1 s section counts once."""
    m.wait_prompt()
    r = report(m.run("prof on; kwork cli 20000000; prof off"))
    assert r["recorded"] + r["dropped"] == r["ticks"], \
        "recorded %d + dropped %d != ticks elapsed %d: merged ticks lost their weight\n%s" \
        % (r["recorded"], r["dropped"], r["ticks"], r["text"])
    cli = [s for s in r["syms"] if s[2] == "kernel" and s[3] == "kwork_cli"]
    assert cli and cli[0][0] * 2 > r["ticks"], \
        "kwork_cli has %s of %d ticks elapsed, not most of them\n%s" \
        % (cli[0][0] if cli else "no row", r["ticks"], r["text"])
    m.halt()


def stack_records(path):
    """(the dump's stk_dump fields as a dict, [(key, count)]) where key is
    what makes two stacks the same: pid, program, flags and frames"""
    b = open(path, "rb").read()
    size = struct.unpack_from("<I", b, 20)[0]
    nrecs, depth, samples, dropped, truncated = struct.unpack_from("<5I", b, size)
    off, recs = size + 32, []
    for _ in range(nrecs):
        count, pid, umod, nk, nu, flags = struct.unpack_from("<IIHBBI", b, off)
        frames = struct.unpack_from("<%dI" % (nk + nu), b, off + 24)
        recs.append(((pid, umod, nk, nu, flags) + frames, count))
        off += 24 + 4 * (nk + nu)
    assert off == len(b), "%s: %d bytes after %d records" % (path, len(b) - off, nrecs)
    return dict(nrecs=nrecs, samples=samples, dropped=dropped, truncated=truncated), recs


@test("regress_stacks_same_key", timeout=120, icount=True)
def regress_stacks_same_key(m):
    """Identical stacks are one record of the stack table with a count
    (stacks.c's count() compares the keys): stackwork tree 400 has a
    handful of distinct stacks and hundreds of ticks, enough to fill the
    table's probe window if keys never matched. No two records of the
    dump have the same key, none is dropped, the records' counts are
    every tick, and kprof reports no drops."""
    m.wait_prompt()
    run_stacks(m, "stackwork tree 400")
    m.halt()
    (path,) = dumps(m, m.scratch)
    d, recs = stack_records(path)
    keys = {}
    for k, n in recs:
        keys[k] = keys.get(k, 0) + 1
    dup = [k for k, n in keys.items() if n > 1]
    assert d["samples"] > 300, d
    assert not dup, "%d records, %d distinct stacks: %d stacks have several records " \
        "(the table's key comparison never matched), %d ticks dropped" \
        % (len(recs), len(keys), len(dup), d["dropped"])
    assert d["dropped"] == 0, "%d of %d ticks dropped with %d records" \
        % (d["dropped"], d["samples"], d["nrecs"])
    assert sum(n for _, n in recs) == d["samples"], (d, sum(n for _, n in recs))
    r = subprocess.run([KPROF, "--elf", STACKWORK, KERNEL, path], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "dropped" not in r.stdout, r.stdout


def kernel_suffix_order(stacks, suffix):
    """The stacks (lists of frame names, root first) in which a frame
    without the kernel suffix follows one with it: a kernel frame lost its
    suffix, since the kernel's frames are always the leaf's end."""
    bad = []
    for s in stacks:
        ks = [f.endswith(suffix) for f in s]
        if True in ks and not all(ks[ks.index(True):]):
            bad.append(s)
    return bad


@test("regress_kprof_inline_kernel_suffix", timeout=90, icount=True)
def regress_kprof_inline_kernel_suffix(m):
    """Every kernel frame keeps its kernel suffix, also a frame the DWARF
    names as inlined (dispatch, inlined into the kernel's syscall): in
    kprof's folded output (_[k]) and speedscope's frames ( [k]) of the
    kwork system call's stacks (wr_folded.c's split_frame)."""
    m.wait_prompt()
    run_stacks(m, "kwork loop 3000000 10")
    m.halt()
    (path,) = dumps(m, m.scratch)
    lines = folded(path, "--elf", KWORK)
    want = "syscall_[k];dispatch_[k];sys_kwork_[k];kwork_loop_[k]"
    hot = [k for k in lines if k.startswith("kwork;")]
    assert hot and all(k.endswith(want) for k in hot), \
        "kwork's stacks do not end in %s:\n%s" % (want, "\n".join(hot))
    bad = kernel_suffix_order([k.split(";") for k in lines], "_[k]")
    assert not bad, "folded: kernel frames without _[k]:\n" + "\n".join(";".join(s) for s in bad)

    r = subprocess.run([KPROF, "--format", "speedscope", "--elf", KWORK, KERNEL, path],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    frames = [f["name"] for f in doc["shared"]["frames"]]
    stacks = [[frames[i] for i in s] for p in doc["profiles"] if p["type"] == "sampled"
              for s in p["samples"]]
    kw = [s for s in stacks if s and s[0] == "kwork"]
    assert kw and all(s[-4:] == ["syscall [k]", "dispatch [k]", "sys_kwork [k]", "kwork_loop [k]"]
                      for s in kw), "speedscope: kwork's stacks: %s" % kw[:3]
    bad = kernel_suffix_order(stacks, " [k]")
    assert not bad, "speedscope: kernel frames without ' [k]': %s" % bad[:3]
