# Signals and interval timers (kernel/signal.c, kernel/arch/i386/sigframe.c),
# through glibc: user/linux/sigtest.c. Default actions and their statuses,
# handlers that run and return (or longjmp out of a fault), masks,
# EINTR, ^C; and hostile use: handlers in the kernel or nowhere, forged
# sigreturn frames, signals to others, a storm of SIGPROF. The kernel
# never faults (every test's transcript is checked for that) and leaks
# no page.
import re
import time

from harness import test


def freepages(m):
    return int(re.search(r"^freepages (\d+)$", m.run("cat /dev/sysstat"), re.M).group(1))


@test("signals_default", timeout=90, icount=True)
def signals_default(m):
    """each default action, with the status a shell shows: terminate
    (128 + N; a core dump's signal too), ignore (SIGCHLD, SIGURG, SIGWINCH,
    SIGCONT), stop as ignore (no job control); a real-time signal ends it"""
    m.wait_prompt()
    for sig, status in ((1, 129), (2, 130), (3, 131), (6, 134), (9, 137), (10, 138),
                        (11, 139), (13, 141), (14, 142), (15, 143), (26, 154),
                        (27, 155), (34, 162), (64, 192)):
        out = m.run("sigtest default %d" % sig)
        m.check(out, [r"^sh: sigtest: exit status %d\b" % status], forbid=[r"^survived"])
    for sig in (17, 18, 19, 20, 21, 22, 23, 28):
        m.check(m.run("sigtest default %d" % sig), [r"^survived %d$" % sig])
    m.halt()


@test("signals_handlers", timeout=90, icount=True)
def signals_handlers(m):
    """handlers for SIGINT, SIGUSR1 (blocked, pending, delivered at unblock),
    SIGALRM (pause, and a nanosleep cut short: EINTR), SIGPROF and
    SIGVTALRM from their timers, SIGSEGV twice (left by siglongjmp),
    SIGFPE, SIGILL, SIGTRAP, a SA_ONSTACK one on its sigaltstack run and
    the program goes on; both frames give
    the interrupted eip where glibc looks (ucontext's gregs, sigcontext)"""
    m.wait_prompt()
    out = m.run("sigtest handlers")
    m.check(out, [r"^ok %s$" % n for n in ("SIGINT", "sigprocmask", "frames", "SIGALRM",
                                          "EINTR", "alarm", "SIGPROF", "SIGSEGV", "SIGFPE",
                                          "SIGILL", "SIGTRAP", "sigaltstack", "ignored")] +
            [r"^handlers done$"], forbid=[r"^FAIL", r"^sh: sigtest"], ordered=True)
    m.halt()


@test("signals_interrupt", timeout=90, icount=True)
def signals_interrupt(m):
    """^C is SIGINT to the foreground command: one without a handler ends
    with 130, one with a handler runs it and goes on; a console read it
    interrupts is restarted after a SA_RESTART handler, EINTR after one
    without"""
    m.wait_prompt()
    m.type_line("sigtest spin")
    m.expect(r"^spinning$")
    time.sleep(0.5)
    m.send("\x03")
    m.check(m.wait_prompt(), [r"^\^C$", r"^sh: sigtest: exit status 130\b"], ordered=True)
    m.type_line("sigtest wait")
    m.expect(r"^waiting$")
    time.sleep(0.5)
    m.send("\x03")
    out = m.wait_prompt()
    m.check(out, [r"^\^C$", r"^got SIGINT$"], forbid=[r"^sh: sigtest"], ordered=True)
    # a console read ^C interrupts: restarted after a SA_RESTART handler
    # (it reads the next line), EINTR after one without
    m.type_line("sigtest read restart")
    m.expect(r"^reading$")
    time.sleep(0.5)
    m.send("\x03")
    time.sleep(0.5)
    m.type_line("again")
    m.check(m.wait_prompt(), [r"^read 6: again, handler ran 1$"], forbid=[r"^sh: sigtest"])
    m.type_line("sigtest read intr")
    m.expect(r"^reading$")
    time.sleep(0.5)
    m.send("\x03")
    m.check(m.wait_prompt(), [r"^read -1 Interrupted system call, handler ran 1$"],
            forbid=[r"^sh: sigtest"])
    m.halt()


