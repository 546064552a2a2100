# The real programs (user/debian/debian.mk): Debian bookworm's Lua 5.4
# interpreter, zlib's minigzip and bzip2, built unmodified as static glibc
# i386 Linux programs, and libctest, the project's own glibc program.
#
# realprogs_host_*: the programs run on the host, which runs static i386
# binaries natively, against answers known independently (published
# benchmark values, closed forms, the same computation in Python, the
# host's own gzip and bzip2). They run the copies without DWARF, the very
# files the initrd's /bin gets.
#
# realprogs_NAME (QEMU): the same command lines in the guest, whose output
# must be the host's, byte for byte. They need the kernel to run Linux
# programs (its Linux system-call interface); until it does, they fail with
# "the kernel refused to run NAME", never skipped.
import os
import re
import shutil
import subprocess
import tempfile

from harness import build_path, test
from qemu import ROOT, VMError


def debian_mk(name):
    """A variable of user/debian/debian.mk (its one definition)."""
    with open(os.path.join(ROOT, "user", "debian", "debian.mk")) as f:
        text = f.read().replace("\\\n", " ")
    return re.search(r"^%s\s*:=(.*)$" % name, text, re.M).group(1).strip()


LUA_DIR = debian_mk("DEB_LUA_DIR")          # the workloads in the guest
HOST_LUA_DIR = os.path.join(ROOT, "user", "debian", "lua")


def program(name):
    """The host's copy of what the guest runs as /bin/NAME."""
    path = build_path("debian", "bin", name)
    if not os.path.exists(path):
        raise VMError("%s does not exist: run make" % os.path.relpath(path, ROOT))
    return path


def host_run(argv, cwd=None, stdin=None, stdout=None, timeout=120):
    """Runs one command line on the host: argv[0] a guest program's name,
    a guest path of a workload (LUA_DIR/...) its file here. Returns
    (stdout text or None, status)."""
    argv = [program(argv[0])] + [os.path.join(HOST_LUA_DIR, a[len(LUA_DIR) + 1:])
                                 if a.startswith(LUA_DIR + "/") else a for a in argv[1:]]
    r = subprocess.run(argv, cwd=cwd, stdin=stdin, timeout=timeout,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise VMError("on the host %s exited %d: %s" % (" ".join(argv), r.returncode,
                                                        r.stderr.decode(errors="replace")))
    return (r.stdout.decode() if stdout is None else None), r.returncode


# ---- the known answers ----

def binarytrees_answer(n):
    """binary-trees' lines in closed form: a tree of depth d has 2^(d+1) - 1
    nodes (N = 10 is the Benchmarks Game's published output)"""
    lo, hi = 4, max(6, n)
    nodes = lambda d: (1 << (d + 1)) - 1
    out = ["stretch tree of depth %d\t check: %d" % (hi + 1, nodes(hi + 1))]
    for d in range(lo, hi + 1, 2):
        it = 1 << (hi - d + lo)
        out.append("%d\t trees of depth %d\t check: %d" % (it, d, it * nodes(d)))
    out.append("long lived tree of depth %d\t check: %d" % (hi, nodes(hi)))
    return "\n".join(out) + "\n"


def lcg(seed):
    """The scripts' pseudo-random numbers: rnd(n) in 0 .. n-1"""
    state = [seed]

    def rnd(n):
        state[0] = (state[0] * 1103515245 + 12345) % 2147483648
        return (state[0] >> 8) % n
    return rnd


def words_answer(n):
    """words.lua's output computed in Python: the same text, the same counts"""
    rnd = lcg(42)
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ba", "de", "fo", "gu"]
    vocab = []
    for _ in range(200):
        k = 1 + rnd(3)
        vocab.append("".join(syllables[rnd(len(syllables))] for _ in range(k)))
    sentences = []
    for s in range(1, n + 1):
        k = 3 + rnd(8)
        words = [vocab[rnd(1 + rnd(len(vocab)))] for _ in range(k)]
        line = " ".join(words)
        line = line[0].upper() + line[1:] if line[0].islower() else line
        if s % 5 == 0:
            key = vocab[rnd(len(vocab))]
            value = vocab[rnd(len(vocab))]
            line += " " + key + "=" + value
        sentences.append(line + [".", "!", "?"][rnd(3)])
    text = " ".join(sentences)
    found = re.findall(r"[A-Za-z]+", text.lower())
    freq = {}
    for w in found:
        freq[w] = freq.get(w, 0) + 1
    swapped, swaps = re.subn(r"([A-Za-z]+)=([A-Za-z]+)", r"\2=\1", text)
    ranked = sorted(freq, key=lambda w: (-freq[w], w))
    out = ["%2d %-10s %5d %6.3f%%" % (r + 1, w, freq[w], 100 * freq[w] / len(found))
           for r, w in enumerate(ranked[:10])]
    h = 2166136261
    for b in swapped.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    out.append("words %d, distinct %d, swaps %d, length %d, fnv %08x"
               % (len(found), len(ranked), swaps, len(swapped), h))
    return "\n".join(out) + "\n"


def gendata_bytes(size):
    """gendata.lua's file made in Python"""
    rnd = lcg(7)
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec",
             "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"]
    out, n, line = [], 0, 0
    while n < size:
        line += 1
        a, b, c = (names[rnd(len(names))] for _ in range(3))
        s = ("%07d %s %s %s %d\n" % (line, a, b, c, rnd(1000000))).encode()
        out.append(s)
        n += len(s)
    return b"".join(out)[:size]


