# OS/2's DosProfile (kernel/prof/dosprof*.c): the guest's own test program
# drives every function and return code and checks the modes against the
# workload's known page profile; the dosprof driver's report and raw dump
# are checked here, and read back by build/kprof.
import re

from harness import test


@test("dosprof_calls", timeout=300, cmdline="prof.test", icount=True)
def dosprof_calls(m):
    """dptest: every function and return code, the three modes against
    pages a/b/c at 50/30/20 %, flgbits {5,6,7,8} sampling at ticks 8, 15,
    21, 26, 34, ..., MT following spawned processes, two sessions apart,
    the wrapping hit table keeping the newest, 16 sessions, saturation."""
    m.wait_prompt()
    out = m.run("dptest", timeout=280)
    m.halt()
    m.check(out, [r"^dptest: flgbits samples at ticks 8 15 21 26 34 41 47 52 60 67 73 78$",
                  r"^dptest: ok codes$", r"^dptest: ok modes$", r"^dptest: ok flgbits$",
                  r"^dptest: ok threads$", r"^dptest: ok apart$", r"^dptest: ok wrap$",
                  r"^dptest: ok sessions$", r"^dptest: ok kernel$", r"^dptest: ok saturate$",
                  r"^dptest: ALL PASSED$"],
            forbid=[r"FAIL", r"untested"])
