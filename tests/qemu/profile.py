#!/usr/bin/env python3
"""make profile: boots kprof-os under -icount, profiles one command line
with an engine, brings every dump it made out over COM2, and prints the
engine's report on the host; the dumps stay in the output directory
(default build/profile/).

    python3 tests/qemu/profile.py [--engine stacks] [--cmdline WORDS]
        [--out DIR] [--kprof-args ARGS] [--qemu-flags FLAGS] [--timeout S]
        'COMMAND LINE'
    python3 tests/qemu/profile.py --list

An engine is an entry in ENGINES: the question it answers, the guest
lines that profile the command line and export its dumps, and the host
commands that read them. A new engine adds one entry, and `make profile
ENGINE=NAME` selects it. The exit status is 1 when the profiled command
failed (not found, a fault, a non-zero status), after the report of what
was recorded."""
import argparse
import fnmatch
import glob
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


def pieces(line):
    """The line split at ; and & outside quotes, as typed (empty ones kept)."""
    out, cur, quote = [], "", None
    for c in line:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in ";&":
            out.append(cur)
            cur = ""
            continue
        cur += c
    return out + [cur]


def one_command(line):
    """Whether line is a single command (no ; or & outside quotes)."""
    return len(pieces(line)) == 1


def commands(line):
    """The line's commands: lists of words."""
    return [shlex.split(c) for c in pieces(line) if c.strip()]


def program_elf(name):
    """The host's ELF of the guest program NAME (or /bin/NAME)."""
    return os.path.join(TOP, "build", "user", "bin", os.path.basename(name))


def user_elfs():
    """--elf for every program: each module of a dump finds its own by build-id"""
    d = os.path.join(TOP, "build", "user", "bin")
    return [a for f in sorted(os.listdir(d)) if not f.endswith(".strip")
            for a in ("--elf", os.path.join(d, f))]


def exported(out, pattern):
    """The files under out matching pattern (a glob relative to out), sorted."""
    return sorted(glob.glob(os.path.join(out, pattern)))


class UsageError(Exception):
    """The command line does not suit the engine: the message says why."""


def one_program(engine, line):
    """The words of a line that is one command, for engines that trace one
    program; UsageError otherwise."""
    cmds = commands(line)
    if len(cmds) != 1 or line.rstrip().endswith("&"):
        raise UsageError("ENGINE=%s profiles one program and what it runs: CMD='PROG ARG...', "
                         "not a list" % engine)
    if not os.path.exists(program_elf(cmds[0][0])):
        raise UsageError("no program %s in build/user/bin/" % cmds[0][0])
    return cmds[0]


class Devkprof:
    """devkprof, the PC sampler: the shell's kpr builtin around the command
    line, then the dump (/dev/kpdata, /dev/kpinfo) exported."""
    name = "devkprof"
    question = "where does the kernel spend its time? (PC bins of kernel code, Plan 9 kprof)"
    files = ["dev/kpdata", "dev/kpinfo"]

    def script(self, line):
        # kpr profiles one command; a list runs in one sh -c under it
        cmd = line if one_command(line) else "sh -c " + sh_quote(line)
        return ["kpr " + cmd, "export /dev/kpdata /dev/kpinfo"]

    def reports(self, out, kprof_args):
        kpdata = os.path.join(out, "dev", "kpdata")
        return [[KPROF] + kprof_args + [KERNEL, kpdata]]


class Profil:
    """profil(2) and gprof: the line with each program that has a -pg build
    run as NAME.pg, which writes gmon.NAME.PID.out at exit; every gmon file
    exported and read by kprof gmon (gprof reads them too)."""
    name = "profil"
    question = "which of a program's functions take the time, and how often is each called? (gprof)"
    files = ["tmp/prof/gmon.*.out"]

    def script(self, line):
        pg = [c[0] for c in commands(line) if os.path.exists(program_elf(c[0] + ".pg"))]
        if not pg:
            raise UsageError("no program of the line has a -pg build (NAME.pg, built for the "
                             "programs in USER_PG of user/user.mk: %s); add yours there"
                             % " ".join(sorted(os.path.basename(f)[:-3] for f in
                                               glob.glob(program_elf("*.pg")))))
        for name in pg:         # each command of such a program runs its .pg build
            line = re.sub(r"(^|[;&]\s*)%s(?=\s|$)" % re.escape(name), r"\g<1>%s.pg" % name, line)
        return [line, "export /tmp/prof/gmon.*.out"]

    def reports(self, out, kprof_args):
        runs = []
        for g in exported(out, "tmp/prof/gmon.*.out"):
            prog = os.path.basename(g).split(".")[1] + ".pg"
            runs.append([KPROF, "gmon", "--top", "15"] + kprof_args + [program_elf(prog), g])
        return runs

    def samples(self, out):
        g = exported(out, "tmp/prof/gmon.*.out")
        return g[0] if g else None

    def hint(self, out):
        g = exported(out, "tmp/prof/gmon.*.out")
        if g:
            prog = os.path.basename(g[0]).split(".")[1] + ".pg"
            gprof = "i686-linux-gnu-gprof" if shutil.which("i686-linux-gnu-gprof") else "gprof"
            return "GNU gprof reads them too: %s -b %s %s" % (gprof, rel(program_elf(prog)), rel(g[0]))
        return None


