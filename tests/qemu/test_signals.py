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
    SIGFPE, SIGILL, SIGTRAP run and the program goes on; both frames give
    the interrupted eip where glibc looks (ucontext's gregs, sigcontext)"""
    m.wait_prompt()
    out = m.run("sigtest handlers")
    m.check(out, [r"^ok %s$" % n for n in ("SIGINT", "sigprocmask", "frames", "SIGALRM",
                                          "EINTR", "alarm", "SIGPROF", "SIGSEGV", "SIGFPE",
                                          "SIGILL", "SIGTRAP", "ignored")] +
            [r"^handlers done$"], forbid=[r"^FAIL", r"^sh: sigtest"], ordered=True)
    m.halt()


@test("signals_interrupt", timeout=90, icount=True)
def signals_interrupt(m):
    """^C is SIGINT to the foreground command: one without a handler ends
    with 130, one with a handler runs it and goes on"""
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


@test("signals_storm", timeout=150, icount=True, cmdline="hz=100000")
def signals_storm(m):
    """ITIMER_PROF at its shortest (1 us: every tick, at 100 kHz) with a
    handler, until ITIMER_REAL's SIGALRM ends the program (142); twice, and
    no page is lost. Deterministic under -icount: the same ticks both runs."""
    m.wait_prompt()
    before = freepages(m)
    for _ in range(2):
        m.check(m.run("sigtest storm 200"), [r"^sh: sigtest: exit status 142$"])
    assert freepages(m) == before, "pages lost: %d before, %d after" % (before, freepages(m))
    m.halt()
