#!/usr/bin/env python3
"""make bench: what the clock tick and a devkprof sample cost, and how fast
the host tool is, in one table; progress goes to stderr.

Everything in the guest runs under QEMU's -icount shift=0,sleep=off, where
a guest instruction is one nanosecond of virtual time and the TSC counts at
about 1 GHz, so TSC cycles are guest instructions: those figures are exact
and the same in every run. The workload is /bin/tickcost, a fixed user-mode
loop. The sections linux, spawn and lua measure Linux (glibc) programs:
user/linux/callcost (a system call's round trip, TSC stamps between
commands) and Debian's lua. The host tool's figures are host wall-clock,
noisy: medians of several runs with their range (tools/kprof/bench.sh).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUNDS = 20000          # tickcost rounds: about 0.1 s of guest time
CALLS = 200000          # tickcost -c calls: the mcount measurement
RATES = [1000, 10000, 100000]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402
import vm    # noqa: E402
from engines import DOSPROF, ENGINES, MC, PROFIL  # noqa: E402  (where each names its dump)
from qemu import header_defines  # noqa: E402
PIT_MAX = header_defines("clock.h")["PIT_INPUT_HZ"] // 2    # PIT_MAX_HZ


def progress(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def boot(script_lines, cmdline=""):
    """Runs the lines in a fresh guest under icount (vm.run_script, as make
    profile does); returns the console transcript. A command that fails
    does not stop the run: its line's figures are missing, and the caller
    says so."""
    with tempfile.TemporaryDirectory() as out:
        try:
            vm.run_script(script_lines, out, cmdline, icount=True, timeout=600)
        except qemu.VMError as e:
            log = open(os.path.join(out, "console.log"), errors="replace").read() \
                if os.path.exists(os.path.join(out, "console.log")) else ""
            sys.exit("bench: guest run failed: vm.py: %s\n%s" % (e, log[-2000:]))
        return open(os.path.join(out, "console.log"), errors="replace").read()


def runs(log):
    """The tickcost result lines, in order: (cycles, ticks, lost)."""
    return [(int(c), int(t), int(l)) for c, t, l in
            re.findall(r"^tickcost: rounds \d+ cycles (\d+) ticks (\d+) lost (\d+)", log, re.M)]


def accuracy_row(name, heat, samples, prog="accwork"):
    """kprof accuracy of samples against heat (bytes), as a bench row"""
    kprof = os.path.join(TOP, "build", "kprof")
    elf = os.path.join(TOP, "build", "user", "bin", prog)
    with tempfile.TemporaryDirectory() as d:
        hp, sp = os.path.join(d, "heat"), os.path.join(d, "samples")
        open(hp, "wb").write(heat)
        open(sp, "wb").write(samples)
        out = subprocess.run([kprof, "accuracy", elf, hp, sp], capture_output=True, text=True).stdout
    m = re.search(r"^N (\d+) tvd ([\d.]+) floor ([\d.]+) ratio ([\d.]+|inf)$", out, re.M)
    if not m:
        sys.exit("bench: kprof accuracy gave no summary:\n" + out)
    n, tvd, floor, ratio = m.groups()
    return ("accuracy: %s" % name, "N %s, TVD %s, floor %s, ratio %s" % (n, tvd, floor, ratio),
            "exact (icount); goal: ratio <= 2 (the lock-step row without jitter shows the problem)")


def accuracy_boot(cmdline):
    """One guest: the accwork loops traced by heat, then sampled by usample,
    by profil(2) (accwork.pg), by DosProfile's hit table and by the Monte
    Carlo engine; returns the 14 exports in order: heat and samples for
    usample's mix and lock, then for profil's, then DosProfile's dumps of
    mix and lock, then the Monte Carlo ones (these four against the first
    heat exports: the same program), then heat and usample's samples of
    the three-function lock-step. profil's gmon
    file is named by pid, so the runs are typed one by one and the name is
    read back with ls."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            with vm.Guest(tmp, cmdline, icount=True, timeout=600, total=1800) as m:
                runs_ = (("mix", "300", "3000000"), ("lock", "200 2", "5000 2"))
                for what, traced, sampled in runs_:
                    m.run("accwork %s %s /dev/heatctl" % (what, traced), timeout=600)
                    m.run("export /dev/heat")
                    m.run("accwork %s %s /dev/usamplectl" % (what, sampled), timeout=600)
                    m.run("export /dev/usample")
                for what, traced, sampled in runs_:
                    m.run("accwork.pg %s %s /dev/heatctl" % (what, traced), timeout=600)
                    m.run("export /dev/heat")
                    for g in PROFIL.dumps(m.run("ls /tmp/prof")):
                        m.run("rm /tmp/prof/" + g)
                    m.run("accwork.pg %s %s" % (what, sampled), timeout=600)
                    g = PROFIL.dumps(m.run("ls /tmp/prof"))
                    if len(g) != 1:
                        sys.exit("bench: gmon files after accwork.pg %s: %s" % (what, g))
                    m.run("export /tmp/prof/" + g[0])
                for what, _, sampled in runs_:
                    out = m.run("dosprof -c -m hit -b 131072 accwork %s %s dosprof" % (what, sampled),
                                timeout=600)
                    d = DOSPROF.dumps(out)
                    if len(d) != 1:
                        sys.exit("bench: dosprof accwork %s gave no dump:\n%s" % (what, out))
                    m.run("export " + d[0])
                for what, _, sampled in runs_:
                    out = m.run("prof on -P; accwork %s %s mc; prof off" % (what, sampled), timeout=600)
                    d = MC.dumps(out)
                    if len(d) != 1:
                        sys.exit("bench: prof accwork %s gave no dump:\n%s" % (what, out))
                    m.run("export " + d[0])
                # three functions: a round the jitter's spacing does not divide evenly
                m.run("accwork lock3 200 2 /dev/heatctl", timeout=600)
                m.run("export /dev/heat")
                m.run("accwork lock3 5000 2 /dev/usamplectl", timeout=600)
                m.run("export /dev/usample")
            ar = m.m.archives()
        except qemu.VMError as e:
            sys.exit("bench: guest run failed: %s" % e)
    if len(ar) != 14:
        sys.exit("bench: expected 14 exports from the accuracy boot, got %d" % len(ar))
    return ar


