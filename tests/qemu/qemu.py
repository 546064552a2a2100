# Boots kprof-os in QEMU and drives its serial console: the one library
# under vm.py (scripted runs) and run.py (the test suite).
import codecs
import os
import random
import re
import shutil
import subprocess
import tarfile
import threading
import time

# The checkout whose build/ is tested; KPROF_ROOT points a copy of the suite elsewhere.
ROOT = os.environ.get("KPROF_ROOT") or \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ISO = os.path.join(ROOT, "build", "os.iso")
QEMU = os.environ.get("QEMU", "qemu-system-i386")
PROMPT = "\n$ "

# Time-outs in host seconds; each is a parameter of Machine with these defaults.
ECHO_TIMEOUT = 10   # for the console to echo a typed line
HALT_TIMEOUT = 30   # from typing halt to QEMU's exit
REAP_TIMEOUT = 10   # for QEMU's exit status once it has closed its output
JOIN_TIMEOUT = 5    # for the reader threads once QEMU is gone

# Patterns that mean the kernel died; waits stop at once when one appears.
PANIC = re.compile(r"^(panic: |kernel trap \d+)", re.M)


def header_defines(name):
    """The numeric #defines of include/abi/NAME, so that each constant the
    tests need has its one definition there; a define made of others and
    numbers ((KERNBASE + 0x100000u), (PIT_INPUT_HZ / 2)) is worked out too."""
    with open(os.path.join(ROOT, "include", "abi", name)) as f:
        text = f.read()
    out = {k: int(v, 0) for k, v in
           re.findall(r"^#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)u?\b", text, re.M)}
    for k, expr in re.findall(r"^#define\s+(\w+)\s+((?:[^/\n]|/(?!\*))+?)\s*(?:/\*.*)?$", text, re.M):
        if k in out:
            continue
        expr = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)u\b", r"\1", expr)
        expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda w: str(out.get(w.group(0), "x")), expr)
        if re.fullmatch(r"[\s\d+\-*/()<>xa-fA-F]+", expr) and "x" not in re.sub(r"0x", "", expr):
            out[k] = eval(expr.replace("/", "//"), {"__builtins__": {}})    # C's integer division
    return out


# the console's line discipline keeps at most this many characters a line
LINEMAX = header_defines("console.h")["CONS_LINEMAX"] - 1


def exit_codes():
    """The KEXIT_* codes from include/abi/qemu_exit.h."""
    codes = {k: v for k, v in header_defines("qemu_exit.h").items() if k.startswith("KEXIT_")}
    for need in ("KEXIT_OK", "KEXIT_FAIL", "KEXIT_PANIC"):
        if need not in codes:
            raise RuntimeError("qemu_exit.h defines no " + need)
    return codes


def exit_status(code):
    """QEMU's exit status when the kernel writes code to isa-debug-exit."""
    return (code << 1) | 1


CODES = exit_codes()
STATUS_OK = exit_status(CODES["KEXIT_OK"])
STATUS_FAIL = exit_status(CODES["KEXIT_FAIL"])
STATUS_PANIC = exit_status(CODES["KEXIT_PANIC"])


def describe_status(status):
    names = {exit_status(v): k for k, v in CODES.items()}
    if status in names:
        return "%d (%s)" % (status, names[status])
    if status == 0:
        return "0 (no exit code written: a triple fault, or QEMU quit)"
    if status is not None and status < 0:
        return "%d (killed by signal %d)" % (status, -status)
    return str(status)


class VMError(Exception):
    """A run went wrong; str() is a one-line reason."""


class Timeout(VMError):
    def __init__(self, reason, pattern=None):
        super().__init__(reason)
        self.pattern = pattern      # what was being waited for, if a pattern


# For a person at a terminal (make run): COM1 and QEMU's monitor share stdio
# (Ctrl-A x quits QEMU, Ctrl-A c switches to the monitor and back), and with
# signal=off the terminal's ^C is a byte for the guest, not SIGINT for QEMU.
TERMINAL = ["-chardev", "stdio,id=term,mux=on,signal=off", "-serial", "chardev:term",
            "-mon", "chardev=term"]


