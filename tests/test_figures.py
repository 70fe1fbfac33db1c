# SPDX-License-Identifier: MIT
"""`bugcoder report --figures DIR`: every figure drawn for the sample
study and for a generated one, its numbers checked against `report
--format json` (from figures.json, and by reading the drawing back: SVG
geometry, PDF text with pdftotext, PNG pixels), two draws compared byte
for byte, and the edge cases: one code, no labels yet, 60 codes in a
dimension, long code names, the package's figures/."""
import csv
import io
import json
import os
import random
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zlib

from bchelp import CODEBOOK, SAMPLE_LABELS, Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]
PX = 0.75          # one pixel at 96 dpi, in points
SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
BAR = (0x3b, 0x52, 0x8b)
BAR_DIST = (0x5e, 0xc9, 0x62)
BAR_EXTRA = (184, 184, 184)


# ---- studies ----------------------------------------------------------------

def sample_items():
    from bchelp import SAMPLE
    with open(SAMPLE) as f:
        return ["%s#%d" % (r["repo"], r["number"])
                for r in map(json.loads, f) if r]


def labelled():
    with open(SAMPLE_LABELS, newline="") as f:
        return {r["item"] for r in csv.DictReader(f)}


def sample_study():
    """The bundled sample: a pilot and a first round, both closed, one
    disagreement adjudicated, and a gated round after the pilot."""
    s = Study(members=MEMBERS)
    items = []
    with open(SAMPLE_LABELS, newline="") as f:
        for r in csv.DictReader(f):
            if r["item"] not in items:
                items.append(r["item"])
    s.ok("round", "create", "pilot", "--items", ",".join(items[:8]),
         "--annotators", "alice,bob")
    s.ok("round", "create", "r1", "--items", ",".join(items[8:]),
         "--annotators", "alice,bob")
    s.ok("labels", "import", SAMPLE_LABELS, "--submit")
    s.ok("round", "close", "pilot")
    s.ok("round", "close", "r1")
    s.ok("resolve", "microsoft/DeepSpeed#3468",
         "root_cause=distributed_communication", "--rationale", "x",
         as_="carol")
    return s


def write_codebook(path, dims):
    """dims: [(key, select, [(code key, name, distributed)])]."""
    cb = {"name": "test-cb", "version": "1.0", "title": "t",
          "dimensions": [{"key": k, "name": k.title(), "select": sel,
                          "required": True, "question": "?",
                          "codes": [{"key": c, "name": n, "definition": "d",
                                     "distributed": dist}
                                    for c, n, dist in codes]}
                         for k, sel, codes in dims]}
    with open(path, "w") as f:
        json.dump(cb, f)


def generated_study(seed=26, n=44, codebook=CODEBOOK, repos=4,
                    agree=0.85, gate=True):
    """n items over `repos` repositories, two rounds of 20 coded by alice
    and bob (the second gated on the first), four items in no round."""
    rnd = random.Random(seed)
    with open(codebook) as f:
        cb = json.load(f)
    d = tempfile.mkdtemp(prefix="bugcoder-figgen-")
    items = os.path.join(d, "items.jsonl")
    names = []
    with open(items, "w") as f:
        for i in range(n):
            repo = "org%d/repo%d" % (i % repos, i % repos)
            lines = rnd.choice([None, 0, 1, 3, 5, 10, 11, 40, 300, 2500])
            rec = {"repo": repo, "number": i + 1, "title": "t%d" % i,
                   "created_at": "2024-01-01T00:00:00Z",
                   "closed_at": "2024-%02d-%02dT%02d:00:00Z" % (
                       rnd.randint(1, 9), rnd.randint(2, 28),
                       rnd.randint(0, 23)),
                   "comments": [{"author": "u", "body": "c",
                                 "created_at": "2024-01-02T00:00:00Z"}
                                for _ in range(rnd.randint(0, 30))]}
            if lines is not None:
                rec["fixes"] = [{"number": 1000 + i, "additions": lines,
                                 "deletions": 0, "changed_files": 1}]
            f.write(json.dumps(rec) + "\n")
            names.append("%s#%d" % (repo, i + 1))
    s = Study(codebook=codebook, items=items, members=MEMBERS)
    s.tmp = d

    def labels_for(part, path):
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["item", "annotator", "dimension", "code"])
            for it in part:
                for dim in cb["dimensions"]:
                    codes = [c["key"] for c in dim["codes"]]
                    weights = [1.0 / (k + 1) for k in range(len(codes))]
                    base = [rnd.choices(codes, weights)[0]]
                    if dim.get("select") == "many" and rnd.random() < .3:
                        base = sorted(set(base + [rnd.choice(codes)]))
                    for who in ("alice", "bob"):
                        pick = base if rnd.random() < agree else \
                            [rnd.choice(codes)]
                        for c in pick:
                            w.writerow([it, who, dim["key"], c])

    half = n * 45 // 100
    rounds = [("r1", names[:half]), ("r2", names[half:2 * half])]
    for k, (name, part) in enumerate(rounds):
        args = ["round", "create", name, "--items", ",".join(part),
                "--annotators", "alice,bob"]
        if k and gate:
            args += ["--after", "r1", "--min-kappa", "0.6", "--force"]
        s.ok(*args)
        path = os.path.join(d, name + ".csv")
        labels_for(part, path)
        s.ok("labels", "import", path, "--submit")
        s.ok("round", "close", name, "--force")
    return s


