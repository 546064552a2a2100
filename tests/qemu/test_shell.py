# Shell tests: arguments, redirection, exit statuses, errors, cd, ls, ^C,
# long lines, kpr, and prompts the runner must not be fooled by.
import os
import re
import time

from harness import test
from qemu import ROOT


def same(m, line, want):
    """Runs line; its whole output must be want."""
    out = m.run(line)
    assert out == want, "%r printed %r, want %r" % (line, out, want)


@test("shell_args", timeout=30)
def shell_args(m):
    """arguments, quotes, `>`, `>>`, `<`, errors and exit statuses, `cd`, `ls
    /bin`"""
    m.wait_prompt()
    same(m, "echo a b c", "a b c\n")
    same(m, "echo   spaced    out  ", "spaced out\n")
    same(m, "echo 'one  word' \"two  words\"", "one  word two  words\n")
    same(m, "echo -n no newline; echo", "no newline\n")
    m.halt()


@test("shell_globs", timeout=30)
def shell_globs(m):
    """* and ? in a word's last part become the names that match, sorted,
    when the command runs (a file an earlier command of the line made is
    found); quoted, or matching nothing, the word stays; export counts
    one file as one."""
    m.wait_prompt()
    same(m, "mkdir /tmp/g; echo a > /tmp/g/x2; echo b > /tmp/g/x1; echo c > /tmp/g/y1", "")
    same(m, "echo /tmp/g/x*", "/tmp/g/x1 /tmp/g/x2\n")
    same(m, "echo '/tmp/g/x*' \"/tmp/g/?1\" /tmp/g/\\*", "/tmp/g/x* /tmp/g/?1 /tmp/g/*\n")
    same(m, "echo /tmp/g/?1 /tmp/g/zz*", "/tmp/g/x1 /tmp/g/y1 /tmp/g/zz*\n")
    same(m, "cd /tmp/g; echo x? *; cd /", "x1 x2 x1 x2 y1\n")
    same(m, "echo d > /tmp/g/z9; echo /tmp/g/z*", "/tmp/g/z9\n")
    out = m.run("export /tmp/g/y*")
    assert "export: 1 file, 2 bytes" in out, out
    m.halt()


@test("shell_redirect", timeout=30)
def shell_redirect(m):
    """arguments, quotes, `>`, `>>`, `<`, errors and exit statuses, `cd`, `ls
    /bin`"""
    m.wait_prompt()
    same(m, "echo hello > /tmp/f", "")
    same(m, "cat /tmp/f", "hello\n")
    same(m, "cat < /tmp/f", "hello\n")
    same(m, "echo world >> /tmp/f", "")
    same(m, "cat /tmp/f", "hello\nworld\n")
    same(m, "echo new > /tmp/f", "")           # > truncates
    same(m, "cat < /tmp/f", "new\n")
    same(m, "cat < /tmp/f > /tmp/g; cat /tmp/g", "new\n")
    m.halt()


@test("shell_errors", timeout=30)
def shell_errors(m):
    """arguments, quotes, `>`, `>>`, `<`, errors and exit statuses, `cd`, `ls
    /bin`"""
    m.wait_prompt()
    out = m.run("fault null")
    m.check(out, [r"^sh: fault: exit status 139\b"])
    same(m, "nosuch", "sh: nosuch: not found\n")
    same(m, "echo >", "sh: syntax error: missing file after >\n")
    same(m, "cat <", "sh: syntax error: missing file after <\n")
    out = m.run("cat /nonexistent")
    m.check(out, [r"^cat: /nonexistent: .+$", r"^sh: cat: exit status 1$"], ordered=True)
    same(m, "echo still here", "still here\n")     # the shell survived all that
    m.halt()


@test("shell_cd", timeout=30)
def shell_cd(m):
    """arguments, quotes, `>`, `>>`, `<`, errors and exit statuses, `cd`, `ls
    /bin`"""
    m.wait_prompt()
    same(m, "cd /tmp", "")
    same(m, "mkdir d", "")
    same(m, "echo x > d/f", "")
    same(m, "cat /tmp/d/f", "x\n")
    same(m, "cd d", "")
    same(m, "cat f", "x\n")
    same(m, "cat ../d/./f", "x\n")
    same(m, "ls", "file        2 f\n")
    m.check(m.run("cd /nosuch"), [r"^sh: cd: /nosuch: .+$"])
    same(m, "cat f", "x\n")                        # still in /tmp/d
    m.halt()