def heat_rows():
    """The heat engine's cost per traced instruction, the jittered clock's
    cost per tick, and the accuracy rows of the samplers against heat."""
    rows = []
    progress("heat 1/3 guest: tickcost plain and traced by heat; tickcost with pit.jitter")
    r = runs(boot(["tickcost 20", "heat tickcost 20"]))
    if len(r) != 2:
        sys.exit("bench: expected 2 tickcost lines for heat, got %d" % len(r))
    rows.append(("heat: guest instructions per traced instruction", "%.0f" % (r[1][0] / r[0][0]),
                 "exact; goal <= 150; cycles of a traced loop / the same untraced"))
    plain = runs(boot(["tickcost %d" % ROUNDS], cmdline="hz=10000"))
    jit = runs(boot(["tickcost %d" % ROUNDS], cmdline="hz=10000 pit.jitter=59"))
    if len(plain) != 1 or len(jit) != 1:
        sys.exit("bench: expected one tickcost line per jitter boot")
    rows.append(("pit.jitter: marginal instructions per tick",
                 "%.0f" % ((jit[0][0] - plain[0][0]) / jit[0][1]),
                 "exact; (cycles jittered - plain) / ticks at 10 kHz; hz in kpinfo is unchanged"))
    for jitter in (0, 596):
        progress("heat %d/3 guest: accuracy workloads at 1000 Hz, pit.jitter=%d"
                 % (2 + (jitter > 0), jitter))
        ar = accuracy_boot("hz=1000 pit.jitter=%d" % jitter)
        j = ", PIT jittered +-%d" % jitter if jitter else ""
        first = len(rows)
        for k, what in ((0, "mix"), (2, "lock (lock-step)")):
            rows.append(accuracy_row("usample vs heat, accwork %s%s" % (what, j), ar[k]["dev/heat"],
                                     ar[k + 1]["dev/usample"]))
        for k, what in ((4, "mix"), (6, "lock (lock-step)")):
            gmon = [v for n, v in ar[k + 1].items() if "gmon." in n]
            rows.append(accuracy_row("profil vs heat, accwork.pg %s%s" % (what, j), ar[k]["dev/heat"],
                                     gmon[0], prog="accwork.pg"))
        for k, what in ((0, "mix"), (2, "lock (lock-step)")):
            (dump,) = ar[8 + k // 2].values()
            rows.append(accuracy_row("DosProfile hit table vs heat, accwork %s%s" % (what, j),
                                     ar[k]["dev/heat"], dump))
        for k, what in ((0, "mix"), (2, "lock (lock-step)")):
            (dump,) = ar[10 + k // 2].values()
            rows.append(accuracy_row("Monte Carlo buffered vs heat, accwork %s%s" % (what, j),
                                     ar[k]["dev/heat"], dump))
        rows.append(accuracy_row("usample vs heat, accwork lock3 (three functions)%s" % j,
                                 ar[12]["dev/heat"], ar[13]["dev/usample"]))
        if jitter:      # the jitter's draws differ from boot to boot: not an exact figure
            rows[first:] = [(n, v, note.replace("exact (icount)", "icount, but the jitter differs "
                                                "from boot to boot")) for n, v, note in rows[first:]]
    return rows


def profil_rows():
    """profil(2) and mcount: tickcost.pg differs from tickcost only by
    profil's sampling in its loop (work() is not instrumented) and by one
    mcount call per call of leaf() under -c; calls.pg is calls with -pg."""
    log = boot(["echo hz 10000 > /dev/kpctl", "tickcost %d" % ROUNDS, "tickcost.pg %d" % ROUNDS,
                "tickcost -c %d" % CALLS, "tickcost.pg -c %d" % CALLS, "calls -t", "calls.pg -t"])
    r = runs(log)
    c = [(int(cy), int(t)) for cy, t in
         re.findall(r"^tickcost: calls \d+ cycles (\d+) ticks (\d+)", log, re.M)]
    k = [int(cy) for cy in re.findall(r"^calls: cycles (\d+)$", log, re.M)]
    if len(r) != 2 or len(c) != 2 or len(k) != 2:
        sys.exit("bench: profil runs: %d tickcost, %d tickcost -c, %d calls lines" %
                 (len(r), len(c), len(k)))
    (plain, _, _), (prof, samples, _) = r
    per_sample = (prof - plain) / samples
    (cplain, _), (cprof, cticks) = c
    per_call = (cprof - cplain - cticks * per_sample) / CALLS
    return [("profil: marginal instructions per sample", "%.1f" % per_sample,
             "exact; goal <= 20; tickcost.pg - tickcost at 10 kHz, / samples"),
            ("mcount: instructions per call", "%.1f" % per_call,
             "exact; goal <= 40; tickcost.pg -c - tickcost -c, less the samples, / calls"),
            ("calls.pg / calls, guest instructions", "%.2f" % (k[1] / k[0]),
             "exact; %d / %d: a few instructions per call of a() and b(), +1 mcount each" % (k[1], k[0]))]


def signals_rows():
    """A signal's cost (user/linux/sigtest.c): the same asm loop, timed by
    the TSC, without a timer and with ITIMER_PROF at every tick and a
    handler that returns at once (cost), or under glibc's profil(3), whose
    SIGPROF comes at 100 Hz (profcost); the difference over the signals."""
    progress("signals: sigtest cost and profcost at 10 kHz")
    log = boot(["echo hz 10000 > /dev/kpctl", "sigtest cost 100000000", "sigtest profcost 500000000"])
    c = re.search(r"^cost: plain (\d+), with SIGPROF (\d+), (\d+) signals", log, re.M)
    p = re.search(r"^profcost: plain (\d+), with profil (\d+), (\d+) samples", log, re.M)
    if not c or not p or int(c.group(3)) == 0 or int(p.group(3)) == 0:
        sys.exit("bench: signals runs: no cost or profcost line\n%s" % log[-2000:])
    sig = (int(c.group(2)) - int(c.group(1))) / int(c.group(3))
    prof = (int(p.group(2)) - int(p.group(1))) / int(p.group(3))
    return [("signal to a handler that returns at once: marginal instructions per signal", "%.1f" % sig,
             "exact; sigtest cost: the tick's posting, the frame, the handler, sigreturn, back "
             "to the interrupted code; (cycles with - without) / %s signals, at 10 kHz" % c.group(3)),
            ("glibc's profil (setitimer + SIGPROF): marginal instructions per sample", "%.1f" % prof,
             "exact; sigtest profcost: glibc's profil(3) over an asm loop, (with - without) / "
             "%s samples; the kernel's profil(2): the profil row above" % p.group(3))]


def dosprof_rows():
    """DosProfile at 10 kHz over tickcost's text: each mode with one slot
    and with 255 (the lookup is an index and a short search, not a scan),
    then the flgbits divider on ticks that do not sample. Baseline: the
    same workload at the same rate with nothing on."""
    modes = [("count", "-m count"), ("hit table", "-m hit -w -b 1048576"),
             ("detailed counters", "-m detail -b 65536")]
    lines = ["echo hz 10000 > /dev/kpctl", "tickcost %d" % ROUNDS]
    for _, opt in modes:
        for n in (1, 255):
            lines.append("dosprof -z 10000 %s -n %d -p tickcost tickcost %d" % (opt, n, ROUNDS))
    lines.append("dosprof -z 10000 -f 255,255 -p tickcost tickcost %d" % ROUNDS)
    r = runs(boot(lines))
    if len(r) != 2 + 2 * len(modes):
        sys.exit("bench: expected %d tickcost lines under dosprof, got %d" % (2 + 2 * len(modes), len(r)))
    coff = r[0][0]
    rows = []
    for i, (name, _) in enumerate(modes):
        for j, n in enumerate((1, 255)):
            con, ton, _ = r[1 + 2 * i + j]
            rows.append(("dosprof %s, %d slot%s: marginal instructions per sample" %
                         (name, n, "s" if n > 1 else ""), "%.1f" % ((con - coff) / ton),
                         "exact; goal <= 40 with 255 slots; (cycles on - off) / ticks, user-mode workload"))
    con, ton, _ = r[-1]
    rows.append(("dosprof flgbits divider: instructions per tick that does not sample",
                 "%.1f" % ((con - coff) / ton),
                 "exact; flgbits {255,255}: one tick in 255 samples; (cycles on - off) / ticks"))
    return rows


def mc_rows():
    """The Monte Carlo engine at 10 kHz: buffered and unbuffered samples
    (unbuffered looks the routine up at the tick: in a small program, in
    the kernel, and in a program of 5,000 routines), the analysis of
    100,000 buffered samples at stop, and what -s and -k add to a system
    call."""
    progress("Monte Carlo: buffered, unbuffered (small, kernel, 5,000 routines), -s, -k")
    many = 20000
    lines = ["echo hz 10000 > /dev/kpctl", "tickcost %d" % ROUNDS,
             "prof on; tickcost %d; prof off" % ROUNDS,
             "prof on -u; tickcost %d; prof off" % ROUNDS,
             "tickcost -k %d" % ROUNDS, "prof on -u; tickcost -k %d; prof off" % ROUNDS,
             "manysyms %d" % many, "prof on -u; manysyms %d; prof off" % many,
             "mcwork sys 20000 0", "prof on -s -u; mcwork sys 20000 0; prof off",
             "prof on -k; mcwork sys 20000 0; prof off",
             "prof on -i 10 -z 1024; tickcost %d; prof off" % (ROUNDS * 11)]
    log = boot(lines)
    r = runs(log)
    ms = [(int(c), int(t)) for c, t in
          re.findall(r"^manysyms: rounds \d+ cycles (\d+) ticks (\d+)", log, re.M)]
    sc = [int(c) for c in re.findall(r"^mcwork: \d+ getpid, \d+ uptime in (\d+) cycles$", log, re.M)]
    look = re.findall(r"^Kernel Profiler: Looking up symbols for (\d+) hits\.$", log, re.M)
    per = re.findall(r"^Kernel Profiler: looked up in \d+ cycles, (\d+) a hit\.$", log, re.M)
    if len(r) != 6 or len(ms) != 2 or len(sc) != 3 or not per:
        sys.exit("bench: Monte Carlo runs: %d tickcost, %d manysyms, %d mcwork, %d lookups"
                 % (len(r), len(ms), len(sc), len(per)))
    (c0, _, _), (cb, tb, _), (cu, tu, _), (k0, _, _), (ku, tk, _), (cbig, tbig, _) = r
    return [("Monte Carlo buffered: marginal instructions per sample", "%.1f" % ((cb - c0) / tb),
             "exact; goal <= 20; (cycles on - off) / ticks, user-mode workload"),
            ("Monte Carlo unbuffered, a small program: marginal instructions per sample",
             "%.1f" % ((cu - c0) / tu), "exact; the routine looked up at the tick"),
            ("Monte Carlo unbuffered, the kernel's symbols: marginal instructions per sample",
             "%.1f" % ((ku - k0) / tk), "exact; kernel workload (tickcost -k)"),
            ("Monte Carlo unbuffered, 5,000 routines: marginal instructions per sample",
             "%.1f" % ((ms[1][0] - ms[0][0]) / ms[1][1]),
             "exact; goal <= 60; manysyms, 5,000 routines in turn"),
            ("Monte Carlo buffered: analysis at stop, instructions per sample", per[-1],
             "exact; %s samples (prof on -i 10, 100 kHz)" % look[-1]),
            ("a system call's round trip (getpid), profiling off", "%.0f instructions" % (sc[0] / 20000),
             "exact; int 0x80 to iret and back, with the return to user mode's hook check "
             "(a load, a test and a branch: the rows below) when no engine has hooks on"),
            ("prof on -s: instructions added to a system call", "%.0f" % ((sc[1] - sc[0]) / 20000),
             "exact; 20,000 getpid calls, unbuffered"),
            ("prof on -k: instructions added to a system call", "%.0f" % ((sc[2] - sc[0]) / 20000),
             "exact; 20,000 getpid calls, timed")]


def userret_rows():
    """The return to user mode with no hook: what its check adds to the
    path, read from the kernel's own code (objdump), from the load of
    prof_userret_hook to the branch around the call, in trap() (a system
    call's or a fault's return) and in clock_intr() (a tick's). Exact and
    static: the same figure the instruction counter would give."""
    elf = os.path.join(TOP, "build", "kernel.elf")
    hook = None
    for l in subprocess.check_output(["nm", elf], text=True).splitlines():
        f = l.split()
        if len(f) == 3 and f[2] == "prof_userret_hook":
            hook = "0x%x" % int(f[0], 16)
    dis = subprocess.check_output(["objdump", "-d", "--no-show-raw-insn", elf], text=True)
    rows = []
    for fn in ("trap", "clock_intr"):
        m = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)\n\n" % fn, dis, re.M | re.S)
        insns = [l.split("\t", 1)[1] for l in m.group(1).splitlines() if "\t" in l] if m else []
        start = next((i for i, t in enumerate(insns) if t.startswith("mov") and hook and
                      re.search(r"\b%s,%%" % hook, t)), None)
        if start is None:
            sys.exit("bench: no load of prof_userret_hook (%s) in %s()" % (hook, fn))
        end = next(i for i in range(start, len(insns)) if re.match(r"j(?!mp)", insns[i]))
        # the check's own: the load, what uses its register, the branch (gcc
        # may schedule the next statement's work in between: not counted)
        reg = insns[start].split(",")[-1].strip()
        mine = [t.split()[0] for t in insns[start:end + 1]
                if t is insns[start] or reg in t or t is insns[end]]
        rows.append(("return to user mode with no hook, in %s(): instructions of the check" % fn,
                     "%d" % len(mine),
                     "exact (objdump of build/kernel.elf): %s; goal <= 3 (a load, a test, a branch)"
                     % ", ".join(mine)))
    return rows


def stacks_rows():
    """The stack engine at 10 kHz: the marginal cost of a sample whose
    stack is 8 and 32 frames deep, in user mode (tickcost -d: its loop D
    calls down) and in kernel mode with the user's frames under it
    (tickcost -k: the kwork system call's five kernel frames on top), the
    table lookup and count included; the baseline is the same run with
    the engine off."""
    progress("stacks: samples 8 and 32 frames deep, user and kernel mode")
    # tickcost's frames: user, work + D deep + main + _start; kernel, five
    # kernel frames + the kwork stub + D deep + main + _start
    cases = [("user mode, 8 frames", "-d 5"), ("user mode, 32 frames", "-d 29"),
             ("kernel mode, 8 frames (5 kernel, 3 user)", "-k"),
             ("kernel mode, 32 frames (5 kernel, 27 user)", "-k -d 24")]
    lines = ["echo hz 10000 > /dev/kpctl"]
    for _, opt in cases:
        lines += ["tickcost %s %d" % (opt, ROUNDS),
                  "echo clear > /dev/stackctl; echo start > /dev/stackctl; tickcost %s %d; "
                  "echo stop > /dev/stackctl" % (opt, ROUNDS)]
    r = runs(boot(lines))
    if len(r) != 2 * len(cases):
        sys.exit("bench: stacks runs: %d tickcost lines, not %d" % (len(r), 2 * len(cases)))
    rows = []
    for i, (name, _) in enumerate(cases):
        (coff, _, _), (con, ton, _) = r[2 * i], r[2 * i + 1]
        depth = 8 if "8 frames" in name else 32
        rows.append(("stacks, %s: marginal instructions per sample" % name, "%.1f" % ((con - coff) / ton),
                     "exact; goal <= %d (30 + 10 a frame); (cycles on - off) / ticks" % (30 + 10 * depth)))
    return rows


DEEP_TURNS = 5000000     # omitfp deep's loop: about 0.03 s of guest time, 300 ticks at 10 kHz


def unwind_rows():
    """The stack engine through a program's unwind table (include/unwtab.h):
    omitfp deep D N, a glibc program without frame pointers whose loop
    runs D + 4 frames deep (deep D times, main and glibc's three), timed
    by its TSC with the engine off and on, at 10 kHz; the ticks in the
    loop are its cycles over the clock's period (under icount a cycle is
    an instruction and a nanosecond; the PIT's divisor fixes the period).
    The table's size against the .eh_frame it was made from (kprof unwind,
    the same builder), and what making lua's costs its spawn, by the TSC
    between callcost tsc stamps with the engine off and on."""
    progress("unwind: omitfp deep 4 and 28 through the unwind table; lua's table at spawn")
    clock = header_defines("clock.h")
    div = round(clock["PIT_INPUT_HZ"] / 10000)
    period = 1e9 * div / clock["PIT_INPUT_HZ"]          # ns, and instructions, a tick
    lines = ["echo hz 10000 > /dev/kpctl"]
    for d in (4, 28):
        lines += ["omitfp deep %d %d" % (d, DEEP_TURNS),
                  "echo clear > /dev/stackctl; echo start > /dev/stackctl; omitfp deep %d %d; "
                  "echo stop > /dev/stackctl" % (d, DEEP_TURNS)]
    stamps = "sh -c 'callcost tsc; callcost tsc; lua -e \"\"; callcost tsc'"
    lines += ["echo hz 1000 > /dev/kpctl", stamps,
              "echo clear > /dev/stackctl; echo start > /dev/stackctl; %s; echo stop > /dev/stackctl" % stamps]
    log = boot(lines)
    c = [int(x) for x in re.findall(r"^omitfp: deep \d+ \d+: (\d+) cycles$", log, re.M)]
    t = [int(x) for x in re.findall(r"^callcost: tsc (\d+)$", log, re.M)]
    if len(c) != 4 or len(t) != 6:
        sys.exit("bench: unwind runs: %d omitfp lines, %d stamps\n%s" % (len(c), len(t), log[-3000:]))
    per = [(c[2 * i + 1] - c[2 * i]) / (c[2 * i + 1] / period) for i in range(2)]
    frame = (per[1] - per[0]) / 24
    fixed = per[0] - 8 * frame
    spawn_off = (t[2] - t[1]) - (t[1] - t[0])
    spawn_on = (t[5] - t[4]) - (t[4] - t[3])
    lua = os.path.join(TOP, "build", "user", "bin", "lua")
    r = subprocess.run([os.path.join(TOP, "build", "kprof"), "unwind", lua], capture_output=True, text=True)
    m = re.search(r"^table: (\d+) rows, .*: (\d+) bytes \(\.eh_frame (\d+)\)", r.stdout, re.M)
    if not m:
        sys.exit("bench: kprof unwind %s: %s" % (lua, r.stderr))
    rows_, size, eh = (int(x) for x in m.groups())
    return [("stacks through the unwind table, 8 frames (omitfp deep 4): marginal instructions per sample",
             "%.1f" % per[0], "exact; (cycles on - off) / ticks, the ticks the loop's cycles over the "
             "clock's period (%.0f)" % period),
            ("stacks through the unwind table, 32 frames (omitfp deep 28): marginal instructions per sample",
             "%.1f" % per[1], "exact; the same"),
            ("stacks through the unwind table: instructions a frame", "%.1f" % frame,
             "exact; (32 frames - 8 frames) / 24; goal <= 40"),
            ("stacks through the unwind table: the fixed part of a sample", "%.0f" % fixed,
             "exact; 8 frames - 8 x a frame; goal <= 144 (the frame-pointer walk's)"),
            ("lua's unwind table: bytes", "%d" % size,
             "exact (kprof unwind, the kernel's builder): %d rows; goal <= %d (its .eh_frame)" % (rows_, eh)),
            ("spawning lua with the stack engine on: instructions added (its table made)",
             "%d" % (spawn_on - spawn_off),
             "exact; (stamp; stamp; lua -e ''; stamp) on - off: %.1f a byte of .eh_frame"
             % ((spawn_on - spawn_off) / eh))]


def together_rows():
    """Every sampling engine on at once on one workload (tickcost.pg -d 5 at
    10 kHz, stacks 8 frames deep: devkprof, profil, DosProfile count, the
    Monte Carlo engine buffered and the stack engine), against each alone
    on the same workload: what the fan-out adds per extra engine."""
    progress("all sampling engines at once, and each alone on the same workload")
    w = "tickcost -d 5 %d" % ROUNDS
    pg = "tickcost.pg -d 5 %d" % ROUNDS
    alone = [("devkprof", "echo startclr > /dev/kpctl; %s; echo stop > /dev/kpctl" % w),
             ("profil", pg),
             ("DosProfile count", "dosprof -z 10000 -m count -p tickcost " + w),
             ("Monte Carlo buffered", "prof on; %s; prof off" % w),
             ("stacks, 8 frames", "echo clear > /dev/stackctl; echo start > /dev/stackctl; %s; "
                                  "echo stop > /dev/stackctl" % w)]
    together = ("echo clear > /dev/stackctl; dosprof -z 10000 -m count -p tickcost.pg sh -c "
                "'echo startclr > /dev/kpctl; echo start > /dev/stackctl; prof on; %s; prof off; "
                "echo stop > /dev/stackctl; echo stop > /dev/kpctl'" % pg)
    lines = ["echo hz 10000 > /dev/kpctl", "echo depth 8 > /dev/stackctl", w] + \
        [l for _, l in alone] + [together]
    r = runs(boot(lines))
    if len(r) != 2 + len(alone):
        sys.exit("bench: engines together: %d tickcost lines, not %d" % (len(r), 2 + len(alone)))
    c0 = r[0][0]
    each = [(name, (c - c0) / t) for (name, _), (c, t, _) in zip(alone, r[1:-1])]
    c_all, t_all, lost = r[-1]
    total = (c_all - c0) / t_all
    extra = (total - sum(v for _, v in each)) / (len(each) - 1)
    rows = [("alone, %s: marginal instructions per sample" % name, "%.1f" % v,
             "exact; tickcost -d 5 at 10 kHz, the workload of the row below")
            for name, v in each]
    rows.append(("all five sampling engines at once: marginal instructions per tick", "%.1f" % total,
                 "exact; the sum of the five alone is %.1f" % sum(v for _, v in each)))
    rows.append(("the fan-out, per extra engine beside the first", "%.1f" % extra,
                 "exact; goal <= 5; (all at once - the sum alone) / 4"))
    rows.append(("lost ticks, all engines at once at 10 kHz", "%d" % lost, "exact; goal 0 under icount"))
    # the same at each rate: the overhead, and no tick lost
    inner = ("echo startclr > /dev/kpctl; echo start > /dev/stackctl; prof on; %s; prof off; "
             "echo stop > /dev/stackctl; echo stop > /dev/kpctl" % pg)
    lines = []
    for hz in RATES + [PIT_MAX]:
        # DosProfile's rate is OS/2's 16-bit cm_timval: above 65535 Hz it sits out
        lines += ["echo hz %d > /dev/kpctl" % hz, pg.replace(".pg", ""),
                  "echo clear > /dev/stackctl; " + (inner if hz > 0xFFFF else
                  "dosprof -z %d -m count -p tickcost.pg sh -c '%s'" % (hz, inner))]
    r = runs(boot(["echo depth 8 > /dev/stackctl"] + lines))
    if len(r) != 2 * (len(RATES) + 1):
        sys.exit("bench: engines together at each rate: %d tickcost lines" % len(r))
    for k, hz in enumerate(RATES + [PIT_MAX]):
        (coff, _, _), (con, ton, lost) = r[2 * k], r[2 * k + 1]
        rows.append(("all engines at once: overhead at %d Hz" % hz, "%.2f %%" % (100.0 * (con - coff) / coff),
                     "exact; %d ticks in %d cycles%s" % (ton, con, "; without DosProfile, whose rate is "
                                                          "16 bits" if hz > 0xFFFF else "")))
        rows.append(("lost ticks at %d Hz, all engines at once" % hz, "%d" % lost, "exact; goal 0 under icount"))
    return rows


GETPIDS = 20000         # getpid calls, native (mcwork sys) and Linux (callcost)


def user_path(elf, fn):
    """The instructions of fn in elf from its start to its first ret: the
    user-mode path of a system-call stub whose error branch is not taken."""
    dis = subprocess.check_output(["objdump", "-d", "--no-show-raw-insn", elf], text=True)
    m = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)\n\n" % re.escape(fn), dis, re.M | re.S)
    if not m:
        sys.exit("bench: no %s() in %s" % (fn, elf))
    insns = [l.split("\t", 1)[1].split()[0] for l in m.group(1).splitlines() if "\t" in l]
    return insns[:insns.index("ret") + 1]


