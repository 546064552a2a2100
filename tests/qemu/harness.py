# The test registry: @test(...) marks a function in tests/qemu/test_*.py as
# one test of the suite; run.py finds, filters and runs them.
import os

from qemu import ROOT

# Lines that must not appear in any QEMU test's transcript.
FORBID = (r"^panic: ", r"^kernel trap \d+")

TESTS = {}      # name -> Test, in the order the files define them


class Test:
    def __init__(self, name, fn, timeout, cmdline, icount, qemu, forbid, extra):
        self.name, self.fn, self.timeout = name, fn, timeout
        self.cmdline, self.icount, self.qemu = cmdline, icount, qemu
        self.forbid, self.extra = forbid, extra


def test(name, timeout=60, cmdline="", icount=False, qemu=True, forbid=FORBID, extra=()):
    """Registers fn as the test name. A QEMU test (the default) is called
    with a started qemu.Machine booted with cmdline (and -icount if icount),
    a hard time limit of timeout seconds for the whole run, COM2 in a
    scratch file; after it returns, forbid is checked on the transcript.
    A host test (qemu=False) gets a qemu.Checker. Failing = raising."""
    def register(fn):
        if name in TESTS:
            raise RuntimeError("two tests are named %r" % name)
        TESTS[name] = Test(name, fn, timeout, cmdline, icount, qemu, forbid, extra)
        return fn
    return register


def build_path(*parts):
    """A path under build/, where make puts everything."""
    return os.path.join(ROOT, "build", *parts)
