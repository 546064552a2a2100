#!/usr/bin/env python3
"""make demo: boot, profile the kernel workload with devkprof, bring the
dumps out over COM2 and print the host tool's reports."""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(TOP, "build", "demo")

SCRIPT = """\
# profile the kernel (devkprof, Plan 9 kprof(3)); one line, so the time
# the guest waits for the next typed line is not in the profile
echo startclr > /dev/kpctl; kwork loop 2000000 50; kwork cli 2000000 20; kwork copy 2000; spin 300; echo stop > /dev/kpctl
cat /dev/kpinfo
export /dev/kpdata /dev/kpinfo
"""


def step(title, argv):
    print("\n== %s\n$ %s" % (title, " ".join(os.path.relpath(a, TOP) if a.startswith(TOP) else a
                                              for a in argv)), flush=True)
    r = subprocess.run(argv, cwd=TOP)
    if r.returncode != 0:
        sys.exit("demo: %s failed (exit %d)" % (argv[0], r.returncode))


def main():
    os.makedirs(OUT, exist_ok=True)
    script = os.path.join(OUT, "script")
    with open(script, "w") as f:
        f.write(SCRIPT)
    print("== the guest script (%s)\n%s" % (os.path.relpath(script, TOP), SCRIPT), end="")
    step("boot and run it", [sys.executable, os.path.join(TOP, "tests/qemu/vm.py"),
                             "--script", script, "--out", OUT, "--icount"])
    print(open(os.path.join(OUT, "console.log"), errors="replace").read())
    kprof = os.path.join(TOP, "build", "kprof")
    elf = os.path.join(TOP, "build", "kernel.elf")
    kpdata = os.path.join(OUT, "dev", "kpdata")
    step("per function", [kprof, elf, kpdata, "--top", "12"])
    step("per source line", [kprof, "--lines", "--top", "8", elf, kpdata])


if __name__ == "__main__":
    main()
