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
