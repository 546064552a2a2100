# The build repeats anywhere: the same sources in two checkouts at
# different paths build the same kernel and programs, byte for byte, so
# their build-ids are the same and a dump from one is read with the
# other's ELFs.
import os
import re
import shutil
import subprocess
import tempfile

from harness import test
from qemu import ROOT

TARGETS = ["build/kernel.elf", "build/user/bin/stackwork", "build/user/bin/hotcold.pg"]


def checkout(dest):
    """The working tree's sources (tracked and new, not ignored) copied to dest."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.split(b"\0")
    for f in files:
        f = f.decode()
        if not f or f.startswith("build/") or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, f)) or dest, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dest, f))


@test("build_reproducible", timeout=600, qemu=False)
def build_reproducible(h):
    """Two checkouts, one at a longer path than the other, build the kernel
    and two programs: the same bytes, the same build-ids, and no path of
    either checkout in them."""
    top = tempfile.mkdtemp(prefix="kprof-repro-")
    try:
        dirs = [os.path.join(top, "a"), os.path.join(top, "a-much-longer-checkout-path", "b")]
        for d in dirs:
            checkout(d)
            r = subprocess.run(["make", "-j2"] + TARGETS, cwd=d, capture_output=True, text=True,
                               timeout=500)
            assert r.returncode == 0, r.stderr[-2000:]
        for t in TARGETS:
            a, b = (open(os.path.join(d, t), "rb").read() for d in dirs)
            assert a == b, "%s differs between the two checkouts" % t
            for d in dirs:
                assert d.encode() not in a, "%s holds the checkout's path %s" % (t, d)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def engine_files(name):
    """An engine's own files in kernel/prof/: those the comment of its line in
    engines.h names."""
    for line in open(os.path.join(ROOT, "kernel/prof/engines.h")):
        m = re.match(r"\s*X\(%s\)\s*/\* ([\w.]+(?:, [\w.]+)*):" % name, line)
        if m:
            return m.group(1).split(", ")
    raise AssertionError("no line for engine %s in kernel/prof/engines.h" % name)


@test("engine_is_one_file", timeout=600, qemu=False)
def engine_is_one_file(h):
    """An engine is its file and its line in kernel/prof/engines.h, also one
    with a system call and a boot-time test: a checkout without the example
    engine and without profil(2) (its files, its line) builds a kernel in
    which neither is left, and the rest of the kernel names neither."""
    top = tempfile.mkdtemp(prefix="kprof-engine-")
    try:
        checkout(top)
        gone = []
        for name in ("example", "profil"):
            for f in engine_files(name):
                os.remove(os.path.join(top, "kernel/prof", f))
                gone.append(f)
            path = os.path.join(top, "kernel/prof/engines.h")
            text = open(path).read()
            text = re.sub(r"^\s*X\(%s\).*\n" % name, "", text, flags=re.M)
            open(path, "w").write(text)
        assert gone == ["example.c", "profil.c"], gone
        r = subprocess.run(["make", "-j2", "build/kernel.elf"], cwd=top, capture_output=True,
                           text=True, timeout=500)
        assert r.returncode == 0, r.stdout[-1500:] + r.stderr[-2000:]
        syms = subprocess.run(["nm", os.path.join(top, "build/kernel.elf")], capture_output=True,
                              text=True, check=True).stdout
        for s in ("example_init", "profil_init", "sys_profil", "ktest_profil_bins"):
            assert not re.search(r" %s$" % s, syms, re.M), "%s is still in the kernel" % s
    finally:
        shutil.rmtree(top, ignore_errors=True)
