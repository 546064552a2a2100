"""The profiling engines, one description each: what make profile, make
demo, make bench and the suite know about an engine is here and nowhere
else.

An engine's entry (a class below, one instance of it in ENGINES) holds:

  name, question   `make profile ENGINE=NAME`, and the question it answers
  files            the dumps it makes, as globs relative to the export
                   directory (every one must come out of a make profile run)
  dump             where the guest names a dump on the console: a regex
                   whose group 1 is the dump (see dumps()); None when the
                   dump has a fixed name
  export_hint      the guest's line telling the user to export the dump, a
                   regex whose group 1 is what make profile keeps of it (it
                   brings the dump out itself); None when there is none
  script(line)     the guest lines that profile a command line and export
                   the dumps; UsageError when the line does not suit it
  reports(out, a)  the host commands that read the dumps in out
  samples(out)     the file ACCURACY=1 grades against the heat engine's
                   exact counts (for the engines that sample)
  demo             make demo's run: Demo(line, boot words, what it shows)
  real             make demo's second run, on a real program (Lua, built
                   from Debian's sources): a Demo, or None
  check            the suite's test profile_engine_NAME: Check(line, boot
                   words, files that must come out, the report's row of
                   the known hot function)
  accuracy         the suite's test profile_accuracy_NAME: Graded(line,
                   boot words), or None for no such test
  ungraded         why ACCURACY=1 cannot grade the engine, or None

A new engine is one class here and one instance in ENGINES: `make profile
ENGINE=NAME` offers it, `make demo` runs it, and the suite gets its tests.
"""
import collections
import glob
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

TOP = qemu.ROOT
KPROF = os.path.join(TOP, "build", "kprof")
KERNEL = os.path.join(TOP, "build", "kernel.elf")

# make demo's run: the command line, kernel boot words, what it shows
Demo = collections.namedtuple("Demo", "line boot what")
# the suite's run: the command line, boot words, the files that must come
# out, the report's row of the command's known hot function
Check = collections.namedtuple("Check", "line boot files hot")
# ACCURACY=1's run in the suite: the command line, boot words
Graded = collections.namedtuple("Graded", "line boot")


def rel(path):
    return os.path.relpath(path, TOP) if path.startswith(TOP) else path


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


def brought_programs():
    """The programs a user put in /bin with make profile PROG='...': their
    host paths, from the environment make sets (KPROF_PROGS)."""
    return os.environ.get("KPROF_PROGS", "").split()


def program_elf(name):
    """The host's ELF of the guest program NAME (or /bin/NAME): one that
    PROG brought, or the build's."""
    base = os.path.basename(name)
    for p in brought_programs():
        if os.path.basename(p) == base:
            return p
    return os.path.join(TOP, "build", "user", "bin", base)


def user_elfs():
    """--elf for every program: each module of a dump finds its own by build-id"""
    d = os.path.join(TOP, "build", "user", "bin")
    return [a for f in sorted(os.listdir(d)) if not f.endswith(".strip")
            for a in ("--elf", os.path.join(d, f))] + \
        [a for p in brought_programs() for a in ("--elf", p)]


