#!/usr/bin/env python3
# Runs a script of shell lines in a fresh kprof-os and unpacks what it
# exported; --interactive boots it on this terminal (make run) and unpacks
# the session's exports under build/run/ when QEMU ends.
import argparse
import os
import re
import shlex
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402


def script_lines(path):
    """The non-empty lines of a script that are not '#' comments."""
    with open(path) as f:
        lines = [l.strip() for l in f]
    return [l for l in lines if l and not l.startswith("#")]


def failure(output):
    """The shell's message for a command of the line that failed, or None."""
    m = re.search(r"^sh: \S+: (not found|exit status \d+.*)$", output, re.M)
    return m.group(0) if m else None


class Guest:
    """A fresh kprof-os, typed at line by line:

        with Guest(out, cmdline, icount, timeout) as g:
            text = g.run(line)          # the line's output
        g.names                         # what the guest exported, unpacked in out

    boots on entering and waits for the prompt; halts on leaving, writes
    out/console.log and extracts the exports into out once QEMU has exited
    (g.m.archives() reads them each apart). timeout bounds each step (the
    boot, each line, the halt); total the whole run (default: timeout);
    extra are more QEMU arguments. A failure raises qemu.VMError naming the
    step, with what was exported before it kept in out."""

    def __init__(self, out, cmdline="", icount=False, timeout=120, extra=(), total=None):
        os.makedirs(out, exist_ok=True)
        self.out, self.timeout = out, timeout
        self.com2 = os.path.join(out, "com2.tar")
        self.m = qemu.Machine(cmdline, icount, total or timeout, extra, com2=self.com2,
                              halt_timeout=timeout)
        self.step, self.lines, self.names = "booting", 0, []

    def __enter__(self):
        try:
            self.m.start()
            self.m.wait_prompt(self.timeout)
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def run(self, line, timeout=None):
        """Types line at the prompt; returns its output (Machine.run)."""
        self.lines += 1
        self.step = "command %d %r" % (self.lines, line)
        return self.m.run(line, self.timeout if timeout is None else timeout)

    def __exit__(self, kind, e, tb):
        if kind is None:
            self.step = "halting"
            try:
                self.m.halt(self.timeout)
            except qemu.VMError as err:
                kind, e = type(err), err
        try:
            if kind is not None and issubclass(kind, qemu.VMError):
                self.m.close()
                # what was exported before the failure is kept (a time-out, say)
                try:
                    kept = qemu.extract_exports(self.com2, self.out)
                except qemu.VMError:
                    kept = []
                raise qemu.VMError("%s: %s%s" % (self.step, e, "; exported before it: %s"
                                                 % ", ".join(kept) if kept else ""))
        finally:
            self.m.close()
            with open(os.path.join(self.out, "console.log"), "w") as f:
                f.write(self.m.transcript())
        if kind is not None:
            return False
        self.names = qemu.extract_exports(self.com2, self.out)
        if {"console.log", "com2.tar"} & set(self.names):
            raise qemu.VMError("an exported file would overwrite console.log or com2.tar")
        return False


def run_script(lines, out, cmdline="", icount=False, timeout=120, extra=(), outputs=None, say=None):
    """Boots, types each line at the prompt, halts. Writes out/console.log,
    extracts the exports into out once QEMU has exited. timeout bounds each
    step (the boot, each line, the halt); extra are more QEMU arguments.
    outputs, a list, gets each line's output; say, a function, is told each
    step as it begins (for a long run: ACCURACY=1's heat run). Raises qemu.VMError with the
    reason on any failure."""
    if "halt" in lines[:-1]:
        raise qemu.VMError("command %d: halt before the end of the script"
                           % (lines.index("halt") + 1))
    lines = [l for l in lines if l != "halt"]   # run_script halts at the end anyway
    say = say or (lambda what: None)
    say("booting a fresh QEMU")
    with Guest(out, cmdline, icount, timeout, extra, total=timeout * (len(lines) + 2)) as g:
        for line in lines:
            say("running %s" % line)
            text = g.run(line)
            if outputs is not None:
                outputs.append(text)
        say("halting, and unpacking what the guest exported")
    return g.names


RUN_DIR = os.path.join(qemu.ROOT, "build", "run")      # make run's sessions: RUN_DIR/N


def new_session(base=RUN_DIR):
    """A fresh directory base/N for one make run session (N one more than
    the last), with base/latest pointing at it."""
    os.makedirs(base, exist_ok=True)
    n = 1 + max([int(d) for d in os.listdir(base) if d.isdigit()] or [0])
    out = os.path.join(base, str(n))
    os.makedirs(out)
    latest = os.path.join(base, "latest")
    if os.path.islink(latest) or os.path.exists(latest):
        os.remove(latest)
    os.symlink(str(n), latest)
    return out


