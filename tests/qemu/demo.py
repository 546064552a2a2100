#!/usr/bin/env python3
"""make demo: every engine once, each on a bundled workload whose answer
is known, each in a fresh QEMU under -icount through make profile's path;
prints the head of each engine's report (the whole of each is in
build/demo/ENGINE/). A newcomer sees all of them in one command."""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(TOP, "build", "demo")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile  # noqa: E402

# engine, the command line, kernel boot words, what it shows
RUNS = [
    ("stacks", "stackwork tree 30; stackwork sys 20", "",
     "main -> a -> b -> leaf twice as long as main -> c -> leaf, and a system call's kernel frames"),
    ("devkprof", "kwork loop 2000000 50; kwork copy 2000; spin 300", "",
     "the kernel's hot loop, kwork_loop, on top"),
    ("profil", "hotcold 2000000", "hz=10000", "hot, warm and cold at 60/30/10 %, one call each"),
    ("heat", "accwork mix 100", "", "every instruction counted: mix_a .. mix_f in a fixed ratio"),
    ("dosprof", "dpwork aaaaabbbcc:4000", "", "dp_page_a, _b and _c at 50/30/20 %"),
    ("mc", "mcwork run 30 60 10; kwork loop 2000000 20", "",
     "the modules (kernel, mcwork) and routines, alpha:beta:gamma_ 30:60:10"),
]
HEAD = 30


def main():
    status = 0
    for engine, line, boot, what in RUNS:
        out = os.path.join(OUT, engine)
        print("\n== %s: %s\n   here: %s\n$ make profile ENGINE=%s CMD='%s'%s"
              % (engine, profile.ENGINES[engine].question, what, engine, line,
                 " ARGS='%s'" % boot if boot else ""), flush=True)
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