# name: (the guest's command line, the known answer); a bigger run takes a
# bigger argument (each script's head says what it gives)
LUA_CASES = {
    "binarytrees": ("lua %s/binarytrees.lua 10" % LUA_DIR, binarytrees_answer(10)),
    "nbody": ("lua %s/nbody.lua 1000" % LUA_DIR, "-0.169075164\n-0.169087605\n"),
    "spectralnorm": ("lua %s/spectralnorm.lua 100" % LUA_DIR, "1.274219991\n"),
    "fannkuch": ("lua %s/fannkuch.lua 7" % LUA_DIR, "228\nPfannkuchen(7) = 16\n"),
    "words": ("lua %s/words.lua 3000" % LUA_DIR, words_answer(3000)),
}

# The compression round trips: a file made by gendata.lua in /tmp,
# compressed and decompressed with redirections (the guest's shell has no
# pipes), every file's cksum. 2 MiB: under tmpfs's 4 MiB a file, a few
# seconds of the guest's time each step.
DATA_SIZE = 2 << 20
ROUND_TRIPS = {
    "minigzip": ["minigzip -c /tmp/data > /tmp/data.gz",
                 "minigzip -d < /tmp/data.gz > /tmp/data.out"],
    "bzip2": ["bzip2 -c /tmp/data > /tmp/data.bz2",
              "bzip2 -t /tmp/data.bz2",
              "bzip2 -d < /tmp/data.bz2 > /tmp/data.out"],
}
ROUND_TRIP_FILES = {"minigzip": ["data", "data.gz", "data.out"],
                    "bzip2": ["data", "data.bz2", "data.out"]}
GENDATA = "lua %s/gendata.lua %d /tmp/data" % (LUA_DIR, DATA_SIZE)

LIBCTEST = "libctest /tmp/libctest.dat"


def host_line(line, tmp):
    """Runs one guest command line (words, < and >, /tmp meaning tmp) on
    the host; returns its output."""
    words = [w.replace("/tmp/", tmp + "/") for w in line.split()]
    stdin = stdout = None
    if "<" in words:
        i = words.index("<")
        stdin = open(words[i + 1], "rb")
        del words[i:i + 2]
    if ">" in words:
        i = words.index(">")
        stdout = open(words[i + 1], "wb")
        del words[i:i + 2]
    try:
        return host_run(words, cwd=tmp, stdin=stdin, stdout=stdout)[0] or ""
    finally:
        for f in (stdin, stdout):
            if f:
                f.close()


def cksums(out):
    """{basename: "CRC SIZE"} from cksum's lines"""
    return {os.path.basename(name): crc + " " + size
            for crc, size, name in re.findall(r"^(\d+) (\d+) (\S+)$", out, re.M)}


def host_round_trip(prog, tmp):
    """The round trip on the host; {file: cksum line}"""
    for line in [GENDATA] + ROUND_TRIPS[prog]:
        host_line(line, tmp)
    r = subprocess.run(["cksum"] + ROUND_TRIP_FILES[prog], cwd=tmp, capture_output=True,
                       text=True, timeout=60, check=True)
    return cksums(r.stdout)


