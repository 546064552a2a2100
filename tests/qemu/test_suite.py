# The suite's own guard: run.py refuses to test a build older than its
# sources, so that a stale kernel is never tested without a word.
import os
import tempfile

from harness import test
import run


def tree(root, files, when):
    for rel in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()
        os.utime(path, (when, when))


@test("run_refuses_stale_build", timeout=30, qemu=False)
def run_refuses_stale_build(h):
    """run.py --no-make refuses a build older than a source file, and names it."""
    with tempfile.TemporaryDirectory() as root:
        tree(root, ["kernel/proc.c", "include/abi/kprof.h", "tools/kprof/main.c"], 1000)
        tree(root, ["build/os.iso", "build/kprof"], 2000)
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
