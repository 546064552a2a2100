# The first start of devkprof allocates its buffer without holding
# interrupts off long enough to lose a tick. (Its tick count against the
# clock's is kprof_count_vs_clock, in test_prof.py.)
import re

from harness import test

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
