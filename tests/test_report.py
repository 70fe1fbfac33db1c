# SPDX-License-Identifier: MIT
"""`bugcoder report`: every table of `--format json` recomputed from the
exports (tests/reportcheck.py) and compared cell by cell; the text,
Markdown and LaTeX forms carry the same tables."""
import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import time
import tempfile
import unittest

from bchelp import BIN, CODEBOOK, SAMPLE_LABELS, Study
import reportcheck as rc

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]


def sample_rounds():
    items = []
    with open(SAMPLE_LABELS, newline="") as f:
        for r in csv.DictReader(f):
            if r["item"] not in items:
                items.append(r["item"])
    return {"pilot": items[:8], "r1": items[8:]}


def make_sample_study():
    """The sample with a pilot and a first round, both closed, and three
    adjudicated disagreements."""
    s = Study(members=MEMBERS)
    rounds = sample_rounds()
    for name, items in rounds.items():
        s.ok("round", "create", name, "--items", ",".join(items),
             "--annotators", "alice,bob")
    s.ok("labels", "import", SAMPLE_LABELS, "--submit")
    for name in rounds:
        s.ok("round", "close", name)
    for item, arg in (("microsoft/DeepSpeed#3468",
                       "root_cause=distributed_communication"),
                      ("microsoft/DeepSpeed#5240", "phase=inference"),
                      ("microsoft/DeepSpeed#4903",
                       "fix_pattern=algorithm_rewrite")):
        s.ok("resolve", item, arg, "--rationale", "settled", as_="carol")
    return s, rounds


class Check:
    def compare(self, s, args, pending=False, small=10, hard=(30, 10),
                effort_by=None, cross=None, by=None, rounds=None):
        with open(CODEBOOK) as f:
            cb = json.load(f)
        got = json.loads(s.ok("report", "--format", "json", *args))
        rows = rc.read_csv(s.ok("export", "--include-pending"))
        want = rc.expected_tables(cb, rows, small=small, hard=hard,
                                  effort_by=effort_by, cross=cross, by=by,
                                  pending=pending)
        tables = {t["id"]: t for t in got["tables"]}
        self.assertEqual(got["counting"], "all" if pending else "agreed")
        for tid, (cols, body) in want.items():
            self.assertIn(tid, tables)
            t = tables[tid]
            self.assertEqual(t["columns"], cols, tid)
            self.assertEqual(len(t["rows"]), len(body), tid)
            for r, (g, w) in enumerate(zip(t["rows"], body)):
                self.assertEqual(len(g), len(w), (tid, r))
                for c, (x, y) in enumerate(zip(g, w)):
                    self.assertTrue(rc.same(x, y), (tid, r, c, x, y))
        # the selection flow is checked against counts of its own in
        # test_design.py; here: it covers every item of the study
        self.assertIn("flow", tables)
        self.assertEqual(tables["flow"]["rows"][-1][:2],
                         ["all", len(s.query("SELECT id FROM items"))])
        extra = set(tables) - set(want) - {"agreement", "flow"}
        self.assertEqual(extra, set())
        if rounds:
            raw = rc.read_csv(s.ok("export", "--raw"))
            kap = rc.round_kappas(cb, raw, rounds)
            seen = 0
            for row in tables["agreement"]["rows"]:
                d = dict(zip(tables["agreement"]["columns"], row))
                if (d["dimension"], d["round"]) not in kap:
                    continue
                self.assertEqual(d["codebook"], cb["version"])
                k = kap[d["dimension"], d["round"]]
                if k is None:
                    self.assertIsNone(d["kappa"])
                else:
                    self.assertTrue(rc.same(d["kappa"], k, 1e-5),
                                    (d, k))
                    seen += 1
            self.assertGreater(seen, 4)
        return got


