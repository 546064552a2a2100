# The Monte Carlo engine (kernel/prof/mc*.c, the prof command): its report
# against the clock's own tick counts and nm's addresses, the buffer's
# limits, system-call hits, kernel-call timing, pause and continue, the
# live view and the errors.
import re
import subprocess

from harness import build_path, test

HEADER = "=================== MONTE CARLO HIT REPORT ==================="


def report(text, header=HEADER):
    """The last report in text: totals, module rows and routine rows."""
    i = text.rfind(header)
    assert i >= 0, "no report in:\n" + text
    t = text[i:]
    r = {"mods": {}, "syms": [], "text": t}
    for key, name in (("recorded", "Total samples recorded"), ("dropped", "Total samples dropped"),
                      ("ticks", "Ticks elapsed")):
        r[key] = int(re.search(r"^%s\s*=\s*(\d+)$" % name, t, re.M).group(1))
    r["idle"] = int(re.search(r"Total idle samples recorded\s*= (\d+)$", t, re.M).group(1))
    mods = t[t.index("MODULES:"):t.index("SYMBOLS:")]
    for m in re.finditer(r"^(\S+)\s+(\d+)\s+(\d+\.\d)$", mods, re.M):
        r["mods"][m.group(1)] = int(m.group(2))
    syms = t[t.index("SYMBOLS:"):]
    for m in re.finditer(r"^\s*(\d+)\s+(\d+\.\d) ([0-9a-f]{8}| {8}) (.{16}):(.*)$", syms, re.M):
        r["syms"].append((int(m.group(1)), m.group(3).strip(), m.group(4).strip(), m.group(5).strip()))
    return r


def nm(path):
    """{name: address} of an ELF's text symbols."""
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return {n: int(a, 16) for a, t, n in re.findall(r"^([0-9a-f]+) ([tT]) (\S+)$", out, re.M)}


def routine(r, module, name):
    rows = [s for s in r["syms"] if s[2] == module and s[3] == name]
    return rows[0] if rows else None


@test("mc_errors", timeout=120, icount=True)
def mc_errors(m):
    """Clear errors that change nothing: prof off with no session, two data
    types or storages, a bad flag, pause without -P, a second prof on, and a
    rate that another engine holds (which keeps recording). A session's own
    rate (-i) is the clock's until prof off puts the old one back."""
    m.wait_prompt()
    m.check(m.run("prof off"), [r"^prof: off: no session is on"])
    m.check(m.run("prof pause"), [r"^prof: pause: no session is on"])
    m.check(m.run("prof on -s -k"), [r"^prof: one data type .* at a time$"])
    m.check(m.run("prof on -b -u"), [r"^prof: one data type .* at a time$"])
    m.check(m.run("prof on -x"), [r"^usage: prof on"])
    m.check(m.run("prof on -z 999999"), [r"^prof: on: Invalid argument"])
    m.run("echo start > /dev/kpctl")
    m.check(m.run("prof on -i 200"), [r"^prof: on: another profiler holds the clock rate$"])
    m.check(m.run("cat /dev/kpinfo"), [r"^state on"])
    m.run("echo stop > /dev/kpctl")
    assert m.run("prof on -u") == ""
    m.check(m.run("prof on"), [r"^prof: on: a session is on already"])
    m.check(m.run("prof pause"), [r"^prof: pause: pause and continue need a session started with -P$"])
    out = m.run("spin 20; prof off")
    r = report(out)
    assert r["recorded"] > 0 and r["dropped"] == 0, r["text"]
    m.check(out, [r"^prof: report in /tmp/prof/mc\.1, samples in /tmp/prof/mc\.1\.dump"])
    m.check(m.run("prof off"), [r"^prof: off: no session is on"])
    # -i sets the rate for the session, and prof off puts the old one back
    assert m.run("prof on -i 200") == ""
    m.check(m.run("cat /dev/kpinfo"), [r"^hz 4992\.\d+$"])     # 5000 Hz, as the PIT makes it
    report(m.run("spin 5; prof off"))
    m.check(m.run("cat /dev/kpinfo"), [r"^hz 1000\.\d+$"])
    m.halt()