def linux_rows():
    """A Linux system call's round trip (getpid through kernel/linux.c)
    against the native one, both by the TSC in one guest: mcwork sys (the
    native libc's getpid() in a loop) and callcost getpid (user/linux/
    callcost.c: int 0x80 in an asm loop, glibc's getpid(), syscall()).
    The kernel parts compare like with like: each loop's cycles per call
    less its user-mode instructions other than the int 0x80 (counted in
    the ELFs by objdump), which leaves int 0x80 through the iret."""
    progress("linux: getpid round trips, native (mcwork sys) and Linux ABI (callcost)")
    log = boot(["mcwork sys %d 0" % GETPIDS, "callcost getpid %d" % GETPIDS])
    nat = [int(c) for c in re.findall(r"^mcwork: \d+ getpid, \d+ uptime in (\d+) cycles$", log, re.M)]
    lx = dict((k, int(c)) for k, c in
              re.findall(r"^callcost: (raw|glibc|syscall) \d+ getpid in (\d+) cycles$", log, re.M))
    if len(nat) != 1 or len(lx) != 3:
        sys.exit("bench: linux runs: %d mcwork sys lines, callcost %s\n%s" % (len(nat), sorted(lx), log[-2000:]))
    stub = user_path(os.path.join(TOP, "build", "user", "bin", "mcwork"), "getpid")
    nat_user = len(stub) - 1 + 3          # the stub but its int 0x80; the loop's call, dec, jne
    nat_call, raw = nat[0] / GETPIDS, lx["raw"] / GETPIDS
    nat_kernel, lx_kernel = nat_call - nat_user, raw - 3     # the asm loop's mov, dec, jnz
    return [("native getpid, the kernel's part: int 0x80 through iret", "%.0f instructions" % nat_kernel,
             "exact; mcwork sys: %.0f a call, less %d user instructions (objdump: the libc stub's %d "
             "but its int, the loop's call, dec, jne)" % (nat_call, nat_user, len(stub) - 1)),
            ("Linux getpid, the kernel's part: int 0x80 through iret", "%.0f instructions" % lx_kernel,
             "exact; callcost getpid: int 0x80 in an asm loop, %.0f a call less its mov, dec, jnz" % raw),
            ("Linux getpid round trip - native, the kernel's parts", "%+.0f instructions" % (lx_kernel - nat_kernel),
             "exact; goal <= 10; what the Linux ABI (kernel/linux.c) adds to a system call"),
            ("Linux getpid through glibc's getpid(), a call", "%.0f instructions" % (lx["glibc"] / GETPIDS),
             "exact; callcost: glibc's getpid() in a loop (the native libc's, the same way: %.0f)" % nat_call),
            ("Linux getpid through glibc's syscall(SYS_getpid), a call", "%.0f instructions" % (lx["syscall"] / GETPIDS),
             "exact; callcost: syscall(2) in a loop")]