class Heat:
    """the heat engine: every instruction of one program counted exactly
    (single-stepped), its calls and blocks marked; /dev/heat exported and
    summed per function by kprof heat."""
    name = "heat"
    question = "exactly how many instructions does each function execute? (every one counted)"
    files = ["dev/heat", "dev/heatinfo"]

    def script(self, line):
        self.prog = one_program(self.name, line)[0]
        return ["heat " + line, "export /dev/heat /dev/heatinfo"]

    def reports(self, out, kprof_args):
        return [[KPROF, "heat", "--top", "15"] + kprof_args +
                [program_elf(self.prog), os.path.join(out, "dev", "heat")]]


class Dosprof:
    """OS/2's DosProfile through the dosprof driver: a hit table over the
    program's text (the hottest addresses), its dump exported and read by
    kprof dosprof in OS/2's terms and by the flat report."""
    name = "dosprof"
    question = "which addresses and pages of a program are hot? (OS/2 DosProfile: slots, hit table, pages)"
    files = ["tmp/prof/dosprof.*"]

    def script(self, line):
        self.prog = one_program(self.name, line)[0]
        rate = " -z %d" % self.hz if getattr(self, "hz", 0) else ""    # HZ=: its own rate
        return ["dosprof -m hit -t 5%s -p %s %s" % (rate, os.path.basename(self.prog), line),
                "export /tmp/prof/dosprof.*"]

    def samples(self, out):
        d = exported(out, "tmp/prof/dosprof.*")
        return d[0] if d else None

    def reports(self, out, kprof_args):
        runs = []
        for d in exported(out, "tmp/prof/dosprof.*"):
            runs.append([KPROF, "dosprof", "--top", "10"] + kprof_args + [program_elf(self.prog), d])
            runs.append([KPROF, "--top", "15"] + kprof_args + [program_elf(self.prog), d])
        return runs


class MonteCarlo:
    """Windows CE's Monte Carlo profiler: prof on, the line, prof off; its
    module and routine tables print on the console, and its samples
    (/tmp/prof/mc.N.dump) are exported for the host's report."""
    name = "mc"
    question = "which module and routine, kernel or program, does the time go to? (Windows CE prof on/off)"
    files = ["tmp/prof/mc.*"]

    def script(self, line):
        return ["prof on; %s; prof off" % line, "export /tmp/prof/mc.*"]

    def samples(self, out):
        d = exported(out, "tmp/prof/mc.*.dump")
        return d[0] if d else None

    def reports(self, out, kprof_args):
        return [[KPROF, "--top", "15"] + kprof_args + user_elfs() + [KERNEL, d]
                for d in exported(out, "tmp/prof/mc.*.dump")]


class Stacks:
    """the stack engine: every tick's call stack, kernel and user, around
    the command line; the dump (/dev/stacks) exported. The report is the
    flat one of the leaves, and beside the dump the folded stacks
    (flame.folded), the flame graph (flame.svg), speedscope's JSON
    (flame.speedscope.json), pprof's profile (flame.pb.gz) and perf's
    (perf.data, for perf script and perf report with --vmlinux)."""
    name = "stacks"
    question = "where do user and kernel code spend their time, and through which calls? (call stacks, flame graph)"
    files = ["dev/stacks"]

    def script(self, line):
        return ["echo start > /dev/stackctl; %s; echo stop > /dev/stackctl" % line,
                "export /dev/stacks"]

    def samples(self, out):
        return os.path.join(out, "dev", "stacks")

    def reports(self, out, kprof_args):
        dump = os.path.join(out, "dev", "stacks")
        made = []
        for fmt, name in (("folded", "flame.folded"), ("flamegraph", "flame.svg"),
                          ("speedscope", "flame.speedscope.json"), ("pprof", "flame.pb.gz"),
                          ("perf", "perf.data")):
            with open(os.path.join(out, name), "wb") as f:
                subprocess.run([KPROF, "--format", fmt] + user_elfs() + [KERNEL, dump], stdout=f,
                               cwd=TOP, check=False)
            made.append(rel(os.path.join(out, name)))
        print("profile: folded stacks %s, flame graph %s (open it in a browser), speedscope %s, "
              "pprof %s (go tool pprof), perf %s (perf script -i %s --vmlinux %s)"
              % (tuple(made) + (made[-1], rel(KERNEL))))
        perf = [["sh", "-c", "perf script -i %s --vmlinux %s 2>&1 | head -n 24" % (made[-1], rel(KERNEL))]] \
            if shutil.which("perf") else []
        return [["head", "-n", "20", os.path.join(out, "flame.folded")]] + perf + [
                [KPROF] + kprof_args + ["--top", "15"] + user_elfs() + [KERNEL, dump]]


ENGINES = {e.name: e for e in (Stacks(), Devkprof(), Profil(), Heat(), Dosprof(), MonteCarlo())}
DEFAULT = "stacks"


def engine_list():
    """One line an engine: its name and the question it answers."""
    return "".join("  %-9s %s\n" % (e.name, e.question) for e in ENGINES.values())


def rel(path):
    return os.path.relpath(path, TOP) if path.startswith(TOP) else path


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
    why = {"devkprof": "devkprof samples the kernel, and the heat engine traces user code "
                       "only: there is no exact profile of kernel code to hold it against",
           "heat": "the heat engine's counts are the exact profile itself"}
    if eng.name in why:
        print("accuracy: %s" % why[eng.name])
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
        return 2
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
        print(re.sub(r"^(kpr: .*); export /dev/kpdata /dev/kpinfo to take the profile out$", r"\1",
                     re.sub(r"^(prof: report in .*) \(export them for kprof\)$", r"\1", text, flags=re.M),
                     flags=re.M), end="")
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