@test("mc_buffer_full", timeout=120, cmdline="hz=10000", icount=True)
def mc_buffer_full(m):
    """A 4 KiB buffer holds 512 samples: the rest are dropped and counted,
    recorded plus dropped is every tick while on, and idle ticks after the
    first drop are dropped too."""
    m.wait_prompt()
    r = report(m.run("prof on -z 4; mcwork run 50 50 50; prof off"))
    assert r["recorded"] - r["idle"] == 4096 // 8, r["text"]
    assert r["dropped"] > 0, r["text"]
    assert r["recorded"] + r["dropped"] == r["ticks"], r["text"]
    m.halt()


def user_ticks(out, prog):
    if prog == "mcwork":
        return int(re.search(r"^mcwork: beta user ticks \d+, all (\d+)$", out, re.M).group(1))
    return int(re.search(r"^spin \d+: user ticks (\d+) of", out, re.M).group(1))


@test("mc_modules", timeout=180, icount=True)
def mc_modules(m):
    """Two programs and the kernel's workload in one session, buffered and
    unbuffered: each program's module has the user-mode ticks the clock
    charged to it (within 2), the kernel has most of the rest, and the rows
    of each table sum to the total."""
    m.wait_prompt()
    line = "prof on %s; mcwork run 40 40 40; spin 60; kwork loop 3000000 60; prof off"
    for opt in ("-b", "-u"):
        out = m.run(line % opt, timeout=120)
        r = report(out)
        for prog in ("mcwork", "spin"):
            want = user_ticks(out, prog)
            assert abs(r["mods"].get(prog, 0) - want) <= 2, \
                "%s %s: module %d, clock %d\n%s" % (opt, prog, r["mods"].get(prog, 0), want, r["text"])
        assert r["mods"]["kernel"] > 40, r["text"]
        assert sum(r["mods"].values()) == r["recorded"], r["text"]
        assert sum(s[0] for s in r["syms"]) == r["recorded"], r["text"]
        assert r["recorded"] + r["dropped"] == r["ticks"], r["text"]
    m.halt()


@test("mc_routines", timeout=180, icount=True)
def mc_routines(m):
    """The routine table names the hot routines at nm's addresses, in the
    kernel and in a program that exited before prof off; a stripped program
    is a module whose hits are its <no symbols> row; -n cuts the table after
    sorting, with a remainder row, and the rows still sum to the total."""
    m.wait_prompt()
    r = report(m.run("prof on; mcwork run 20 60 20; mcwork.strip run 30 0 0; "
                     "kwork loop 3000000 40; prof off", timeout=120))
    prog, kern = nm(build_path("user", "bin", "mcwork")), nm(build_path("kernel.elf"))
    top = r["syms"][0]
    assert (top[2], top[3]) == ("mcwork", "beta") or (top[2], top[3]) == ("kernel", "kwork_loop"), r["text"]
    for name in ("alpha", "beta", "gamma_"):
        row = routine(r, "mcwork", name)
        assert row and int(row[1], 16) == prog[name], "%s: %s\n%s" % (name, row, r["text"])
    assert routine(r, "mcwork", "beta")[0] > 2 * routine(r, "mcwork", "alpha")[0], r["text"]
    row = routine(r, "kernel", "kwork_loop")
    assert row and int(row[1], 16) == kern["kwork_loop"], r["text"]
    nosym = routine(r, "mcwork.strip", "<no symbols>")
    assert nosym and nosym[0] == r["mods"]["mcwork.strip"] and nosym[0] > 10, r["text"]
    assert sum(s[0] for s in r["syms"]) == r["recorded"], r["text"]

    r = report(m.run("prof on -n 2; mcwork run 20 60 20; prof off", timeout=120))
    named = [s for s in r["syms"] if s[1]]
    more = [s for s in r["syms"] if re.match(r"<\d+ more routines?>", s[3])]
    assert len(named) == 2 and len(more) == 1, r["text"]
    assert sum(s[0] for s in r["syms"]) == r["recorded"], r["text"]
    m.halt()