def user_programs():
    """USER_PROGS from user/user.mk: what the initrd's /bin must hold."""
    with open(os.path.join(ROOT, "user", "user.mk")) as f:
        text = f.read().replace("\\\n", " ")
    return re.search(r"^USER_PROGS\s*:=(.*)$", text, re.M).group(1).split()


@test("shell_ls_bin", timeout=30)
def shell_ls_bin(m):
    """arguments, quotes, `>`, `>>`, `<`, errors and exit statuses, `cd`, `ls
    /bin`"""
    m.wait_prompt()
    out = m.run("ls /bin")
    m.check(out, [r"^file +[1-9]\d* %s$" % p for p in user_programs()])
    m.halt()


@test("shell_interrupt", timeout=60)
def shell_interrupt(m):
    """^C kills the foreground job and its children, spares background jobs
    and the shell; the shell reports it and the next command runs."""
    m.wait_prompt()
    bg = int(re.search(r"^\[(\d+)\]$", m.run("spin 100000 &"), re.M).group(1))
    # sh -c prints first, so the job is known to run before ^C is typed
    m.type_line("sh -c 'echo started; spin 100000'; echo not reached")
    m.expect(r"^started$")
    m.send("\x03")
    out = m.wait_prompt()
    m.check(out, [r"^\^C$", r"^sh: sh: exit status 130 \(interrupted\)$"],
            forbid=[r"^not reached$"], ordered=True)
    same(m, "echo next", "next\n")
    # the foreground spin died with its shell; the background one runs on
    procs = re.findall(r"^\s*(\d+)\s+\d+\s+\S+\s+\d+\s+\d+\s+kprof\s+spin$", m.run("ps"), re.M)
    assert procs == [str(bg)], "spin processes after ^C: %s, want only %d" % (procs, bg)
    # a plain command, after a moment so that the shell has named it
    m.type_line("spin 100000")
    time.sleep(1)
    m.send("\x03")
    m.check(m.wait_prompt(), [r"^\^C$", r"^sh: spin: exit status 130 \(interrupted\)$"],
            ordered=True)
    # ^C at the prompt throws the typed text away and prompts again
    m.send("echo half")
    m.send("\x03")
    m.check(m.wait_prompt(), [r"^echo half\^C$"])
    same(m, "echo whole", "whole\n")
    same(m, "kill %d" % bg, "")
    m.halt()


@test("shell_long_line", timeout=30)
def shell_long_line(m):
    """A console line over 255 characters is dropped, and says so."""
    m.wait_prompt()
    m.send("echo " + "x" * 300 + "\n")
    out = m.wait_prompt()
    m.check(out, [r"^console: line longer than 255 characters, dropped$"], forbid=[r"^x+$"])
    same(m, "echo " + "y" * 250, "y" * 250 + "\n")     # 255 is still fine
    m.halt()


@test("shell_kpr", timeout=60, icount=True)
def shell_kpr(m):
    """kpr starts profiling, runs one command and stops, even when the
    command is killed with ^C."""
    m.wait_prompt()
    m.check(m.run("kpr kwork loop 1000000 20"),
            [r"^kwork: loop done$",
             r"^kpr: ([1-9]\d*) ticks, \1 in the kernel, at 1000\.153 Hz; export /dev/kpdata"],
            ordered=True)
    m.check(m.run("cat /dev/kpinfo"), [r"^state off$", r"^ticks [1-9]\d*$"])
    m.type_line("kpr sh -c 'echo started; spin 100000'")
    m.expect(r"^started$")
    m.send("\x03")
    m.check(m.wait_prompt(), [r"^sh: sh: exit status 130 \(interrupted\)$", r"^kpr: \d+ ticks"],
            ordered=True)
    m.check(m.run("cat /dev/kpinfo"), [r"^state off$"])
    m.check(m.run("kpr"), [r"^usage: kpr COMMAND"])
    m.halt()


@test("shell_fake_prompt", timeout=60)
def shell_fake_prompt(m):
    """Output that ends in a newline and '$ ' and then pauses is not taken
    for the prompt: the runner waits for its sentinel."""
    m.wait_prompt()
    same(m, "sh -c 'echo a; echo -n \"$ \"; sleep 1500'", "a\n$ ")
    same(m, "echo after", "after\n")
    m.halt()