def linux_program(path):
    """Whether the ELF at path is a Linux (glibc) program, by the rule the
    kernel uses (kernel/elf.c): a GNU ABI note for Linux, or the GNU/Linux
    OS/ABI byte."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 16)
    except OSError:
        return False
    if data[:4] != b"\x7fELF" or len(data) < 52:
        return False
    if data[7] == 3:
        return True
    phoff, = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    for i in range(phnum):
        off = phoff + i * phentsize
        if off + 32 > len(data):
            break
        ptype, poff, _, _, psz = struct.unpack_from("<IIIII", data, off)
        if ptype != 4:          # PT_NOTE
            continue
        note = data[poff:poff + psz]
        while len(note) >= 12:
            nsz, dsz, ntype = struct.unpack_from("<III", note)
            name = note[12:12 + nsz]
            desc = note[12 + (nsz + 3) // 4 * 4:][:dsz]
            if name == b"GNU\0" and ntype == 1 and len(desc) >= 4 and desc[:4] == b"\0\0\0\0":
                return True
            note = note[12 + (nsz + 3) // 4 * 4 + (dsz + 3) // 4 * 4:]
    return False


def exported(out, pattern):
    """The files under out matching pattern (a glob relative to out), sorted."""
    return sorted(glob.glob(os.path.join(out, pattern)))


class UsageError(Exception):
    """The command line does not suit the engine: the message says why."""


class Unsupported(UsageError):
    """The engine cannot profile the program (yet): the message says why;
    make profile exits 1."""


def one_program(engine, line):
    """The words of a line that is one command, for engines that trace one
    program; UsageError otherwise."""
    cmds = commands(line)
    if len(cmds) != 1 or line.rstrip().endswith("&"):
        raise UsageError("ENGINE=%s profiles one program and what it runs: CMD='PROG ARG...', "
                         "not a list" % engine)
    if not os.path.exists(program_elf(cmds[0][0])):
        raise UsageError("no program %s in build/user/bin/ (your own: PROG=path/to/%s)"
                         % (cmds[0][0], cmds[0][0]))
    return cmds[0]


class Engine:
    """What every engine has unless it says otherwise."""
    real = None
    dump = None
    export_hint = None
    accuracy = None
    ungraded = None

    def dumps(self, text):
        """The dumps the console text names, in order (group 1 of dump)."""
        return re.findall(self.dump, text, re.M) if self.dump else []


class Devkprof(Engine):
    """devkprof, the PC sampler: the shell's kpr builtin around the command
    line, then the dump (/dev/kpdata, /dev/kpinfo) exported."""
    name = "devkprof"
    question = "where does the kernel spend its time? (PC bins of kernel code, Plan 9 kprof)"
    files = ["dev/kpdata", "dev/kpinfo"]
    export_hint = r"^(kpr: .*); export /dev/kpdata /dev/kpinfo to take the profile out$"
    demo = Demo("kwork loop 2000000 50; kwork copy 2000; spin 300", "",
                "the kernel's hot loop, kwork_loop, on top")
    real = Demo("lua /bin/share/lua/binarytrees.lua 14", "",
                "what the kernel does for Lua's allocator: zeroing the pages its heap grows into")
    check = Check("kwork loop 1000000 20", "", ["dev/kpdata", "dev/kpinfo"],
                  r"^\s+[\d.]+\s+[\d.]+\s+\d+\s+kwork_loop$")
    accuracy = Graded("kwork loop 100000 5", "")
    ungraded = ("devkprof samples the kernel, and the heat engine traces user code "
                "only: there is no exact profile of kernel code to hold it against")

    def script(self, line):
        # kpr profiles one command; a list runs in one sh -c under it
        cmd = line if one_command(line) else "sh -c " + sh_quote(line)
        return ["kpr " + cmd, "export /dev/kpdata /dev/kpinfo"]

    def reports(self, out, kprof_args):
        kpdata = os.path.join(out, "dev", "kpdata")
        return [[KPROF] + kprof_args + [KERNEL, kpdata]]


GLIBC_GMON = "tmp/gmon/gmon.out"       # where glibc's gprof writes, by make profile's line


class Profil(Engine):
    """profil(2) and gprof: the line with each program that has a -pg build
    run as NAME.pg, which writes gmon.NAME.PID.out at exit; every gmon file
    exported and read by kprof gmon (gprof reads them too)."""
    name = "profil"
    question = "which of a program's functions take the time, and how often is each called? (gprof)"
    files = ["tmp/prof/gmon.*.out"]
    dump = r"\b(gmon\.\S+\.out)$"       # as ls /tmp/prof lists it (named by the pid)
    demo = Demo("hotcold 2000000", "hz=10000", "hot, warm and cold at 60/30/10 %, one call each")
    check = Check("hotcold 1000000", "hz=10000", ["tmp/prof/gmon.hotcold.pg.3.out"],
                  r"^\s+[\d.]+\s+\d+\s+1\s+hot$")
    accuracy = Graded("accwork mix 3000", "hz=20000")

    def script(self, line):
        pg = [c[0] for c in commands(line) if os.path.exists(program_elf(c[0] + ".pg"))]
        linux = [c[0] for c in commands(line) if linux_program(program_elf(c[0]))]
        self.files = list(Profil.files)
        if linux and not pg:
            raise Unsupported("%s is a Linux (glibc) program without a -pg build: glibc's own "
                              "gprof needs one (gcc -pg, as LINUX_PG in user/user.mk builds "
                              "gprofwork.pg); its flat profile comes from ENGINE=devkprof, "
                              "ENGINE=mc or ENGINE=dosprof, its call stacks from ENGINE=stacks"
                              % linux[0])
        if any(linux_program(program_elf(name + ".pg")) for name in pg):
            return self.glibc_script(line, pg)
        if not pg:
            raise UsageError("no program of the line has a -pg build (NAME.pg, built for the "
                             "programs in USER_PG of user/user.mk: %s); add yours there"
                             % " ".join(sorted(os.path.basename(f)[:-3] for f in
                                               glob.glob(program_elf("*.pg")))))
        self.pg = pg
        for name in pg:         # each command of such a program runs its .pg build
            line = re.sub(r"(^|[;&]\s*)%s(?=\s|$)" % re.escape(name), r"\g<1>%s.pg" % name, line)
        return [line, "export /" + self.files[0]]

    def note(self):
        """which binary was profiled: the -pg build is another program"""
        return "; ".join("ENGINE=profil profiled %s.pg (%s), the -pg build of %s, not %s itself: "
                         "gcc -pg compiles it differently (mcount in every function, other "
                         "inlining), so its shares can differ from what the other engines "
                         "measure of %s (docs/profil.md)" % (n, rel(program_elf(n + ".pg")), n, n, n)
                         for n in dict.fromkeys(self.pg))

    def glibc_script(self, line, pg):
        """glibc's gprof: the program samples itself (setitimer(ITIMER_PROF)
        and SIGPROF) and writes gmon.out in its working directory at exit,
        so the line runs in /tmp/gmon (one -pg program a line)"""
        if len(pg) != 1:
            raise UsageError("glibc's gprof writes one gmon.out a directory: one -pg program a line")
        line = re.sub(r"(^|[;&]\s*)%s(?=\s|$)" % re.escape(pg[0]), r"\g<1>%s.pg" % pg[0], line)
        self.files = [GLIBC_GMON]
        self.glibc_prog = pg[0] + ".pg"
        return ["mkdir /tmp/gmon", "cd /tmp/gmon; %s; cd /" % line, "export /" + GLIBC_GMON]

    def reports(self, out, kprof_args):
        runs = []
        if self.files == [GLIBC_GMON]:      # glibc's file: GNU gprof reads it
            gprof = "i686-linux-gnu-gprof" if shutil.which("i686-linux-gnu-gprof") else "gprof"
            return [[gprof, "-b", program_elf(self.glibc_prog), g]
                    for g in exported(out, GLIBC_GMON)]
        for g in exported(out, self.files[0]):
            prog = os.path.basename(g).split(".")[1] + ".pg"
            runs.append([KPROF, "gmon", "--top", "15"] + kprof_args + [program_elf(prog), g])
        return runs

    def samples(self, out):
        g = exported(out, self.files[0])
        return g[0] if g else None

    def hint(self, out):
        g = exported(out, self.files[0])
        if g and self.files == [GLIBC_GMON]:
            return ("gmon.out is glibc's own (GNU's tagged format), written by the program at "
                    "its exit; kprof gmon reads only the kernel's 4.4BSD files")
        if g:
            prog = os.path.basename(g[0]).split(".")[1] + ".pg"
            gprof = "i686-linux-gnu-gprof" if shutil.which("i686-linux-gnu-gprof") else "gprof"
            return "GNU gprof reads them too: %s -b %s %s" % (gprof, rel(program_elf(prog)), rel(g[0]))
        return None


class Heat(Engine):
    """the heat engine: every instruction of one program counted exactly
    (single-stepped), its calls and blocks marked; /dev/heat exported and
    summed per function by kprof heat."""
    name = "heat"
    question = "exactly how many instructions does each function execute? (every one counted)"
    files = ["dev/heat", "dev/heatinfo"]
    demo = Demo("accwork mix 100", "", "every instruction counted: mix_a .. mix_f in a fixed ratio")
    real = Demo("lua /bin/share/lua/nbody.lua 50", "", "Lua's start-up and n-body, every instruction counted")
    check = Check("accwork mix 50", "", ["dev/heat", "dev/heatinfo"],
                  r"^\s+[\d.]+\s+\d+\s+50\s+\d+\s+mix_a")
    accuracy = Graded("accwork mix 5", "")
    ungraded = "the heat engine's counts are the exact profile itself"

    def script(self, line):
        self.prog = one_program(self.name, line)[0]
        return ["heat " + line, "export /dev/heat /dev/heatinfo"]

    def reports(self, out, kprof_args):
        return [[KPROF, "heat", "--top", "15"] + kprof_args +
                [program_elf(self.prog), os.path.join(out, "dev", "heat")]]


class Dosprof(Engine):
    """OS/2's DosProfile through the dosprof driver: a hit table over the
    program's text (the hottest addresses), its dump exported and read by
    kprof dosprof in OS/2's terms and by the flat report."""
    name = "dosprof"
    question = "which addresses and pages of a program are hot? (OS/2 DosProfile: slots, hit table, pages)"
    files = ["tmp/prof/dosprof.*"]
    dump = r"^dump (/tmp/prof/dosprof\.\d+)$"      # the driver's last line: its dump, by pid
    demo = Demo("dpwork aaaaabbbcc:4000", "", "dp_page_a, _b and _c at 50/30/20 %")
    real = Demo("lua /bin/share/lua/nbody.lua 5000", "", "the hot addresses of Lua's bytecode loop")
    check = Check("dpwork aaaaabbbcc:2000", "", ["tmp/prof/dosprof.3"],
                  r"^\s+\d+\s+[\d.]+%\s+dp_page_a$")
    # near the top of DosProfile's 16-bit rate: about 270 samples of the
    # 4.5 ms run (at 20 kHz, 91 left mix_f at 4 % with none by chance)
    accuracy = Graded("accwork mix 3000", "hz=60000")

    def script(self, line):
        self.prog = one_program(self.name, line)[0]
        rate = " -z %d" % self.hz if getattr(self, "hz", 0) else ""    # HZ=: its own rate
        return ["dosprof -m hit -t 5%s -p %s %s" % (rate, os.path.basename(self.prog), line),
                "export /" + self.files[0]]

    def samples(self, out):
        d = exported(out, self.files[0])
        return d[0] if d else None

    def reports(self, out, kprof_args):
        runs = []
        for d in exported(out, self.files[0]):
            runs.append([KPROF, "dosprof", "--top", "10"] + kprof_args + [program_elf(self.prog), d])
            runs.append([KPROF, "--top", "15"] + kprof_args + [program_elf(self.prog), d])
        return runs


