#!/usr/bin/env python3
"""make profile: boots kprof-os under -icount, profiles one command line
with an engine, brings every dump it made out over COM2, and prints the
engine's report on the host; the dumps stay in the output directory
(default build/profile/).

    python3 tests/qemu/profile.py [--engine stacks] [--cmdline WORDS]
        [--out DIR] [--kprof-args ARGS] [--qemu-flags FLAGS] [--timeout S]
        'COMMAND LINE'
    python3 tests/qemu/profile.py --list

An engine is an entry in ENGINES (tests/qemu/engines.py, one description
an engine): the question it answers, the guest lines that profile the
command line and export its dumps, and the host commands that read them.
A new engine adds one entry, and `make profile ENGINE=NAME` selects it. The exit status is 1 when the profiled command
failed (not found, a fault, a non-zero status), after the report of what
was recorded."""
import argparse
import fnmatch
import glob
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402
import vm    # noqa: E402

from engines import (DEFAULT, ENGINES, KPROF, TOP, Unsupported, UsageError,  # noqa: E402
                     engine_list, exported, one_program, program_elf, rel, user_elfs,
                     without_export_hints)


def profile(line, engine=DEFAULT, out=None, cmdline="", extra=(), timeout=120):
    """Boots a fresh QEMU under icount and runs the engine's script for line;
    returns (the engine, the output directory, the console transcript, the
    profiled command's failure or None). Raises qemu.VMError (with what was
    exported so far kept in out) or UsageError."""
    eng = ENGINES[engine]
    out = out or os.path.join(TOP, "build", "profile")
    if len(line) > qemu.LINEMAX or "\n" in line:
        raise UsageError("the command line must be one line of at most %d characters" % qemu.LINEMAX)
    hz = re.findall(r"(?:^|\s)hz=(\d+)", cmdline)
    eng.hz = int(hz[-1]) if hz else 0
    script = eng.script(line)
    os.makedirs(out, exist_ok=True)
    for f in eng.files + ["console.log", "com2.tar"]:     # nothing stale is read
        for old in exported(out, f):
            os.remove(old)
    outputs = []
    names = vm.run_script(script, out, cmdline, icount=True, timeout=timeout, extra=extra,
                          outputs=outputs)
    missing = [f for f in eng.files if not any(fnmatch.fnmatch(n, f) for n in names)]
    if missing:
        raise qemu.VMError("the guest exported no %s (see %s)"
                           % (", ".join(missing), rel(os.path.join(out, "console.log"))))
    return eng, out, open(os.path.join(out, "console.log"), errors="replace").read(), \
        vm.failure(outputs[0]) if outputs else None


def accuracy(eng, line, out, cmdline, extra, timeout):
    """ACCURACY=1: the same line again under the heat engine (under icount
    the same run), and kprof accuracy of the engine's samples against the
    exact counts. Returns an exit status."""
    if eng.ungraded:
        print("accuracy: %s" % eng.ungraded)
        return 0
    try:
        words = one_program("accuracy", line)
    except UsageError:
        print("accuracy: the heat engine traces one program: ACCURACY=1 needs CMD='PROG ARG...'")
        return 0
    prog = words[0]
    if eng.name == "profil":        # the samples are of the -pg build: trace that
        prog = prog + ".pg"
        line = re.sub(r"^\s*%s" % re.escape(words[0]), prog, line)
    print("profile: ACCURACY=1: %s again under the heat engine, every instruction counted"
          % line, flush=True)
    exact = os.path.join(out, "accuracy")
    try:
        profile(line, "heat", exact, cmdline, extra, timeout)
    except (qemu.VMError, UsageError) as e:
        print("accuracy: the heat run failed: %s" % e)
        return 1
    argv = [KPROF, "accuracy", "--top", "10", program_elf(prog), os.path.join(exact, "dev", "heat"),
            eng.samples(out)]
    print("$ %s" % " ".join(shlex.quote(rel(a)) for a in argv), flush=True)
    return subprocess.run([rel(a) for a in argv], cwd=TOP).returncode


