#!/usr/bin/env python3
# Runs the test suite: every @test in tests/qemu/test_*.py, each QEMU test in
# a fresh QEMU. python3 tests/qemu/run.py [--list] [-j N] [NAME...]
import argparse
import concurrent.futures
import glob
import importlib
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import qemu     # noqa: E402

LOGDIR = harness.build_path("test-logs")


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
        return True, ["== %s: ok (%.1fs)" % (t.name, secs)]

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
    return False, lines


def main():
    ap = argparse.ArgumentParser(description="kprof-os test suite")
    ap.add_argument("names", nargs="*", metavar="NAME", help="run tests whose name contains NAME")
    ap.add_argument("--list", action="store_true", help="list the tests and exit")
    ap.add_argument("-j", type=int, default=1, metavar="N", help="run N tests at a time")
    args = ap.parse_args()

    tests = selected(discover(), args.names)
    if args.list:
        for t in tests:
            where = "host" if not t.qemu else "qemu" + (" icount" if t.icount else "")
            print("%-24s %-12s %4ds  %s" % (t.name, where, t.timeout, t.cmdline))
        return 0
    if not tests:
        print("no test matches %s" % " ".join(args.names))
        print("0 passed, 0 failed")
        return 1

    lock = threading.Lock()
    passed = failed = 0
    start = time.monotonic()

    def one(t):
        nonlocal passed, failed
        ok, lines = run_one(t)
        with lock:
            print("\n".join(lines), flush=True)
            if ok:
                passed += 1
            else:
                failed += 1

    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        for f in [pool.submit(one, t) for t in tests]:
            f.result()
    print("total %.1fs" % (time.monotonic() - start))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