def spawn_rows():
    """Spawning lua (a static glibc program of 1.1 MiB of segments): what
    one more command `lua -e ''` adds to a shell script, by the TSC
    between callcost tsc stamps: (stamp; stamp; lua -e ''; stamp; callcost
    exit; stamp) gives the interval of a command of callcost tsc alone,
    then of lua's and callcost tsc's, then of callcost exit's and callcost
    tsc's; the differences are lua's command whole (the shell's turn, the
    spawn, glibc's start, lua's main on an empty chunk, the exit, the
    shell's wait) and callcost exit's (the same with a main that exits at
    once). The heat engine counts the user-mode part of each exactly;
    callcost exit's is glibc's start, _start to main."""
    progress("spawn: lua -e '' and callcost exit between TSC stamps; both traced by heat")
    log = boot(["sh -c 'callcost tsc; callcost tsc; lua -e \"\"; callcost tsc; callcost exit; callcost tsc'",
                "heat lua -e ''", "heat callcost exit"])
    t = [int(c) for c in re.findall(r"^callcost: tsc (\d+)$", log, re.M)]
    h = [int(n) for n in re.findall(r"^heat: pid \d+ exited with status 0: (\d+) instructions", log, re.M)]
    if len(t) != 4 or len(h) != 2:
        sys.exit("bench: spawn runs: %d stamps, %d heat lines\n%s" % (len(t), len(h), log[-3000:]))
    cc = t[1] - t[0]
    lua, ccexit = (t[2] - t[1]) - cc, (t[3] - t[2]) - cc

    def segments(prog):     # the memory sizes of its PT_LOAD segments, MiB
        return sum(int(l.split()[5], 16) for l in
                   subprocess.check_output(["readelf", "-lW", os.path.join(TOP, "build", "user", "bin", prog)],
                                           text=True).splitlines() if l.split()[:1] == ["LOAD"]) / 1048576.0
    def irel(prog):         # its IRELATIVE relocations: glibc's start calls a resolver for each
        return subprocess.check_output(["readelf", "-rW", os.path.join(TOP, "build", "user", "bin", prog)],
                                       text=True).count("R_386_IRELATIVE")
    return [("spawning lua: the command lua -e '' whole, instructions", "%d" % lua,
             "exact; (stamp; stamp; lua -e ''; stamp): interval 2 - interval 1; the shell's turn, the "
             "spawn (%.2f MiB of segments), glibc's start, lua's main, the exit, the shell's wait" % segments("lua")),
            ("spawning lua: of those, in user mode (heat)", "%d" % h[0],
             "exact; glibc's start and exit, lua's main on an empty chunk; the kernel's share is %.1f %%"
             % (100.0 * (lua - h[0]) / lua)),
            ("a command of callcost exit whole (a main that exits at once), instructions", "%d" % ccexit,
             "exact; the same way; the spawn of %.2f MiB of segments, glibc's start, exit_group"
             % segments("callcost")),
            ("glibc's start, _start to main, in user mode (heat of callcost exit)", "%d" % h[1],
             "exact; main's test of its argument and the int 0x80 included; lua has %d IRELATIVE "
             "relocations to callcost's %d, each a resolver's few instructions" % (irel("lua"), irel("callcost")))]


