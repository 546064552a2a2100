# devkprof's tick count checked against sources it does not control: the
# clock's own tick count in /dev/sysstat, and lost_ticks after a start.
import re

from harness import test
from qemu import header_defines

LOST = "lost_ticks"


def keyvals(text):
    """{key: value} from "key value" lines (kpinfo, the top of sysstat)."""
    return dict(m.groups() for m in re.finditer(r"^(\w+) (.*)$", text, re.M))


@test("kprof_first_start_no_lost_ticks", timeout=120, icount=True)
def kprof_first_start_no_lost_ticks(m):
    """The first start allocates the counters; at 100 kHz (10 us a tick) a
    search of the free list with interrupts off used to lose dozens of
    ticks, leaving lost_ticks non-zero after the first profile."""
    m.wait_prompt()
    out = m.run("echo hz 100000 > /dev/kpctl; cat /dev/sysstat")
    assert keyvals(out)[LOST] == "0", "lost ticks before start:\n" + out
    info = m.run("echo start > /dev/kpctl; echo stop > /dev/kpctl; cat /dev/kpinfo")
    stat = m.run("cat /dev/sysstat")
    m.halt()
    assert keyvals(info)["state"] == "off" and int(keyvals(info)["ticks"]) > 0, info
    assert keyvals(info)[LOST] == "0", "kpinfo after the first start:\n" + info
    assert keyvals(stat)[LOST] == "0", "sysstat after the first start:\n" + stat


@test("kprof_ticks_match_clock", timeout=120, icount=True)
def kprof_ticks_match_clock(m):
    """devkprof's tick count (kpdata word 0, kpinfo ticks) equals the clock's
    tick count over the same span, less what it takes to spawn the two
    echos between the sysstat snapshots: so a devkprof that counted every
    sample twice, or every other one, fails."""
    m.wait_prompt()
    assert m.run("echo hz 10000 > /dev/kpctl; echo start > /dev/kpctl; echo stop > /dev/kpctl") == ""
    # one line, so that no wait for the harness falls inside (see README.md)
    out = m.run("cat /dev/sysstat; echo startclr > /dev/kpctl; kwork loop 2000000 20; "
                "echo stop > /dev/kpctl; cat /dev/sysstat; cat /dev/kpinfo")
    m.halt()
    before, after = re.findall(r"^ticks (\d+)$", out, re.M)[:2]
    clock = int(after) - int(before)
    counted = int(keyvals(out[out.index("text_start"):])["ticks"])
    pit = header_defines("kprof.h")["PIT_INPUT_HZ"]
    hz = pit / round(pit / 10000)
    # kwork alone is a quarter of a second of guest time: thousands of ticks
    assert clock >= 200, "only %d clock ticks across the profile (%.0f Hz)" % (clock, hz)
    # The span between the two sysstat snapshots also holds the spawn of
    # 'echo startclr' and 'echo stop' and the shell around them: a few
    # percent. Double counting gives ~2x, half counting ~0.5x.
    assert 0.9 * clock <= counted <= clock, \
        "devkprof counted %d ticks, the clock %d over a slightly longer span" % (counted, clock)
