# Reliability: no user program can freeze the machine or upset the clock;
# the system-call fuzzer and page-allocation fault injection.
import re

import qemu

from harness import test

PS_SLEEP = r"^ *(\d+) +\d+ +sleep +\d+ +\d+ +kprof +sleep$"


@test("long_sleep_survives_rate_change", timeout=120, icount=True)
def long_sleep_survives_rate_change(m):
    """A 21.6-day sleep rescaled from 50 kHz to 200 kHz: left * rate
    overflowed 64 bits and the sleep ended within seconds."""
    m.wait_prompt()
    m.type_line("echo hz 50000 > /dev/kpctl; sleep 1865817550 & echo hz 200000 > /dev/kpctl")
    m.expect(r"^\[\d+\]$")
    m.wait_prompt()         # typing before it races the shell's prompt
    m.run("sleep 1000")
    out = m.run("ps")
    m.check(out, [PS_SLEEP], forbid=[r"^\[\d+\] done"])
    pid = re.search(PS_SLEEP, out, re.M).group(1)
    m.run("echo hz 1000 > /dev/kpctl; kill %s" % pid)
    m.halt()


def hog_in_background(m, line, name):
    """Starts line in the background; the shell must still answer (it used
    to wait for ever), ps must show the job running, and kill must end it
    within seconds. Returns the job's pid."""
    m.type_line(line)
    pid = int(m.expect(r"^\[(\d+)\]$").group(1))
    m.wait_prompt(10)       # typing before it races the shell's prompt
    out = m.run("echo alive", timeout=10)
    assert out == "alive\n", "echo beside %s printed %r" % (name, out)
    m.check(m.run("ps", timeout=10), [r"^ *%d +\d+ +(run|ready) .* %s$" % (pid, name)])
    m.run("kill %d" % pid, timeout=10)
    for _ in range(5):
        out = m.run("ps", timeout=10)
        if not re.search(r"^ *%d " % pid, out, re.M):
            break
        m.run("sleep 200", timeout=10)
    m.check(out, [r"^PID "], forbid=[r"^ *%d " % pid])
    return pid


@test("long_syscall_preempted", timeout=90)
def long_syscall_preempted(m):
    """kwork copy of 4e9 steps (about 50 hours) starved the shell: the
    kernel never preempts itself and the copy loop had no kill check."""
    m.wait_prompt()
    hog_in_background(m, "kwork copy 4000000000 &", "kwork")
    hog_in_background(m, "kwork loop 4000000000 &", "kwork")
    m.halt()


@test("big_device_write_preempted", timeout=90)
def big_device_write_preempted(m):
    """One 4 MiB write() to COM2 stopped every process for 19 s: sys_write's
    chunk loop had no preemption point or kill check. (/dev/cons takes the
    same loop; its bytes would bury the shell's output here.)"""
    m.wait_prompt()
    hog_in_background(m, "flood /dev/eia1 4096 &", "flood")
    m.halt()


def retry(m, line, ok, tries=20, timeout=30):
    """Runs line until ok(output): under fault injection a command may
    fail to start (the shell's spawn got ENOMEM), which is allowed."""
    for _ in range(tries):
        out = m.run(line, timeout=timeout)
        if ok(out):
            return out
    raise AssertionError("%r never succeeded; last output %r" % (line, out))


def sysstat(m, key):
    out = retry(m, "cat /dev/sysstat", lambda o: re.search(r"^%s \d+$" % key, o, re.M))
    return int(re.search(r"^%s (\d+)$" % key, out, re.M).group(1))


def clean_tmp(m):
    """Files a failed test left in /tmp hold pages that are not leaked."""
    names = retry(m, "ls /tmp", lambda o: "ls:" not in o and "sh:" not in o)
    for name in re.findall(r"^\S+ +\d+ (\S+)$", names, re.M):
        retry(m, "rm /tmp/%s" % name, lambda o: "sh:" not in o)


