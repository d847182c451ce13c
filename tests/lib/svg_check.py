#!/usr/bin/env python3
"""Check a picture of nettunectl: parse the SVG's elements, render it with
rsvg-convert and read the rendered pixels where the elements are.

  svg_check.py doctor FILE.svg BLAMED_HOP    the one hop marked MISMATCH is BLAMED_HOP
                                             ("leaf1:swp2"), drawn vermillion; others not
  svg_check.py status FILE.svg STATUS.json   every wave of the rollout is drawn in its
                                             state's colour; every node has its two bars
  svg_check.py headroom FILE.svg [BYTES]     one bar per speed x cable, the asked one
                                             outlined; the port's buffer line at BYTES
  svg_check.py tune FILE.svg                 readable axes: distinct tick labels, the
                                             noise band and doctor's floor drawn

Exit 0 when it holds, 1 with the reason on stderr. Standard library only (the PNG
rsvg-convert writes, 8-bit RGBA, is decoded here).
"""
import json, os, struct, subprocess, sys, tempfile, zlib
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
OKABE = {"vermillion": (0xD5, 0x5E, 0x00), "green": (0x00, 0x9E, 0x73), "orange": (0xE6, 0x9F, 0x00),
         "sky": (0x56, 0xB4, 0xE9), "blue": (0x00, 0x72, 0xB2), "purple": (0xCC, 0x79, 0xA7)}


def fail(msg):
    sys.stderr.write("svg_check: %s\n" % msg)
    sys.exit(1)