class SampleReport(Check, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s, cls.rounds = make_sample_study()

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_json_cell_by_cell(self):
        got = self.compare(self.s, ["--effort-by", "phase", "--by", "stage",
                                    "--hard", "5,3", "--small", "8"],
                           small=8, hard=(5, 3), effort_by="phase",
                           by="stage", rounds=self.rounds)
        self.assertEqual(got["items"], 10)
        ids = [t["id"] for t in got["tables"]]
        self.assertIn("cross.communication.counts", ids)
        # every table has content on the sample
        for t in got["tables"]:
            self.assertTrue(t["rows"], t["id"])

    def test_defaults_and_pending(self):
        self.compare(self.s, [], rounds=self.rounds)
        got = self.compare(self.s, ["--include-pending", "--cross",
                                    "root_cause,fix_pattern"],
                           pending=True,
                           cross=("root_cause", "fix_pattern"))
        # every item of the rounds: the sample's other 10 are in none,
        # and the design leaves them out of every figure
        self.assertEqual(got["items"], 20)
        self.assertIn("10 items outside every coding round are left out",
                      got["scope"][0])
        shares = next(t for t in got["tables"] if t["id"].startswith(
            "shares."))
        self.assertIn("(pending)", json.dumps(shares))

    def test_statement_in_every_form(self):
        for fmt in ("text", "markdown", "latex", "json"):
            out = self.s.ok("report", "--format", fmt)
            self.assertIn("Counting agreed items only", out[:600], fmt)
            out = self.s.ok("report", "--format", fmt, "--include-pending")
            self.assertIn("Counting every item (--include-pending)",
                          out[:600], fmt)

    def test_markdown_tables(self):
        out = self.s.ok("report", "--format", "markdown", "--by", "stage")
        got = json.loads(self.s.ok("report", "--format", "json", "--by",
                                   "stage"))
        blocks = re.findall(r"(?m)((?:^\|.*\|\n)+)", out)
        nonempty = [t for t in got["tables"] if t["rows"]]
        self.assertEqual(len(blocks), len(nonempty))
        for block, t in zip(blocks, nonempty):
            lines = block.splitlines()
            self.assertRegex(lines[1], r"^\|(-{3}:?\|)+$")
            for line in lines:
                cells = re.split(r"(?<!\\)\|", line)[1:-1]
                self.assertEqual(len(cells), len(t["columns"]), line)
            self.assertEqual(len(lines), len(t["rows"]) + 2)
            # the same numbers: the first data row's cells
            first = [c.strip() for c in re.split(r"(?<!\\)\|",
                                                  lines[2])[1:-1]]
            self.assertEqual(first[0], t["rows"][0][0])

    def test_latex_structure(self):
        out = self.s.ok("report", "--format", "latex", "--effort-by",
                        "phase")
        got = json.loads(self.s.ok("report", "--format", "json",
                                   "--effort-by", "phase"))
        self.assertEqual(out.count("\\begin{tabular}"),
                         out.count("\\end{tabular}"))
        self.assertEqual(out.count("\\begin{tabular}"),
                         len([t for t in got["tables"] if t["rows"]]))
        for m in re.finditer(r"\\begin\{tabular\}\{([lr]+)\}\n(.*?)"
                             r"\\end\{tabular\}", out, re.S):
            ncol = len(m.group(1))
            for line in m.group(2).splitlines():
                if line == "\\hline":
                    continue
                self.assertTrue(line.endswith(" \\\\"), line)
                self.assertEqual(len(re.split(r"(?<!\\)&", line)), ncol,
                                 line)
        # nothing unescaped: no bare _ % # outside commands
        body = re.sub(r"\\[a-z]+\*?(\{[^}]*\})?|\\[_%#&${}]", "", out)
        for ch in "_#$":
            self.assertNotIn(ch, body.split("\n", 1)[1])

    def test_bad_options(self):
        self.s.fail("report", "--format", "pdf", code=2)
        self.s.fail("report", "--small", "x", code=2)
        self.s.fail("report", "--hard", "30", code=2)
        self.assertIn("mood", self.s.fail("report", "--by", "mood"))
        self.assertIn("mood", self.s.fail("report", "--effort-by", "mood"))


class GeneratedReport(Check, unittest.TestCase):
    """A generated study: random labels on 40 items of four repositories,
    some codes unknown to the codebook (an older version's)."""

    def test_generated(self):
        rnd = random.Random(15)
        with open(CODEBOOK) as f:
            cb = json.load(f)
        d = tempfile.mkdtemp(prefix="bugcoder-gen-")
        items = os.path.join(d, "items.jsonl")
        names = []
        with open(items, "w") as f:
            for i in range(40):
                repo = "o%d/r%d" % (i % 4, i % 4)
                lines = rnd.choice([None, 1, 5, 10, 11, 40, 300])
                rec = {"repo": repo, "number": i + 1, "title": "t%d" % i,
                       "created_at": "2024-01-01T00:00:00Z",
                       "closed_at": "2024-%02d-%02dT%02d:00:00Z" % (
                           rnd.randint(1, 6), rnd.randint(2, 28),
                           rnd.randint(0, 23)),
                       "comments": [{"author": "u", "body": "c",
                                     "created_at": "2024-01-02T00:00:00Z"}
                                    for _ in range(rnd.randint(0, 14))]}
                if lines is not None:
                    rec["fixes"] = [{"number": 1000 + i, "additions": lines,
                                     "deletions": 0, "changed_files": 1}]
                f.write(json.dumps(rec) + "\n")
                names.append("%s#%d" % (repo, i + 1))
        labels = os.path.join(d, "labels.csv")
        with open(labels, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["item", "annotator", "dimension", "code"])
            for it in names:
                for dim in cb["dimensions"]:
                    codes = [c["key"] for c in dim["codes"]]
                    base = rnd.sample(codes, 2 if dim.get("select") ==
                                      "many" and rnd.random() < .3 else 1)
                    for who in ("alice", "bob"):
                        pick = base if rnd.random() < .8 else \
                            [rnd.choice(codes)]
                        for c in pick:
                            w.writerow([it, who, dim["key"], c])
        s = Study(items=items, members=MEMBERS)
        try:
            s.ok("labels", "import", labels, "--submit")
            self.compare(s, ["--effort-by", "stage", "--by", "phase"],
                         effort_by="stage", by="phase")
            self.compare(s, ["--include-pending", "--hard", "60,5"],
                         pending=True, hard=(60, 5))
        finally:
            s.close()
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()


class PackageLeftovers(unittest.TestCase):
    """A package killed with kill -9 leaves its hidden build directory;
    the next `export --package` beside it removes it, but never the
    directory of a build still running."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("labels", "import", SAMPLE_LABELS, "--submit")

    def tearDown(self):
        self.s.close()

    def temps(self):
        return sorted(n for n in os.listdir(self.s.dir)
                      if n.startswith(".bugcoder-pkg."))

    def stalled_build(self, name, old=()):
        env = dict(os.environ, BUGCODER_STALL_EXPORT_AFTER="3")
        p = subprocess.Popen([BIN, "--study", self.s.path, "export",
                              "--package", os.path.join(self.s.dir, name)],
                             env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline:
            t = [x for x in self.temps() if x not in old]
            if t and any(os.listdir(os.path.join(self.s.dir, x))
                         for x in t):
                break
            time.sleep(0.02)
        return p

    def test_kill_9_then_a_later_run_cleans_up(self):
        before = set(self.temps())
        p = self.stalled_build("a")
        p.kill()
        p.wait()
        left = set(self.temps()) - before
        self.assertEqual(len(left), 1, "the killed build left its tree")
        self.assertFalse(os.path.exists(os.path.join(self.s.dir, "a")))
        # a build still running is left alone ...
        live = self.stalled_build("b", left)
        try:
            running = set(self.temps()) - left
            self.assertEqual(len(running), 1)
            # starting it swept the dead build already
            self.assertEqual(set(self.temps()), running)
            self.s.ok("export", "--package", os.path.join(self.s.dir, "c"))
            # ... the dead one is gone, the live one stays
            self.assertEqual(set(self.temps()), running)
        finally:
            live.kill()
            live.wait()
        self.s.ok("export", "--package", os.path.join(self.s.dir, "d"))
        self.assertEqual(self.temps(), [])
        self.assertTrue(os.path.isfile(os.path.join(self.s.dir, "d",
                                                    "MANIFEST")))


class PackageAnalysisR(unittest.TestCase):
    """`Rscript analysis.R --csv` in a fresh package gives report.json's
    numbers, cell by cell (the agreement table's bootstrap bounds and
    degenerate counts within Monte Carlo error: R draws its own
    resamples); the manifest lists every file."""

    def mc_close(self, col, v, got, band, i, row, cols):
        """A bootstrap figure of report.json against R's: a bound must
        lie in R's Monte Carlo band for it; a count of degenerate
        resamples (negative binomial: failures before `resamples`
        successes) within 4 standard deviations of the difference."""
        if v is None or got == "NA":
            self.assertTrue(v is None and got == "NA", (i, col, v, got))
            return
        got = float(got)
        if col == "degenerate":
            b = row[cols.index("resamples")]
            q = (v + got) / (v + got + 2 * b)
            sd = (b * q) ** 0.5 / (1 - q)
            self.assertLessEqual(abs(v - got), 4 * 2 ** 0.5 * sd + 2,
                                 (i, row, got))
            return
        if row[cols.index("ci method")] != "bootstrap percentile":
            self.assertTrue(rc.same(got, v, 1e-5), (i, col, v, got))
            return
        lo, hi = ((0, 1) if col == "ci low" else (2, 3))
        a, b = float(band[i, lo]), float(band[i, hi])
        self.assertTrue(a - 1e-6 <= v <= b + 1e-6, (i, row, col, a, b, got))

    def compare_package(self, d):
        """Every cell of report.json in package `d` against Rscript
        analysis.R --csv; returns (the report, cells checked)."""
        with open(os.path.join(d, "report.json"), encoding="utf-8") as f:
            rep = json.load(f)
        p = subprocess.run(["Rscript", "analysis.R", "--csv", "--mc-band"],
                           cwd=d, capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Warning", p.stderr)
        cells = {}
        for r in csv.DictReader(io.StringIO(p.stdout)):
            cells[r["table"], int(r["row"]), int(r["column"])] = r["value"]
        band = {k[1:]: v for k, v in cells.items()
                if k[0] == "agreement.mc_band"}
        cells = {k: v for k, v in cells.items()
                 if k[0] != "agreement.mc_band"}
        rtables = {t for t, _, _ in cells}
        checked = 0
        for t in rep["tables"]:
            # (a table without rows prints no cell)
            self.assertTrue(t["id"] in rtables or not t["rows"], t["id"])
            cols = t["columns"]
            for i, row in enumerate(t["rows"]):
                for j, v in enumerate(row):
                    got = cells[t["id"], i, j]
                    if t["id"] == "agreement" and \
                            cols[j] in ("ci low", "ci high", "degenerate"):
                        self.mc_close(cols[j], v, got, band, i, row, cols)
                    elif v is None:
                        self.assertEqual(got, "NA", (t["id"], i, j, row))
                    elif isinstance(v, str):
                        self.assertEqual(got, v, (t["id"], i, j, row))
                    else:
                        # the agreement table's kappas are printed with
                        # 6 digits
                        tol = 1e-5 if t["id"] == "agreement" else 1e-9
                        self.assertTrue(rc.same(float(got), v, tol),
                                        (t["id"], i, j, got, v))
                    checked += 1
                self.assertNotIn((t["id"], i, len(row)), cells)
            self.assertNotIn((t["id"], len(t["rows"]), 0), cells)
        self.assertEqual(rtables - {t["id"] for t in rep["tables"]}, set())
        return rep, checked

    def test_three_annotators_and_scales(self):
        """Fleiss' kappa, the mean of per-code Fleiss' kappas and empty
        optional dimensions, recomputed by R cell by cell."""
        if not shutil.which("Rscript"):
            self.fail("Rscript is not installed")
        import agree_golden
        for build in (lambda: agree_golden.scales_study(13, 50, ["ann", "ben",
                                                                 "cat"]),
                      lambda: agree_golden.scales_study(12, 70,
                                                        ["ann", "ben"])):
            s, _ = build()
            try:
                d = os.path.join(s.dir, "pkg")
                s.ok("export", "--package", d, "--include-pending")
                rep, checked = self.compare_package(d)
                ag = next(t for t in rep["tables"] if t["id"] == "agreement")
                self.assertEqual(len(ag["rows"]), 4 * 3)
                coefs = {r[5] for r in ag["rows"]}
                self.assertIn("mean per-code kappa", coefs)
                self.assertGreater(checked, 100)
            finally:
                s.close()

    def test_rscript_reproduces_report_json(self):
        if not shutil.which("Rscript"):
            self.fail("Rscript is not installed")
        s, _ = make_sample_study()
        try:
            d = os.path.join(s.dir, "pkg")
            s.ok("export", "--package", d)
            rep, checked = self.compare_package(d)
            ag = next(t for t in rep["tables"] if t["id"] == "agreement")
            rounds = [r[1] for r in ag["rows"]]
            self.assertIn("(whole study)", rounds)
            self.assertEqual(ag["columns"][9:13], ["ci method", "resamples",
                                                   "degenerate", "seed"])
            self.assertGreater(checked, 700)
            # the text form prints the same tables
            p = subprocess.run(["Rscript", "analysis.R"], cwd=d,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("symptom x root_cause where stage = communication",
                          p.stdout)
            # the manifest covers every file
            files = set()
            for dd, _, names in os.walk(d):
                files |= {os.path.relpath(os.path.join(dd, n), d)
                          for n in names}
            with open(os.path.join(d, "MANIFEST")) as f:
                listed = {line.split("  ", 1)[1].strip() for line in f}
            self.assertEqual(files - {"MANIFEST"}, listed)
            for need in ("analysis.R", "report.json", "report.md",
                         "codes.csv", "round-items.csv",
                         "agreement-by-round.txt",
                         "agreement-by-round.json"):
                self.assertIn(need, files)
            with open(os.path.join(d, "agreement-by-round.json")) as f:
                json.load(f)
        finally:
            s.close()


class MemosFlagsSettleAudit(unittest.TestCase):
    """Memos, flags, settle notes and the audit log leave the study:
    what is stored comes back out of the exports and the package."""

    def test_round_trip(self):
        s, _ = make_sample_study()
        try:
            ids = dict(s.query("SELECT name, id FROM members"))
            item = dict(s.query("SELECT repo || '#' || number, id FROM "
                                "items"))
            it1, it2 = "microsoft/DeepSpeed#4187", "NVIDIA/Megatron-LM#412"
            memo = 'ZeRO-3 hang: "see" the trace,\nline two; =SUM(A1)'
            with s.db() as c:
                c.execute("INSERT INTO memos VALUES (?, ?, ?, ?)",
                          (item[it1], ids["alice"], memo,
                           "2026-01-02T03:04:05Z"))
                c.execute("INSERT INTO flags VALUES (?, ?, 'discuss', ?)",
                          (item[it1], ids["alice"], "2026-01-03T00:00:00Z"))
                c.execute("INSERT INTO flags VALUES (?, ?, 'uncertain', ?)",
                          (item[it1], ids["alice"], "2026-01-01T00:00:00Z"))
                c.execute("INSERT INTO flags VALUES (?, ?, 'uncertain', ?)",
                          (item[it2], ids["bob"], "2026-02-01T00:00:00Z"))
                c.execute("INSERT INTO settled VALUES (?, ?, ?, ?)",
                          (item[it2], ids["carol"], "agree; nothing to do",
                           "2026-02-02T00:00:00Z"))
            rows = rc.read_csv(s.ok("export", "--memos",
                                    "--no-formula-guard"))
            got = {(r["item"], r["annotator"]): r for r in rows}
            self.assertEqual(len(rows), 2)
            a = got[it1, "alice"]
            self.assertEqual((a["memo"], a["flags"], a["updated_at"]),
                             (memo, "discuss;uncertain",
                              "2026-01-03T00:00:00Z"))
            b = got[it2, "bob"]
            self.assertEqual((b["memo"], b["flags"]), ("", "uncertain"))
            # JSON Lines as stored
            objs = [json.loads(l) for l in s.ok(
                "export", "--memos", "--format", "jsonl").splitlines()]
            self.assertEqual({o["memo"] for o in objs}, {memo, ""})
            self.assertIn(["discuss", "uncertain"], [o["flags"] for o in objs])
            # settle notes
            res = rc.read_csv(s.ok("export", "--resolutions"))
            settled = [r for r in res if r["kind"] == "settled"]
            self.assertEqual(len(settled), 1)
            self.assertEqual((settled[0]["item"], settled[0]["rationale"],
                              settled[0]["adjudicator"],
                              settled[0]["resolved_at"]),
                             (it2, "agree; nothing to do", "carol",
                              "2026-02-02T00:00:00Z"))
            self.assertEqual(len(res) - 1, 3)
            # the audit log: the owner's export is `audit`'s
            self.assertEqual(s.ok("export", "--audit"),
                             s.ok("audit", "--format", "csv"))
            self.assertEqual(s.ok("export", "--audit", as_="carol"),
                             s.ok("audit", "--format", "csv", as_="carol"))
            self.assertGreater(len(rc.read_csv(s.ok("export", "--audit"))),
                               5)
            # ... and all of it in the package
            d = os.path.join(s.dir, "pkg")
            s.ok("export", "--package", d)
            with open(os.path.join(d, "memos.csv"), newline="",
                      encoding="utf-8") as f:
                prow = {(r["item"], r["annotator"]): r
                        for r in csv.DictReader(f)}
            self.assertEqual(prow[it1, "alice"]["flags"], "discuss;uncertain")
            self.assertEqual(prow[it1, "alice"]["memo"], "'" + memo
                             if memo[0] in "=+-@" else memo)
            with open(os.path.join(d, "resolutions.csv"), newline="",
                      encoding="utf-8") as f:
                self.assertIn("agree; nothing to do", f.read())
            with open(os.path.join(d, "README.txt")) as f:
                readme = f.read()
            for name in ("agreed-labels", "raw-labels", "resolutions",
                         "rounds", "round-items", "memos", "audit", "codes"):
                with open(os.path.join(d, name + ".csv"), newline="",
                          encoding="utf-8") as f:
                    header = next(csv.reader(f))
                for col in header:
                    if name == "agreed-labels" and col in (
                            "symptom", "root_cause", "fix_pattern", "stage",
                            "phase") or col.endswith("_status"):
                        continue
                    self.assertRegex(readme, r"\b%s\b" % re.escape(col),
                                     (name, col))
            self.assertIn("TRUE/FALSE", readme)
            # R reads the booleans as logical
            p = subprocess.run(
                ["Rscript", "-e", 'x <- read.csv("agreed-labels.csv"); '
                 'cat(class(x$small_fix)); '
                 'y <- read.csv("codes.csv"); cat("", class(y$distributed))'],
                cwd=d, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.stdout, "logical logical", p.stderr)
        finally:
            s.close()


class CodebookShow(unittest.TestCase):
    def test_formats_and_versions(self):
        s = Study(members=MEMBERS)
        try:
            with open(CODEBOOK) as f:
                cb = json.load(f)
            got = json.loads(s.ok("codebook", "show", "--format", "json"))
            self.assertEqual((got["name"], got["version"]),
                             (cb["name"], cb["version"]))
            for gd, d in zip(got["dimensions"], cb["dimensions"]):
                self.assertEqual(gd["key"], d["key"])
                self.assertEqual(gd["select"], d.get("select", "one"))
                for gc, c in zip(gd["codes"], d["codes"]):
                    for k in ("key", "name", "definition"):
                        self.assertEqual(gc[k], c[k])
                    for k in ("group", "include", "exclude"):
                        self.assertEqual(gc[k], c.get(k))
                    self.assertEqual(gc["examples"], c.get("examples", []))
                    self.assertEqual(gc["distributed"],
                                     c.get("distributed", False))
                self.assertEqual(len(gd["codes"]), len(d["codes"]))
            # Markdown: one table per dimension, eight cells a row
            md = s.ok("codebook", "show", "--format", "markdown")
            blocks = re.findall(r"(?m)((?:^\|.*\|\n)+)", md)
            self.assertEqual(len(blocks), len(cb["dimensions"]))
            for block, d in zip(blocks, cb["dimensions"]):
                lines = block.splitlines()
                self.assertEqual(len(lines), len(d["codes"]) + 2)
                for line in lines:
                    self.assertEqual(
                        len(re.split(r"(?<!\\)\|", line)[1:-1]), 8, line)
            # LaTeX: balanced environments, an item per code
            tex = s.ok("codebook", "show", "--format", "latex")
            self.assertEqual(tex.count("\\begin{description}"),
                             len(cb["dimensions"]))
            self.assertEqual(tex.count("\\end{description}"),
                             len(cb["dimensions"]))
            self.assertEqual(tex.count("\\item["),
                             sum(len(d["codes"]) for d in cb["dimensions"]))
            self.assertEqual(tex.count("{"), tex.count("}"))
            body = re.sub(r"\\[A-Za-z]+\*?|\\[_%#&${}]", "", tex)
            for ch in "_#$%&":
                self.assertNotIn(ch, body.split("\n", 1)[1], ch)
            # an older version
            new = dict(cb, version="1.1")
            new["dimensions"] = [dict(d) for d in cb["dimensions"]]
            new["dimensions"][0] = dict(new["dimensions"][0],
                                        name="Symptom seen")
            path = os.path.join(s.dir, "v11.json")
            with open(path, "w") as f:
                json.dump(new, f)
            s.ok("codebook", "update", path)
            cur = json.loads(s.ok("codebook", "show", "--format", "json"))
            old = json.loads(s.ok("codebook", "show", "--format", "json",
                                  "--version", "1.0"))
            self.assertEqual((cur["version"], cur["dimensions"][0]["name"]),
                             ("1.1", "Symptom seen"))
            self.assertEqual((old["version"], old["dimensions"][0]["name"]),
                             ("1.0", cb["dimensions"][0]["name"]))
            self.assertIn("9.9", s.fail("codebook", "show", "--version",
                                        "9.9"))
            s.fail("codebook", "show", "--format", "pdf", code=2)
            # the text form is unchanged without --format
            self.assertEqual(s.ok("codebook", "show"),
                             s.ok("codebook", "show", "--format", "text"))
        finally:
            s.close()
