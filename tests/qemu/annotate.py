# kprof annotate's output read back, for the tests that run it on real
# dumps: each instruction's row, and the function's loops (the span of each
# backward branch), to check that the hottest instruction is in one.
import re

INSN = re.compile(r"^(.*?)    ([0-9a-f]{8}): (.*)$")
HEAD = re.compile(r"^(\S+)!(\S+)  ([0-9a-f]{8})-([0-9a-f]{8})  (\d+) ")
BRANCH = re.compile(r"^(?:j\w+|loop\w*) 0x([0-9a-f]+)$")


def functions(out):
    """{name: (lo, hi, samples, rows)} of each annotated function; a row is
    (mark, samples, exact or None, address, instruction)"""
    fns, rows = {}, None
    for line in out.splitlines():
        h = HEAD.match(line)
        if h:
            rows = []
            fns[h.group(2)] = (int(h.group(3), 16), int(h.group(4), 16), int(h.group(5)), rows)
            continue
        m = INSN.match(line)
        if m and rows is not None:
            cols = m.group(1)
            n = cols[1:10].strip()
            x = cols[18:30].strip() if len(cols) > 18 else None
            rows.append((cols[0], int(n) if n.isdigit() else 0,
                         None if x is None else int(x) if x.isdigit() else 0,
                         int(m.group(2), 16), m.group(3).strip()))
    return fns


def loops(lo, rows):
    """[(head, branch)] address spans of the backward branches"""
    out = []
    for _, _, _, a, text in rows:
        b = BRANCH.match(text)
        if b and lo <= int(b.group(1), 16) <= a:
            out.append((int(b.group(1), 16), a))
    return out


def hot_in_loop(out, name, exact=False):
    """The function's hottest instruction (marked '>'), and with exact the
    one of the most exact counts, each lies in one of its loops; returns
    the function's (lo, hi, samples, rows)."""
    fns = functions(out)
    # a GCC clone answers to its function's name: mix_a.constprop.0.isra.0
    names = [k for k in fns if k == name or k.startswith(name + ".")]
    assert names, "no annotated %s in:\n%s" % (name, out)
    lo, hi, n, rows = fns[names[0]]
    spans = loops(lo, rows)
    assert spans, "%s has no loop in:\n%s" % (name, out)
    hot = [r for r in rows if r[0] == ">"]
    assert hot and n > 0, "no hottest instruction of %s in:\n%s" % (name, out)
    if exact:
        top = max(r[2] for r in rows)
        hot += [r for r in rows if r[2] == top]
    for r in hot:
        assert any(s <= r[3] <= e for s, e in spans), \
            "the hottest %x (%s) is in no loop %s of %s:\n%s" % (r[3], r[4], spans, name, out)
    assert sum(r[1] for r in rows) == n, "%s's rows do not sum to its %d samples" % (name, n)
    return fns[names[0]]
