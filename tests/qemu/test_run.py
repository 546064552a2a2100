# make run's terminal: vm.py --interactive on a pseudo-terminal, as a person
# would use it: ^C reaches the guest, Ctrl-A x leaves QEMU, and the
# session's exports are unpacked as they arrive and at the end, a later
# one overwriting; each session has its own directory.
import os
import pty
import re
import select
import shutil
import sys
import tempfile
import time

from harness import test
from qemu import ROOT, VMError

VM = os.path.join(ROOT, "tests", "qemu", "vm.py")


class Terminal:
    """A child process on a pseudo-terminal, its output collected."""

    def __init__(self, argv, deadline):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(ROOT)
            os.execvp(argv[0], argv)
        self.out = b""
        self.pos = 0                # expect() searches from here
        self.deadline = deadline

    def expect(self, regex, what):
        """Waits for regex (re.M) after the last match; moves past it."""
        rx = re.compile(regex.encode(), re.M)
        while not rx.search(self.out, self.pos):
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise VMError("timed out waiting for %s" % what)
            r, _, _ = select.select([self.fd], [], [], min(left, 1))
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:     # the child closed the terminal
                    data = b""
                if not data:
                    raise VMError("the terminal closed while waiting for %s" % what)
                self.out += data.replace(b"\r", b"")
        self.pos = rx.search(self.out, self.pos).end()

    def type(self, data):
        os.write(self.fd, data)

    def finish(self):
        """Reads to the end and returns the exit status."""
        while time.monotonic() < self.deadline:
            r, _, _ = select.select([self.fd], [], [], 1)
            try:
                data = os.read(self.fd, 4096) if r else None
            except OSError:
                data = b""
            if data == b"":
                break
            if data:
                self.out += data.replace(b"\r", b"")
        pid, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


@test("make_run_terminal", timeout=120, qemu=False)
def make_run_terminal(h):
    """`make run`'s runner on a pseudo-terminal: ^C reaches the guest (QEMU
    survives), Ctrl-A x leaves, both sessions' exports are unpacked and the
    later one wins"""
    out = tempfile.mkdtemp(prefix="kprof-run-")
    t = Terminal([sys.executable, VM, "--interactive", "--icount", "--out", out],
                 time.monotonic() + h.timeout - 10)
    try:
        t.expect(r"^\$ ", "the first prompt")
        t.type(b"sh -c 'echo started; spin 100000'\r")
        t.expect(r"^started$", "spin to start")
        t.type(b"\x03")             # from a terminal: without signal=off, QEMU would die here
        t.expect(r"^sh: sh: exit status 130 \(interrupted\)\n\$ ", "the status line after ^C")
        t.type(b"echo one > /tmp/note; export /tmp/note\r")
        t.expect(r"^export: 1 file, 4 bytes\n\$ ", "the first export and a prompt")
        # unpacked while QEMU still runs, not only at the end
        t.expect(r"^vm.py: received tmp/note$", "the export unpacked during the session")
        with open(os.path.join(out, "tmp", "note")) as f:
            assert f.read() == "one\n", "tmp/note during the session"
        t.type(b"echo second > /tmp/note; echo x > /tmp/x; export /tmp/note /tmp/x\r")
        t.expect(r"^export: 2 files, 9 bytes$", "the second export")
        t.type(b"\x01x")            # Ctrl-A x: leave QEMU
        status = t.finish()
        h.text = t.out.decode(errors="replace")
        h.check(h.text, [r"^vm.py: unpacked %s/tmp/note$" % re.escape(os.path.relpath(out, ROOT)),
                         r"^vm.py: unpacked .*/tmp/x$",
                         r"^vm.py: QEMU quit without a halt \(Ctrl-A x"],
                forbid=[r"terminating on signal"])
        assert status == 0, "vm.py exit status %d after Ctrl-A x" % status
        with open(os.path.join(out, "tmp", "note")) as f:
            assert f.read() == "second\n", "tmp/note is not the later export's"
        assert os.path.exists(os.path.join(out, "tmp", "x"))
    finally:
        if not h.text:
            h.text = t.out.decode(errors="replace")
        try:
            os.kill(t.pid, 9)
        except ProcessLookupError:
            pass
        shutil.rmtree(out, ignore_errors=True)
        if os.path.exists(out + "-com2.tar"):
            os.remove(out + "-com2.tar")


@test("make_run_sessions", timeout=30, qemu=False)
def make_run_sessions(h):
    """Each make run session unpacks into a directory of its own, N one more
    than the last, and latest points at the newest: two sessions' exports
    never mix."""
    sys.path.insert(0, os.path.dirname(VM))
    import vm
    base = tempfile.mkdtemp(prefix="kprof-sessions-")
    try:
        a = vm.new_session(base)
        b = vm.new_session(base)
        assert (os.path.basename(a), os.path.basename(b)) == ("1", "2"), (a, b)
        assert os.readlink(os.path.join(base, "latest")) == "2"
        os.makedirs(os.path.join(base, "7"))
        assert os.path.basename(vm.new_session(base)) == "8"
        assert os.readlink(os.path.join(base, "latest")) == "8"
    finally:
        shutil.rmtree(base, ignore_errors=True)