NBODY = 2000            # lua nbody.lua steps: the engines' overhead workload
LUA_RATES = [1000, 10000]
# the sampling engines of engines.py that can profile a glibc program
# (profil cannot: it samples programs built with -pg of this libc)
LUA_ENGINES = ["stacks", "devkprof", "dosprof", "mc"]


def stamped(line):
    """line in one sh -c between two TSC stamps (callcost tsc): the whole
    run, the spawn and exit of line's programs included."""
    return "sh -c " + "'callcost tsc; %s; callcost tsc'" % line


def stamps(log):
    """The cycles between each pair of callcost tsc stamps, in order."""
    t = [int(c) for c in re.findall(r"^callcost: tsc (\d+)$", log, re.M)]
    return [b - a for a, b in zip(t[0::2], t[1::2])]


def lua_rows():
    """Each sampling engine's overhead on Lua's n-body (lua nbody.lua, a
    glibc program) at 1 and 10 kHz: the whole run by the TSC between two
    stamps, with no engine and under each engine's own guest line (engines.py's
    script, its export left out), the engine's start and stop included
    when they are part of that line."""
    lua = "lua /bin/share/lua/nbody.lua %d" % NBODY
    lines, names = [], []
    for hz in LUA_RATES:
        lines += ["echo hz %d > /dev/kpctl" % hz, stamped(lua)]
        names.append((hz, None))
        for name in LUA_ENGINES:
            e = ENGINES[name]
            e.hz = hz                       # dosprof's own rate (-z), as make profile HZ= sets it
            first = e.script(lua)[0]
            del e.hz
            if lua not in first:
                sys.exit("bench: %s's script does not run the line as given: %s" % (name, first))
            lines.append(first.replace(lua, stamped(lua)))
            names.append((hz, name))
    progress("lua: nbody.lua %d with no engine and under %s at %s Hz"
             % (NBODY, ", ".join(LUA_ENGINES), " and ".join(str(h) for h in LUA_RATES)))
    log = boot(lines)
    c = stamps(log)
    if len(c) != len(names):
        sys.exit("bench: lua runs: %d stamped runs, not %d\n%s" % (len(c), len(names), log[-3000:]))
    rows, off, added = [], {}, {}
    for (hz, name), cycles in zip(names, c):
        if name is None:
            off[hz] = cycles
            rows.append(("lua nbody.lua %d at %d Hz, no engine: instructions" % (NBODY, hz), "%d" % cycles,
                         "exact; the whole run by the TSC, lua's spawn and exit included"))
            continue
        goal = "goal < 0.5; " if hz == 1000 else ""
        added[hz, name] = cycles - off[hz]
        rows.append(("lua nbody.lua %d, %s at %d Hz: overhead" % (NBODY, name, hz),
                     "%.2f %%" % (100.0 * (cycles - off[hz]) / off[hz]),
                     "exact; %s(cycles on - off) / off, %d cycles" % (goal, cycles)))
    # what an engine adds = a fixed part (its start and stop, its work at
    # lua's spawn and exit) + a part per tick: from the two rates
    lo, hi = LUA_RATES
    for name in LUA_ENGINES:
        per = (added[hi, name] - added[lo, name]) / (hi / lo - 1)
        rows.append(("lua nbody.lua %d, %s: the part of the overhead that does not grow with the rate" % (NBODY, name),
                     "%.0f instructions" % (added[lo, name] - per),
                     "icount, but the run with no engine moves by a tick or so (about 100) from boot "
                     "to boot with the clock's phase; added at %d Hz less the rate's part, "
                     "(added at %d Hz - at %d Hz) / %g = %.0f" % (lo, hi, lo, hi / lo - 1, per)))
    return rows


