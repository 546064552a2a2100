#!/usr/bin/env python3
"""make demo: every engine once on a bundled workload whose answer is
known, then (where it applies) on a real program, Debian's Lua; each in a
fresh QEMU under -icount through make profile's path; prints the head of
each report (the whole of each is in build/demo/ENGINE/ and
build/demo/ENGINE-lua/). A newcomer sees all of them in one command."""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(TOP, "build", "demo")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engines import ENGINES  # noqa: E402  (each engine's demo run: its entry's demo)

HEAD = 30


def main():
    status = 0
    runs = [(engine, eng, eng.demo, engine) for engine, eng in ENGINES.items()] + \
        [(engine, eng, eng.real, engine + "-lua") for engine, eng in ENGINES.items() if eng.real]
    for engine, eng, demo, name in runs:
        line, boot, what = demo
        out = os.path.join(OUT, name)
        print("\n== %s: %s\n   here: %s\n$ make profile ENGINE=%s CMD='%s'%s"
              % (engine, eng.question, what, engine, line,
                 " ARGS='%s'" % boot if boot else ""), flush=True)
        os.makedirs(out, exist_ok=True)
        r = subprocess.run([sys.executable, os.path.join(TOP, "tests", "qemu", "profile.py"),
                            "--engine", engine, "--out", out, "--cmdline", boot, "--", line],
                           capture_output=True, text=True, cwd=TOP)
        with open(os.path.join(out, "report.txt"), "w") as f:
            f.write(r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        print("\n".join(lines[:HEAD]))
        if len(lines) > HEAD:
            print("... (%d lines more in %s)" % (len(lines) - HEAD,
                                                  os.path.relpath(os.path.join(out, "report.txt"), TOP)))
        if r.returncode != 0:
            print("demo: %s failed (exit %d): %s" % (engine, r.returncode, r.stderr.strip()))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