class MonteCarlo(Engine):
    """Windows CE's Monte Carlo profiler: prof on, the line, prof off; its
    module and routine tables print on the console, and its samples
    (/tmp/prof/mc.N.dump) are exported for the host's report."""
    name = "mc"
    question = "which module and routine, kernel or program, does the time go to? (Windows CE prof on/off)"
    files = ["tmp/prof/mc.*"]
    dump = r"^prof: report in \S+, samples in (/tmp/prof/mc\.\d+\.dump)"
    export_hint = r"^(prof: report in .*) \(export them for kprof\)$"
    demo = Demo("mcwork run 30 60 10; kwork loop 2000000 20", "",
                "the modules (kernel, mcwork) and routines, alpha:beta:gamma_ 30:60:10")
    real = Demo("lua /bin/share/lua/spectralnorm.lua 100", "", "Lua's and glibc's routines, and the kernel's")
    check = Check("mcwork run 10 30 5", "", ["tmp/prof/mc.1", "tmp/prof/mc.1.dump"],
                  r"^\s+30\s+[\d.]+\s+[0-9a-f]{8}\s+mcwork\s+:beta$")
    accuracy = Graded("accwork mix 3000", "hz=20000")

    def script(self, line):
        return ["prof on; %s; prof off" % line, "export /tmp/prof/mc.*"]

    def samples(self, out):
        d = exported(out, "tmp/prof/mc.*.dump")
        return d[0] if d else None

    def reports(self, out, kprof_args):
        return [[KPROF, "--top", "15"] + kprof_args + user_elfs() + [KERNEL, d]
                for d in exported(out, "tmp/prof/mc.*.dump")]


