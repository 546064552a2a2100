#!/usr/bin/env python3
# The long system-call fuzz (make fuzz-kernel): sysfuzz over several seeds,
# each in a fresh boot, then usertests in the same boot; prints the totals.
import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402
from test_reliability import clean_tmp, fuzz, retry, sysstat  # noqa: E402

CRASH = re.compile(r"^(panic: |kernel trap)", re.M)


def one_boot(seed, calls, cmdline, log_dir):
    """Returns (summary numbers or None, usertests passed, problem)."""
    m = qemu.Machine(cmdline, False, timeout=calls // 100 + 600)
    try:
        m.start()
        m.wait_prompt(60)
        verdict, n = fuzz(m, seed, calls, calls // 200 + 300)
        # under fault injection usertests may fail, but only cleanly: what
        # its failed tests left in /tmp removed, the free pages come back
        before = sysstat(m, "freepages")
        out = retry(m, "usertests", lambda o: "test leaks:" in o, timeout=300)
        clean_tmp(m)
        ut = "ALL TESTS PASSED" in out or (
            "failalloc" in cmdline and sysstat(m, "freepages") == before)
        m.halt()
        return n, ut, None if verdict == "PASS" else "sysfuzz: FAIL"
    except (qemu.VMError, AssertionError) as e:
        return None, False, str(e)
    finally:
        m.close()
        text = m.transcript()
        with open(os.path.join(log_dir, "fuzz-seed%d.log" % seed), "w") as f:
            f.write(text)
        if CRASH.search(text):
            print("seed %d: KERNEL FAULT (see the log)" % seed)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=4, help="boots, one seed each")
    ap.add_argument("--first", type=int, default=1, help="the first seed")
    ap.add_argument("--calls", type=int, default=200000, help="calls per seed")
    ap.add_argument("--cmdline", default="", help="kernel command line, e.g. failalloc=3:5")
    args = ap.parse_args()
    log_dir = os.path.join(qemu.ROOT, "build", "fuzz-logs")
    os.makedirs(log_dir, exist_ok=True)
    total = {"calls": 0, "faulted": 0, "hung": 0, "leaked": 0, "bad": 0}
    t0 = time.monotonic()
    for seed in range(args.first, args.first + args.seeds):
        n, ut, problem = one_boot(seed, args.calls, args.cmdline, log_dir)
        if n is None:
            total["bad"] += 1
            print("seed %d: %s" % (seed, problem))
            continue
        calls, _, _, faulted, _, hung, odd, _, before, after = n
        total["calls"] += calls
        total["faulted"] += faulted
        total["hung"] += hung
        total["leaked"] += max(0, before - after)
        total["bad"] += bool(problem) + (not ut) + bool(odd)
        print("seed %d: %d calls, %d batches faulted (user faults), %d hung, %d pages leaked,"
              " usertests %s" % (seed, calls, faulted, hung, before - after,
                                 "passed" if ut else "FAILED"))
        sys.stdout.flush()
    print("fuzz-kernel: %d calls over %d seeds in %d boots, %.0f s: %d batch faults (user),"
          " %d hung, %d pages leaked, %d failed boots; logs in %s"
          % (total["calls"], args.seeds, args.seeds, time.monotonic() - t0, total["faulted"],
             total["hung"], total["leaked"], total["bad"], os.path.relpath(log_dir, qemu.ROOT)))
    return 1 if total["hung"] or total["leaked"] or total["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
