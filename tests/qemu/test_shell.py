# Shell tests: arguments, redirection, exit statuses, errors, cd, ls.
import os
import re

from harness import test
from qemu import ROOT


def same(m, line, want):
    """Runs line; its whole output must be want."""
    out = m.run(line)
    assert out == want, "%r printed %r, want %r" % (line, out, want)


@test("shell_args", timeout=30)
def shell_args(m):
    m.wait_prompt()
    same(m, "echo a b c", "a b c\n")
    same(m, "echo   spaced    out  ", "spaced out\n")
    same(m, "echo 'one  word' \"two  words\"", "one  word two  words\n")
    same(m, "echo -n no newline; echo", "no newline\n")
    m.halt()


@test("shell_redirect", timeout=30)
def shell_redirect(m):
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
    m.wait_prompt()
    out = m.run("ls /bin")
    m.check(out, [r"^file +[1-9]\d* %s$" % p for p in user_programs()])
    m.halt()
