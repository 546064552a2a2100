# kprof's SVG flame graph as a browser draws it: headless Chromium renders
# the SVG to a PNG, and the pixels are checked against the samples.
import html
import os
import re
import shutil
import struct
import subprocess
import tempfile
import xml.dom.minidom
import zlib

from harness import build_path, test
from qemu import ROOT, VMError

KPROF = build_path("kprof")
KERNEL = build_path("kernel.elf")
# the docs' pictures: each SVG (kprof's, committed) and its screenshot;
# docs/flame-lua.png is the README's picture
DOCS = [(os.path.join(ROOT, "docs", n + ".svg"), os.path.join(ROOT, "docs", n + ".png"), hot)
        for n, hot in (("flame-stackwork", "leaf"), ("flame-lua", "luaV_execute"))]
LINE = "stackwork tree 40; stackwork sys 20"
HOT = "leaf"
BACKGROUND = (0xfb, 0xf8, 0xef)     # wr_flame.c's page colour
TOL = 2                             # px: a measured width against the samples'
CHROMIUM_TIMEOUT = 120


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA
    non-interlaced PNG, as Chromium writes them; zlib and struct only."""
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % path
    pos, idat, hdr = 8, [], None
    while pos < len(b):
        n, kind = struct.unpack_from(">I4s", b, pos)
        data = b[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG %s" % (hdr,)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c
                pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
            else:
                assert f == 0, "PNG filter %d" % f
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def boxes_of(svg_text):
    """the SVG's boxes: (name, samples, x, y, width, (r, g, b)), and its
    width and height"""
    d = xml.dom.minidom.parseString(svg_text)
    root = d.documentElement
    out = []
    for g in d.getElementsByTagName("g"):
        if g.getAttribute("class") != "f":
            continue
        title = g.getElementsByTagName("title")[0].firstChild.data
        name, n = re.match(r"^(.*) \((\d+) samples, ", title).groups()
        r = g.getElementsByTagName("rect")[0]
        rgb = re.match(r"rgb\((\d+),(\d+),(\d+)\)$", r.getAttribute("fill"))
        fill = tuple(int(v) for v in rgb.groups())
        out.append((name, int(n), float(r.getAttribute("x")), float(r.getAttribute("y")),
                    float(r.getAttribute("width")), fill))
    return out, int(root.getAttribute("width")), int(root.getAttribute("height"))


def chromium_bin():
    r = subprocess.run([os.path.join(ROOT, "tools", "deps.sh"), "chromium"], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        raise VMError("tools/deps.sh chromium: %s" % (r.stderr.strip() or "exit %d" % r.returncode))
    return r.stdout.strip().splitlines()[-1]


def chromium(exe, tmp, *args):
    """headless Chromium with HOME in tmp; its stdout"""
    env = dict(os.environ, HOME=os.path.join(tmp, "home"))
    os.makedirs(env["HOME"], exist_ok=True)
    try:
        r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"] +
                           list(args), capture_output=True, text=True, env=env,
                           timeout=CHROMIUM_TIMEOUT, cwd=tmp)
    except subprocess.TimeoutExpired:
        raise VMError("chromium ran longer than %ds: %s" % (CHROMIUM_TIMEOUT, " ".join(args)))
    if r.returncode != 0:
        raise VMError("chromium exited with %d: %s" % (r.returncode, r.stderr[-2000:]))
    return r.stdout


def screenshot(exe, tmp, svg, png):
    """svg rendered by Chromium at its own size into png; the SVG's boxes"""
    boxes, w, h = boxes_of(open(svg).read())
    chromium(exe, tmp, "--force-device-scale-factor=1", "--window-size=%d,%d" % (w, h),
             "--screenshot=%s" % png, "file://" + os.path.abspath(svg))
    assert os.path.exists(png), "chromium wrote no %s" % png
    return boxes, w, h