@test("failalloc_usertests_and_profiling", timeout=300, cmdline="failalloc=7:5")
def failalloc_usertests_and_profiling(m):
    """One page allocation in 200 fails: usertests and a profiling session may
    fail, but only cleanly (no panic or kernel trap), the profile's counts
    stay readable, and the free-page count comes back to where it was."""
    m.check(m.wait_prompt(), [r"^failalloc: 5 of 1000 page allocations fail \(start 7\)$"])
    session = "echo startclr > /dev/kpctl; kwork loop 20000000; echo stop > /dev/kpctl"
    # the first start allocates devkprof's buffer, kept from then on
    retry(m, session, lambda o: o == "kwork: loop done\n")
    before = sysstat(m, "freepages")
    out = retry(m, "usertests", lambda o: "test leaks:" in o, timeout=200)
    m.check(out, [r"^test leaks: ", r"^(ALL|SOME) TESTS"])
    clean_tmp(m)
    after = sysstat(m, "freepages")
    assert after == before, "freepages %d before usertests, %d after" % (before, after)
    # a session recorded under injection stays whole and readable
    retry(m, session, lambda o: o == "kwork: loop done\n")
    kpinfo = lambda o: re.search(r"^ticks [1-9]\d*$", o, re.M)
    info = retry(m, "cat /dev/kpinfo", kpinfo)
    ticks = re.search(r"^ticks (\d+)$", info, re.M).group(1)
    m.check(info, [r"^kernel_ticks [1-9]\d*$", r"^state off$"])
    for _ in range(3):
        m.check(retry(m, "cat /dev/kpinfo", kpinfo), [r"^ticks %s$" % ticks])
    assert sysstat(m, "failalloc") > 0, "no allocation was made to fail"
    m.halt()


@test("start_without_memory", timeout=120, cmdline="kprof.res=0")
def start_without_memory(m):
    """devkprof's first start needs 63 contiguous pages (res 0): with memory
    taken by hogs it fails with ENOMEM and changes nothing; once memory is
    back it works, and what it recorded stays readable under the next
    squeeze, through a start that needs no memory.
    (Reading a device needs a page or two for its snapshot.)"""
    m.wait_prompt()

    def squeeze():
        # one process may hold 64 MB: the second takes the rest
        m.type_line("hog 62 8000 &")
        m.expect(r"hog: 62 MB, freepages \d+$", timeout=30)
        m.fresh_prompt()
        m.type_line("hog -free 40 6000 &")
        free = int(m.expect(r"hog: \d+ pages, freepages (\d+)$", timeout=30).group(1))
        m.fresh_prompt()
        assert free < 63, "hogs left %d pages free" % free

    def settle():
        for _ in range(20):
            if re.search(r"^proc \d+ \d+ \S+ \d+ \d+ kprof hog$", m.run("cat /dev/sysstat"), re.M) is None:
                return
            m.run("sleep 500")
        raise AssertionError("the hogs did not end")

    squeeze()
    out = m.run("echo start > /dev/kpctl")
    m.check(out, [r"^echo: write error: Cannot allocate memory$"])
    m.check(m.run("cat /dev/kpinfo"), [r"^state off$", r"^ticks 0$"])
    settle()
    out = m.run("echo startclr > /dev/kpctl; kwork loop 20000000; echo stop > /dev/kpctl")
    assert out == "kwork: loop done\n", out
    info = m.run("cat /dev/kpinfo")
    ticks = int(re.search(r"^ticks (\d+)$", info, re.M).group(1))
    assert ticks > 0, info
    squeeze()
    m.check(m.run("cat /dev/kpinfo"), [r"^ticks %d$" % ticks, r"^state off$"])
    m.check(m.run("echo start > /dev/kpctl; echo stop > /dev/kpctl"), [], forbid=[r"error"])
    info = m.run("cat /dev/kpinfo")
    assert int(re.search(r"^ticks (\d+)$", info, re.M).group(1)) >= ticks, info
    settle()
    m.halt()


