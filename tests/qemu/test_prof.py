# The profiling framework (kernel/prof/prof.c) end to end: the lifecycle
# hooks fire once per process and in order, an engine's per-process counts
# agree with the clock's, the clock rate has one owner, and devkprof's tick
# count agrees with the clock's own.
import re
import subprocess

from harness import build_path, test


def build_id(path):
    """The GNU build-id of an ELF, as readelf prints it."""
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                         check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def symbol(path, name):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^([0-9a-f]+) \w %s$" % name, out, re.M).group(1), 16)


@test("prof_hooks", timeout=120, cmdline="prof.test", icount=True)
def prof_hooks(m):
    """spawn, return-to-user and exit hooks: once each for spawn and exit,
    in order, for a normal exit, a fault and a kill; the spawn hook reads
    the program's notes and symbol table. With heat tracing too, two
    engines share the return-to-user hook: both get every return, after
    every single step as well."""
    m.wait_prompt()
    assert m.run("echo hooks on > /dev/proftest") == ""
    m.run("echo hello")
    out = m.run("heat heattest")
    m.check(out, [r"^heattest: done$"])
    steps = int(re.search(r"^heat: pid \d+ exited with status 0: (\d+) instructions", out, re.M).group(1))
    m.run("fault null")
    pid = int(re.search(r"^\[(\d+)\]$", m.run("spin 100000 &"), re.M).group(1))
    m.run("kill %d" % pid)
    m.fresh_prompt()
    m.run("sleep 50")
    log = m.run("cat /dev/proftest")
    assert m.run("echo hooks off > /dev/proftest") == ""
    m.halt()
    lines = {}
    for l in log.splitlines():
        mm = re.match(r"^pid (\d+) \((\S+)\) spawn (\d+) userret (\d+) exit (\d+) order (\w+) "
                      r"build-id (\w+) main 0x([0-9a-f]+)$", l)
        assert mm, "bad log line %r" % l
        lines[mm.group(2)] = mm.groups()
    for prog in ("echo", "fault", "spin", "kill", "sleep"):
        assert prog in lines, "no hook line for %s in:\n%s" % (prog, log)
        _, _, spawn, userret, exit_, order, bid, main = lines[prog]
        assert (spawn, exit_, order) == ("1", "1", "ok"), "%s: %s" % (prog, lines[prog])
        assert int(userret) >= 1, "%s: no return to user mode: %s" % (prog, lines[prog])
        elf = build_path("user", "bin", prog)
        assert bid == build_id(elf), "%s: build-id %s, the ELF has %s" % (prog, bid, build_id(elf))
        assert int(main, 16) == symbol(elf, "main"), "%s: main at %s" % (prog, main)
    assert lines["spin"][0] == str(pid)
    # heattest returned to user mode once per step, and after its system calls
    _, _, spawn, userret, exit_, order, _, _ = lines["heattest"]
    assert (spawn, exit_, order) == ("1", "1", "ok"), lines["heattest"]
    assert steps < int(userret) < steps + 100, "heattest: %d steps, %s returns" % (steps, userret)


@test("prof_example", timeout=120, cmdline="prof.example hz=20000", icount=True)
def prof_example(m):
    """The example engine's per-process sample counts equal the ticks the
    clock charged to each process, also when ticks were merged while
    interrupts were off (kwork cli) and each sample carried their weight."""
    m.wait_prompt()
    # the example engine is on, so the rate is the boot-time one
    m.check(m.run("put /dev/kpctl 'hz 1000'"), [r"^put: write: Device or resource busy$"])
    out = m.run("kwork cli 2000000 20; spin 30; cat /dev/sysstat")
    m.halt()
    lost = int(re.search(r"^lost_ticks (\d+)$", out, re.M).group(1))
    assert lost > 100, "kwork cli merged only %d ticks" % lost
    seen = re.findall(r"^example: pid \d+ \((\w+)\): (\d+) samples, (\d+) in user mode; "
                      r"clock charged (\d+) ticks$", out, re.M)
    got = {name: (int(a), int(u), int(c)) for name, a, u, c in seen}
    assert set(got) >= {"kwork", "spin", "cat"}, "example lines: %s\n%s" % (seen, out)
    for name, (a, u, c) in got.items():
        assert a == c, "%s: %d samples but the clock charged %d ticks" % (name, a, c)
    assert got["kwork"][0] > 100 and got["spin"][1] > 100, got