BASELINE = os.path.join(TOP, "tests", "qemu", "bench-baseline.md")


def number(value):
    """The figure of a row's value: its ratio for an accuracy row, else its
    first number; None when it has none."""
    m = re.search(r"ratio ([\d.]+)", value) or re.search(r"-?\d[\d,]*\.?\d*", value)
    return float(m.group(1 if m.lastindex else 0).replace(",", "")) if m else None


def goal_status(value, note):
    """met or MISSED for a row whose note states a goal it can be held to
    ("goal <= 20", "goal: ratio <= 2", "goal >= 5", "goal < 200 ms and <
    100 MiB": each bound against the value's figure in the same unit)."""
    goals = re.findall(r"(?:goal:? (?:ratio )?|and )(<=|<|>=|>) ([\d.]+)(?: ?(ms|MiB))?", note)
    if not goals:
        if re.search(r"goal 0\b", note) and number(value) is not None:
            return "met" if number(value) == 0 else "MISSED"
        return ""
    for op, bound, unit in goals:
        m = re.search(r"([\d.]+) ?%s\b" % unit, value) if unit else None
        v = float(m.group(1)) if m else number(value)
        if v is None:
            return ""
        ok = {"<=": v <= float(bound), "<": v < float(bound), ">=": v >= float(bound),
              ">": v > float(bound)}[op]
        if not ok:
            return "MISSED"
    return "met"


