# make profile's front door: every engine profiles a small command line in
# a fresh QEMU, exports its dumps and prints its own report naming the
# known hot function; a failing command fails make profile; a wrong
# ENGINE lists the engines. The per-engine tests (profile_engine_NAME,
# profile_accuracy_NAME) are made from the engines' table, engines.py: one
# test an engine, so that run.py -j runs them side by side.
import os
import re
import shutil
import subprocess
import sys
import tempfile

from engines import ENGINES
from harness import test
from qemu import ROOT

PROFILE = os.path.join(ROOT, "tests", "qemu", "profile.py")


def run(*args, timeout=600):
    return subprocess.run([sys.executable, PROFILE] + list(args), capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def first_row(text, pattern, what):
    """the first report row that is a function's must be the hot one"""
    assert re.search(pattern, text, re.M), "%s: no row %r in:\n%s" % (what, pattern, text)


def engine_test(eng):
    """profile_engine_NAME: the engine's check case (engines.py)"""
    line, boot, files, hot = eng.check

    def fn(h):
        with tempfile.TemporaryDirectory() as out:
            r = run("--engine", eng.name, "--out", out, "--cmdline", boot, "--", line)
            h.text += r.stdout + r.stderr
            assert r.returncode == 0, "%s: exit %d\n%s%s" % (eng.name, r.returncode, r.stdout, r.stderr)
            for f in files:
                assert os.path.exists(os.path.join(out, f)), "%s: no %s in %s" % (eng.name, f, os.listdir(out))
            first_row(r.stdout, hot, eng.name)
            assert "to take the profile out" not in r.stdout and "export them" not in r.stdout, r.stdout
    fn.__doc__ = ("make profile ENGINE=%s CMD='%s'%s: %s come out, the report has the known hot "
                  "function's row /%s/, the guest's export hint is not printed, and the exit status is 0."
                  % (eng.name, line, " ARGS='%s'" % boot if boot else "", ", ".join(files), hot))
    return fn


def accuracy_test(eng):
    """profile_accuracy_NAME: the engine's accuracy case (engines.py)"""
    line, boot = eng.accuracy

    def graded(h):
        with tempfile.TemporaryDirectory() as out:
            r = run("--engine", eng.name, "--out", out, "--cmdline", boot, "--accuracy", "--", line)
            h.text += r.stdout + r.stderr
            assert r.returncode == 0, r.stderr
            m = re.search(r"^N (\d+) tvd ([\d.]+) floor ([\d.]+) ratio ([\d.]+)$", r.stdout, re.M)
            assert m and int(m.group(1)) > 50 and float(m.group(4)) < 3, r.stdout
            t = re.search(r"^top10 (\d+) of the \d+ hottest functions by the exact count", r.stdout, re.M)
            assert t and int(t.group(1)) >= 6, r.stdout        # mix_a .. mix_f at least
            assert re.search(r"^off by more than 3 sd: ", r.stdout, re.M), r.stdout
            # its 30 s to minutes are not silent: each step as it begins
            assert re.search(r"^accuracy:\s+\d+s: booting a fresh QEMU$", r.stdout, re.M) and \
                re.search(r"^accuracy:\s+\d+s: running heat ", r.stdout, re.M), r.stdout
            assert os.path.exists(os.path.join(out, "accuracy", "dev", "heat"))

    def ungraded(h):
        with tempfile.TemporaryDirectory() as out:
            r = run("--engine", eng.name, "--out", out, "--cmdline", boot, "--accuracy", "--", line)
            h.text += r.stdout + r.stderr
            assert r.returncode == 0 and "accuracy: %s" % eng.ungraded in r.stdout, r.stdout

    fn = ungraded if eng.ungraded else graded
    what = "make profile ENGINE=%s ACCURACY=1 CMD='%s'%s: " % (
        eng.name, line, " ARGS='%s'" % boot if boot else "")
    fn.__doc__ = what + ("the engine says why it cannot be graded (%s), and the exit status is 0."
                         % eng.ungraded if eng.ungraded else
                         "the line again under the heat engine, and the sampled profile graded against "
                         "the exact counts: N > 50, TVD within 3 times the random floor, at least 6 "
                         "of the exact top ten, the functions off by more than 3 sd listed.")
    return fn


for _eng in ENGINES.values():
    test("profile_engine_" + _eng.name, timeout=300, qemu=False)(engine_test(_eng))
    if _eng.accuracy:
        test("profile_accuracy_" + _eng.name, timeout=400, qemu=False)(accuracy_test(_eng))


@test("profile_failures", timeout=300, qemu=False)
def profile_failures(h):
    """A command that is not found or exits non-zero makes make profile exit
    1 after what was recorded, saying why; a wrong or empty ENGINE, or a
    list for an engine that traces one program, is a usage error (2) that
    lists the engines or says why."""
    with tempfile.TemporaryDirectory() as out:
        r = run("--out", out, "--", "nosuch 1")
        h.text += r.stdout + r.stderr
        assert r.returncode == 1 and "the command failed: sh: nosuch: not found" in r.stderr, r.stderr
        assert os.path.exists(os.path.join(out, "dev", "stacks")), "what was recorded is kept"
        r = run("--engine", "devkprof", "--out", out, "--", "kwork loop 100000 1; fault")
        assert r.returncode == 1 and "the command failed: sh: fault: exit status" in r.stderr, r.stderr
        assert re.search(r"kwork_loop$", r.stdout, re.M), r.stdout
    for engine in ("bogus", ""):
        r = run("--engine", engine, "--", "spin 1")
        assert r.returncode == 2, r.stderr
        for name in ENGINES:
            assert re.search(r"^  %s\s+\S" % name, r.stderr, re.M), r.stderr
    r = run("--engine", "heat", "--", "accwork mix 5; accwork mix 5")
    assert r.returncode == 2 and "profiles one program" in r.stderr, r.stderr
    r = run("--engine", "profil", "--", "spin 1")
    assert r.returncode == 2 and "no program of the line has a -pg build" in r.stderr, r.stderr
    # a glibc program: profil cannot, and says why (exit 1, not a usage error)
    r = run("--engine", "profil", "--", "lua -e 'x = 1'")
    assert r.returncode == 1 and "is a Linux (glibc) program" in r.stderr, r.stderr


@test("profile_prog", timeout=120, qemu=False)
def profile_prog(h):
    """make profile PROG=FILE: the initrd rule copies each file into /bin
    without its DWARF (make -n shows the copy, which is run here), a missing one stops make with its name, and
    the engines' table finds its ELF for the symbolizer and for the
    engines that trace one program (KPROF_PROGS, which make sets)."""
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "myprog")
        shutil.copyfile(os.path.join(ROOT, "build", "user", "bin", "omitfp"), prog)  # glibc, -g
        r = subprocess.run(["make", "-n", "PROG=" + prog, "build/initrd.tar"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        h.text += r.stdout[-2000:] + r.stderr
        m = re.search(r"^for p in %s; do .*build/initrd/bin/.*$" % re.escape(prog), r.stdout, re.M)
        assert r.returncode == 0 and m, r.stdout[-2000:] + r.stderr
        # run the printed copy into a scratch /bin: the program arrives with
        # its symbols and without its DWARF (the host reads that from PROG)
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        r = subprocess.run(["sh", "-c", m.group(0).replace("build/initrd/bin", bindir)], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        sections = subprocess.run(["readelf", "-SW", os.path.join(bindir, "myprog")],
                                  capture_output=True, text=True).stdout
        assert r.returncode == 0 and " .symtab " in sections and ".debug_info" not in sections, \
            r.stderr + sections
        r = subprocess.run(["make", "PROG=" + os.path.join(tmp, "nosuch"), "build/initrd.prog"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode != 0 and "PROG: no file %s" % os.path.join(tmp, "nosuch") in r.stderr, r.stderr
        code = ("import engines; print(engines.program_elf('myprog')); print(' '.join(engines.user_elfs())); "
                "print(engines.one_program('heat', 'myprog 1 2')); print(engines.linux_program('%s'))" % prog)
        r = subprocess.run([sys.executable, "-c", code], cwd=os.path.join(ROOT, "tests", "qemu"),
                           env=dict(os.environ, KPROF_PROGS=prog), capture_output=True, text=True, timeout=60)
        lines = r.stdout.splitlines()
        assert r.returncode == 0 and lines[0] == prog and "--elf " + prog in lines[1] and \
            lines[2] == "['myprog', '1', '2']" and lines[3] == "True", r.stdout + r.stderr


@test("vm_script_failures", timeout=120, qemu=False)
def vm_script_failures(h):
    """vm.py --script exits 1 when a line's command fails (not found, or a
    non-zero status), naming the line; --keep-going exits 0; a line that
    times out keeps what was exported before it."""
    vm = os.path.join(ROOT, "tests", "qemu", "vm.py")
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "script")
        with open(script, "w") as f:
            f.write("echo one\nnosuch arg\necho three\n")
        r = subprocess.run([sys.executable, vm, "--script", script, "--out", os.path.join(d, "a")],
                           capture_output=True, text=True, timeout=100)
        h.text += r.stdout + r.stderr
        assert r.returncode == 1 and "vm.py: line 2 'nosuch arg' failed: sh: nosuch: not found" in r.stderr, \
            r.stderr
        assert "echo three" in open(os.path.join(d, "a", "console.log")).read(), "the rest still ran"
        r = subprocess.run([sys.executable, vm, "--keep-going", "--script", script, "--out",
                            os.path.join(d, "b")], capture_output=True, text=True, timeout=100)
        assert r.returncode == 0, r.stderr
        with open(script, "w") as f:
            f.write("echo kept > /tmp/k; export /tmp/k\nspin 100000\n")
        r = subprocess.run([sys.executable, vm, "--timeout", "8", "--script", script, "--out",
                            os.path.join(d, "c")], capture_output=True, text=True, timeout=100)
        h.text += r.stdout + r.stderr
        assert r.returncode == 1 and "exported before it: tmp/k" in r.stderr, r.stderr
        assert open(os.path.join(d, "c", "tmp", "k")).read() == "kept\n"


def make_profile(*words, timeout=600):
    """make profile VAR=VALUE...: make's own status (2 when profile.py fails)"""
    return subprocess.run(["make", "--no-print-directory", "profile"] + list(words), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@test("profile_make_flags", timeout=500, qemu=False)
def profile_make_flags(h):
    """make profile KPROFFLAGS='--lines --top 3' (several flags, one with a
    value) reaches the report; a run starts clean (an earlier run's
    flame.svg, perf.data and dev/stacks in OUT are gone, a file of the
    user's stays); the report's command names every ELF by its path and
    runs as pasted, with the same output."""
    with tempfile.TemporaryDirectory() as out:
        for stale in ("flame.svg", "perf.data", os.path.join("dev", "stacks"), "mine.txt"):
            os.makedirs(os.path.dirname(os.path.join(out, stale)), exist_ok=True)
            open(os.path.join(out, stale), "w").write("stale\n")
        r = make_profile("ENGINE=devkprof", "CMD=kwork loop 100000 5", "KPROFFLAGS=--lines --top 3",
                         "OUT=" + out)
        h.text += r.stdout + r.stderr
        assert r.returncode == 0, r.stdout + r.stderr
        assert "expected one argument" not in r.stderr
        cmd = re.search(r"^\$ (build/kprof --lines --top 3 .*)$", r.stdout, re.M)
        assert cmd, r.stdout
        assert re.search(r"^\s+[\d.]+\s+[\d.]+\s+\d+\s+\S+\.c:\d+", r.stdout, re.M), "--lines: rows of source lines\n" + r.stdout
        for stale in ("flame.svg", "perf.data", os.path.join("dev", "stacks")):
            assert not os.path.exists(os.path.join(out, stale)), "stale %s kept" % stale
        assert os.path.exists(os.path.join(out, "mine.txt")), "the user's file removed"
        # the stack engine's report: every --elf an existing file, pasted as is
        r = make_profile("CMD=stackwork tree 2", "OUT=" + out)
        h.text += r.stdout + r.stderr
        assert r.returncode == 0, r.stdout + r.stderr
        cmd = [m for m in re.findall(r"^\$ (build/kprof .*)$", r.stdout, re.M)][-1]
        assert "PROG" not in cmd and "(each" not in cmd, cmd
        words = cmd.split()
        elfs = [words[i + 1] for i, w in enumerate(words) if w == "--elf"]
        assert elfs and all(os.path.isfile(os.path.join(ROOT, e)) for e in elfs), cmd
        pasted = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert pasted.returncode == 0 and pasted.stdout and pasted.stdout in r.stdout, pasted.stderr


@test("profile_limits", timeout=300, qemu=False)
def profile_limits(h):
    """HZ= and TIMEOUT= are checked on the host before the boot, with the
    limits of include/abi/clock.h (and dosprof.h for DosProfile's 16-bit
    rate); make exits 2. A guest step that fails shows the guest's own
    message; a time-out names the TIMEOUT= to raise."""
    from qemu import header_defines
    clock, dp = header_defines("clock.h"), header_defines("dosprof.h")
    rng = "%d to %d Hz" % (clock["PIT_MIN_HZ"], clock["PIT_MAX_HZ"])
    for words, said in ((["HZ=0"], "HZ=0: the clock ticks at " + rng),
                        (["HZ=99999999"], "HZ=99999999: the clock ticks at " + rng),
                        (["HZ=fast"], "HZ=fast: the clock ticks at " + rng),
                        (["ENGINE=dosprof", "HZ=%d" % (dp["PRF_MAX_TIMVAL"] + 1)],
                         "at most %d Hz" % dp["PRF_MAX_TIMVAL"]),
                        (["TIMEOUT=abc"], "TIMEOUT=abc: the seconds"),
                        (["TIMEOUT=0"], "TIMEOUT=0: the seconds")):
        r = make_profile("CMD=dpwork ab:10", *words, timeout=120)
        h.text += r.stderr
        assert r.returncode == 2 and said in r.stderr and "fresh QEMU" not in r.stderr, \
            "%s: %d %s" % (words, r.returncode, r.stderr)
    with tempfile.TemporaryDirectory() as out:
        # the guest's own refusal, past the host's check
        code = ("import profile, qemu\ntry:\n    profile.profile('dpwork ab:10', 'dosprof', %r, 'hz=70000')\n"
                "except qemu.VMError as e:\n    print(e)\n" % out)
        r = subprocess.run([sys.executable, "-c", code], cwd=os.path.join(ROOT, "tests", "qemu"),
                           capture_output=True, text=True, timeout=200)
        h.text += r.stdout + r.stderr
        assert "dosprof: -z 70000: at most 65535" in r.stdout and "the guest exported no" in r.stdout, \
            r.stdout + r.stderr
        for stale in ("flame.svg", "mine.txt"):      # an earlier run's, and the user's
            open(os.path.join(out, stale), "w").write("stale\n")
        r = run("--out", out, "--timeout", "0.5", "--", "spin 1")
        h.text += r.stdout + r.stderr
        assert r.returncode == 1 and "timed out" in r.stderr and "TIMEOUT=2" in r.stderr, r.stderr
        # what is listed as kept is this run's: not the earlier flame.svg, not the user's file
        assert "flame.svg" not in r.stderr and "mine.txt" not in r.stderr, r.stderr


@test("profile_profil_pg", timeout=200, qemu=False)
def profile_profil_pg(h):
    """make profile ENGINE=profil says it profiled NAME.pg, the -pg build,
    and kprof gmon's report says its samples are of that build, which
    compiles differently from the plain program."""
    with tempfile.TemporaryDirectory() as out:
        r = run("--engine", "profil", "--out", out, "--cmdline", "hz=10000", "--", "hotcold 200000")
        h.text += r.stdout + r.stderr
        assert r.returncode == 0, r.stderr
        assert "ENGINE=profil profiled hotcold.pg (build/user/bin/hotcold.pg), the -pg build of hotcold" \
            in r.stdout, r.stdout
        assert re.search(r"^note: the samples are of build/user/bin/hotcold\.pg, a -pg build .*"
                         r"compiled differently", r.stdout, re.M), r.stdout


@test("build_quiet", timeout=120, qemu=False)
def build_quiet(h):
    """A build step prints one short line ("  CC       .../user/echo.o"),
    not the compiler's command line; V=1 prints the command in full. Built
    in a scratch BUILD= so that the checkout's build is untouched."""
    for v, want in (("0", r"^  CC       \S+/user/echo\.o$"), ("1", r"^i686-linux-gnu-gcc .* -c -o \S+/user/echo\.o ")):
        with tempfile.TemporaryDirectory() as b:
            r = subprocess.run(["make", "--no-print-directory", "V=" + v, "BUILD=" + b, b + "/user/echo.o"],
                               cwd=ROOT, capture_output=True, text=True, timeout=100)
            h.text += r.stdout + r.stderr
            assert r.returncode == 0 and re.search(want, r.stdout, re.M), r.stdout + r.stderr
            if v == "0":
                assert "-ffreestanding" not in r.stdout, r.stdout