def png_pixels(path):
    """(width, height, rows of RGBA tuples) of an 8-bit RGBA or RGB PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail("unexpected PNG format depth %d type %d" % (depth, ctype))
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def render(svg):
    out = tempfile.NamedTemporaryFile(suffix=".png", delete=False).name
    r = subprocess.run(["rsvg-convert", "--format", "png", "-o", out, svg], capture_output=True, text=True)
    if r.returncode != 0:
        fail("rsvg-convert %s: %s" % (svg, r.stderr.strip()))
    px = png_pixels(out)
    os.unlink(out)
    return px


def near(rgb, want, tol=24):
    return all(abs(a - b) <= tol for a, b in zip(rgb, want))


def blend(c, alpha):
    return tuple(round(alpha * v + (1 - alpha) * 255) for v in c)


def pixel(img, x, y):
    w, h, rows = img
    x, y = int(round(x)), int(round(y))
    if not (0 <= x < w and 0 <= y < h):
        fail("(%d, %d) outside the %dx%d picture" % (x, y, w, h))
    return rows[y][x]


def parse(svg):
    root = ET.parse(svg).getroot()
    title, desc = root.find(NS + "title"), root.find(NS + "desc")
    if title is None or not (title.text or "").strip() or desc is None or not (desc.text or "").strip():
        fail("%s: no <title>/<desc> text equivalent" % svg)
    return root


def check_doctor(svg, blamed):
    root, img = parse(svg), render(svg)
    hops = [g for g in root.iter(NS + "g") if g.get("class") == "hop"]
    if not hops:
        fail("no hop drawn")
    marked = [g.get("data-hop") for g in hops if g.get("data-mark") == "MISMATCH"]
    if marked != [blamed]:
        fail("hops marked MISMATCH: %s, expected only %s" % (marked, blamed))
    for g in hops:
        head = [r for r in g.iter(NS + "rect") if r.get("class") == "hop-head"][0]
        x, y, w = float(head.get("x")), float(head.get("y")), float(head.get("width"))
        rgb = pixel(img, x + w - 5, y + 4)
        red = near(rgb, OKABE["vermillion"])
        if red != (g.get("data-hop") == blamed):
            fail("hop %s drawn %s at its head, vermillion expected %s" % (g.get("data-hop"), rgb, not red))
    print("doctor picture: %d hops, %s vermillion" % (len(hops), blamed))


def check_status(svg, status_json):
    st, root, img = json.load(open(status_json)), parse(svg), render(svg)
    waves = {int(r.get("data-wave")): r for r in root.iter(NS + "rect") if r.get("class") == "wave"}
    want = st["waves"]
    if sorted(waves) != list(range(len(want))):
        fail("waves drawn %s, the rollout has %d" % (sorted(waves), len(want)))
    colour = {"halted": "vermillion", "passed": "green", "done": "green"}
    for i, wv in enumerate(want):
        r = waves[i]
        if r.get("data-state") != wv["state"]:
            fail("wave %d drawn %s, its state is %s" % (i, r.get("data-state"), wv["state"]))
        x, y, w = float(r.get("x")), float(r.get("y")), float(r.get("width"))
        rgb = pixel(img, x + w - 3, y + 2)
        exp = blend(OKABE[colour.get(wv["state"], "sky")], 0.85)
        if not near(rgb, exp, 30):
            fail("wave %d (%s) rendered %s, expected about %s" % (i, wv["state"], rgb, exp))
    names = {n["name"] for n in st["nodes"]}
    after = {r.get("data-node"): r.get("data-state") for r in root.iter(NS + "rect")
             if (r.get("class") or "").startswith("gbps after")}
    before = {r.get("data-node") for r in root.iter(NS + "rect") if (r.get("class") or "").startswith("gbps before")}
    if set(after) != names or before != names:
        fail("nodes with bars %s, the rollout's %s" % (sorted(after), sorted(names)))
    for n in st["nodes"]:
        if after[n["name"]] != n["state"]:
            fail("node %s drawn %s, its state is %s" % (n["name"], after[n["name"]], n["state"]))
    print("status picture: %d waves, %d nodes" % (len(want), len(names)))


def check_headroom(svg, buffer=None):
    root, img = parse(svg), render(svg)
    bars = [r for r in root.iter(NS + "rect") if (r.get("class") or "").startswith("bar")]
    pairs = {(r.get("data-speed-gbps"), r.get("data-cable-m")) for r in bars}
    if len(bars) != 40 or len(pairs) != 40:
        fail("%d bars (%d pairs), expected 8 speeds x 5 cables" % (len(bars), len(pairs)))
    if len([r for r in bars if "asked" in r.get("class")]) != 1:
        fail("not exactly one asked bar")
    for r in bars:
        x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
        if h > 6 and not near(pixel(img, x + w / 2, y + h - 3), tuple(int(r.get("fill")[i:i + 2], 16) for i in (1, 3, 5))):
            fail("bar %s Gb/s %s m not drawn in its colour" % (r.get("data-speed-gbps"), r.get("data-cable-m")))
    lines = [l for l in root.iter(NS + "line") if l.get("class") == "port-buffer"]
    if buffer is not None:
        if len(lines) != 1 or lines[0].get("data-bytes") != str(buffer):
            fail("port buffer line %s, expected %s" % ([l.get("data-bytes") for l in lines], buffer))
        l = lines[0]
        if not near(pixel(img, float(l.get("x1")) + 4, float(l.get("y1"))), OKABE["vermillion"], 40):
            fail("the port's buffer line is not drawn vermillion")
    elif lines:
        fail("a port buffer line without --node/--port")
    print("headroom picture: 40 bars%s" % (", buffer %s" % buffer if buffer is not None else ""))


def check_tune(svg):
    root, img = parse(svg), render(svg)
    for cls in ("ptick-label", "ytick-label", "xtick-label"):
        labels = [t.text for t in root.iter(NS + "text") if t.get("class") == cls]
        if len(labels) < 3 or len(set(labels)) != len(labels):
            fail("%s ticks not readable: %s" % (cls, labels))
    titles = [t.text for t in root.iter(NS + "text") if t.get("class") == "axis-title"]
    if len(titles) != 3:
        fail("axis titles %s" % titles)
    noise = [r for r in root.iter(NS + "rect") if r.get("class") == "noise"]
    floor = [l for l in root.iter(NS + "line") if l.get("class") == "doctor-floor"]
    if len(noise) != 1 or len(floor) != 1:
        fail("noise band %d, doctor's floor %d" % (len(noise), len(floor)))
    r = noise[0]
    rgb = pixel(img, float(r.get("x")) + 3, float(r.get("y")) + float(r.get("height")) / 2)
    if not near(rgb, blend(OKABE["sky"], 0.25), 20):
        fail("noise band rendered %s" % (rgb,))
    print("tune picture: axes, noise band, doctor's floor")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        fail("usage: svg_check.py doctor|status|headroom|tune FILE.svg [ARG]")
    kind, svg, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if kind == "doctor":
        check_doctor(svg, rest[0])
    elif kind == "status":
        check_status(svg, rest[0])
    elif kind == "headroom":
        check_headroom(svg, int(rest[0]) if rest else None)
    elif kind == "tune":
        check_tune(svg)
    else:
        fail("unknown kind %r" % kind)
