#!/usr/bin/env python3
# Runs the test suite: every @test in tests/qemu/test_*.py, each QEMU test in
# a fresh QEMU. python3 tests/qemu/run.py [--list] [--no-make] [-j N] [NAME...]
# It runs make first, and refuses to test a build make would rebuild.
import argparse
import concurrent.futures
import glob
import importlib
import json
import os
import re
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

# What the suite tests, as make names it: build() makes these goals, and
# check_fresh() asks make whether they are up to date. The Makefile's graph
# is the only one: no list of sources here.
GOALS = ["all", "kprof-unit"]


def build():
    """Runs make, so that the suite never tests a stale build without a
    word; returns an error message, or None when build/ is up to date."""
    r = subprocess.run(["make", "-C", qemu.ROOT] + GOALS,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return "make failed (status %d):\n%s" % (r.returncode, r.stdout.rstrip())
    return None


def stale_files(root=None, what_if=()):
    """[(file, why)] for what make would rebuild GOALS from: a prerequisite
    that is newer than its target and that make would not remake itself
    (a source), and a file target that is missing. make -n --debug=v walks
    the Makefile's own graph without running anything. A prerequisite that
    is remade on every run (the grub.cfg rule's FORCE: make cannot say
    whether its content would change) is not a cause; what_if are files
    make is to take as just modified (make -W, for the tests)."""
    root = root or qemu.ROOT
    # -p: make's database too, for the phony targets (never files)
    argv = ["make", "-n", "-p", "--debug=v"] + ["-W" + f for f in what_if] + GOALS
    r = subprocess.run(argv, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return [("make -n", "failed (status %d): %s" % (r.returncode, r.stderr.strip()))]
    text = r.stdout
    phony = {t for m in re.finditer(r"^\.PHONY: (.*)$", text, re.M) for t in m.group(1).split()}
    remade = set(re.findall(r"^\s*Must remake target '(.*)'\.$", text, re.M))
    # a prerequisite without a rule, remade on every run (FORCE)
    forced = set(re.findall(r"^\s*Prerequisite '(.*)' of target '.*' does not exist\.$", text, re.M))
    newer, missing = {}, []
    for m in re.finditer(r"^\s*(?:Prerequisite '(.*)' is newer than target '(.*)'|"
                         r"File '(.*)' does not exist)\.$", text, re.M):
        src, target, gone = m.groups()
        if gone and gone not in phony and gone not in forced and gone not in missing:
            missing.append(gone)
        elif src and src not in remade:
            newer.setdefault(src, [])
            if target not in newer[src]:
                newer[src].append(target)
    return [(f, "missing") for f in missing] + \
        [(src, "is newer than %s%s" % (ts[0], " (and %d more)" % (len(ts) - 1) if len(ts) > 1 else ""))
         for src, ts in newer.items()]


def check_fresh(root=None, what_if=()):
    """None, or a message naming the sources newer than what would be tested."""
    stale = stale_files(root, what_if)
    if not stale:
        return None
    shown = ["%s: missing" % f if why == "missing" else "%s %s" % (f, why) for f, why in stale[:5]]
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