class Stacks(Engine):
    """the stack engine: every tick's call stack, kernel and user, around
    the command line; the dump (/dev/stacks) exported. The report is the
    flat one of the leaves, and beside the dump the folded stacks
    (flame.folded), the flame graph (flame.svg), speedscope's JSON
    (flame.speedscope.json), pprof's profile (flame.pb.gz) and perf's
    (perf.data, for perf script and perf report with --vmlinux)."""
    name = "stacks"
    question = "where do user and kernel code spend their time, and through which calls? (call stacks, flame graph)"
    files = ["dev/stacks"]
    demo = Demo("stackwork tree 30; stackwork sys 20", "",
                "main -> a -> b -> leaf twice as long as main -> c -> leaf, and a system call's kernel frames")
    real = Demo("lua /bin/share/lua/nbody.lua 5000", "", "main -> the interpreter -> luaV_execute")
    check = Check("stackwork tree 10", "", ["dev/stacks", "flame.svg", "flame.folded", "perf.data"],
                  r"^\s+[\d.]+\s+[\d.]+\s+\d+\s+stackwork!leaf$")
    accuracy = Graded("accwork mix 3000", "hz=20000")

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


# in this order: make profile ENGINE= lists them so, make demo runs them so
ENGINES = {e.name: e for e in (Stacks(), Devkprof(), Profil(), Heat(), Dosprof(), MonteCarlo())}
DEFAULT = "stacks"
DOSPROF = ENGINES["dosprof"]
MC = ENGINES["mc"]
PROFIL = ENGINES["profil"]


def engine_list():
    """One line an engine: its name and the question it answers."""
    return "".join("  %-9s %s\n" % (e.name, e.question) for e in ENGINES.values())


def without_export_hints(text):
    """The console text with each engine's export hint cut to what it keeps."""
    for e in reversed(list(ENGINES.values())):
        if e.export_hint:
            text = re.sub(e.export_hint, r"\1", text, flags=re.M)
    return text


def table():
    """The table above as markdown: an engine a row."""
    rows = ["| engine | dumps | demo (make demo) | test: line, hot row | accuracy test |",
            "| --- | --- | --- | --- | --- |"]
    for e in ENGINES.values():
        acc = "`%s`%s" % (e.accuracy.line, " " + e.accuracy.boot if e.accuracy.boot else "") \
            if e.accuracy else "none"
        if e.accuracy and e.ungraded:
            acc += " (says why not: %s)" % e.ungraded
        rows.append("| %s | %s | `%s`%s | `%s`%s, `%s` | %s |"
                    % (e.name, ", ".join(e.files), e.demo.line, " " + e.demo.boot if e.demo.boot else "",
                       e.check.line, " " + e.check.boot if e.check.boot else "", e.check.hot, acc))
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