def load_baseline():
    """{metric: value} of the committed table, or {}."""
    if not os.path.exists(BASELINE):
        return {}
    rows = {}
    for l in open(BASELINE):
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] not in ("metric", "---"):
            rows[cells[0]] = cells[1]
    return rows


def against(name, value, note, base):
    """An exact figure's change from the baseline, flagged WORSE past 2 %;
    wall-clock figures are not compared (they move with the host)."""
    if "exact" not in note:
        return "wall-clock" if "wall-clock" in note else ""
    if name not in base:
        return ""
    now, then = number(value), number(base[name])
    if now is None or then is None:
        return ""
    if then == 0:
        return "=" if now == 0 else "was 0"
    change = 100.0 * (now - then) / abs(then)
    return "=" if abs(change) < 0.05 else "%+.1f %%%s" % (change, " WORSE" if change > 2 else "")


def devkprof_rows():
    """devkprof at each rate, on user-mode and kernel-mode samples, and
    beside a no-op engine (the fan-out)."""
    # One boot: for each rate, the workload with profiling off, then on.
    lines = []
    for hz in [100] + RATES + [PIT_MAX]:
        lines += ["echo hz %d > /dev/kpctl" % hz, "tickcost %d" % ROUNDS,
                  "echo startclr > /dev/kpctl", "tickcost %d" % ROUNDS,
                  "echo stop > /dev/kpctl"]
    progress("1/3 guest: tickcost with devkprof off and on at %s Hz"
             % ", ".join(str(hz) for hz in [100] + RATES + [PIT_MAX]))
    r = runs(boot(lines))
    if len(r) != 2 * (len(RATES) + 2):
        sys.exit("bench: expected %d tickcost lines, got %d" % (2 * (len(RATES) + 2), len(r)))
    res = {}
    for i, hz in enumerate([100] + RATES + [PIT_MAX]):
        res[hz] = (r[2 * i], r[2 * i + 1])

    rows = []
    (c100, t100, _), _ = res[100]
    (c10k, t10k, _), _ = res[10000]
    bare = (c10k - c100) / (t10k - t100)
    rows.append(("bare clock tick, profiling off", "%.0f instructions" % bare,
                 "exact; goal <= 100; (cycles at 10 kHz - at 100 Hz) / extra ticks"))
    for hz in RATES + [PIT_MAX]:
        (coff, toff, _), (con, ton, lost) = res[hz]
        marginal = (con - coff) / ton
        if hz == 10000:
            rows.insert(1, ("devkprof: marginal instructions per sample", "%.1f" % marginal,
                            "exact; goal <= 12; (cycles on - off) / samples, user-mode workload"))
        rows.append(("devkprof overhead at %d Hz" % hz, "%.2f %%" % (100.0 * (con - coff) / coff),
                     "exact; %d samples in %d cycles" % (ton, con)))
        rows.append(("lost ticks at %d Hz, devkprof on" % hz, "%d" % lost,
                     "exact; goal 0 under icount"))

    # Kernel-mode samples cost more (bin lookup, splpc check): the same
    # measurement with the kernel's kwork_loop as the workload.
    progress("2/3 guest: tickcost -k (kernel-mode samples) at 10000 Hz")
    k = runs(boot(["echo hz 10000 > /dev/kpctl", "tickcost -k %d" % ROUNDS,
                   "echo startclr > /dev/kpctl", "tickcost -k %d" % ROUNDS,
                   "echo stop > /dev/kpctl"]))
    if len(k) != 2:
        sys.exit("bench: expected 2 tickcost -k lines, got %d" % len(k))
    (coff, _, _), (con, ton, _) = k
    rows.insert(2, ("devkprof: marginal instructions per kernel-mode sample",
                    "%.1f" % ((con - coff) / ton), "exact; goal <= 20; kernel workload: bin lookup and splpc check too"))
    # Two engines on: the clock calls the fan-out, which calls devkprof and
    # a test engine that does nothing (boot option prof.test).
    f = runs(boot(["echo hz 10000 > /dev/kpctl", "echo noop on > /dev/proftest",
                   "tickcost %d" % ROUNDS, "echo startclr > /dev/kpctl", "tickcost %d" % ROUNDS,
                   "echo stop > /dev/kpctl"], cmdline="prof.test"))
    if len(f) != 2:
        sys.exit("bench: expected 2 tickcost lines with the fan-out, got %d" % len(f))
    (coff, _, _), (con, ton, _) = f
    rows.insert(3, ("fan-out: devkprof beside a no-op engine, marginal instructions per sample",
                    "%.1f" % ((con - coff) / ton),
                    "exact; the no-op engine alone is the baseline: this is the fan-out's cost and devkprof's"))
    return rows


