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
was recorded; any other failure (a usage error, HZ= or TIMEOUT= out of
range, a guest step that failed or timed out) is 2 or 1 as main() says.
make itself exits 2 whenever this script fails."""
import argparse
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402
import vm    # noqa: E402

from engines import (DEFAULT, ENGINES, KPROF, TOP, Unsupported, UsageError,  # noqa: E402
                     engine_list, exported, one_program, program_elf, rel,
                     without_export_hints)


def profile(line, engine=DEFAULT, out=None, cmdline="", extra=(), timeout=120, say=None):
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
    clean(out)
    outputs = []
    names = vm.run_script(script, out, cmdline, icount=True, timeout=timeout, extra=extra,
                          outputs=outputs, say=say)
    missing = [f for f in eng.files if not any(fnmatch.fnmatch(n, f) for n in names)]
    if missing:
        # the reason is the guest's own message, not the missing file
        said = guest_errors(script, outputs)
        raise qemu.VMError("%sthe guest exported no %s (see %s)"
                           % ("".join("%s\n" % m for m in said), ", ".join(missing),
                              rel(os.path.join(out, "console.log"))))
    return eng, out, open(os.path.join(out, "console.log"), errors="replace").read(), \
        vm.failure(outputs[0]) if outputs else None


# Every file a run of any engine makes in its output directory: the dumps
# (each engine's files), the stack engine's exports made on the host, the
# console, COM2's bytes and ACCURACY=1's heat run. A run removes them all
# first, so that nothing of an earlier run (with another engine, say) is
# read, or listed as this run's after a failure. Other files in OUT= are
# the user's and stay.
PRODUCTS = ["console.log", "com2.tar", "flame.folded", "flame.svg", "flame.speedscope.json",
            "flame.pb.gz", "perf.data"]


def made(out):
    """The files in out that a run makes (after clean(), this run's)."""
    return sorted(f for p in PRODUCTS + [p for e in ENGINES.values() for p in e.files]
                  for f in exported(out, p)) + \
        sorted(f for f in glob.glob(os.path.join(out, "accuracy", "**"), recursive=True)
               if os.path.isfile(f))


def clean(out):
    os.makedirs(out, exist_ok=True)
    for old in made(out):
        if not old.startswith(os.path.join(out, "accuracy", "")):
            os.remove(old)
    if os.path.isdir(os.path.join(out, "accuracy")):
        shutil.rmtree(os.path.join(out, "accuracy"))


def guest_errors(script, outputs):
    """What the guest said when a line of the script failed: each program's
    own complaint ("dosprof: -z 99999999: at most 65535") and the shell's
    verdict, with the line, so that the user sees what to change."""
    said = []
    for line, text in zip(script, outputs):
        why = vm.failure(text)
        if not why:
            continue
        own = [l for l in text.splitlines() if re.match(r"^[\w.]+: ", l) and not l.startswith("sh: ")]
        said.append("the guest's line %r failed: %s" % (line, "; ".join(own + [why])))
    if said:        # the engine's line is made of CMD=, HZ= and ARGS=: change one of those
        said.append("change what the guest names: CMD= (the command line), HZ= (the rate) or "
                    "ARGS= (the boot words)")
    return said


def check_limits(engine, cmdline, timeout):
    """HZ= (the kernel's hz= word) and TIMEOUT= checked before the boot: the
    kernel would ignore a bad hz= (and say so only in console.log), and an
    engine whose own rate is smaller fails in the guest. The limits are the
    headers' (include/abi/clock.h, dosprof.h), read here, not copied.
    Raises UsageError."""
    clock = qemu.header_defines("clock.h")
    lo, hi = clock["PIT_MIN_HZ"], clock["PIT_MAX_HZ"]
    for hz in re.findall(r"(?:^|\s)hz=(\S*)", cmdline):
        if not re.fullmatch(r"\d+", hz) or not lo <= int(hz) <= hi:
            raise UsageError("HZ=%s: the clock ticks at %d to %d Hz (the 8254's limits, "
                             "include/abi/clock.h): set HZ= in that range" % (hz, lo, hi))
        if engine == "dosprof":
            most = qemu.header_defines("dosprof.h")["PRF_MAX_TIMVAL"]
            if int(hz) > most:
                raise UsageError("HZ=%s: DosProfile's rate (dosprof -z, a 16-bit TIMVAL) is at "
                                 "most %d Hz (include/abi/dosprof.h): set HZ=%d or less"
                                 % (hz, most, most))
    try:
        ok = float(timeout) > 0
    except ValueError:
        ok = False
    if not ok:
        raise UsageError("TIMEOUT=%s: the seconds each step may take (the boot, the command "
                         "line, the export), a number above 0; the default is 300" % timeout)


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
    began = time.monotonic()

    def say(what):      # single-stepping takes 30 s to minutes: say what it is at
        print("accuracy: %3.0fs: %s" % (time.monotonic() - began, what), flush=True)
    try:
        profile(line, "heat", exact, cmdline, extra, timeout, say)
        say("done; grading the samples against the exact counts")
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
    ap.add_argument("--timeout", default="300",
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
    try:
        check_limits(args.engine, args.cmdline, args.timeout)
    except UsageError as e:
        print("profile: %s" % e, file=sys.stderr)
        return 2
    args.timeout = float(args.timeout)
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
        if isinstance(e, qemu.VMError) and "timed out" in str(e):
            print("profile: each step may take TIMEOUT=%g seconds: raise it, e.g. make profile "
                  "TIMEOUT=%g ..." % (args.timeout, args.timeout * 4), file=sys.stderr)
        # only what this run made (clean() removed an earlier run's), not
        # the user's own files in OUT=
        kept = [rel(f) for f in made(out) if not f.endswith("com2.tar")]
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
    note = getattr(eng, "note", None)
    if note and note():
        print("profile: %s" % note())
    print("profile: the dumps are in %s/ (%s), the console in %s"
          % (rel(out), ", ".join(eng.files), rel(os.path.join(out, "console.log"))))
    status = 0
    for argv in eng.reports(out, shlex.split(args.kprof_args)):
        # the command as it can be pasted: every ELF by its path
        print("$ %s" % " ".join(shlex.quote(rel(a)) for a in argv), flush=True)
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