class Unpacker(threading.Thread):
    """Unpacks the exports while QEMU runs, as each archive is finished (it
    ends in two zero blocks and the file has stopped growing): the files are
    there to read on the host before the session ends."""
    def __init__(self, com2, out):
        super().__init__(daemon=True)
        self.com2, self.out, self.seen, self.stop = com2, out, set(), threading.Event()

    def run(self):
        size = -1
        while not self.stop.wait(0.3):
            try:
                now = os.path.getsize(self.com2)
                if now == size or now == 0:
                    continue
                size = now
                time.sleep(0.2)
                if os.path.getsize(self.com2) != now:
                    continue
                with open(self.com2, "rb") as f:
                    f.seek(max(0, now - 1024))
                    if f.read() != bytes(min(1024, now)):
                        continue        # an archive is still coming
                for name in qemu.extract_exports(self.com2, self.out):
                    if name not in self.seen:
                        self.seen.add(name)
                        sys.stderr.write("\r\nvm.py: received %s\r\n" % name)
                        sys.stderr.flush()
            except (OSError, qemu.VMError):
                continue


def interactive(cmdline, icount, extra=(), out=None):
    """QEMU with COM1 on this terminal. The session's exports are unpacked
    under out (default: a new build/run/N, with build/run/latest pointing
    at it) as they arrive, and once more when QEMU ends (a later export of
    a name overwrites an earlier one). The raw COM2 bytes go to
    OUT-com2.tar. Returns 0 for a clean halt or Ctrl-A x."""
    out = os.path.abspath(out) if out else new_session()
    com2 = out.rstrip("/") + "-com2.tar"
    cmd = qemu.qemu_command(cmdline, icount, com2, extra, terminal=True)
    rel = os.path.relpath(out, qemu.ROOT)
    print("vm.py: ^C interrupts the guest's command; Ctrl-A x leaves QEMU; "
          "exported files go to %s/ as they arrive" % rel, file=sys.stderr)
    os.makedirs(os.path.dirname(com2), exist_ok=True)
    os.makedirs(out, exist_ok=True)
    open(com2, "wb").close()
    unpacker = Unpacker(com2, out)
    unpacker.start()
    proc = subprocess.Popen(cmd, cwd=qemu.ROOT)
    while True:
        try:
            status = proc.wait()
            break
        except KeyboardInterrupt:   # a SIGINT from elsewhere reaches QEMU too; wait for it
            continue
    unpacker.stop.set()
    unpacker.join()
    try:
        names = qemu.extract_exports(com2, out)
    except qemu.VMError as e:
        print("vm.py: %s" % e, file=sys.stderr)
        names = []
    for name in dict.fromkeys(names):   # once each, in order of first export
        print("vm.py: unpacked %s/%s" % (rel, name), file=sys.stderr)
    if not names:
        print("vm.py: nothing was exported", file=sys.stderr)
    if status == qemu.STATUS_OK:
        return 0
    if status == 0:
        print("vm.py: QEMU quit without a halt (Ctrl-A x, or a triple fault)", file=sys.stderr)
        return 0
    print("vm.py: QEMU exit status %s" % qemu.describe_status(status), file=sys.stderr)
    return status if status > 0 else 1


def main():
    ap = argparse.ArgumentParser(description="boot kprof-os and run a script in its shell")
    ap.add_argument("--script", help="shell lines to type, one a line ('#' comments)")
    ap.add_argument("--out", help="directory for console.log and the exported files "
                    "(--interactive: the exported files only; default a new build/run/N)")
    ap.add_argument("--cmdline", default="", help="kernel command-line words, e.g. 'hz=5000'")
    ap.add_argument("--icount", action="store_true", help="-icount shift=0,sleep=off")
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds for each step: the boot, each line, the halt (default 120)")
    ap.add_argument("--interactive", action="store_true",
                    help="COM1 on this terminal; exports unpacked under build/run/ at the end")
    ap.add_argument("--qemu-flags", default="", help="more QEMU arguments, one string")
    ap.add_argument("--keep-going", action="store_true",
                    help="exit 0 even when a line's command fails (not found, a non-zero status)")
    args = ap.parse_args()
    extra = shlex.split(args.qemu_flags)
    outputs = []
    try:
        if args.interactive:
            return interactive(args.cmdline, args.icount, extra, args.out)
        if not args.script or not args.out:
            ap.error("--script and --out are needed (or --interactive)")
        lines = script_lines(args.script)
        names = run_script(lines, args.out, args.cmdline, args.icount, args.timeout, extra, outputs)
    except (qemu.VMError, OSError) as e:
        print("vm.py: %s" % e, file=sys.stderr)
        return 1
    for name in names:
        print("vm.py: exported %s" % name)
    failed = [(i, l, failure(o)) for i, (l, o) in enumerate(zip(lines, outputs), 1) if failure(o)]
    for i, line, why in failed:
        print("vm.py: line %d %r failed: %s" % (i, line, why), file=sys.stderr)
    return 1 if failed and not args.keep_going else 0


if __name__ == "__main__":
    sys.exit(main())