def host_rows():
    """The host tool's wall-clock figures (tools/kprof/bench.sh)."""
    rows, table = [], []
    bench_sh = os.path.join(TOP, "tools", "kprof", "bench.sh")
    if os.path.exists(bench_sh):
        progress("3/3 host: build/kprof and addr2line on a 1 MiB-text kernel, 5 runs each")
        p = subprocess.run(["bash", bench_sh], capture_output=True, text=True, cwd=TOP)
        if p.returncode != 0:
            sys.exit("bench: tools/kprof/bench.sh failed:\n" + p.stderr)
        table = [l for l in p.stdout.splitlines() if l.startswith("|")]

    for l in table:
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) == 3 and not re.match(r"^(metric|-+)$", cells[0]):
            rows.append(tuple(cells))
    return rows


# make bench runs them all, in this order; bench.py NAME... only those
SECTIONS = [("devkprof", devkprof_rows), ("profil", profil_rows), ("signals", signals_rows),
            ("heat", heat_rows),
            ("dosprof", dosprof_rows), ("mc", mc_rows), ("stacks", stacks_rows), ("unwind", unwind_rows),
            ("together", together_rows), ("userret", userret_rows), ("linux", linux_rows),
            ("spawn", spawn_rows), ("lua", lua_rows), ("host", host_rows)]


def main():
    ap = argparse.ArgumentParser(description="the benchmarks, one table (build/bench.md)")
    ap.add_argument("sections", nargs="*", metavar="SECTION",
                    help="only these (%s); the table is then not written to build/bench.md"
                    % ", ".join(n for n, _ in SECTIONS))
    args = ap.parse_args()
    unknown = [n for n in args.sections if n not in dict(SECTIONS)]
    if unknown:
        ap.error("no section %s; there are %s" % (", ".join(unknown), ", ".join(n for n, _ in SECTIONS)))
    rows = []
    for name, fn in SECTIONS:
        if not args.sections or name in args.sections:
            rows += fn()
    base = load_baseline()
    table = ["| metric | value | goal | vs baseline | note |", "| --- | --- | --- | --- | --- |"]
    table += ["| %s | %s | %s | %s | %s |" % (name, value, goal_status(value, note),
                                              against(name, value, note, base), note)
              for name, value, note in rows]
    worse = [r for r in table if "WORSE" in r]
    missed = [r for r in table if "| MISSED |" in r]
    print("\n".join(table))
    if args.sections:
        progress("sections %s only: build/bench.md is not written; %d goals missed, %d exact "
                 "figures more than 2 %% worse than %s" % (" ".join(args.sections), len(missed),
                                                          len(worse), os.path.relpath(BASELINE, TOP)))
        return
    # the table the docs quote (docs/benchmarks.md), not copied by hand
    out = os.path.join(TOP, "build", "bench.md")
    with open(out, "w") as f:
        f.write("\n".join(table) + "\n")
    progress("the table is also in %s; %d goals missed, %d exact figures more than 2 %% worse than %s"
             % (os.path.relpath(out, TOP), len(missed), len(worse), os.path.relpath(BASELINE, TOP)))


if __name__ == "__main__":
    main()
