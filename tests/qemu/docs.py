#!/usr/bin/env python3
# The manual, tested: every pasted block of output in the pages below is
# remade by running the command it shows, and compared (make docs writes the
# fresh output back). python3 tests/qemu/docs.py [--write] [--list] [PAGE...]
#
# A block of output is a ``` fence with no language whose `$ ` lines are the
# commands and whose other lines are their output. HTML comments on the lines
# just above the fence (the reader does not see them) say how to remake it:
#
#   <!-- run: guest SESSION -->     typed at the prompt of the guest SESSION
#                                   (one boot under -icount per session; its
#                                   exports land in build/docs/SESSION/)
#   <!-- run: host [WORD...] -->    run by sh at the top of the tree, after
#                                   every guest session; WORDs:
#                                   alias=SHOWN=REAL (the commands' SHOWN path
#                                   is REAL, and REAL in the output reads
#                                   SHOWN), env=NAME=VALUE, one (the first
#                                   `$ ` line is the only command: later ones
#                                   are its output, make profile's echo)
#   <!-- session: SESSION BOOTWORDS -->   the session's kernel command line
#   <!-- mask: REGEX -->            what legitimately varies: each match is
#                                   <masked> on both sides before comparing
#   <!-- sub: REGEX => TEXT -->     the fresh output with each match made TEXT
#                                   before anything else (a terminal's escape
#                                   sequences made readable)
#   <!-- value NAME: REGEX -->      group 1 of REGEX in the block is NAME;
#                                   prose says <!--=NAME-->19.0<!--/--> and
#                                   is checked and rewritten the same way
#   <!-- image: MADE PAGE.svg -->   the block's commands made the file MADE;
#                                   the committed PAGE.svg must be the same,
#                                   and PAGE.png beside it must say (a tEXt
#                                   chunk, kprof-docs-source: its sha256) that
#                                   it was rendered from it: make docs copies
#                                   MADE and renders the PNG (headless Chromium)
#   <!-- not output: WHY -->        a block that is not a command's output
#                                   (a synopsis, a diagram)
#
# A line `...` in a command's output stands for lines left out: the lines
# before it are the output's first lines, those after it its last, a middle
# part is found by its first line (its figures aside). A fence with a language (```c, ```sh) is
# source, not output.
import argparse
import concurrent.futures
import difflib
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import qemu  # noqa: E402

ROOT = qemu.ROOT
PAGES = ["README.md", "docs/*.md", "kernel/prof/README.md", "tools/kprof/README.md",
         "user/README.md", "tests/qemu/README.md"]
OUTDIR = os.path.join(ROOT, "build", "docs")
STEP_TIMEOUT = 300
MASKED = "<masked>"
COMMENT = re.compile(r"^<!--\s*(.*?)\s*-->\s*$")


def pages():
    import glob
    out = []
    for p in PAGES:
        out += sorted(glob.glob(os.path.join(ROOT, p)))
    return [os.path.relpath(p, ROOT) for p in out]