def qemu_command(cmdline="", icount=False, com2=None, extra=(), iso=ISO, terminal=False):
    # -boot order=d: the BIOS would first try the floppy, which costs 5 s
    # of virtual time, a long wait under -icount.
    serial = TERMINAL if terminal else ["-serial", "stdio"]
    cmd = [QEMU, "-cdrom", iso, "-boot", "order=d", "-display", "none"] + serial + \
          ["-no-reboot", "-m", "128M", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if icount:
        cmd += ["-icount", "shift=0,sleep=off"]
    if com2:
        cmd += ["-serial", "file:" + com2]
    if cmdline.strip():
        # fw_cfg splits its option at commas; the kernel appends this to GRUB's line.
        if "," in cmdline:
            raise VMError("a comma cannot be passed through fw_cfg: %r" % cmdline)
        cmd += ["-fw_cfg", "name=opt/kprof/cmdline,string=" + cmdline.strip()]
    return cmd + list(extra)


class Checker:
    """Checks text against line-anchored patterns and keeps every verdict
    for the failure report. Host tests get one of these; Machine is one."""

    def __init__(self, timeout=60):
        self.timeout = timeout
        self.checks = []            # (verdict, pattern, line) for the failure report
        self.text = ""              # the output to save in the test's log

    def check(self, text, expect=(), forbid=(), ordered=False):
        """Every expect pattern (line-anchored: re.M) must match in text, in
        this order if ordered, and no forbid pattern may; the verdicts go to
        self.checks for the failure report."""
        bad = []
        pos = 0
        for rx in expect:
            m = re.compile(rx, re.M).search(text, pos)
            if m and ordered:
                pos = m.end()
            self.checks.append(("found" if m else "MISSING", rx, m.group(0) if m else ""))
            if not m:
                bad.append("missing /%s/" % rx)
        for rx in forbid:
            m = re.search(rx, text, re.M)
            if m:
                line = text[text.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
                self.checks.append(("FORBIDDEN", rx, line))
                bad.append("forbidden /%s/ appeared" % rx)
        if bad:
            raise VMError(bad[0] + (" (and %d more)" % (len(bad) - 1) if len(bad) > 1 else ""))

    def close(self):
        pass


# The sentinel's spawn failing for want of memory, and how often it is retried
SENTINEL_NOMEM = "sh: echo: Cannot allocate memory"
SENTINEL_TRIES = 20


class Machine(Checker):
    """One QEMU run. COM1 goes through pipes; a reader thread appends it to
    the transcript and wakes waiters, so every wait is a condition wait with
    a deadline. Every wait is also bounded by the run's own hard deadline
    (timeout); the other time-outs bound single steps.

    The prompt is confirmed with a sentinel: when the output shows "$ " the
    runner types "echo TOKEN-N" (TOKEN random for this run) and waits for
    the line TOKEN-N and the prompt after it, which only the shell's next
    command can print. Program output cannot fake it; transcript() leaves
    these lines out."""

    def __init__(self, cmdline="", icount=False, timeout=60, extra=(), com2=None, iso=ISO,
                 echo_timeout=ECHO_TIMEOUT, halt_timeout=HALT_TIMEOUT,
                 reap_timeout=REAP_TIMEOUT, join_timeout=JOIN_TIMEOUT):
        self.cmd = qemu_command(cmdline, icount, com2, extra, iso)
        super().__init__(timeout)
        self.echo_timeout, self.halt_timeout = echo_timeout, halt_timeout
        self.reap_timeout, self.join_timeout = reap_timeout, join_timeout
        self.token = "sync%08x" % random.getrandbits(32)
        self.nsentinel = 0
        self.iso = iso
        self.com2 = com2
        self.panic_ok = False       # set by tests that expect a kernel panic
        self.pos = 0                # expect() searches from here
        self.status = None
        self.proc = None
        self._cond = threading.Condition()
        self._eof = False
        self._stderr = b""

    # ---- starting and stopping ----

    def start(self):
        if not os.path.exists(self.iso):
            raise VMError("%s does not exist: run make" % os.path.relpath(self.iso, ROOT))
        if self.com2:
            open(self.com2, "wb").close()   # empty even if QEMU never starts
        self.started = time.monotonic()
        self.deadline = self.started + self.timeout
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=ROOT)
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for t in self._threads:
            t.start()
        return self

    def _read_stdout(self):
        dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        fd = self.proc.stdout.fileno()
        while True:
            data = os.read(fd, 4096)
            text = dec.decode(data, final=not data).replace("\r", "")
            with self._cond:
                self.text += text
                self._eof = not data
                self._cond.notify_all()
            if not data:
                return

    def _read_stderr(self):
        self._stderr = self.proc.stderr.read()

    def close(self):
        """Kills QEMU if it still runs; safe to call twice."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for t in self._threads:
            t.join(self.join_timeout)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def transcript(self):
        """The serial output so far, without the sentinel lines."""
        with self._cond:
            text = self.text
        for n in range(1, self.nsentinel + 1):
            tok = "%s-%d" % (self.token, n)
            whole = "$ echo %s\n%s\n" % (tok, tok)    # typed at a real prompt
            if whole in text:
                text = text.replace(whole, "", 1)
            else:                                   # typed ahead: echo and output apart
                text = text.replace("echo %s\n" % tok, "", 1).replace("$ %s\n" % tok, "", 1)
        return text

    def raw_transcript(self):
        """The serial output so far, sentinel lines included."""
        with self._cond:
            return self.text

    def stderr(self):
        return self._stderr.decode("utf-8", "replace")

    def elapsed(self):
        return time.monotonic() - self.started

    # ---- waiting ----

    def _wait(self, what, found, timeout, pattern=None):
        """Waits until found(text) returns non-None and returns that. Fails
        at the deadline, when QEMU exits, or at a kernel panic."""
        began = time.monotonic()
        end = self.deadline if timeout is None else min(self.deadline, began + timeout)
        with self._cond:
            while True:
                r = found(self.text)
                if r is not None:
                    return r
                if not self.panic_ok:
                    p = PANIC.search(self.text, self.pos)
                    if p:
                        line = self.text[p.start():].split("\n", 1)[0]
                        raise VMError("kernel died while waiting for %s: %s" % (what, line))
                if self._eof:
                    self.proc.wait(self.reap_timeout)
                    self.status = self.proc.returncode
                    raise VMError("QEMU exited with status %s while waiting for %s"
                                  % (describe_status(self.status), what))
                left = end - time.monotonic()
                if left <= 0:
                    raise Timeout("timed out after %.0fs waiting for %s"
                                  % (time.monotonic() - began, what), pattern)
                self._cond.wait(left)

    def expect(self, regex, timeout=None):
        """Waits for a line-anchored pattern (re.M: ^ and $ are line ends) in
        the complete lines after self.pos; moves self.pos past the match."""
        rx = re.compile(regex, re.M)

        def found(text):
            # Only complete lines: the search ends at the last newline.
            end = text.rfind("\n")
            return rx.search(text, self.pos, end) if end >= self.pos else None
        try:
            m = self._wait("/%s/" % regex, found, timeout, regex)
        except VMError:
            self.checks.append(("MISSING", regex, ""))
            raise
        self.checks.append(("found", regex, m.group(0)))
        self.pos = m.end()
        return m

    def wait_prompt(self, timeout=None):
        """Waits for the shell's prompt and confirms it with a sentinel (see
        the class). Called after the echo of the typed line (or at boot), so
        the prompt that line was typed at cannot count. Returns the output
        from self.pos up to the prompt, without the sentinel's echo, and
        moves self.pos past the sentinel. Output that does not end in a
        newline (echo -n) runs into the prompt: use type_line() and expect()
        for such a command."""
        def candidate(text):
            # "$ " at the start of a line; the line's own echo ends in "\n"
            if self.pos == 0 and text.startswith("$ "):
                return 0
            i = text.find(PROMPT, max(0, self.pos - 1))
            return None if i < 0 else i
        self._wait("the shell prompt", candidate, timeout)
        # Under page-allocation fault injection the sentinel's own spawn may
        # fail ("sh: echo: Cannot allocate memory"): then it is typed again.
        failed = []
        for attempt in range(SENTINEL_TRIES):
            self.nsentinel += 1
            tok = "%s-%d" % (self.token, self.nsentinel)
            typed = "echo %s\n" % tok
            self.send(typed)

            def confirmed(text):
                # The sentinel's output starts a line, or follows the prompt
                # directly when its echo came out before the prompt; then
                # comes the next prompt, maybe after background jobs' reports.
                for before in ("\n", "$ "):
                    i = text.find(before + tok + "\n", self.pos)
                    if i >= 0:
                        start = i + len(before)
                        after = start + len(tok) + 1
                        if text.startswith("$ ", after):
                            return start, after + 2
                        j = text.find(PROMPT, after - 1)
                        return None if j < 0 else (start, j + len(PROMPT))
                k = text.find(typed + SENTINEL_NOMEM + "\n", self.pos)
                if k >= 0 and text.find(PROMPT, k + len(typed)) >= 0:
                    return "retry"
                return None
            got = self._wait("the shell prompt (sentinel %s)" % tok, confirmed, timeout)
            if got != "retry":
                break
            failed.append(typed + SENTINEL_NOMEM + "\n$ ")
        else:
            raise VMError("the sentinel could not run %d times: out of memory" % SENTINEL_TRIES)
        start, end = got
        out = self.text[self.pos:start]
        for f in failed:
            out = out.replace(f, "", 1)
        out = out.replace("echo %s\n" % tok, "", 1)
        if out.endswith("$ "):
            out = out[:-2]
        self.pos = end
        return out

    def wait_exit(self, timeout=None):
        """Waits for QEMU to exit and returns its exit status."""
        self._wait("QEMU to exit", lambda text: True if self._eof else None, timeout)
        left = max(0.1, self.deadline - time.monotonic())
        try:
            self.status = self.proc.wait(left)
        except subprocess.TimeoutExpired:
            raise Timeout("QEMU closed its output but did not exit")
        return self.status

    # ---- typing ----

    def send(self, data):
        """Types data at once (the console echoes it as it arrives)."""
        try:
            self.proc.stdin.write(data.encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise VMError("QEMU is gone; could not type %r" % data)

    def type_line(self, line):
        """Types one line and waits for its echo; moves self.pos past it."""
        if "\n" in line or len(line) > LINEMAX:
            raise VMError("cannot type %r: one line of at most %d characters" % (line, LINEMAX))
        with self._cond:
            self.pos = len(self.text)
        self.send(line + "\n")
        # The console echoes printable characters only, then "\r\n".
        echo = "".join(c for c in line if " " <= c < "\x7f" or c == "\t") + "\n"

        def found(text):
            i = text.find(echo, self.pos)
            return None if i < 0 else i + len(echo)
        self.pos = self._wait("the echo of %r" % line, found, self.echo_timeout)

    def run(self, line, timeout=None):
        """Types a line at the prompt (wait_prompt() must have been seen),
        waits for the next prompt and returns the output in between, the
        echoed line removed."""
        self.type_line(line)
        return self.wait_prompt(timeout)

    def fresh_prompt(self, timeout=None):
        """Types a comment line and waits for the prompt after it, to start
        afresh after asynchronous output (a background job) or after a
        command that was waited for with expect(). The comment's echo is
        unique, which a bare Enter's is not."""
        self.nsync = getattr(self, "nsync", 0) + 1
        return self.run("# sync %d" % self.nsync, timeout)

    def halt(self, timeout=None):
        """Types halt at the prompt and checks that the kernel powered off cleanly."""
        timeout = self.halt_timeout if timeout is None else timeout
        self.type_line("halt")
        self.expect(r"^halt: powering off", timeout)
        status = self.wait_exit(timeout)
        if status != STATUS_OK:
            raise VMError("halt: QEMU exit status %s, want %s"
                          % (describe_status(status), describe_status(STATUS_OK)))

    def _com2_done(self):
        """The COM2 file, once QEMU has exited: only then is all it wrote
        in the file."""
        if not self.com2:
            raise VMError("this machine has no COM2 file")
        if self.proc is None or self.proc.poll() is None:
            raise VMError("exports are read after QEMU has exited (halt first)")
        return self.com2

    def exports(self, dest):
        """Extracts everything the guest exported into dest; see extract_exports."""
        return extract_exports(self._com2_done(), dest)

    def archives(self):
        """Each export's files in order, as a list of {name: bytes}."""
        return read_archives(self._com2_done())


