# Linux programs: a static glibc program (user/linux/hello.c, built by the
# ordinary cross compiler) runs through the Linux system-call interface
# (kernel/linux.c) and prints what it prints on the host, which runs the
# same i386 binary natively.
import re
import subprocess

from harness import build_path, test

HELLO = build_path("user", "bin", "hello")
ENOSYS_LINE = r"^linux: hello \(pid \d+\): fork \(2\) not implemented$"


def host(*args):
    """(stdout, status) of the program run on the host"""
    r = subprocess.run([HELLO] + list(args), capture_output=True, text=True, timeout=30)
    return r.stdout, r.returncode


@test("linux_hello", timeout=120, icount=True)
def linux_hello(m):
    """hello (glibc: printf, malloc past the mmap threshold, TLS, SSE2
    floating point, a file in /tmp) prints what it prints on the host and
    exits with its status; so does the same program as a static PIE"""
    want, status = host()
    assert status == 3, "on the host hello exited %d" % status
    m.wait_prompt()
    for prog in ("hello", "hello.pie"):
        out = m.run(prog)
        assert out == want + "sh: %s: exit status 3\n" % prog, \
            "%s printed %r, the host %r" % (prog, out, want)
    m.halt()


@test("linux_abort", timeout=60, icount=True)
def linux_abort(m):
    """abort() ends the program as SIGABRT: wait status 134 (128 + 6), as
    the host's shell shows it; a write to NULL ends it with 139"""
    want, status = host("abort")
    assert status == -6, "on the host hello abort ended %d" % status
    m.wait_prompt()
    out = m.run("hello abort")
    assert out == want + "sh: hello: exit status 134\n", "hello abort printed %r" % out
    # a fault kills a Linux program as it kills the project's: 139, as
    # SIGSEGV shows in a shell, and the kernel's line
    want, status = host("segv")
    assert status == -11, "on the host hello segv ended %d" % status
    out = m.run("hello segv")
    m.check(out, [r"^writing to NULL$", r"^pid \d+ \(hello\): page fault at 0x00000000 eip 0x[0-9a-f]{8}$",
                  r"^sh: hello: exit status 139 \(fault\)$"], ordered=True)
    m.halt()


@test("linux_enosys", timeout=60, icount=True)
def linux_enosys(m):
    """a call the kernel lacks gives ENOSYS and one console line that names
    it, however often it is made; glibc's start-up probes make none"""
    m.wait_prompt()
    out = m.run("hello enosys")
    m.check(out, [r"^fork: -1 Function not implemented, again -1$"])
    assert len(re.findall(ENOSYS_LINE, out, re.M)) == 1, "want one line: %r" % out
    assert len(re.findall(r"^linux: ", out, re.M)) == 1, "other lines: %r" % out
    out = m.run("hello")
    assert not re.search(r"^linux: ", out, re.M), "hello said: %r" % out
    m.halt()


@test("linux_badelf", timeout=60, icount=True)
def linux_badelf(m):
    """a dynamically linked program is refused with a line that says why;
    a cut-short one and one for x86-64 with ENOEXEC; the shell goes on"""
    m.wait_prompt()
    m.check(m.run("hello.dyn"),
            [r"^exec: /bin/hello.dyn: a dynamically linked program \(PT_INTERP\); "
             r"only static programs run here$",
             r"^sh: hello.dyn: Exec format error$"], ordered=True)
    for prog in ("hello.cut", "hello.amd64"):
        out = m.run(prog)
        assert out == "sh: %s: Exec format error\n" % prog, "%s: %r" % (prog, out)
    assert m.run("echo alive") == "alive\n"
    m.halt()