class Block:
    """One fenced block: where it is, its rules, its lines."""

    def __init__(self, page, start, info, lines, comments):
        self.page, self.start, self.info = page, start, info      # start: the fence's index
        self.lines, self.comments = lines, comments
        self.kind, self.session, self.words = None, None, []
        self.masks, self.values, self.subs, self.images = [], {}, [], []
        self.fresh = None           # [(cmd, [lines])] once run
        self.error = None
        for c in comments:
            m = re.match(r"run:\s*(guest|host)\b\s*(.*)$", c)
            if m:
                self.kind = m.group(1)
                words = shlex.split(m.group(2))
                if self.kind == "guest":
                    if not words:
                        raise SyntaxError("%s: 'run: guest' needs a session name" % self.where())
                    self.session, words = words[0], words[1:]
                self.words = words
            m = re.match(r"mask:\s*(.*)$", c)
            if m:
                self.masks.append(re.compile(m.group(1)))
            m = re.match(r"image:\s*(\S+)\s+(\S+)$", c)
            if m:
                self.images.append((m.group(1), m.group(2)))
            m = re.match(r"sub:\s*(.*?)\s*=>\s*(.*)$", c)
            if m:
                self.subs.append((re.compile(m.group(1)), m.group(2)))
            m = re.match(r"value\s+(\w+):\s*(.*)$", c)
            if m:
                self.values[m.group(1)] = re.compile(m.group(2), re.M)
            if c.startswith("not output:"):
                self.kind = "none"

    def where(self):
        return "%s:%d" % (self.page, self.start + 1)

    def name(self):
        cmds = [c for c, _ in self.items()] if self.kind in ("guest", "host") else []
        return "%s (%s)" % (self.where(), cmds[0] if cmds else self.kind)

    def items(self):
        """[(command, [output lines])] of the committed block."""
        items = []
        for line in self.lines:
            if line.startswith("$ ") and not (items and "one" in self.words):
                items.append((line[2:], []))
            elif not items:
                raise SyntaxError("%s: output before the first `$ ` line" % self.where())
            else:
                items[-1][1].append(line)
        return items

    def aliases(self):
        return [w[6:].split("=", 1) for w in self.words if w.startswith("alias=")]

    def env(self):
        return dict(w[4:].split("=", 1) for w in self.words if w.startswith("env="))

    def output(self, text):
        """One command's fresh output as lines, the sub rules applied."""
        for rx, to in self.subs:
            text = rx.sub(lambda m: to.replace("\\n", "\n"), text)
        text = text.rstrip("\n")
        # trailing blanks are invisible on the page (and editors drop them)
        return [l.rstrip() for l in text.split("\n")] if text.strip("\n") else []

    def mask(self, line):
        for rx in self.masks:
            line = rx.sub(MASKED, line)
        return line


def parse(page):
    """(lines of the page, [Block], [problem]) for one page."""
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    lines = text.split("\n")
    blocks, problems = [], []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2).strip()
        if "`" in info:
            problems.append("%s:%d: a fence's info string holds a backtick" % (page, i + 1))
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```", lines[j]):
            j += 1
        if j == len(lines):
            problems.append("%s:%d: a fence that is never closed" % (page, i + 1))
            break
        if lines[j].strip() != "```":
            problems.append("%s:%d: text after a closing fence: %r" % (page, j + 1, lines[j]))
        k, comments = i - 1, []
        while k >= 0 and COMMENT.match(lines[k]):
            comments.insert(0, COMMENT.match(lines[k]).group(1))
            k -= 1
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j]]
        try:
            b = Block(page, i, info, body, comments)
            if b.kind in ("guest", "host"):
                b.items()
            blocks.append(b)
        except (SyntaxError, re.error) as e:
            problems.append(str(e))
        i = j + 1
    return lines, blocks, problems


def sessions_of(all_blocks, all_comments):
    """{session: (boot words, [blocks in page order])}"""
    boot = {}
    for c in all_comments:
        m = re.match(r"session:\s*(\S+)\s*(.*)$", c)
        if m:
            boot[m.group(1)] = m.group(2)
    out = {}
    for b in all_blocks:
        if b.kind == "guest":
            out.setdefault(b.session, (boot.get(b.session, ""), []))[1].append(b)
    return out


def run_session(name, boot, blocks, log=print):
    """Boots one guest, types every command of its blocks, keeps each
    command's output in the block (block.fresh)."""
    import shutil
    import vm
    out = os.path.join(OUTDIR, name)
    shutil.rmtree(out, ignore_errors=True)
    log("docs: session %s: booting%s" % (name, " (%s)" % boot if boot else ""))
    ncmds = sum(len(b.items()) for b in blocks)
    with vm.Guest(out, boot, icount=True, timeout=STEP_TIMEOUT,
                  total=STEP_TIMEOUT * (ncmds + 2)) as g:
        for b in blocks:
            b.fresh = []
            for cmd, _ in b.items():
                b.fresh.append((cmd, b.output(g.run(cmd))))
    return g.names


