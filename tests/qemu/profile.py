#!/usr/bin/env python3
"""make profile: boots kprof-os under -icount, profiles one command line
with an engine, brings the dump out over COM2, and prints the host tool's
report; the dump stays in the output directory (default build/profile/).

    python3 tests/qemu/profile.py [--engine devkprof] [--cmdline WORDS]
        [--out DIR] [--kprof-args ARGS] [--qemu-flags FLAGS] 'COMMAND LINE'

An engine is an entry in ENGINES: the guest lines that profile the command
line and export the dump, and the host commands that read it. A new engine
adds one entry, and `make profile ENGINE=NAME` selects it."""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402
import vm    # noqa: E402

TOP = qemu.ROOT
KPROF = os.path.join(TOP, "build", "kprof")
KERNEL = os.path.join(TOP, "build", "kernel.elf")


def sh_quote(s):
    """s as one word for the guest shell (single quotes; a ' as '\\'')."""
    return "'" + s.replace("'", "'\\''") + "'"


def one_command(line):
    """Whether line is a single command (no ; or & outside quotes)."""
    quote = None
    for c in line:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in ";&":
            return False
    return True


class Devkprof:
    """devkprof, the PC sampler: the shell's kpr builtin around the command
    line, then the dump (/dev/kpdata, /dev/kpinfo) exported."""
    name = "devkprof"
    files = ["dev/kpdata", "dev/kpinfo"]

    def script(self, line):
        # kpr profiles one command; a list runs in one sh -c under it
        cmd = line if one_command(line) else "sh -c " + sh_quote(line)
        return ["kpr " + cmd, "export /dev/kpdata /dev/kpinfo"]

    def reports(self, out, kprof_args):
        kpdata = os.path.join(out, "dev", "kpdata")
        return [[KPROF] + kprof_args + [KERNEL, kpdata]]


class Stacks:
    """the stack engine: every tick's call stack, kernel and user, around
    the command line; the dump (/dev/stacks) exported. The report is the
    flat one of the leaves, and beside the dump the folded stacks
    (flame.folded), the flame graph (flame.svg), speedscope's JSON
    (flame.speedscope.json), pprof's profile (flame.pb.gz) and perf's
    (perf.data, for perf script and perf report with --vmlinux)."""
    name = "stacks"
    files = ["dev/stacks"]

    def script(self, line):
        return ["echo start > /dev/stackctl; %s; echo stop > /dev/stackctl" % line,
                "export /dev/stacks"]

    def elfs(self):
        """every program's ELF, so that each module finds its own by build-id"""
        d = os.path.join(TOP, "build", "user", "bin")
        return [a for f in sorted(os.listdir(d)) if not f.endswith(".strip")
                for a in ("--elf", os.path.join(d, f))]

    def reports(self, out, kprof_args):
        dump = os.path.join(out, "dev", "stacks")
        made = []
        for fmt, name in (("folded", "flame.folded"), ("flamegraph", "flame.svg"),
                          ("speedscope", "flame.speedscope.json"), ("pprof", "flame.pb.gz"),
                          ("perf", "perf.data")):
            with open(os.path.join(out, name), "wb") as f:
                subprocess.run([KPROF, "--format", fmt] + self.elfs() + [KERNEL, dump], stdout=f,
                               cwd=TOP, check=False)
            made.append(rel(os.path.join(out, name)))
        print("profile: folded stacks %s, flame graph %s (open it in a browser), speedscope %s, "
              "pprof %s (go tool pprof), perf %s (perf script -i %s --vmlinux %s)"
              % (tuple(made) + (made[-1], rel(KERNEL))))
        perf = [["sh", "-c", "perf script -i %s --vmlinux %s 2>&1 | head -n 24" % (made[-1], rel(KERNEL))]] \
            if shutil.which("perf") else []
        return [["head", "-n", "20", os.path.join(out, "flame.folded")]] + perf + [
                [KPROF] + kprof_args + ["--top", "15"] + self.elfs() + [KERNEL, dump]]


ENGINES = {e.name: e for e in (Devkprof(), Stacks())}


def rel(path):
    return os.path.relpath(path, TOP) if path.startswith(TOP) else path


def profile(line, engine="devkprof", out=None, cmdline="", extra=(), timeout=120):
    """Boots a fresh QEMU under icount and runs the engine's script for line;
    returns (the engine, the output directory, the console transcript).
    Raises qemu.VMError."""
    eng = ENGINES[engine]
    out = out or os.path.join(TOP, "build", "profile")
    for f in eng.files + ["console.log", "com2.tar"]:     # nothing stale is read
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    if len(line) > qemu.LINEMAX or "\n" in line:
        raise qemu.VMError("the command line must be one line of at most %d characters"
                           % qemu.LINEMAX)
    names = vm.run_script(eng.script(line), out, cmdline, icount=True, timeout=timeout,
                          extra=extra)
    missing = [f for f in eng.files if f not in names]
    if missing:
        raise qemu.VMError("the guest exported no %s (see %s)"
                           % (", ".join(missing), rel(os.path.join(out, "console.log"))))
    return eng, out, open(os.path.join(out, "console.log"), errors="replace").read()


def main():
    ap = argparse.ArgumentParser(description="profile one command line in a fresh kprof-os")
    ap.add_argument("line", metavar="'COMMAND LINE'", help="what to profile, as typed in the guest")
    ap.add_argument("--engine", default="devkprof", choices=sorted(ENGINES))
    ap.add_argument("--out", help="directory for the dump and console.log (build/profile)")
    ap.add_argument("--cmdline", default="", help="kernel command-line words, e.g. 'hz=10000'")
    ap.add_argument("--kprof-args", default="", help="options for build/kprof, e.g. '--lines'")
    ap.add_argument("--qemu-flags", default="", help="more QEMU arguments, one string")
    args = ap.parse_args()
    if not args.line.strip():
        ap.error("nothing to profile: make profile CMD='kwork loop 1000000 50'")
    print("profile: a fresh QEMU under -icount, engine %s" % args.engine, file=sys.stderr,
          flush=True)
    try:
        eng, out, console = profile(args.line, args.engine, args.out, args.cmdline,
                                    shlex.split(args.qemu_flags))
    except (qemu.VMError, OSError) as e:
        print("profile: %s" % e, file=sys.stderr)
        return 1
    # the profiled line's output: from its echo to the next prompt
    m = re.search(r"^\$ (kpr .*|echo start > /dev/stackctl; .*)\n((?:.*\n)*?)\$ ", console, re.M)
    if m:
        print("$ %s\n%s" % (m.group(1), m.group(2)), end="")
    print("profile: the dump is in %s/ (%s), the console in %s"
          % (rel(out), ", ".join(eng.files), rel(os.path.join(out, "console.log"))))
    status = 0
    for argv in eng.reports(out, shlex.split(args.kprof_args)):
        print("$ %s" % " ".join(shlex.quote(rel(a)) for a in argv), flush=True)
        status |= subprocess.run([rel(a) for a in argv], cwd=TOP).returncode
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
