# Reliability: no user program can freeze the machine or upset the clock;
# the system-call fuzzer and page-allocation fault injection.
import re

from harness import test

PS_SLEEP = r"^ *(\d+) +\d+ +sleep +\d+ +\d+ sleep$"


@test("long_sleep_survives_rate_change", timeout=120, icount=True)
def long_sleep_survives_rate_change(m):
    """A 21.6-day sleep rescaled from 50 kHz to 200 kHz: left * rate
    overflowed 64 bits and the sleep ended within seconds."""
    m.wait_prompt()
    m.type_line("echo hz 50000 > /dev/kpctl; sleep 1865817550 & echo hz 200000 > /dev/kpctl")
    m.expect(r"^\[\d+\]$")
    m.fresh_prompt()
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
    m.fresh_prompt(timeout=10)
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
