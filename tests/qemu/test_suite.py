# The suite's own guard: run.py refuses to test a build that make would
# rebuild, so that a stale kernel is never tested without a word. It asks
# make (make -n), so the Makefile's graph is the only one.
import os
import tempfile

from harness import test
import run

# A project of three files and two outputs, with the Makefile's shapes: a
# phony goal, a rule that runs every time (FORCE) and whose output is a
# prerequisite, and files that are nobody's prerequisites.
MAKEFILE = """\
.PHONY: all kprof-unit
all: build/os.iso build/kprof
kprof-unit:
build/os.iso: kernel/proc.c include/abi/kprof.h build/grub.cfg
\ttouch $@
build/grub.cfg: FORCE
\ttouch $@
build/kprof: tools/kprof/main.c
\ttouch $@
FORCE:
"""


def tree(root, files, when):
    for rel in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()
        os.utime(path, (when, when))


@test("run_refuses_stale_build", timeout=60, qemu=False)
def run_refuses_stale_build(h):
    """run.py --no-make refuses a build that make would rebuild, and names the
    source newer than its target or the output that is missing: a small
    project's Makefile, then the real one with a source taken as just
    edited (make -W)."""
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "Makefile"), "w") as f:
            f.write(MAKEFILE)
        tree(root, ["kernel/proc.c", "include/abi/kprof.h", "tools/kprof/main.c"], 1000)
        tree(root, ["build/os.iso", "build/kprof", "build/grub.cfg"], 2000)
        assert run.check_fresh(root) is None, run.check_fresh(root)
        # not sources of what is tested: notes, and the host tool's own tests
        tree(root, ["kernel/prof/README.md", "tools/kprof/test_cli.c"], 3000)
        assert run.check_fresh(root) is None, run.check_fresh(root)
        tree(root, ["kernel/proc.c"], 3000)
        msg = run.check_fresh(root) or ""
        h.check(msg, [r"^refusing to test a stale build \(run make\):$",
                      r"^kernel/proc\.c is newer than build/os\.iso$"])
        tree(root, ["kernel/proc.c"], 1000)
        os.remove(os.path.join(root, "build", "kprof"))
        h.check(run.check_fresh(root) or "", [r"^build/kprof: missing$"])
    # the real Makefile: what the suite tests is up to date (run.py has just
    # checked), an edited source is seen through make's own graph, a note is not
    assert run.check_fresh() is None, run.check_fresh()
    h.check(run.check_fresh(what_if=["kernel/proc.c"]) or "",
            [r"^refusing to test a stale build \(run make\):$",
             r"^kernel/proc\.c is newer than build/kernel/proc\.o$"])
    h.check(run.check_fresh(what_if=["include/abi/kprof.h"]) or "",
            [r"^include/abi/kprof\.h is newer than build/\S+ \(and \d+ more\)$"])
    assert run.check_fresh(what_if=["kernel/prof/README.md"]) is None
