# Host tests: the host tool's cmocka unit tests, no QEMU.
import os
import subprocess

from harness import build_path, test
from qemu import ROOT, VMError


@test("kprof_unit", timeout=120, qemu=False)
def kprof_unit(h):
    """the host tool's cmocka tests, under ASan and UBSan (reports, views,
    build-id check, every bad input, readprofile export, a regression test
    per fixed bug: a heat dump of zeros, counts past 2^64, CR line ends;
    every subcommand's `--help`, `--top`, `--force`, `--version`, options
    refused where they do not apply; every saved fuzzer input of every
    reader replayed)"""
    exe = build_path("kprof-unit")
    if not os.path.exists(exe):
        raise VMError("build/kprof-unit does not exist: run make kprof-unit")
    try:
        r = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=h.timeout)
    except subprocess.TimeoutExpired:
        raise VMError("build/kprof-unit ran longer than %ds" % h.timeout)
    h.text = r.stdout + r.stderr
    h.check(h.text, [r"^\[  PASSED  \] [1-9]\d* test"], forbid=[r"^\[  FAILED  \]"])
    if r.returncode != 0:
        raise VMError("build/kprof-unit exited with status %d" % r.returncode)