def near(p, q, tol=3):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def check_picture(h, label, png, boxes, svg_w, expected, hot_name=HOT):
    """The screenshot against the boxes: not blank (the boxes' area painted,
    their colours there), every box wider than 4 px in its own fill, and
    the hot function's box measured on a row of pixels: as wide as its
    samples (expected: box index -> samples, total), within TOL px, and
    the widest at its depth. Returns a line for the report."""
    w, hgt, rows = png_pixels(png)
    k = w / svg_w                      # screenshot pixels per SVG unit
    colours = {}
    for row in rows:
        for p in row:
            colours[p] = colours.get(p, 0) + 1
    painted = w * hgt - sum(n for p, n in colours.items() if near(p, BACKGROUND, 1))
    area = sum(bw * k * 15 * k for _, _, _, _, bw, _ in boxes)
    assert len(colours) >= 20, "%s: %d colours: a blank picture" % (label, len(colours))
    assert painted >= 0.9 * area, "%s: %d pixels painted, the boxes cover %d" % (label, painted, area)
    # every box drawn in its fill: the commonest colour inside it (text aside)
    for name, _, x, y, bw, fill in boxes:
        if bw * k < 6:
            continue
        seen = {}
        for yy in range(int(y * k) + 2, int((y + 13) * k)):
            for xx in range(int(x * k) + 2, int((x + bw) * k) - 2):
                seen[rows[yy][xx]] = seen.get(rows[yy][xx], 0) + 1
        top = max(seen, key=seen.get)
        assert near(top, fill) and seen[top] >= 0.5 * sum(seen.values()), \
            "%s: box %s at x=%.2f y=%.1f: its pixels are %s, not its fill %s" \
            % (label, name, x, y, top, fill)
    # the hot box: the widest box named hot_name; the row of pixels just under its top edge
    hot = max((i for i, b in enumerate(boxes) if b[0] == hot_name), key=lambda i: expected[i])
    y_hot = boxes[hot][3]
    yy = int(y_hot * k) + 1
    measured = []
    for i, (name, _, x, y, bw, fill) in enumerate(boxes):
        if y != y_hot:
            continue
        lo, hi = max(0, int((x - 2) * k)), min(w, int((x + bw + 2) * k) + 1)
        best = run = 0
        for xx in range(lo, hi):
            run = run + 1 if near(rows[yy][xx], fill) else 0
            best = max(best, run)
        want = expected[i] * k
        measured.append((best, name, want, i))
        assert abs(best - want) <= TOL, \
            "%s: box %s at depth y=%.0f: %d px of its fill on row %d, its samples make %.2f px" \
            % (label, name, y_hot, best, yy, want)
    widest = max(measured)
    assert widest[3] == hot, "%s: the widest box at %s's depth is %s (%d px), not %s" \
        % (label, hot_name, widest[1], widest[0], hot_name)
    line = "%s: %dx%d, %d colours, %d px painted of %d boxed; row %d: %s" % (
        label, w, hgt, len(colours), painted, area, yy,
        ", ".join("%s %d px (samples: %.2f)" % (n, b, want)
                  for b, n, want, _ in sorted(measured, reverse=True)))
    h.text += line + "\n"
    return line


def expected_from_folded(folded_text, boxes, svg_w):
    """each box's width from kprof's folded lines (not from the SVG writer):
    the samples of its path, on the 1200 - 2 * 10 px of wr_flame.c"""
    paths = {}
    total = 0
    for l in folded_text.splitlines():
        stack, n = l.rsplit(" ", 1)
        total += int(n)
        frames = stack.split(";")
        for d in range(1, len(frames) + 1):
            key = tuple(frames[:d])
            paths[key] = paths.get(key, 0) + int(n)
    # each box's path from the geometry, in whatever order the boxes are
    # written: its parent is the box one row below that spans it
    exp, path = {}, {}
    ys = sorted({b[3] for b in boxes}, reverse=True)
    for i in sorted(range(len(boxes)), key=lambda i: ys.index(boxes[i][3])):
        name, _, x, y, bw, _ = boxes[i]
        depth = ys.index(y)
        if depth == 0:
            path[i] = ()
        else:
            up = [k for k in path if ys.index(boxes[k][3]) == depth - 1 and
                  boxes[k][2] <= x + 0.01 and boxes[k][2] + boxes[k][4] >= x + bw - 0.01]
            assert len(up) == 1, "box %s at x=%.2f: %d boxes under it" % (name, x, len(up))
            path[i] = path[up[0]] + (name,)
        n = total if depth == 0 else paths.get(path[i], 0)
        exp[i] = n * (svg_w - 20) / total
    return exp