def close_study(s):
    s.close()
    if getattr(s, "tmp", None):
        shutil.rmtree(s.tmp, ignore_errors=True)


# ---- reading the drawings back ------------------------------------------------

def draw(s, out, *args, fmt=None):
    a = ["report", "--figures", out] + list(args)
    if fmt:
        a += ["--figure-format", fmt]
    s.ok(*a)
    with open(os.path.join(out, "figures.json")) as f:
        return json.load(f)


def report(s, *args):
    got = json.loads(s.ok("report", "--format", "json", *args))
    return {t["id"]: t for t in got["tables"]}, got


def same(a, b):
    """The report prints 10 significant digits; figures.json all."""
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-8 * max(1, abs(b))


def rows_by_key(table):
    return {r[0]: r for r in table["rows"]}


def path_commands(d):
    toks = re.findall(r"[MLCZ]|-?[\d.]+(?:e-?\d+)?", d)
    cmds, cur = [], None
    for t in toks:
        if t in "MLCZ":
            cur = [t, []]
            cmds.append(cur)
        else:
            cur[1].append(float(t))
    return cmds


def fill_of(style):
    m = re.search(r"fill:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)", style)
    if not m:
        return None
    return tuple(round(float(v) * 255 / 100) for v in m.groups())


def read_svg(path):
    """The glyph boxes, filled rectangles and ribbons of an SVG that
    cairo wrote."""
    root = ET.parse(path).getroot()
    symbols = {}
    for sym in root.iter(SVG + "symbol"):
        xs, ys = [], []
        for p in sym.iter(SVG + "path"):
            for c, nums in path_commands(p.get("d", "")):
                xs += nums[0::2]
                ys += nums[1::2]
        symbols[sym.get("id")] = (min(xs), min(ys), max(xs), max(ys)) \
            if xs else None
    glyphs, rects, ribbons = [], [], []
    body = [g for g in root if g.tag == SVG + "g"]
    for top in body:
        for el in top.iter():
            if el.tag == SVG + "use":
                box = symbols.get(el.get(XLINK + "href", "")[1:])
                if box:
                    x, y = float(el.get("x")), float(el.get("y"))
                    glyphs.append((box[0] + x, box[1] + y,
                                   box[2] + x, box[3] + y))
            elif el.tag == SVG + "path":
                style = el.get("style", "")
                if "stroke:none" not in style:
                    continue
                cmds = path_commands(el.get("d", ""))
                kinds = "".join(c for c, _ in cmds)
                col = fill_of(style)
                if kinds.startswith("MLLLZ"):
                    xs = [cmds[i][1][0] for i in range(4)]
                    ys = [cmds[i][1][1] for i in range(4)]
                    rects.append((col, min(xs), min(ys), max(xs), max(ys)))
                elif kinds.startswith("MCLCZ"):
                    ribbons.append(cmds)
    return glyphs, rects, ribbons