# ---- host tests ----

@test("realprogs_host_lua", timeout=300, qemu=False)
def realprogs_host_lua(h):
    """on the host, Lua 5.4 prints the known answers: binary-trees 10 (closed
    form), n-body 1000 (-0.169075164, -0.169087605), spectral-norm 100
    (1.274219991), fannkuch-redux 7 (228, 16), and words 3000 what the same
    computation in Python prints"""
    bad = []
    for name, (line, want) in LUA_CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            out = host_line(line, tmp)
        h.text += "$ %s\n%s" % (line, out)
        if out != want:
            bad.append("%s printed %r, want %r" % (name, out, want))
    assert not bad, "; ".join(bad)


@test("realprogs_host_gendata", timeout=120, qemu=False)
def realprogs_host_gendata(h):
    """on the host, gendata.lua writes the bytes Python makes (the data
    the round trips compress)"""
    with tempfile.TemporaryDirectory() as tmp:
        out = host_line(GENDATA, tmp)
        h.text = out
        assert out == "gendata: %d bytes in %s/data\n" % (DATA_SIZE, tmp), out
        with open(os.path.join(tmp, "data"), "rb") as f:
            got = f.read()
    want = gendata_bytes(DATA_SIZE)
    assert got == want, "gendata.lua's %d bytes differ from Python's %d (first at %s)" % (
        len(got), len(want), next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), "the end"))


@test("realprogs_host_compress", timeout=300, qemu=False)
def realprogs_host_compress(h):
    """on the host, minigzip and bzip2 round-trip gendata's file (the same
    cksum back), and the host's own gzip and bzip2 read what they wrote"""
    for prog, other in (("minigzip", ["gzip", "-dc", "data.gz"]),
                        ("bzip2", ["bzip2", "-dc", "data.bz2"])):
        with tempfile.TemporaryDirectory() as tmp:
            sums = host_round_trip(prog, tmp)
            h.text += "%s: %s\n" % (prog, sums)
            assert sums["data"] == sums["data.out"], "%s round trip: %s" % (prog, sums)
            assert sums["data"].split()[1] == str(DATA_SIZE), sums
            tool = shutil.which(other[0])
            if tool:
                r = subprocess.run([tool] + other[1:], cwd=tmp, capture_output=True, timeout=120)
                with open(os.path.join(tmp, "data"), "rb") as f:
                    assert r.returncode == 0 and r.stdout == f.read(), \
                        "%s cannot read %s's output: %s" % (other[0], prog, r.stderr)


@test("realprogs_host_libctest", timeout=60, qemu=False)
def realprogs_host_libctest(h):
    """on the host, libctest (printf, malloc, stdio files, qsort, strtod,
    libm, time) passes every check and prints the same twice"""
    with tempfile.TemporaryDirectory() as tmp:
        out = host_line(LIBCTEST, tmp)
        again = host_line(LIBCTEST, tmp)
    h.text = out
    h.check(out, [r"^libctest$", r"^time ok$", r"^libctest: all ok$"], forbid=[r"FAILED"])
    assert out == again, "two runs differ"


# ---- guest tests ----

def guest(m, line, timeout=None):
    """Runs line in the guest; a program the kernel would not run fails
    the test with that said plainly."""
    out = m.run(line, timeout=timeout)
    prog = line.split()[0]
    if re.search(r"^sh: %s: (Exec format error|not found)" % re.escape(prog), out, re.M):
        raise VMError("the kernel refused to run %s (%s): it runs no Linux programs yet"
                      % (prog, out.strip()))
    return out


def lua_test(name, line, want):
    def fn(m):
        with tempfile.TemporaryDirectory() as tmp:
            host = host_line(line, tmp)
        assert host == want, "on the host %s printed %r, want %r" % (name, host, want)
        m.wait_prompt()
        out = guest(m, line, timeout=m.timeout - 30)
        assert out == host, "%r printed %r, on the host %r" % (line, out, host)
        m.halt()
    fn.__doc__ = "`%s` prints in the guest what it prints on the host (realprogs_host_lua)" % line
    return fn