def script_runs(exe, tmp, svg):
    """The SVG's inline script loads without error and its zoom works: a
    copy with one more script that zooms to the widest HOT box and writes
    the box's new x and width into the root; Chromium's --dump-dom shows
    them. Returns (x, width) after the zoom."""
    text = open(svg).read()
    probe = ("<script type=\"text/ecmascript\"><![CDATA[\n"
             "try { if (typeof zoom != 'function' || typeof reset != 'function' || typeof search != 'function')\n"
             "    throw 'zoom, reset or search undefined: the script did not load';\n"
             "  var clickable = 0; for (var i = 0; i < fr.length; i++) if (fr[i].onclick) clickable++;\n"
             "  if (orig.length != fr.length || clickable != fr.length)\n"
             "    throw 'the script saw ' + orig.length + ' of the ' + fr.length + ' boxes and made ' + clickable +\n"
             "      ' clickable: it ran before the boxes were parsed (the script element precedes them)';\n"
             "  var best = null;\n"
             "  for (var i = 0; i < fr.length; i++) { var t = fr[i].querySelector('title').textContent;\n"
             "    if (t.indexOf('%s (') == 0 && (!best || orig[i][1] > +best.querySelector('rect').getAttribute('width')))\n"
             "      best = fr[i]; }\n"
             "  zoom(best); var r = best.querySelector('rect');\n"
             "  document.documentElement.setAttribute('data-probe', 'ok ' + r.getAttribute('x') + ' ' + r.getAttribute('width'));\n"
             "} catch (e) { document.documentElement.setAttribute('data-probe', 'error ' + e); }\n"
             "]]></script>\n</svg>" % HOT)
    copy = os.path.join(tmp, "probe.svg")
    open(copy, "w").write(text.replace("</svg>", probe))
    dom = chromium(exe, tmp, "--dump-dom", "file://" + copy)
    m = re.search(r'data-probe="([^"]*)"', dom)
    assert m, "the probe script did not run: %s" % dom[:300]
    said = html.unescape(m.group(1))
    assert said.startswith("ok "), "the flame graph's script: %s" % said
    return tuple(float(v) for v in said.split()[1:])


@test("flame_browser", timeout=400, qemu=False)
def flame_browser(h):
    """kprof's flame graph as headless Chromium draws it (tools/deps.sh
    chromium installs Debian's chromium). The SVG is kprof's own, written
    by build/kprof --format flamegraph from a fresh stack dump of
    'stackwork tree 40; stackwork sys 20' (tests/qemu/profile.py boots a
    QEMU under icount: a committed dump would go stale with every build's
    build-ids). The screenshot's PNG is decoded here with zlib and struct
    (no PIL): the picture must not be blank, every box must show its fill,
    and on the row of pixels under the top of the hot box (leaf, a->b->leaf)
    each box at that depth must be as wide as its samples from
    --format folded (not from the SVG), within 2 px, leaf the widest. The
    inline script must load and zoom (--dump-dom of a copy with a probe
    script). docs/flame-stackwork.svg and docs/flame-lua.svg (Lua's n-body,
    the README's picture) are checked the same way (their widths from
    their titles); KPROF_WRITE_PNG=1 copies their screenshots to the .png
    beside each."""
    import engines              # tests/qemu/engines.py: the ELFs of the programs
    import profile as prof      # tests/qemu/profile.py
    exe = chromium_bin()
    tmp = tempfile.mkdtemp(prefix="kprof-flame-")
    try:
        _, out, console, _ = prof.profile(LINE, engine="stacks", out=os.path.join(tmp, "run"))
        h.text += console
        dump = os.path.join(out, "dev", "stacks")
        args = engines.user_elfs() + [KERNEL, dump]
        svg = os.path.join(tmp, "flame.svg")
        texts = {}
        for fmt in ("flamegraph", "folded"):
            r = subprocess.run([KPROF, "--format", fmt] + args, capture_output=True, text=True,
                               timeout=60, cwd=ROOT)
            if r.returncode != 0:
                raise VMError("kprof --format %s: exit %d: %s" % (fmt, r.returncode, r.stderr.strip()))
            texts[fmt] = r.stdout
        open(svg, "w").write(texts["flamegraph"])
        h.text += texts["folded"]

        png = os.path.join(tmp, "flame.png")
        boxes, svg_w, _ = screenshot(exe, tmp, svg, png)
        check_picture(h, "kprof's SVG", png, boxes, svg_w,
                      expected_from_folded(texts["folded"], boxes, svg_w))

        for doc_svg, doc_png_path, hot_name in DOCS:
            doc_png = os.path.join(tmp, "doc.png")
            boxes, svg_w, _ = screenshot(exe, tmp, doc_svg, doc_png)
            total = max(b[1] for b in boxes)
            check_picture(h, os.path.relpath(doc_svg, ROOT), doc_png, boxes, svg_w,
                          {i: b[1] * (svg_w - 20) / total for i, b in enumerate(boxes)}, hot_name)
            if os.environ.get("KPROF_WRITE_PNG") == "1":
                shutil.copyfile(doc_png, doc_png_path)
                h.text += "wrote %s\n" % doc_png_path

        x, w = script_runs(exe, tmp, svg)
        assert abs(x - 10) < 0.01 and abs(w - (svg_w - 20)) < 0.01, \
            "zoom to %s: x %g width %g" % (HOT, x, w)
        h.text += "script: zoom to %s makes it x=%g width=%g\n" % (HOT, x, w)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