def overlaps(a, b, shrink=0.3):
    return (a[0] + shrink < b[2] - shrink and b[0] + shrink < a[2] - shrink
            and a[1] + shrink < b[3] - shrink
            and b[1] + shrink < a[3] - shrink)


def overlapping_pairs(boxes, others=()):
    """Pairs of boxes that overlap (a sweep over x)."""
    bad = []
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][0])
    for k, i in enumerate(order):
        for j in order[k + 1:]:
            if boxes[j][0] >= boxes[i][2]:
                break
            if overlaps(boxes[i], boxes[j]):
                bad.append((boxes[i], boxes[j]))
    for b in boxes:
        for o in others:
            if overlaps(b, o):
                bad.append((b, o))
    return bad


def pdf_text(path):
    p = subprocess.run(["pdftotext", "-layout", path, "-"],
                       capture_output=True, text=True, check=True)
    return " ".join(p.stdout.split())


def pdf_fonts(path):
    p = subprocess.run(["pdffonts", path], capture_output=True, text=True,
                       check=True)
    return [ln.split() for ln in p.stdout.splitlines()[2:] if ln.strip()]


def read_png(path):
    """(width, height, rows of RGB bytes), decoded with zlib alone."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(
            v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return w, h, rows


# ---- checks of one figure against the report ------------------------------------

class Checks:
    def check_shares(self, fig, tables):
        t = tables[fig["source"]["tables"][0]]
        want = {r[0]: r for r in t["rows"] if r[0] != "total"}
        seen = set()
        for m in fig["marks"] + fig.get("left_out", []):
            r = want[m["code"]]
            self.assertEqual(m["items"], r[1], (fig["file"], m))
            if "share" in m:
                self.assertAlmostEqual(m["share"], r[2], 6)
            seen.add(m["code"])
        self.assertEqual(seen, set(want), fig["file"])
        self.assertLessEqual(len(fig["marks"]), 24)

    def check_by_repo(self, fig, tables):
        t = tables[fig["source"]["tables"][0]]
        cols = t["columns"]
        want = rows_by_key(t)
        repos = [c for c in cols[3::2]]
        self.assertEqual([p["repository"] for p in fig["panels"]], repos)
        for p in fig["panels"]:
            k = cols.index(p["repository"])
            for m in p["marks"]:
                self.assertEqual(m["items"], want[m["code"]][k])
                self.assertTrue(same(m["share"], want[m["code"]][k + 1]))

    def check_cross(self, fig, tables):
        t = tables[fig["source"]["tables"][0]]
        cols = t["columns"]
        want = {(r[0], c): v for r in t["rows"] if r[0] != "total"
                for c, v in zip(cols[1:-1], r[1:-1])}
        got = {(m["row"], m["column"]): m["items"]
               for m in fig["marks"] + fig["left_out"]}
        self.assertEqual(got, want, fig["file"])
        drawn = [m["items"] for m in fig["marks"]]
        self.assertEqual(fig["max"], max(drawn) if drawn else 0)

    def check_flow(self, s, fig, opts):
        by = ["--by", fig["by"]] if "by" in fig else []
        dims = [a["dimension"] for a in fig["axes"]]
        code = fig.get("by_code")
        tid = "cross.%s.counts" % code if code else "cross.counts"
        pairs = {}
        for k in range(len(dims) - 1):
            tables, _ = report(s, "--cross", "%s,%s" % (dims[k],
                                                        dims[k + 1]),
                               *(by + opts))
            t = tables[tid]
            for r in t["rows"]:
                if r[0] == "total":
                    continue
                for c, v in zip(t["columns"][1:-1], r[1:-1]):
                    if v:
                        pairs[(dims[k], r[0], c)] = v
        # the CSV holds every pair before gathering
        with open(os.path.join(self.out, fig["data"]), newline="") as f:
            got = {(r["from_dimension"], r["from"], r["to"]):
                   int(r["items"]) for r in csv.DictReader(f)}
        self.assertEqual(got, pairs, fig["file"])
        # the links are the pairs summed over gathered codes
        member = {}
        for a in fig["axes"]:
            for n in a["nodes"]:
                for m in n.get("members", [n["code"]]):
                    member[(a["dimension"], m)] = n["code"]
        sums = {}
        for (d0, a, b), v in pairs.items():
            d1 = dims[dims.index(d0) + 1]
            key = (d0, member[(d0, a)], member[(d1, b)])
            sums[key] = sums.get(key, 0) + v
        links = {(l["from_dimension"], l["from"], l["to"]): l["items"]
                 for l in fig["links"]}
        self.maxDiff = None
        self.assertEqual(links, sums, fig["file"])
        for l in fig["links"]:
            self.assertAlmostEqual(l["width_pt"],
                                   l["items"] * fig["scale_pt_per_item"], 6)
        # "other" gathers small codes only, and two or more
        for a in fig["axes"]:
            total = sum(max(n["items_in"], n["items_out"])
                        for n in a["nodes"])
            for n in a["nodes"]:
                if n["code"] == "other" and "members" in n:
                    self.assertGreaterEqual(len(n["members"]), 2)

    def check_effort(self, fig, tables, small):
        q = rows_by_key(tables["effort.quartiles"])
        size = rows_by_key(tables["effort.size"])
        col = tables["effort.quartiles"]["columns"].index(
            fig["measure"] + " median")
        with open(os.path.join(self.out, fig["data"]), newline="") as f:
            steps = list(csv.DictReader(f))
        for ln in fig["lines"]:
            self.assertTrue(same(ln["median"], q[ln["group"]][col]))
            mine = [r for r in steps if r["group"] == ln["group"]]
            if mine:
                self.assertEqual(int(mine[-1]["at_most"]), ln["values"])
                self.assertEqual(int(mine[-1]["of"]), ln["values"])
            if fig["measure"] == "lines changed":
                self.assertTrue(same(ln["small_share"],
                                     size[ln["group"]][4]))
                # the step function at --small is the share
                at = [r for r in mine if float(r["value"]) <= small]
                share = int(at[-1]["at_most"]) / ln["values"] if at else 0
                if ln["small_share"] is not None:
                    self.assertAlmostEqual(100 * share, ln["small_share"], 6)

    def check_agreement(self, fig, tables):
        t = tables["agreement"]
        cols = t["columns"]
        self.assertEqual(len(fig["marks"]), len(t["rows"]))
        for m, r in zip(fig["marks"], t["rows"]):
            d = dict(zip(cols, r))
            self.assertEqual(m["dimension"], d["dimension"])
            self.assertEqual(m["round"], d["round"])
            self.assertTrue(same(m["kappa"], d["kappa"]))
            self.assertTrue(same(m["ci_low"], d["ci low"]
                                 if d["ci high"] is not None else None))

    def check_all(self, s, figs, opts=(), small=10):
        tables, rep = report(s, *opts)
        self.assertEqual(figs["items"], rep["items"])
        self.assertEqual(figs["pending"], rep["pending"])
        flow_opts = [o for o in opts if o not in ("--by", "stage")]
        kinds = set()
        for fig in figs["figures"]:
            kinds.add(fig["kind"])
            self.assertTrue(os.path.exists(os.path.join(self.out,
                                                        fig["file"])))
            self.assertTrue(os.path.exists(os.path.join(self.out,
                                                        fig["data"])))
            if fig["kind"] != "flow":
                for tid in fig["source"]["tables"]:
                    self.assertIn(tid, tables, fig["file"])
            k = fig["kind"]
            if k == "shares":
                self.check_shares(fig, tables)
            elif k == "shares-by-repo":
                self.check_by_repo(fig, tables)
            elif k == "cross":
                self.check_cross(fig, tables)
            elif k == "flow":
                self.check_flow(s, fig, flow_opts)
            elif k == "effort":
                self.check_effort(fig, tables, small)
            elif k == "agreement":
                self.check_agreement(fig, tables)
        return kinds

    def check_svg(self, figs):
        """Bars and ribbons as long or wide as their counts, within a
        pixel; no two glyphs, nor a glyph and a bar, overlap."""
        for fig in figs["figures"]:
            glyphs, rects, ribbons = read_svg(os.path.join(self.out,
                                                           fig["file"]))
            bars = [r for r in rects if r[0] in (BAR, BAR_DIST, BAR_EXTRA)]
            boxes = [r[1:] for r in bars]
            # the caption alone is dozens of glyphs: the check has teeth
            self.assertGreater(len(glyphs), 30, fig["file"])
            self.assertEqual(overlapping_pairs(glyphs, boxes), [],
                             fig["file"])
            if fig["kind"] == "shares":
                want = [m for m in fig["marks"] if m["items"] > 0]
                self.assertEqual(len(bars), len(want), fig["file"])
                if want:
                    k = max(b[3] - b[1] for b in bars) / \
                        max(m["items"] for m in want)
                    for b, m in zip(bars, want):
                        self.assertLess(abs(b[3] - b[1] - k * m["items"]),
                                        PX, (fig["file"], m))
                    # sorted within each group
                    for g in ("general", "distributed", "extra"):
                        n = [m["items"] for m in fig["marks"]
                             if m["group"] == g]
                        self.assertEqual(n, sorted(n, reverse=True))
            elif fig["kind"] == "shares-by-repo":
                npanel = len(fig["panels"])
                want = []
                for first in range(0, npanel, 3):
                    for i in range(len(fig["panels"][0]["marks"])):
                        for p in fig["panels"][first:first + 3]:
                            if p["marks"][i]["share"]:
                                want.append(p["marks"][i]["share"])
                self.assertEqual(len(bars), len(want), fig["file"])
                k = max(b[3] - b[1] for b in bars) / max(want)
                self.assertAlmostEqual(max(want), fig["scale_max_share"])
                for b, v in zip(bars, want):
                    self.assertLess(abs(b[3] - b[1] - k * v), PX)
            elif fig["kind"] == "flow":
                self.assertEqual(len(ribbons), len(fig["links"]))
                k = fig["scale_pt_per_item"]
                for cmds, l in zip(ribbons, fig["links"]):
                    m, c1, ln, c2 = cmds[0][1], cmds[1][1], cmds[2][1], \
                        cmds[3][1]
                    left = c2[5] - m[1]
                    right = ln[1] - c1[5]
                    self.assertLess(abs(left - k * l["items"]), PX / 2)
                    self.assertLess(abs(right - k * l["items"]), PX / 2)


class Figures(Checks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = sample_study()
        rest = [it for it in sample_items() if it not in labelled()]
        cls.s.ok("round", "create", "r2", "--items", ",".join(rest[:3]),
                 "--annotators", "alice,bob", "--after", "pilot",
                 "--min-kappa", "0.5", "--force")

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="bugcoder-figs-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def test_sample_pdf_numbers_and_text(self):
        figs = draw(self.s, self.out, "--include-pending")
        kinds = self.check_all(self.s, figs, ["--include-pending"])
        self.assertEqual(kinds, {"shares", "shares-by-repo", "flow",
                                 "cross", "effort", "agreement"})
        names = {f["file"] for f in figs["figures"]}
        for want in ("shares-symptom.pdf", "shares-symptom-by-repo.pdf",
                     "flow.pdf", "cross-symptom-root_cause.pdf",
                     "effort-lines.pdf", "effort-days.pdf",
                     "effort-comments.pdf", "agreement.pdf"):
            self.assertIn(want, names)
        for fig in figs["figures"]:
            path = os.path.join(self.out, fig["file"])
            text = pdf_text(path)
            # the caption line, as the index has it
            self.assertIn(" ".join(fig["caption"].split()[:6]), text)
            for font in pdf_fonts(path):
                self.assertIn("yes", font[-5:-2], (fig["file"], font))
            if fig["kind"] == "shares":
                for m in fig["marks"]:
                    self.assertIn(m["label"], text)
                    self.assertIn("%d (%.1f%%)" % (m["items"], m["share"]),
                                  text, fig["file"])
            elif fig["kind"] == "flow":
                for a in fig["axes"]:
                    for n in a["nodes"]:
                        self.assertIn(n["label"], text)
            elif fig["kind"] == "agreement":
                for m in fig["marks"]:
                    if m["kappa"] is not None:
                        self.assertIn("%.2f" % m["kappa"], text)
                self.assertIn("r2 waits for pilot: kappa", text)
                self.assertEqual(fig["gates"][0]["min_kappa"], 0.5)
            elif fig["kind"] == "effort" and "small" in fig:
                self.assertIn("%.1f%% \u2264 10 lines" %
                              fig["lines"][0]["small_share"], text)
            # no creation date, and the figure's title
            with open(path, "rb") as f:
                self.assertNotIn(b"/CreationDate", f.read())

    def test_by_stage_flows_and_heat_maps(self):
        figs = draw(self.s, self.out, "--by", "stage", "--include-pending",
                    "--small", "5")
        self.check_all(self.s, figs, ["--include-pending", "--by", "stage",
                                      "--small", "5"], small=5)
        tables, _ = report(self.s, "--include-pending", "--by", "stage")
        stages = {t[6:-7] for t in tables
                  if t.startswith("cross.") and t.endswith(".counts")}
        flows = {f.get("by_code") for f in figs["figures"]
                 if f["kind"] == "flow"}
        self.assertEqual(flows, stages | {None})
        self.assertIn("flow-stage-communication.pdf",
                      {f["file"] for f in figs["figures"]})
        heat = {f.get("by_code") for f in figs["figures"]
                if f["kind"] == "cross"}
        self.assertEqual(heat, stages)

    def test_svg_geometry(self):
        figs = draw(self.s, self.out, "--include-pending", fmt="svg")
        self.check_svg(figs)

    def test_png_decoded(self):
        figs = draw(self.s, self.out, fmt="png")
        for fig in figs["figures"]:
            w, h, rows = read_png(os.path.join(self.out, fig["file"]))
            self.assertEqual(w, round(fig["width_pt"] * 300 / 72 + .49))
            self.assertEqual(h, -(-int(fig["height_pt"] * 300) // 72))
            dark = sum(1 for r in rows[::4] for k in range(0, len(r), 12)
                       if sum(r[k:k + 3]) < 300)
            self.assertGreater(dark, 20, fig["file"])
            self.assertEqual(rows[0][:3], b"\xff\xff\xff")

    def test_drawn_twice_same_bytes(self):
        for fmt in ("pdf", "svg", "png"):
            a = os.path.join(self.out, fmt + "-a")
            b = os.path.join(self.out, fmt + "-b")
            draw(self.s, a, "--by", "stage", fmt=fmt)
            draw(self.s, b, "--by", "stage", fmt=fmt)
            self.assertEqual(sorted(os.listdir(a)), sorted(os.listdir(b)))
            for name in os.listdir(a):
                with open(os.path.join(a, name), "rb") as f1, \
                        open(os.path.join(b, name), "rb") as f2:
                    self.assertEqual(f1.read(), f2.read(), (fmt, name))

    def test_round_option(self):
        figs = draw(self.s, self.out, "--round", "pilot")
        self.assertEqual(figs["round"], "pilot")
        self.check_all(self.s, figs, ["--round", "pilot"])
        agree = [f for f in figs["figures"] if f["kind"] == "agreement"][0]
        self.assertEqual({m["round"] for m in agree["marks"]}, {"pilot"})

    def test_palette_prints_in_grey(self):
        # bars of general, distributed and extra codes differ in
        # lightness, not only in hue
        def lum(c):
            return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255
        ls = sorted(lum(c) for c in (BAR, BAR_DIST, BAR_EXTRA))
        self.assertGreater(ls[1] - ls[0], 0.2)
        self.assertGreater(ls[2] - ls[1], 0.05)

    def test_bad_options(self):
        self.s.fail("report", "--figures", self.out, "--figure-format",
                    "jpg", code=2)
        self.s.fail("report", "--figures", self.out, "--format", "json",
                    code=2)
        self.s.fail("report", "--figure-format", "svg", code=2)
        err = self.s.fail("report", "--figures",
                          os.path.join(self.out, "no", "such"), code=1)
        self.assertIn("--figures", err)
        err = self.s.fail("report", "--figures", self.out, "--by", "nope",
                          code=1)
        self.assertIn("nope", err)
        self.assertEqual(os.listdir(self.out), [])


class Generated(Checks, unittest.TestCase):
    """A generated study: four repositories, two gated rounds."""

    @classmethod
    def setUpClass(cls):
        cls.s = generated_study()

    @classmethod
    def tearDownClass(cls):
        close_study(cls.s)

    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="bugcoder-figs-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def test_numbers(self):
        for opts in ([], ["--include-pending", "--small", "3",
                          "--by", "stage"]):
            shutil.rmtree(self.out, ignore_errors=True)
            figs = draw(self.s, self.out, *opts)
            small = 3 if "--small" in opts else 10
            kinds = self.check_all(self.s, figs, opts, small=small)
            self.assertIn("shares-by-repo", kinds)
            self.assertEqual(figs["repositories"], 4)
            agree = [f for f in figs["figures"]
                     if f["kind"] == "agreement"][0]
            self.assertEqual([g["round"] for g in agree["gates"]], ["r2"])

    def test_svg(self):
        figs = draw(self.s, self.out, "--by", "stage", "--include-pending",
                    fmt="svg")
        self.check_svg(figs)
        by_repo = [f for f in figs["figures"]
                   if f["kind"] == "shares-by-repo"]
        self.assertEqual(len(by_repo[0]["panels"]), 4)

    def test_pdf_text(self):
        figs = draw(self.s, self.out)
        for fig in figs["figures"]:
            text = pdf_text(os.path.join(self.out, fig["file"]))
            if fig["kind"] == "effort":
                for ln in fig["lines"]:
                    self.assertIn(ln["legend"].split(":")[0], text)
            if fig["kind"] == "cross":
                for m in fig["marks"]:
                    if m["items"]:
                        self.assertIn(str(m["items"]), text)


class EdgeCases(Checks, unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="bugcoder-figs-")
        self.dir = tempfile.mkdtemp(prefix="bugcoder-cb-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_no_labels_yet(self):
        s = Study(members=MEMBERS)
        try:
            figs = draw(s, self.out)
            self.assertEqual(figs["items"], 0)
            self.check_all(s, figs)
            shares = [f for f in figs["figures"] if f["kind"] == "shares"]
            self.assertEqual(len(shares), 5)
            for f in shares:
                self.assertTrue(all(m["items"] == 0 for m in f["marks"]))
            agree = [f for f in figs["figures"]
                     if f["kind"] == "agreement"][0]
            self.assertEqual(agree["marks"], [])
            self.assertIn("No agreement figures yet",
                          pdf_text(os.path.join(self.out, agree["file"])))
            # nothing to cross, no flow: no such figures
            self.assertNotIn("flow", {f["kind"] for f in figs["figures"]})
            draw(s, os.path.join(self.out, "svg"), fmt="svg")
        finally:
            s.close()

    def test_one_code(self):
        cb = os.path.join(self.dir, "one.json")
        write_codebook(cb, [("symptom", "one", [("crash", "Crash",
                                                 False)])])
        s = generated_study(seed=3, n=12, codebook=cb, repos=1)
        try:
            figs = draw(s, self.out, fmt="svg")
            self.check_all(s, figs)
            self.check_svg(figs)
            shares = [f for f in figs["figures"] if f["kind"] == "shares"]
            self.assertEqual(len(shares), 1)
            self.assertGreater(figs["items"], 0)
            self.assertEqual([(m["code"], m["items"], m["share"])
                              for m in shares[0]["marks"]],
                             [("crash", figs["items"], 100)])
            self.assertNotIn("shares-by-repo",
                             {f["kind"] for f in figs["figures"]})
        finally:
            close_study(s)

    def test_sixty_codes_and_long_names(self):
        long = "A very long code name that cannot fit in the label column %d"
        codes = [("c%02d" % i, long % i if i % 7 == 0 else "Code %d" % i,
                  i % 10 == 0) for i in range(60)]
        cb = os.path.join(self.dir, "sixty.json")
        write_codebook(cb, [("symptom", "one", codes),
                            ("root_cause", "one", codes[:20]),
                            ("fix_pattern", "many", codes[:12])])
        s = generated_study(seed=60, n=44, codebook=cb, repos=3, gate=False)
        try:
            figs = draw(s, self.out, "--include-pending", fmt="svg")
            self.check_all(s, figs, ["--include-pending"])
            self.check_svg(figs)
            sym = [f for f in figs["figures"]
                   if f["file"] == "shares-symptom.svg"][0]
            # 23 bars and a row saying what was left out
            self.assertEqual(len(sym["marks"]), 23)
            self.assertEqual(len(sym["marks"]) + len(sym["left_out"]), 61)
            self.assertIn("codes with", sym["caption"])
            most_left = max(m["items"] for m in sym["left_out"])
            self.assertLessEqual(most_left,
                                 min(m["items"] for m in sym["marks"]
                                     if m["group"] != "extra"))
            full = {c: n for c, n, _ in codes}
            short = {x["code"]: x for x in sym.get("shortened", [])}
            for m in sym["marks"]:
                if m["label"] != full.get(m["code"], m["code"]):
                    self.assertEqual(short[m["code"]]["full"],
                                     full[m["code"]])
                    self.assertTrue(m["label"].endswith("\u2026"))
            self.assertTrue(short)
            # the PDF says what it left out
            shutil.rmtree(self.out)
            figs = draw(s, self.out, "--include-pending")
            text = pdf_text(os.path.join(self.out, "shares-symptom.pdf"))
            self.assertIn("more codes not drawn", text)
            flow = [f for f in figs["figures"] if f["kind"] == "flow"][0]
            for a in flow["axes"]:
                self.assertLessEqual(len(a["nodes"]), 8)
        finally:
            close_study(s)

    def test_large_counts(self):
        # four-digit totals and three-digit cells: every count still fits
        # its cell (the glyph check), and the numbers are the report's
        s = generated_study(seed=9, n=1500, repos=3, agree=0.97)
        try:
            figs = draw(s, self.out, fmt="svg")
            self.check_all(s, figs)
            self.check_svg(figs)
            heat = [f for f in figs["figures"] if f["kind"] == "cross"][0]
            self.assertGreaterEqual(heat["max"], 50)
            self.assertGreaterEqual(figs["items"], 1000)
        finally:
            close_study(s)

    def test_package_figures(self):
        s = sample_study()
        try:
            pkg = os.path.join(self.out, "pkg")
            s.ok("export", "--package", pkg)
            figdir = os.path.join(pkg, "figures")
            with open(os.path.join(figdir, "figures.json")) as f:
                figs = json.load(f)
            self.assertEqual(figs["format"], "pdf")
            for fig in figs["figures"]:
                self.assertTrue(fig["file"].endswith(".pdf"))
                self.assertTrue(os.path.exists(os.path.join(figdir,
                                                            fig["file"])))
                with open(os.path.join(figdir, fig["data"]),
                          newline="") as f:
                    self.assertGreater(len(list(csv.reader(f))), 0)
            with open(os.path.join(pkg, "README.txt")) as f:
                readme = f.read()
            self.assertIn("bugcoder report --figures figures/ --by stage "
                          "--effort-by phase", readme)
            with open(os.path.join(pkg, "MANIFEST")) as f:
                listed = {ln.split()[1] for ln in f}
            self.assertIn("figures/figures.json", listed)
            self.assertIn("figures/flow.pdf", listed)
            p = subprocess.run(["sha256sum", "-c", "--quiet", "MANIFEST"],
                               cwd=pkg, capture_output=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            # the command the README gives redraws the same PDFs
            again = os.path.join(self.out, "again")
            s.ok("report", "--figures", again, "--by", "stage",
                 "--effort-by", "phase")
            for fig in figs["figures"]:
                with open(os.path.join(figdir, fig["file"]), "rb") as a, \
                        open(os.path.join(again, fig["file"]), "rb") as b:
                    self.assertEqual(a.read(), b.read(), fig["file"])
        finally:
            s.close()


if __name__ == "__main__":
    unittest.main()