@test("signals_hostile", timeout=150, icount=True)
def signals_hostile(m):
    """a handler in the kernel or unmapped, sigreturn with no frame or a
    forged one (kernel cs, ss, ds, gs, eip): the process ends (139), never
    the kernel; IOPL and a cleared IF in the frame's flags are not taken
    (the program's cli then faults); no page is lost"""
    m.wait_prompt()
    before = freepages(m)
    for mode in ("kernel-handler", "unmapped-handler", "bad-frame", "bad-frame-old",
                 "cs", "ss", "ds", "gs", "eip"):
        out = m.run("sigtest hostile %s" % mode)
        m.check(out, [r"^sh: sigtest: exit status 139 \(fault\)$"], forbid=[r"^FAIL"])
    out = m.run("sigtest hostile flags")
    m.check(out, [r"^flags after sigreturn: iopl 0 if 1$", r"^cli faulted: 11$"],
            forbid=[r"^FAIL", r"^sh: sigtest"], ordered=True)
    m.check(m.run("sigtest others"), [r"^kill\(-1, 0\): -1$", r"^others done$"],
            forbid=[r"^FAIL"])
    assert freepages(m) == before, "pages lost: %d before, %d after" % (before, freepages(m))
    m.halt()


@test("signals_storm", timeout=240, icount=True, cmdline="hz=20000")
def signals_storm(m):
    """ITIMER_PROF at its shortest (1 us: every tick, at 20 kHz) with a
    handler, until ITIMER_REAL's SIGALRM ends the program (142); twice, and
    no page is lost. Deterministic under -icount: the same ticks both runs."""
    m.wait_prompt()
    before = freepages(m)
    for _ in range(2):
        m.check(m.run("sigtest storm 200"), [r"^sh: sigtest: exit status 142$"])
    assert freepages(m) == before, "pages lost: %d before, %d after" % (before, freepages(m))
    m.halt()


@test("signals_glibc_gprof", timeout=300, icount=True)
def signals_glibc_gprof(m):
    """glibc's own gprof (gcc -pg: mcount, and profil by setitimer(ITIMER_PROF)
    and a SIGPROF handler reading the sigcontext's eip): gprofwork.pg writes
    gmon.out, exported as glibc wrote it, and GNU gprof reads it: call counts
    exact (hot 6K, warm 3K, cold K, main once, the arcs from main), and
    the flat profile's shares within 4 sigma of 60/30/10 %, the exact split
    of the instructions by construction (the same loop a call)"""
    import math
    import os
    from test_profil import callgraph, flat, gprof
    k = 12000
    m.wait_prompt()
    out = m.run("mkdir /tmp/g; cd /tmp/g; gprofwork.pg %d 2000; cd /" % k, timeout=200)
    m.check(out, [r"^gprofwork: done$"], forbid=[r"^sh: "])
    m.run("export /tmp/g/gmon.out")
    m.halt()
    m.exports(m.scratch + "/out")
    gmon = os.path.join(m.scratch, "out", "tmp", "g", "gmon.out")
    with open(gmon, "rb") as f:
        assert f.read(4) == b"gmon", "not glibc's gmon.out"
    text = gprof("gprofwork.pg", gmon)
    rows = flat(text)
    want = {"hot": 6 * k, "warm": 3 * k, "cold": k, "main": 1}
    for name, calls in want.items():
        assert name in rows and rows[name][2] == calls, \
            "%s: calls %s, want %d" % (name, rows.get(name), calls)
    graph = callgraph(text)
    for name in ("hot", "warm", "cold"):
        assert graph[name][1].get("main") == "%d/%d" % (want[name], want[name]), \
            "%s's arc from main: %s" % (name, graph[name])
    samples = {n: rows[n][1] for n in ("hot", "warm", "cold")}
    total = sum(samples.values())
    n = round(total / 0.01)
    assert n >= 80, "only %d samples" % n
    for name, p in (("hot", 0.6), ("warm", 0.3), ("cold", 0.1)):
        got = samples[name] / total
        sigma = math.sqrt(p * (1 - p) / n)
        assert abs(got - p) <= 4 * sigma, \
            "%s: %.3f of %d samples, want %.2f +- %.3f" % (name, got, n, p, 4 * sigma)