def main():
    ap = argparse.ArgumentParser(description="profile one command line in a fresh kprof-os")
    ap.add_argument("line", nargs="?", metavar="'COMMAND LINE'", help="what to profile, as typed in the guest")
    ap.add_argument("--engine", default=DEFAULT, help="the engine (--list: which there are)")
    ap.add_argument("--list", action="store_true", help="list the engines and the question each answers")
    ap.add_argument("--out", help="directory for the dumps and console.log (build/profile)")
    ap.add_argument("--cmdline", default="", help="kernel command-line words, e.g. 'hz=10000'")
    ap.add_argument("--kprof-args", default="", help="options for build/kprof, e.g. '--lines'")
    ap.add_argument("--qemu-flags", default="", help="more QEMU arguments, one string")
    ap.add_argument("--accuracy", action="store_true",
                    help="then the line under the heat engine, and the samples against its exact counts")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds for each step: the boot, the command line, the export (default 300)")
    args = ap.parse_args()
    if args.list or args.engine not in ENGINES:
        if not args.list:
            print("profile: %s; the engines (ENGINE=NAME; the default is %s):"
                  % ("no engine named %r" % args.engine if args.engine else "ENGINE= names no engine",
                     DEFAULT), file=sys.stderr)
        print(engine_list(), end="", file=sys.stdout if args.list else sys.stderr)
        return 0 if args.list else 2
    if not args.line or not args.line.strip():
        print("profile: nothing to profile: make profile CMD='stackwork tree 40' [ENGINE=NAME]",
              file=sys.stderr)
        return 2
    print("profile: a fresh QEMU under -icount, engine %s" % args.engine, file=sys.stderr,
          flush=True)
    out = args.out or os.path.join(TOP, "build", "profile")
    try:
        eng, out, console, failed = profile(args.line, args.engine, out, args.cmdline,
                                            shlex.split(args.qemu_flags), args.timeout)
    except UsageError as e:
        print("profile: %s" % e, file=sys.stderr)
        return 1 if isinstance(e, Unsupported) else 2
    except (qemu.VMError, OSError) as e:
        print("profile: %s" % e, file=sys.stderr)
        kept = [rel(f) for f in glob.glob(os.path.join(out, "**"), recursive=True)
                if os.path.isfile(f) and not f.endswith("com2.tar")]
        if kept:
            print("profile: what was exported is kept: %s" % " ".join(sorted(kept)), file=sys.stderr)
        return 1
    # the profiled line's output: from its echo to the next prompt
    first = eng.script(args.line)[0]
    i = console.find("$ " + first + "\n")
    if i >= 0:
        j = console.find("\n$ ", i + len(first) + 3)
        text = console[i:j + 1 if j >= 0 else len(console)]
        print(without_export_hints(text), end="")
    print("profile: the dumps are in %s/ (%s), the console in %s"
          % (rel(out), ", ".join(eng.files), rel(os.path.join(out, "console.log"))))
    status = 0
    every = user_elfs()
    for argv in eng.reports(out, shlex.split(args.kprof_args)):
        shown = " ".join(shlex.quote(rel(a)) for a in argv)
        if every and " ".join(every) in " ".join(argv):         # each program's ELF: said once
            shown = shown.replace(" ".join(shlex.quote(rel(a)) for a in every),
                                  "--elf build/user/bin/PROG (each program)")
        print("$ %s" % shown, flush=True)
        status |= subprocess.run([rel(a) for a in argv], cwd=TOP).returncode
    hint = getattr(eng, "hint", None)
    if hint and hint(out):
        print("profile: %s" % hint(out))
    if args.accuracy:
        status |= accuracy(eng, args.line, out, args.cmdline, shlex.split(args.qemu_flags), args.timeout)
    if failed:
        print("profile: the command failed: %s" % failed, file=sys.stderr)
        return 1
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