def run_host(b):
    """Runs the block's commands in one sh (so `echo $?` and cd carry
    over), each one's output cut out by a marker line."""
    b.fresh = []
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    for k in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS"):
        env.pop(k, None)        # run by make docs or not, make prints the same
    env.update(b.env())
    mark = "@@docs-%d@@" % os.getpid()
    script = []
    for cmd, _ in b.items():
        real = cmd
        for shown, path in b.aliases():
            real = real.replace(shown, path)
        script.append("echo %s\n%s" % (mark, real))
    r = subprocess.run(["sh", "-c", "\n".join(script)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace", timeout=STEP_TIMEOUT)
    parts = r.stdout.split(mark + "\n")[1:]
    for (cmd, _), text in zip(b.items(), parts + [""] * len(b.items())):
        for shown, path in b.aliases():
            text = text.replace(path, shown)
        b.fresh.append((cmd, b.output(text)))


def fit(b, expect, fresh):
    """The lines to write for one command's output, given the committed
    lines (with `...`) and the fresh ones; None when a part cannot be placed."""
    segs, cur = [], []
    for l in expect:
        if l.strip() == "...":
            segs.append(cur)
            cur = []
        else:
            cur.append(l)
    segs.append(cur)
    if len(segs) == 1:
        return list(fresh)
    out = fresh[:len(segs[0])]
    pos = len(segs[0])
    for seg in segs[1:-1]:
        out.append("...")
        if not seg:
            continue
        # the part's first line, its figures aside, places it
        key = re.sub(r"\d+", "#", b.mask(seg[0]))
        at = next((k for k in range(pos, len(fresh))
                   if re.sub(r"\d+", "#", b.mask(fresh[k])) == key), None)
        if at is None:
            return None
        out += fresh[at:at + len(seg)]
        pos = at + len(seg)
    out.append("...")
    tail = segs[-1]
    if len(fresh) - len(tail) < pos:
        return None
    out += fresh[len(fresh) - len(tail):] if tail else []
    return out


def remade(b):
    """The block's lines as make docs would write them, or an error string."""
    new = []
    for (cmd, expect), (_, fresh) in zip(b.items(), b.fresh):
        got = fit(b, expect, fresh)
        if got is None:
            return "cannot place the parts around `...` in the fresh output of %r:\n%s" \
                % (cmd, "\n".join("  | " + l for l in fresh))
        new.append("$ " + cmd)
        new += got
    return new


def compare(b):
    """None, or a readable diff of the committed block against the fresh one."""
    new = remade(b)
    if isinstance(new, str):
        return new
    if [b.mask(l.rstrip()) for l in new] == [b.mask(l.rstrip()) for l in b.lines]:
        return None
    diff = difflib.unified_diff(b.lines, new, "%s (committed)" % b.where(),
                                "%s (made now)" % b.where(), lineterm="", n=2)
    masks = "".join("\n  mask: %s" % rx.pattern for rx in b.masks)
    return "\n".join(diff) + masks


PNG_KEY = b"kprof-docs-source"


def png_source(path):
    """The sha256 a PNG says it was rendered from, or None."""
    import struct
    try:
        b = open(path, "rb").read()
    except OSError:
        return None
    pos = 8
    while pos + 8 <= len(b):
        n, kind = struct.unpack_from(">I4s", b, pos)
        data = b[pos + 8:pos + 8 + n]
        if kind == b"tEXt" and data.startswith(PNG_KEY + b"\0"):
            return data[len(PNG_KEY) + 1:].decode()
        pos += 12 + n
    return None


def sha256(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_image(b, made, page_svg):
    """None, or why the committed picture is not the one made now."""
    made, svg = os.path.join(ROOT, made), os.path.join(ROOT, page_svg)
    png = svg[:-4] + ".png"
    if not os.path.exists(made):
        return "%s: the block's commands made no %s" % (b.where(), made)
    new, old = open(made).read().split("\n"), open(svg).read().split("\n")
    if new != old:
        diff = list(difflib.unified_diff(old, new, page_svg + " (committed)", made + " (made now)",
                                         lineterm="", n=0))
        return "\n".join(diff[:30] + (["... (%d more lines)" % (len(diff) - 30)] if len(diff) > 30 else []))
    if png_source(png) != sha256(svg):
        return "%s was not rendered from %s (make docs renders it)" % (
            os.path.relpath(png, ROOT), page_svg)
    return None


def render_image(made, page_svg):
    """Copies the SVG made now into the page's, and renders its PNG with
    headless Chromium, the SVG's sha256 in a tEXt chunk."""
    import shutil
    import struct
    import tempfile
    import zlib
    import test_flame_browser as fb
    svg = os.path.join(ROOT, page_svg)
    shutil.copyfile(os.path.join(ROOT, made), svg)
    tmp = tempfile.mkdtemp(prefix="kprof-docs-")
    try:
        png = os.path.join(tmp, "shot.png")
        fb.screenshot(fb.chromium_bin(), tmp, svg, png)
        b = open(png, "rb").read()
        data = PNG_KEY + b"\0" + sha256(svg).encode()
        chunk = struct.pack(">I4s", len(data), b"tEXt") + data + \
            struct.pack(">I", zlib.crc32(b"tEXt" + data) & 0xffffffff)
        ihdr_end = 8 + 12 + struct.unpack_from(">I", b, 8)[0]
        with open(svg[:-4] + ".png", "wb") as f:
            f.write(b[:ihdr_end] + chunk + b[ihdr_end:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


PROSE = re.compile(r"<!--=(\w+)-->(.*?)<!--/-->")


def values(blocks):
    """{name: value} from each block's value rules, or (name, error)."""
    vals, errs = {}, []
    for b in blocks:
        if not b.values or b.fresh is None:
            continue
        text = "\n".join("$ %s\n%s" % (c, "\n".join(o)) for c, o in b.fresh)
        for name, rx in b.values.items():
            m = rx.search(text)
            if m:
                vals[name] = m.group(1)
            else:
                errs.append("%s: value %s: /%s/ not in the fresh output" % (b.where(), name, rx.pattern))
    return vals, errs


def check_links(page, lines):
    """Relative links to files and #anchors that do not exist."""
    bad = []
    text = "\n".join(lines)
    text = re.sub(r"(?ms)^\s*```.*?^\s*```", "", text)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), path)) if path \
            else os.path.join(ROOT, page)
        if not os.path.exists(full):
            bad.append("%s: link to %s: no such file" % (page, target))
            continue
        if anchor and full.endswith(".md") and anchor not in anchors(full):
            bad.append("%s: link to %s: no such section" % (page, target))
    return bad


def anchors(path):
    """GitHub's anchors of a page's headings."""
    out = set()
    with open(path) as f:
        text = re.sub(r"(?ms)^\s*```.*?^\s*```", "", f.read())
    for h in re.findall(r"^#+\s+(.*?)\s*$", text, re.M):
        a = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
        out.add(a)
    return out


def run_all(names=None, jobs=2, log=print):
    """Parses every page, runs what the blocks need. Returns
    (pages {page: (lines, blocks)}, problems, failures [(case, text)])."""
    parsed, problems = {}, []
    comments = []
    for p in pages():
        if names and not any(n in p for n in names):
            continue
        lines, blocks, probs = parse(p)
        parsed[p] = (lines, blocks)
        problems += probs
        problems += check_links(p, lines)
        comments += [COMMENT.match(l).group(1) for l in lines if COMMENT.match(l)]
        for b in blocks:
            if not b.info and b.kind is None:
                problems.append("%s: a block with neither `run:` nor `not output:` above it"
                                % b.where())
    blocks = [b for _, bs in parsed.values() for b in bs]
    sessions = sessions_of(blocks, comments)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        futs = {ex.submit(run_session, s, boot, bs, log): s for s, (boot, bs) in sessions.items()}
        for f in concurrent.futures.as_completed(futs):
            try:
                f.result()
            except Exception as e:
                failures.append(("session %s" % futs[f], "%s: %s" % (type(e).__name__, e)))
    for b in blocks:
        if b.kind == "host":
            log("docs: %s" % b.name())
            try:
                run_host(b)
            except subprocess.TimeoutExpired as e:
                failures.append((b.name(), "timed out: %s" % e))
    if any("PROG=" in c for b in blocks if b.kind == "host" for c, _ in b.items()):
        # make profile PROG=... remade the initrd with the program in it:
        # make remakes the plain one (the build is reproducible: the same bytes)
        r = subprocess.run(["make", "-C", ROOT, "all"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            failures.append(("make all after PROG=", r.stdout[-2000:]))
    for b in blocks:
        if b.kind in ("guest", "host") and b.fresh is not None:
            d = compare(b)
            if d:
                failures.append((b.name(), d))
            for made, svg in b.images:
                d = check_image(b, made, svg)
                if d:
                    failures.append(("%s (image %s)" % (b.where(), svg), d))
    vals, errs = values(blocks)
    problems += errs
    for p, (lines, _) in parsed.items():
        for n, line in enumerate(lines):
            for m in PROSE.finditer(re.sub(r"`[^`]*`", "", line)):   # not in a code span
                name, shown = m.groups()
                if name not in vals:
                    problems.append("%s:%d: no block defines the value %s" % (p, n + 1, name))
                elif vals[name] != shown:
                    failures.append(("%s:%d (value %s)" % (p, n + 1, name),
                                     "the prose says %s, the block's output %s" % (shown, vals[name])))
    return parsed, problems, failures, vals


def write(parsed, vals):
    """Writes each page back with its blocks and values made now."""
    changed = []
    for p, (lines, blocks) in parsed.items():
        new = list(lines)
        for b in sorted(blocks, key=lambda b: -b.start):
            if b.kind not in ("guest", "host") or b.fresh is None:
                continue
            for made, svg in b.images:
                if check_image(b, made, svg):
                    render_image(made, svg)
                    changed.append(svg)
            made = remade(b)
            if isinstance(made, str):
                print("docs: %s: %s" % (b.where(), made), file=sys.stderr)
                continue
            indent = re.match(r"^(\s*)", lines[b.start]).group(1)
            new[b.start + 1:b.start + 1 + len(b.lines)] = [indent + l if l else l for l in made]
        new = [PROSE.sub(lambda m: "<!--=%s-->%s<!--/-->" % (m.group(1), vals.get(m.group(1), m.group(2))), l)
               for l in new]
        if new != lines:
            with open(os.path.join(ROOT, p), "w") as f:
                f.write("\n".join(new))
            changed.append(p)
    return changed


def main():
    ap = argparse.ArgumentParser(description="remake the manual's pasted outputs and compare")
    ap.add_argument("pages", nargs="*", metavar="PAGE", help="only pages whose path contains PAGE")
    ap.add_argument("--write", action="store_true", help="write the fresh outputs into the pages (make docs)")
    ap.add_argument("-j", type=int, default=2, help="guest sessions at a time")
    args = ap.parse_args()
    parsed, problems, failures, vals = run_all(args.pages, args.j)
    for pr in problems:
        print("docs: " + pr)
    if args.write:
        for p in write(parsed, vals):
            print("docs: rewrote %s" % p)
        return 1 if problems else 0
    for name, text in failures:
        print("== %s\n%s" % (name, text))
    nb = sum(1 for _, bs in parsed.values() for b in bs if b.kind in ("guest", "host"))
    print("docs: %d blocks run, %d differ, %d problems" % (nb, len(failures), len(problems)))
    return 1 if problems or failures else 0


if __name__ == "__main__":
    sys.exit(main())
