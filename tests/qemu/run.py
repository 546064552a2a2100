#!/usr/bin/env python3
# Runs the test suite: every @test in tests/qemu/test_*.py, each QEMU test in
# a fresh QEMU. python3 tests/qemu/run.py [--list] [--no-make] [-j N] [NAME...]
# It runs make first, and refuses to test a build older than its sources.
import argparse
import concurrent.futures
import glob
import importlib
import json
import os
import shutil
import subprocess
import signal
import sys
import textwrap
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import qemu     # noqa: E402

LOGDIR = harness.build_path("test-logs")
# each test's time in its last run, so that the slowest start first and the
# suite's wall-clock time is not decided by a slow test started last
TIMES = harness.build_path("test-times.json")

# The sources each tested build output is made from: files with these
# endings under these folders (the Makefile has the details). The host
# tool's own tests (test_*) are not part of build/kprof.
SOURCE_ENDINGS = (".c", ".h", ".S", ".asm", ".ld", ".in")
BUILT_FROM = {
    "os.iso": ["boot", "include", "kernel", "user"],
    "kprof": ["tools/kprof"],
}


def is_source(out, path):
    name = os.path.basename(path)
    if not name.endswith(SOURCE_ENDINGS):
        return False
    return out != "kprof" or not (name.startswith("test_") or "/tests/" in path)


def newer_sources(root=None):
    """[(output, source)] for every source file newer than the build output
    made from it (or [(output, None)] when the output is missing)."""
    root = root or qemu.ROOT
    stale = []
    for out, srcs in BUILT_FROM.items():
        path = os.path.join(root, "build", out)
        if not os.path.exists(path):
            stale.append((out, None))
            continue
        built = os.path.getmtime(path)
        for src in srcs:
            files = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, src))
                     for f in fs]
            stale += [(out, os.path.relpath(f, root)) for f in files
                      if is_source(out, os.path.relpath(f, root)) and os.path.getmtime(f) > built]
    return stale