@test("linux_calls", timeout=90, icount=True)
def linux_calls(m):
    """argv, the environment and the auxiliary vector; a stack that grows
    to 2 MiB; a directory read with getdents64; the console is a terminal"""
    m.wait_prompt()
    out = m.run("hello args A B")
    want, _ = host("args", "A", "B")
    want = want.replace("argv[0] = %s\n" % HELLO, "argv[0] = hello\n")
    want = re.sub(r"^PATH=.*$", "PATH=/bin", want, flags=re.M)
    assert out == want, "hello args printed %r, want %r" % (out, want)
    assert m.run("hello stack") == "stack: 32\n"
    m.check(m.run("hello dir"), [r"^dir: hello$", r"^dir: hello.pie$", r"^dir: and others$"])
    assert m.run("hello tty") == "tty: yes\n"
    m.halt()


SEED = "linux.seed=12345 linux.epoch=1000000000"


def random_lines(out):
    return [line for line in out.splitlines() if not line.startswith("time:")]


@test("linux_repeat", timeout=120, icount=True, cmdline=SEED)
def linux_repeat(m):
    """getrandom and AT_RANDOM come from the boot line's linux.seed, the
    wall clock from linux.epoch: two runs in a row differ from each other,
    and a second boot with the same line gives the same two runs"""
    from qemu import Machine
    m.wait_prompt()
    first = [m.run("hello random") for _ in range(2)]
    m.halt()
    for out in first:
        t = int(re.search(r"^time: (\d+)$", out, re.M).group(1))
        assert 1000000000 <= t < 1000000000 + 600, "time %d from epoch 1000000000" % t
    assert random_lines(first[0]) != random_lines(first[1]), "two runs drew the same"
    with Machine(SEED, icount=True, timeout=60) as m2:
        m2.wait_prompt()
        second = [m2.run("hello random") for _ in range(2)]
        m2.halt()
    assert [random_lines(o) for o in first] == [random_lines(o) for o in second], \
        "the same boot line drew %r, then %r" % (first, second)


@test("linux_fuzz", timeout=300, icount=True)
def linux_fuzz(m):
    """random Linux calls with edge-value arguments (user/linux/lfuzz.c):
    the kernel answers every one, and the program reaches its end; then
    again with every engine on at once (the stack engine, Monte Carlo,
    devkprof around DosProfile's driver), and under the heat engine,
    which single-steps it"""
    m.wait_prompt()
    out = m.run("lfuzz 20000 7", timeout=240)
    m.check(out, [r"^lfuzz: 20000 calls, \d+ errors, \d+ ok$"])
    assert m.run("echo alive") == "alive\n"
    out = m.run("echo start > /dev/stackctl; prof on; kpr dosprof -m hit -t 5 -p lfuzz lfuzz 20000 8; "
                "prof off; echo stop > /dev/stackctl", timeout=240)
    m.check(out, [r"^lfuzz: 20000 calls, \d+ errors, \d+ ok$", r"^kpr: \d+ ticks",
                  r"^dump /tmp/prof/dosprof\.\d+$", r"^Total samples recorded = +\d+$"])
    out = m.run("heat lfuzz 2000 9", timeout=240)
    m.check(out, [r"^lfuzz: 2000 calls, \d+ errors, \d+ ok$",
                  r"^heat: pid \d+ exited with status 0: \d+ instructions"])
    assert m.run("echo alive") == "alive\n"
    m.halt()


@test("linux_ps", timeout=60)
def linux_ps(m):
    """ps shows which system calls each process makes: linux for a glibc
    program (Lua), kprof for the project's own (the shell)"""
    m.wait_prompt()
    bg = int(re.search(r"^\[(\d+)\]$", m.run("lua -e 'for i = 1, 1e9 do end' &"), re.M).group(1))
    out = m.run("ps")
    m.check(out, [r"^PID PPID STATE UTICKS KTICKS ABI +NAME$",
                  r"^\s*%d\s+\d+\s+\S+\s+\d+\s+\d+\s+linux\s+lua$" % bg,
                  r"^\s*1\s+0\s+\S+\s+\d+\s+\d+\s+kprof\s+sh$"])
    m.run("kill %d" % bg)
    m.halt()