for _name, (_line, _want) in LUA_CASES.items():
    test("realprogs_lua_" + _name, timeout=240)(lua_test(_name, _line, _want))


def round_trip_test(prog):
    def fn(m):
        with tempfile.TemporaryDirectory() as tmp:
            host = host_round_trip(prog, tmp)
        m.wait_prompt()
        m.check(guest(m, GENDATA, timeout=m.timeout / 3), [r"^gendata: %d bytes in /tmp/data$" % DATA_SIZE])
        for line in ROUND_TRIPS[prog]:
            out = guest(m, line, timeout=m.timeout / 3)
            assert out == "", "%r printed %r" % (line, out)
        out = guest(m, "cksum " + " ".join("/tmp/" + f for f in ROUND_TRIP_FILES[prog]))
        got = cksums(out)
        assert got == host, "guest cksums %s, the host's %s" % (got, host)
        m.halt()
    fn.__doc__ = ("gendata.lua's %d bytes in /tmp, `%s`: every file's cksum (the original, "
                  "the compressed, the decompressed) is the host's" % (DATA_SIZE, "; ".join(ROUND_TRIPS[prog])))
    return fn


for _prog in ROUND_TRIPS:
    test("realprogs_" + _prog, timeout=300)(round_trip_test(_prog))


# The same, a file compressed in place: bzip2 and minigzip make NAME.bz2
# and NAME.gz beside it and remove it (unlink), bzip2 copies its mode and
# times (fchmod, utime); decompressing brings the file back.
IN_PLACE = ["bzip2 -k /tmp/f", "rm /tmp/f", "bzip2 -d /tmp/f.bz2", "minigzip /tmp/f",
            "minigzip -d /tmp/f.gz"]
IN_PLACE_GENDATA = "lua %s/gendata.lua %d /tmp/f" % (LUA_DIR, DATA_SIZE // 2)


@test("realprogs_host_in_place", timeout=120, qemu=False)
def realprogs_host_in_place(h):
    """on the host, bzip2 -k, bzip2 -d, minigzip and minigzip -d of a file
    in place leave the file as it was, and nothing beside it"""
    with tempfile.TemporaryDirectory() as tmp:
        host_line(IN_PLACE_GENDATA, tmp)
        before = cksums(subprocess.run(["cksum", "f"], cwd=tmp, capture_output=True, text=True).stdout)
        for line in IN_PLACE:
            if line.startswith("rm "):
                os.remove(os.path.join(tmp, "f"))
            else:
                h.text += host_line(line, tmp)
        after = cksums(subprocess.run(["cksum", "f"], cwd=tmp, capture_output=True, text=True).stdout)
        assert before == after and sorted(os.listdir(tmp)) == ["f"], (before, after, os.listdir(tmp))


@test("realprogs_in_place", timeout=300)
def realprogs_in_place(m):
    """in the guest, bzip2 -k, rm, bzip2 -d, minigzip and minigzip -d of
    /tmp/f (IN_PLACE) leave it as gendata.lua made it, alone in /tmp"""
    m.wait_prompt()
    m.check(guest(m, IN_PLACE_GENDATA, timeout=m.timeout / 3), [r"^gendata: \d+ bytes in /tmp/f$"])
    before = cksums(guest(m, "cksum /tmp/f"))
    for line in IN_PLACE:
        out = guest(m, line, timeout=m.timeout / 4)
        assert out == "", "%r printed %r" % (line, out)
    after = cksums(guest(m, "cksum /tmp/f"))
    assert before == after and before, "cksum before %s, after %s" % (before, after)
    m.check(m.run("ls /tmp"), [r"^file +\d+ f$"], forbid=[r"\.(gz|bz2)$"])
    m.halt()


@test("realprogs_libctest", timeout=120)
def realprogs_libctest(m):
    """libctest prints in the guest what it prints on the host (time() is
    only checked to be past 2020, never printed), and cleans up its file"""
    with tempfile.TemporaryDirectory() as tmp:
        host = host_line(LIBCTEST, tmp)
    m.wait_prompt()
    out = guest(m, LIBCTEST)
    assert out == host, "libctest printed %r, on the host %r" % (out, host)
    m.check(m.run("ls /tmp"), [], forbid=[r"libctest"])
    m.halt()