def build():
    """Runs make, so that the suite never tests a stale build without a
    word; returns an error message, or None when build/ is up to date."""
    r = subprocess.run(["make", "-C", qemu.ROOT, "all", "kprof-unit"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return "make failed (status %d):\n%s" % (r.returncode, r.stdout.rstrip())
    return None


def check_fresh(root=None):
    """None, or a message naming the sources newer than what would be tested."""
    stale = newer_sources(root)
    if not stale:
        return None
    shown = ["build/%s: missing" % out if src is None else "%s is newer than build/%s" % (src, out)
             for out, src in stale[:5]]
    more = ["... and %d more" % (len(stale) - 5)] if len(stale) > 5 else []
    return "\n".join(["refusing to test a stale build (run make):"] + shown + more)


def discover():
    """Imports every test_*.py; one that does not import becomes a failing test."""
    for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
        name = os.path.basename(path)[:-3]
        try:
            importlib.import_module(name)
        except Exception as e:
            harness.test(name, qemu=False)(broken_file(e))
    return list(harness.TESTS.values())


def broken_file(e):
    trace = traceback.format_exc().rstrip()

    def fail(h):
        h.text = trace
        raise qemu.VMError("cannot import: %s: %s" % (type(e).__name__, e))
    return fail


def selected(tests, names):
    """Tests whose name equals or contains any of names (all if none)."""
    if not names:
        return tests
    return [t for t in tests if any(n in t.name for n in names)]


def load_times():
    try:
        with open(TIMES) as f:
            return {k: float(v) for k, v in json.load(f).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def save_times(times):
    os.makedirs(os.path.dirname(TIMES), exist_ok=True)
    with open(TIMES + ".tmp", "w") as f:
        json.dump(times, f, indent=0, sort_keys=True)
    os.replace(TIMES + ".tmp", TIMES)


def slowest_first(tests, times):
    """Longest last time first; a test never timed goes by its time-out."""
    return sorted(tests, key=lambda t: -times.get(t.name, t.timeout / 4))


def run_one(t):
    """Runs one test; returns (ok, report lines)."""
    scratch = tempfile.mkdtemp(prefix="kprof-test-")
    com2 = os.path.join(scratch, "com2.tar")
    start = time.monotonic()
    reason = None
    if t.qemu:
        m = qemu.Machine(t.cmdline, t.icount, t.timeout, t.extra, com2=com2)
        m.scratch = scratch
    else:
        m = qemu.Checker(t.timeout)
    try:
        if t.qemu:
            m.start()
        t.fn(m)
        if t.qemu:
            m.check(m.transcript(), forbid=t.forbid)
    except qemu.VMError as e:
        reason = str(e)
    except AssertionError as e:
        reason = str(e) or "assertion failed"
    except Exception as e:      # a bug in the test itself: show where
        reason = "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc().rstrip())
    finally:
        m.close()
    secs = time.monotonic() - start
    log = os.path.join(LOGDIR, t.name + ".log")
    saved = os.path.join(LOGDIR, t.name + ".com2")
    if reason is None:
        for f in (log, saved):
            if os.path.exists(f):
                os.remove(f)
        shutil.rmtree(scratch, ignore_errors=True)
        return True, ["== %s: ok (%.1fs)" % (t.name, secs)], secs

    lines = ["== %s: FAILED (%s)" % (t.name, reason), "   after %.1fs" % secs]
    text = m.raw_transcript() if t.qemu else m.text   # the sentinels show what was waited for
    os.makedirs(LOGDIR, exist_ok=True)
    with open(log, "w") as f:
        f.write(text)
        if t.qemu and m.stderr():
            f.write("\n---- QEMU's stderr ----\n" + m.stderr())
    lines.append("   serial log: %s" % os.path.relpath(log, qemu.ROOT))
    if t.qemu:
        lines.append("   qemu: %s" % " ".join(m.cmd))
        if os.path.exists(com2) and os.path.getsize(com2) > 0:
            shutil.copy(com2, saved)
            lines.append("   COM2 (exports): %s" % os.path.relpath(saved, qemu.ROOT))
    for verdict, rx, line in m.checks:
        lines.append("   %-9s /%s/%s" % (verdict, rx, "   " + line if line else ""))
    tail = text.rstrip("\n").split("\n")[-6:]
    lines.append("   last lines of output:")
    lines += ["   | " + l for l in tail]
    shutil.rmtree(scratch, ignore_errors=True)
    return False, lines, secs


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # run.py --list | head
    ap = argparse.ArgumentParser(description="kprof-os test suite")
    ap.add_argument("names", nargs="*", metavar="NAME", help="run tests whose name contains NAME")
    ap.add_argument("--list", action="store_true", help="list the tests and exit")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1, metavar="N",
                    help="run N tests at a time (default: the number of CPUs); "
                         "each test has its own QEMU")
    ap.add_argument("--no-make", action="store_true",
                    help="do not run make first (make test has just built); still refuse a stale build")
    args = ap.parse_args()

    tests = selected(discover(), args.names)
    if not args.list:
        err = (None if args.no_make else build()) or check_fresh()
        if err:
            print(err)
            print("0 passed, %d failed" % len(tests))
            return 1
    if args.list:
        for t in tests:
            where = "host" if not t.qemu else "qemu" + (" icount" if t.icount else "")
            print("%-28s %-12s %4ds  %s" % (t.name, where, t.timeout, t.cmdline))
            doc = " ".join((t.fn.__doc__ or "").split())
            for line in textwrap.wrap(doc, 76):         # what it checks, from its docstring
                print("    " + line)
        return 0
    if not tests:
        print("no test matches %s" % " ".join(args.names))
        print("0 passed, 0 failed")
        return 1

    lock = threading.Lock()
    passed = failed = 0
    start = time.monotonic()
    times = load_times()
    tests = slowest_first(tests, times)

    def one(t):
        nonlocal passed, failed
        ok, lines, secs = run_one(t)
        with lock:
            print("\n".join(lines), flush=True)
            times[t.name] = round(secs, 1)
            if ok:
                passed += 1
            else:
                failed += 1

    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        for f in [pool.submit(one, t) for t in tests]:
            f.result()
    save_times(times)
    print("total %.1fs, %d at a time" % (time.monotonic() - start, max(1, args.j)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