@test("prof_restart_counts_held_ticks", timeout=120, icount=True)
def prof_restart_counts_held_ticks(m):
    """The first engine to sample restarts the clock's phase; ticks held
    back by an interrupts-off section right after that start are still
    counted: merged into the next tick, lost_ticks grows by them and the
    sample carries their weight, with a restart (prof on, kpr) as without
    one (prof on -k, which only times). The restart once left the clock
    without an edge to measure from, and it took a tick 139 periods late
    for one on time: 2 ticks elapsed, lost_ticks unchanged."""
    m.wait_prompt()

    def lost():
        return int(re.search(r"^lost_ticks (\d+)$", m.run("cat /dev/sysstat"), re.M).group(1))

    runs = {}
    for line in ("prof on; kwork cli 20000000; prof off", "prof on -k; kwork cli 20000000; prof off",
                 "kpr kwork cli 20000000"):
        before = lost()
        out = m.run(line)
        runs[line] = (lost() - before, out)
    m.halt()
    merged = [n for n, _ in runs.values()]
    assert min(merged) > 100 and max(merged) - min(merged) <= 2, \
        "ticks merged by the same cli section: %s" % {k: n for k, (n, _) in runs.items()}
    out = runs["prof on; kwork cli 20000000; prof off"][1]
    rec = int(re.search(r"^Total samples recorded =\s+(\d+)$", out, re.M).group(1))
    el = int(re.search(r"^Ticks elapsed\s+=\s+(\d+)$", out, re.M).group(1))
    assert rec == el > merged[0], "recorded %d of %d ticks elapsed, %d merged" % (rec, el, merged[0])
    out = runs["kpr kwork cli 20000000"][1]
    kt = int(re.search(r"^kpr: (\d+) ticks", out, re.M).group(1))
    assert kt > merged[2], "kpr counted %d ticks, %d were merged:\n%s" % (kt, merged[2], out)


@test("prof_rate_owner", timeout=120, cmdline="prof.test", icount=True)
def prof_rate_owner(m):
    """While another engine is on, devkprof may not change the rate
    (EBUSY); alone, it may, also while it runs itself."""
    m.wait_prompt()
    m.check(m.run("echo startclr > /dev/kpctl; echo hz 1000 > /dev/kpctl; cat /dev/kpinfo"),
            [r"^hz 1000\.\d+$", r"^state on"])
    assert m.run("echo noop on > /dev/proftest") == ""
    m.check(m.run("put /dev/kpctl 'hz 500'"), [r"^kpctl: hz 500: another engine holds the rate$",
                                                r"^put: write: Device or resource busy$"])
    m.check(m.run("cat /dev/kpinfo"), [r"^hz 1000\.\d+$",
                                       r"^last hz 500: refused, another engine holds the rate$"])
    assert m.run("echo noop off > /dev/proftest") == ""
    m.check(m.run("put /dev/kpctl 'hz 500'; cat /dev/kpinfo"), [r"^put: wrote 6 bytes$",
                                                                r"^hz 500\.\d+$"])
    m.halt()


@test("kprof_count_vs_clock", timeout=120, cmdline="prof.test", icount=True)
def kprof_count_vs_clock(m):
    """devkprof counts each tick once: its total equals the clock's own
    tick count over the same span, read from /dev/sysstat by the same
    command line. A kernel that counted every sample twice, or half of
    them, fails here; so does one whose fan-out (two engines on) did."""
    m.wait_prompt()
    for noop in ("off", "on"):
        assert m.run("echo noop %s > /dev/proftest" % noop) == ""
        out = m.run("echo hz 10000 > /dev/kpctl; cat /dev/sysstat; echo startclr > /dev/kpctl; "
                    "kwork loop 2000000 10; echo stop > /dev/kpctl; cat /dev/sysstat; "
                    "cat /dev/kpinfo")
        # two sysstat reads, then kpinfo's count
        before, after, ticks = [int(t) for t in re.findall(r"^ticks (\d+)$", out, re.M)]
        span = after - before
        # the sysstat reads bracket start and stop by a few commands' time
        assert 0.9 * span <= ticks <= span, \
            "noop %s: devkprof counted %d ticks, the clock %d over a span containing it" % (
                noop, ticks, span)
        assert ticks > 1000, ticks
    m.halt()