SUMMARY = (r"sysfuzz: (\d+) calls, (\d+) batches, seed (\d+): (\d+) batches faulted, "
           r"(\d+) killed themselves, (\d+) hung, (\d+) odd exits, (\d+) not started; "
           r"freepages (\d+) before, (\d+) after$")


def fuzz(m, seed, calls, timeout):
    """Runs sysfuzz; returns its summary's numbers. The fuzzer writes random
    bytes to the console, so only its own sentinel lines are waited for."""
    m.type_line("sysfuzz -s %d -n %d" % (seed, calls))
    verdict = m.expect(r"sysfuzz: (PASS|FAIL)$", timeout=timeout).group(1)
    summary = re.findall(SUMMARY, m.transcript(), re.M)
    m.fresh_prompt()
    assert summary, "no sysfuzz summary"
    return verdict, [int(x) for x in summary[-1]]


@test("sysfuzz_bounded", timeout=240, forbid=(r"^panic", r"^kernel trap", r"FAILED"))
def sysfuzz_bounded(m):
    """50,000 random system calls with a fixed seed: no kernel fault (the
    harness forbids its report), no hung batch, no leaked page, and
    usertests still passes in the same boot."""
    m.wait_prompt()
    verdict, n = fuzz(m, 1, 50000, 150)
    calls, _, _, faults, _, hung, odd, unstarted, before, after = n
    assert calls == 50000 and hung == 0 and odd == 0 and unstarted == 0, "sysfuzz: %s" % n
    assert before == after, "freepages %d before the fuzz, %d after" % (before, after)
    assert verdict == "PASS", "sysfuzz: %s" % n
    m.check(m.run("usertests", timeout=120), [r"^ALL TESTS PASSED$"])
    m.halt()


REFUSED = r"^clock: 596591 Hz refused: without QEMU's -icount its PIT loses most ticks above %d Hz$"
HZ_MAX_UNTIMED = qemu.header_defines("clock.h")["PIT_MAX_HZ_UNTIMED"]
PIT_INPUT_HZ = qemu.header_defines("clock.h")["PIT_INPUT_HZ"]


def achieved(hz):
    """the whole hertz of the nearest divisor's rate"""
    return PIT_INPUT_HZ // ((PIT_INPUT_HZ + hz // 2) // hz)


@test("hz_ceiling_without_icount", timeout=60)
def hz_ceiling_without_icount(m):
    """At divisor 2 QEMU's PIT without -icount fell so far behind that 5 ms
    of work took 84 s: outside icount the top rates are refused, saying why."""
    m.wait_prompt()
    m.check(m.run("cat /dev/sysstat"), [r"^hz_max %d$" % HZ_MAX_UNTIMED])
    out = m.run("echo hz 596591 > /dev/kpctl")
    m.check(out, [REFUSED % HZ_MAX_UNTIMED,
                  r"^echo: write error: Numerical result out of range$"])
    m.check(m.run("cat /dev/kpinfo"), [r"^hz 1000\.\d+$"])
    m.check(m.run("echo hz %d > /dev/kpctl; cat /dev/kpinfo" % HZ_MAX_UNTIMED),
            [r"^hz %d\.\d+$" % achieved(HZ_MAX_UNTIMED)], forbid=[r"refused"])
    m.halt()


@test("hz_top_rate_with_icount", timeout=90, icount=True)
def hz_top_rate_with_icount(m):
    """Under -icount the PIT is exact, and the top rate is there."""
    m.wait_prompt()
    top = PIT_INPUT_HZ // 2
    m.check(m.run("cat /dev/sysstat"), [r"^hz_max %d$" % top])
    out = m.run("echo hz %d > /dev/kpctl; kwork loop 100000; cat /dev/kpinfo; "
                "echo hz 1000 > /dev/kpctl" % top)
    m.check(out, [r"^hz %d\.\d+$" % top], forbid=[r"refused", r"error"])
    m.halt()