def read_archives(com2):
    """The ustar archives that export wrote to the COM2 file, one after the
    other, as a list of {name: bytes}: an archive ends at its two zero
    blocks (ignore_zeros would run them all together)."""
    if not os.path.exists(com2):
        return []
    data = open(com2, "rb").read()
    archives, off = [], 0
    while off < len(data):
        members = {}
        while off + 512 <= len(data) and data[off:off + 512] != bytes(512):
            hdr = data[off:off + 512]
            try:
                name = hdr[0:100].rstrip(b"\0").decode()
                prefix = hdr[345:500].rstrip(b"\0").decode()
                size = int(hdr[124:136].strip(b"\0 ") or b"0", 8)
            except ValueError as e:
                raise VMError("export archive %s at byte %d: bad header (%s)" % (com2, off, e))
            members[(prefix + "/" + name) if prefix else name] = data[off + 512:off + 512 + size]
            off += 512 + (size + 511) // 512 * 512
        if members:
            archives.append(members)
        off += 1024     # the two zero blocks
    return archives


def extract_exports(com2, dest):
    """Extracts every file of the ustar archives that export wrote to the COM2
    file (several may be concatenated) into dest, keeping their paths; a later
    archive's file replaces an earlier one of the same name. Returns the
    relative paths. Refuses absolute paths, '..' and anything but plain files."""
    if not os.path.exists(com2) or os.path.getsize(com2) == 0:
        return []
    names = []
    try:
        with tarfile.open(com2, "r:", ignore_zeros=True) as tar:
            for m in tar:
                parts = m.name.split("/")
                if m.name.startswith("/") or ".." in parts or not m.name:
                    raise VMError("export archive: unsafe path %r" % m.name)
                if not m.isfile():
                    raise VMError("export archive: %r is not a plain file" % m.name)
                path = os.path.join(dest, *[p for p in parts if p not in ("", ".")])
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with tar.extractfile(m) as src, open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                names.append(m.name)
    except tarfile.TarError as e:
        raise VMError("export archive %s: %s" % (com2, e))
    return names