@test("mc_syscalls", timeout=120, icount=True)
def mc_syscalls(m):
    """prof on -s: each system call is one hit on its handler, so a program
    that makes 123 getpid and 45 uptime calls shows exactly those."""
    m.wait_prompt()
    for opt in ("-u", "-b"):
        out = m.run("prof on -s %s; mcwork sys 123 45; prof off" % opt)
        r = report(out, "=================== SYSTEM CALL HIT REPORT ===================")
        hits = {s[3]: s[0] for s in r["syms"] if s[2] == "kernel"}
        assert hits.get("sys_getpid") == 123 and hits.get("sys_uptime") == 45, r["text"]
        addr = nm(build_path("kernel.elf"))
        row = routine(r, "kernel", "sys_getpid")
        assert int(row[1], 16) == addr["sys_getpid"], r["text"]
    m.halt()


def kcall_rows(out):
    t = out[out.rindex("KERNEL CALL REPORT"):]
    rows = {}
    for mm in re.finditer(r"^\s*(\S+) (.{35}) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)$", t, re.M):
        rows[mm.group(2).strip()] = tuple(int(x) for x in mm.groups()[2:])
    return rows, t


@test("mc_kcall", timeout=180, icount=True)
def mc_kcall(m):
    """prof on -k times kernel sections: kwork cli N is one interrupts-off
    section, whose cost grows by the same amount from N to 2N as from 2N to
    3N (exact under icount), and one kwork call; the scheduler's switches
    are counted."""
    m.wait_prompt()
    costs = []
    for n in (100000, 200000, 300000):
        rows, t = kcall_rows(m.run("prof on -k; kwork cli %d; prof off" % n))
        cli = [v for k, v in rows.items() if k.startswith("cli kwork_cli+")]
        assert len(cli) == 1 and cli[0][0] == 1, t
        calls, total, mn, mx, avg = cli[0]
        assert mn == mx == total == avg, t
        assert rows["sys_kwork"][0] == 1 and rows["sys_kwork"][3] >= mx, t
        assert re.search(r"^NextThread: Calls=[1-9]\d* Min=\d+ Max=\d+ Avg=\d+$", t, re.M), t
        costs.append(mx)
    assert costs[1] - costs[0] == costs[2] - costs[1] > 0, costs
    m.halt()


@test("mc_pause_continue", timeout=120, icount=True)
def mc_pause_continue(m):
    """prof on -P starts paused; the program continues around beta() and
    pauses after it: only beta is counted, and the ticks elapsed are its."""
    m.wait_prompt()
    out = m.run("prof on -P; mcwork pause 30 40 30; prof off")
    r = report(out)
    beta = int(re.search(r"^mcwork: beta user ticks (\d+)", out, re.M).group(1))
    assert routine(r, "mcwork", "beta") and abs(routine(r, "mcwork", "beta")[0] - beta) <= 2, r["text"]
    assert not routine(r, "mcwork", "alpha") and not routine(r, "mcwork", "gamma_"), r["text"]
    assert abs(r["ticks"] - beta) <= 4, r["text"]
    m.halt()


@test("mc_top", timeout=180, icount=True)
def mc_top(m):
    """prof top redraws the unbuffered tables while a workload runs in the
    background; a row never goes down between redraws, and the last
    table's program rows equal prof off's."""
    m.wait_prompt()
    m.run("prof on -u")
    out = m.run("mcwork run 1000 1000 1000 & prof top -d 1 -c 5", timeout=150)
    screens = out.split("\033[H\033[2J")[1:]
    assert len(screens) >= 2, out
    last = None
    seen = []
    for s in screens:
        mods = dict((a, int(b)) for a, b in re.findall(r"^(\S+)\s+(\d+)\s+\d+\.\d$", s, re.M))
        if last:
            for k, v in last.items():
                if k not in ("IDLE", "UNKNOWN"):
                    assert mods.get(k, 0) >= v, "%s went down: %s -> %s" % (k, last, mods)
        last = mods
        seen.append(mods.get("mcwork", 0))
    assert seen[0] < seen[-1], seen
    r = report(m.run("prof off"))
    assert r["mods"]["mcwork"] == last["mcwork"], (r["text"], last)
    m.halt()
