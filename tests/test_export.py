# SPDX-License-Identifier: MIT
"""export and report through the real binary: CSV read back cell by cell
(hostile titles included), JSON Lines, the raw round trip, resolutions,
the replication package and its manifest, atomic writes under failure
and SIGKILL, blinding, and the report."""
import csv
import decimal
import hashlib
import io
import json
import os
import sys
import shutil
import random
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest

from bchelp import BIN, CODEBOOK, ROOT, SAMPLE, SAMPLE_LABELS, Study

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "export", "items.jsonl")
MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]
DIMS = ["symptom", "root_cause", "fix_pattern", "stage", "phase"]
ITEM_COLS = ["item", "repo", "number", "url", "title", "created_at",
             "closed_at", "days_open", "comments", "fix_numbers",
             "additions", "deletions", "changed_files", "lines_changed",
             "fix_lines_changed", "fix_repeats", "small_fix"]
HEADER = ITEM_COLS + [c for d in DIMS for c in (d, d + "_status")]
RAW_HEADER = ["item", "annotator", "dimension", "code", "codebook_version",
              "labeled_at", "submitted_at", "evidence"]
RES_HEADER = ["item", "dimension", "coder1", "coder1_codes", "coder2",
              "coder2_codes", "final", "rationale", "cause", "adjudicator",
              "resolved_at", "kind"]
NOW = {"BUGCODER_NOW": "2024-07-01T12:00:00Z"}


def read_csv(text_or_path):
    """Python's csv module with the default dialect, as pandas-style
    readers see the file (newline='' keeps line breaks inside cells)."""
    if os.path.exists(text_or_path):
        with open(text_or_path, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))
    return list(csv.reader(io.StringIO(text_or_path, newline="")))


def stdout_csv(study, *args, as_=None):
    """Rows of a CSV export written to stdout, read as bytes (text mode
    would fold the CRLF inside cells)."""
    cmd = [BIN, "--study", study.path] + (["--as", as_] if as_ else [])
    p = subprocess.run(cmd + list(args), capture_output=True, timeout=120)
    if p.returncode:
        raise AssertionError("%s: %s" % (args, p.stderr))
    return read_csv(p.stdout.decode("utf-8"))


def guarded(s):
    if s and s[0] in "=+-@\t\r":
        return "'" + s
    return s


def label(s, item, who, symptom="crash", root="api_misuse",
          fix="conditional_logic", phase="training", stage=None,
          submit=True):
    args = ["label", item, "symptom=" + symptom, "root_cause=" + root,
            "fix_pattern=" + fix, "phase=" + phase]
    if stage:
        args.append("stage=" + stage)
    if submit:
        args.append("--submit")
    s.ok(*args, as_=who, env=NOW)


def hostile_study():
    """The fixture items coded so that every status occurs:
    1-8 agreed, 9 adjudicated on root_cause, 10 disagreeing, 11 only
    alice submitted, 12 nobody."""
    s = Study(items=FIXTURE, members=MEMBERS)
    for n in range(1, 9):
        fix = ("conditional_logic,parameter_handling" if n == 2 else
               "conditional_logic")
        stage = "memory" if n % 2 else None
        for who in ("alice", "bob"):
            label(s, "acme/widgets#%d" % n, who, fix=fix, stage=stage)
    label(s, "acme/widgets#9", "alice", root="api_misuse")
    label(s, "acme/widgets#9", "bob", root="configuration_error")
    s.ok("resolve", "acme/widgets#9", "root_cause=configuration_error",
         "--rationale", 'the config, "clearly", =not a formula',
         "--cause", "slip", as_="carol", env=NOW)
    label(s, "acme/widgets#10", "alice", symptom="crash")
    label(s, "acme/widgets#10", "bob", symptom="hang")
    label(s, "acme/widgets#11", "alice")
    return s


class AgreedCSV(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = hostile_study()
        with cls.s.db() as c:
            c.row_factory = sqlite3.Row
            cls.items = {r["number"]: dict(r) for r in c.execute(
                "SELECT * FROM items")}
            cls.fixes, cls.fix_lines, cls.fix_repeats = {}, {}, {}
            for n, num, size, rep in c.execute(
                    "SELECT i.number, f.number, f.additions + f.deletions, "
                    "f.repeats FROM fixes f JOIN items i "
                    "ON i.id = f.item_id ORDER BY f.item_id, f.position"):
                cls.fixes.setdefault(n, []).append(str(num))
                cls.fix_lines.setdefault(n, []).append(
                    "?" if size is None else str(size))
                cls.fix_repeats.setdefault(n, []).append(
                    "0" if rep is None else str(rep + 1))
        with open(FIXTURE, encoding="utf-8") as f:
            cls.source = {o["number"]: o for o in map(json.loads, f)}

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def export(self, *args):
        out = os.path.join(self.s.dir, "agreed.csv")
        if os.path.exists(out):
            os.unlink(out)
        self.s.ok("export", *args, "-o", out)
        with open(out, "rb") as f:
            raw = f.read()
        return raw, read_csv(out)

    def expected_row(self, n, guard=True):
        it = self.items[n]
        g = guarded if guard else (lambda x: x)

        def num(v):
            return "" if v is None else str(v)
        days = "" if it["days_open"] is None else str(
            decimal.Decimal(repr(it["days_open"])).quantize(
                decimal.Decimal("0.01"), decimal.ROUND_HALF_UP))
        small = {None: "", 0: "FALSE", 1: "TRUE"}[it["small_fix"]]
        return [
            "acme/widgets#%d" % n, "acme/widgets", str(n), it["url"],
            g(it["title"]), it["created_at"] or "", it["closed_at"] or "",
            days, str(it["comment_count"]), ";".join(self.fixes.get(n, [])),
            num(it["additions"]), num(it["deletions"]),
            num(it["changed_files"]), num(it["lines_changed"]),
            ";".join(self.fix_lines.get(n, [])),
            ";".join(self.fix_repeats.get(n, [])), small]

    def test_titles_survive_cell_by_cell(self):
        raw, rows = self.export()
        self.assertFalse(raw.startswith(b"\xef\xbb\xbf"), "no BOM")
        self.assertTrue(raw.endswith(b"\r\n"))
        raw.decode("utf-8")             # valid UTF-8 throughout
        self.assertEqual(rows[0], HEADER)
        by_item = {r[0]: r for r in rows[1:]}
        self.assertEqual(sorted(by_item), sorted(
            "acme/widgets#%d" % n for n in range(1, 10)))
        for n in range(1, 10):
            row = by_item["acme/widgets#%d" % n]
            self.assertEqual(len(row), len(HEADER))
            self.assertEqual(row[:len(ITEM_COLS)], self.expected_row(n),
                             "item %d" % n)
        # what was imported is what is exported (guard aside)
        for n in range(1, 10):
            title = by_item["acme/widgets#%d" % n][4]
            want = self.source[n]["title"]
            self.assertEqual(title, guarded(want))
        # spot checks of the tricky ones
        self.assertEqual(by_item["acme/widgets#2"][4],
                         "'=HYPERLINK(\"http://evil.example\",\"click\")")
        self.assertEqual(by_item["acme/widgets#4"][4],
                         "'+inf gradient norm\r\nwith a CRLF inside")
        self.assertEqual(by_item["acme/widgets#7"][4], "'\rCR-led title")
        self.assertEqual(by_item["acme/widgets#8"][4],
                         "Überlauf im Speicher — 内存溢出 😀 naïve")
        self.assertEqual(by_item["acme/widgets#9"][4], "  spaces around  ")
        # effort columns
        one = dict(zip(HEADER, by_item["acme/widgets#1"]))
        self.assertEqual((one["days_open"], one["comments"],
                          one["fix_numbers"], one["lines_changed"],
                          one["small_fix"]), ("2.50", "2", "101", "5", "TRUE"))
        two = dict(zip(HEADER, by_item["acme/widgets#2"]))
        self.assertEqual((two["fix_numbers"], two["additions"],
                          two["lines_changed"], two["small_fix"]),
                         ("102;103", "15", "16", "FALSE"))
        three = dict(zip(HEADER, by_item["acme/widgets#3"]))
        self.assertEqual((three["fix_numbers"], three["additions"],
                          three["small_fix"], three["days_open"]),
                         ("", "", "", "10.00"))
        nine = dict(zip(HEADER, by_item["acme/widgets#9"]))
        self.assertEqual(nine["days_open"], "0.00")
        # 31536 s is 0.365 days, 0.36499... as a double: a half, rounded up
        six = dict(zip(HEADER, by_item["acme/widgets#6"]))
        self.assertEqual(six["days_open"], "0.37")

    def test_agreed_and_adjudicated(self):
        _, rows = self.export()
        by_item = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
        one = by_item["acme/widgets#1"]
        self.assertEqual([one[d] for d in DIMS],
                         ["crash", "api_misuse", "conditional_logic",
                          "memory", "training"])
        self.assertEqual({one[d + "_status"] for d in DIMS}, {"agreed"})
        two = by_item["acme/widgets#2"]
        self.assertEqual(two["fix_pattern"],
                         "conditional_logic;parameter_handling")
        # an optional dimension nobody coded is agreed and empty
        self.assertEqual((two["stage"], two["stage_status"]), ("", "agreed"))
        nine = by_item["acme/widgets#9"]
        self.assertEqual((nine["root_cause"], nine["root_cause_status"]),
                         ("configuration_error", "adjudicated"))
        self.assertEqual(nine["symptom_status"], "agreed")

    def test_include_pending(self):
        _, rows = self.export("--include-pending")
        by_item = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
        self.assertEqual(len(by_item), 12)
        ten = by_item["acme/widgets#10"]
        self.assertEqual((ten["symptom"], ten["symptom_status"]),
                         ("", "pending"))
        # the dimensions the coders agree on are agreed already
        self.assertEqual((ten["root_cause"], ten["root_cause_status"]),
                         ("api_misuse", "agreed"))
        for n in (11, 12):
            row = by_item["acme/widgets#%d" % n]
            self.assertEqual({row[d + "_status"] for d in DIMS}, {"pending"})
            self.assertEqual({row[d] for d in DIMS}, {""})
        self.assertEqual(by_item["acme/widgets#1"]["symptom_status"],
                         "agreed")

    def test_no_formula_guard(self):
        _, rows = self.export("--no-formula-guard")
        by_item = {r[0]: r for r in rows[1:]}
        for n in range(1, 10):
            self.assertEqual(by_item["acme/widgets#%d" % n][:len(ITEM_COLS)],
                             self.expected_row(n, guard=False))

    def test_stdout(self):
        a = self.s.ok("export")
        b = self.s.ok("export", "-o", "-")
        self.assertEqual(a, b)
        _, rows = self.export()
        self.assertEqual(stdout_csv(self.s, "export"), rows)
        self.assertEqual(stdout_csv(self.s, "export", "-o", "-"), rows)

    def test_jsonl(self):
        out = self.s.ok("export", "--format", "jsonl", "--include-pending")
        objs = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(len(objs), 12)
        by = {o["item"]: o for o in objs}
        self.assertEqual(list(objs[0].keys()), HEADER)
        one = by["acme/widgets#1"]
        self.assertEqual(one["number"], 1)
        self.assertEqual(one["days_open"], 2.5)
        self.assertEqual(one["comments"], 2)
        self.assertEqual(one["fix_numbers"], [101])
        self.assertIs(one["small_fix"], True)
        self.assertEqual(one["fix_pattern"], ["conditional_logic"])
        self.assertEqual(one["symptom"], "crash")
        two = by["acme/widgets#2"]
        self.assertEqual(two["fix_numbers"], [102, 103])
        self.assertEqual(two["fix_pattern"],
                         ["conditional_logic", "parameter_handling"])
        self.assertIsNone(two["stage"])
        self.assertIs(two["small_fix"], False)
        three = by["acme/widgets#3"]
        self.assertEqual(three["fix_numbers"], [])
        self.assertIsNone(three["additions"])
        self.assertIsNone(three["small_fix"])
        self.assertIsNone(by["acme/widgets#10"]["days_open"])
        self.assertIsNone(by["acme/widgets#10"]["closed_at"])
        self.assertIsNone(by["acme/widgets#12"]["fix_pattern"])
        self.assertEqual(by["acme/widgets#12"]["symptom_status"], "pending")
        # no guard in JSON: titles exactly as imported
        for n in range(1, 13):
            self.assertEqual(by["acme/widgets#%d" % n]["title"],
                             self.source[n]["title"])

    def test_resolutions(self):
        out = os.path.join(self.s.dir, "res.csv")
        self.s.ok("export", "--resolutions", "-o", out)
        rows = read_csv(out)
        self.assertEqual(rows[0], RES_HEADER)
        self.assertEqual(len(rows), 2)
        r = dict(zip(RES_HEADER, rows[1]))
        self.assertEqual((r["item"], r["dimension"], r["final"], r["cause"],
                          r["adjudicator"], r["resolved_at"]),
                         ("acme/widgets#9", "root_cause",
                          "configuration_error", "slip", "carol",
                          NOW["BUGCODER_NOW"]))
        self.assertEqual(r["rationale"],
                         'the config, "clearly", =not a formula')
        self.assertEqual({(r["coder1"], r["coder1_codes"]),
                          (r["coder2"], r["coder2_codes"])},
                         {("alice", "api_misuse"),
                          ("bob", "configuration_error")})
        objs = [json.loads(l) for l in self.s.ok(
            "export", "--resolutions", "--format", "jsonl").splitlines()]
        self.assertEqual(len(objs), 1)
        self.assertEqual(list(objs[0]), RES_HEADER)
        self.assertEqual(objs[0]["final"], ["configuration_error"])
        self.assertIn(objs[0]["coder1_codes"],
                      (["api_misuse"], ["configuration_error"]))

    def test_raw_and_jsonl_raw(self):
        rows = read_csv(self.s.ok("export", "--raw"))
        self.assertEqual(rows[0], RAW_HEADER)
        n = self.s.query("SELECT count(*) FROM labels")[0][0]
        self.assertEqual(len(rows) - 1, n)
        self.assertIn(["acme/widgets#2", "bob", "fix_pattern",
                       "parameter_handling", "1.0", NOW["BUGCODER_NOW"],
                       NOW["BUGCODER_NOW"], ""], rows)
        objs = [json.loads(l) for l in self.s.ok(
            "export", "--raw", "--format", "jsonl").splitlines()]
        self.assertEqual(len(objs), n)
        # JSON Lines carries the citations with their quotes; CSV their
        # compact form (none here)
        self.assertEqual({json.dumps(o["evidence"]) for o in objs}, {"[]"})
        self.assertEqual([[o[k] for k in RAW_HEADER[:-1]] + [""]
                          for o in objs], rows[1:])

    def test_rounds(self):
        rows = read_csv(self.s.ok("export", "--rounds"))
        self.assertEqual(rows, [["name", "spec", "seed", "stratify",
                                 "annotators", "items", "created_at",
                                 "created_by", "closed_at", "closed_by",
                                 "kind", "reasons"]])

    def test_usage(self):
        err = self.s.fail("export", "-o", os.path.join(self.s.dir, "no",
                                                       "such", "x.csv"))
        self.assertIn("No such file", err)
        self.s.fail("export", "--raw", "--resolutions", code=2)
        self.s.fail("export", "--format", "xml", code=2)
        self.s.fail("export", "--package", "d", "-o", "x", code=2)
        self.s.fail("export", "--raw", "--include-pending", code=2)
        err = self.s.fail("export", "--round", "nope")
        self.assertIn("nope", err)
        err = self.s.fail("export", "--raw", "--round", "nope")
        self.assertIn("nope", err)
        self.assertFalse(os.path.exists(os.path.join(self.s.dir, "x")))


class RawRoundTrip(unittest.TestCase):
    def test_round_trip_gives_the_same_agreement(self):
        a = Study(members=MEMBERS)
        b = Study(members=MEMBERS)
        try:
            a.ok("labels", "import", SAMPLE_LABELS, "--submit", env=NOW)
            raw = os.path.join(a.dir, "raw.csv")
            a.ok("export", "--raw", "-o", raw)
            b.ok("labels", "import", raw, "--submit", env=NOW)
            self.assertEqual(a.ok("export", "--raw"), b.ok("export", "--raw"))
            self.assertEqual(a.ok("export", "--include-pending"),
                             b.ok("export", "--include-pending"))
            for fmt in ("json", "text", "csv"):
                self.assertEqual(a.ok("agree", "--format", fmt),
                                 b.ok("agree", "--format", fmt))
            self.assertEqual(a.ok("status").replace(a.path, ""),
                             b.ok("status").replace(b.path, ""))
            # and the file is what the sample said, row for row
            with open(SAMPLE_LABELS, newline="", encoding="utf-8") as f:
                want = sorted(tuple(r[:4]) for r in list(csv.reader(f))[1:])
            got = sorted(tuple(r[:4]) for r in read_csv(raw)[1:])
            self.assertEqual(got, want)
        finally:
            a.close()
            b.close()


def manifest_ok(test, d):
    with open(os.path.join(d, "MANIFEST"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    listed = {}
    for line in lines:
        sha, path = line.split("  ", 1)
        listed[path] = sha
    on_disk = set()
    for root, _, files in os.walk(d):
        for name in files:
            on_disk.add(os.path.relpath(os.path.join(root, name), d))
    test.assertEqual(set(listed) | {"MANIFEST"}, on_disk)
    for path, sha in listed.items():
        with open(os.path.join(d, path), "rb") as f:
            test.assertEqual(hashlib.sha256(f.read()).hexdigest(), sha, path)
    return listed


class Package(unittest.TestCase):
    def setUp(self):
        self.s = hostile_study()

    def tearDown(self):
        self.s.close()

    def test_package_and_manifest(self):
        d = os.path.join(self.s.dir, "pkg")
        self.s.ok("export", "--package", d)
        listed = manifest_ok(self, d)
        for name in ("agreed-labels.csv", "raw-labels.csv",
                     "resolutions.csv", "rounds.csv", "audit.csv",
                     "codebook.json", "agreement.txt", "agreement.json",
                     "report.md", "README.txt", "manifest.json"):
            self.assertIn(name, listed)
        self.assertTrue(any(p.startswith("codebooks/") for p in listed))
        with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
            man = json.load(f)
        for entry in man["files"]:
            p = os.path.join(d, entry["path"])
            self.assertEqual(os.path.getsize(p), entry["bytes"])
            with open(p, "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(),
                                 entry["sha256"])
        self.assertEqual(man["codebook"]["name"], "llm-framework-bugs")
        # the version (and commit) that made the package, as --version
        # names it, in the manifest and the README
        line = subprocess.run([BIN, "--version"], capture_output=True,
                              text=True).stdout.strip()
        self.assertEqual(man["generator"], line)
        self.assertEqual(line, "bugcoder %s (commit %s)"
                         % (man["bugcoder_version"], man["bugcoder_commit"]))
        with open(os.path.join(d, "README.txt"), encoding="utf-8") as f:
            self.assertTrue(f.readline().startswith(
                "Replication package written by " + line + " on "))
        # the tables are the same as the single exports
        self.assertEqual(read_csv(os.path.join(d, "agreed-labels.csv")),
                         stdout_csv(self.s, "export"))
        self.assertEqual(read_csv(os.path.join(d, "raw-labels.csv")),
                         stdout_csv(self.s, "export", "--raw"))
        self.assertEqual(read_csv(os.path.join(d, "resolutions.csv")),
                         stdout_csv(self.s, "export", "--resolutions"))
        # the audit log, chained: the same rows `audit` gives the owner
        audit = read_csv(os.path.join(d, "audit.csv"))
        self.assertEqual(audit, stdout_csv(self.s, "audit", "--format",
                                           "csv"))
        self.assertGreater(len(audit), 5)
        self.assertTrue(all(len(r[-1]) == 64 for r in audit[1:]))
        with open(os.path.join(d, "agreement.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f), self.s.agree_json())
        cb = self.s.query("SELECT json FROM codebooks WHERE current")[0][0]
        with open(os.path.join(d, "codebook.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), cb)
        # sha256sum agrees, where it exists
        p = subprocess.run(["sha256sum", "--strict", "-c", "MANIFEST"],
                           cwd=d, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # nothing but the package was made
        self.assertEqual([n for n in os.listdir(self.s.dir)
                          if not n.startswith("study.db")], ["pkg"])

    def test_refuses_non_empty_dir_and_accepts_empty(self):
        d = os.path.join(self.s.dir, "full")
        os.mkdir(d)
        with open(os.path.join(d, "keep"), "w") as f:
            f.write("mine")
        err = self.s.fail("export", "--package", d)
        self.assertIn("not empty", err)
        self.assertEqual(os.listdir(d), ["keep"])
        f = os.path.join(self.s.dir, "file")
        open(f, "w").close()
        self.s.fail("export", "--package", f)
        empty = os.path.join(self.s.dir, "empty")
        os.mkdir(empty)
        self.s.ok("export", "--package", empty)
        manifest_ok(self, empty)
        self.assertFalse([n for n in os.listdir(self.s.dir)
                          if n.startswith(".")], "no temporary left")

    def test_annotator_may_not_package(self):
        err = self.s.fail("export", "--package",
                          os.path.join(self.s.dir, "p"), as_="alice")
        self.assertIn("owner and adjudicators", err)
        self.assertFalse(os.path.exists(os.path.join(self.s.dir, "p")))
        self.s.ok("export", "--package", os.path.join(self.s.dir, "q"),
                  as_="carol")

    def test_failed_package_leaves_nothing(self):
        d = os.path.join(self.s.dir, "pkg")
        p = self.s.run("export", "--package", d,
                       env={"BUGCODER_FAIL_EXPORT_AFTER": "2"})
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertFalse(os.path.exists(d))
        self.assertFalse([n for n in os.listdir(self.s.dir)
                          if n.startswith(".")], "no temporary left")


def big_study(n_items):
    """A study with n_items agreed items, written straight into the
    database (the CLI would take minutes), for the kill tests."""
    s = Study(items=None, members=MEMBERS)
    with s.db() as c:
        ids = dict(c.execute("SELECT name, id FROM members"))
        c.executemany(
            "INSERT INTO items (id, repo, number, title, created_at, "
            "closed_at, days_open, comment_count, imported_at) VALUES "
            "(?, 'big/repo', ?, ?, '2024-01-01T00:00:00Z', "
            "'2024-01-02T00:00:00Z', 1.0, 3, 't')",
            [(i, i, "title %d, \"long\" =%d" % (i, i) + "x" * 200)
             for i in range(1, n_items + 1)])
        rows = []
        for i in range(1, n_items + 1):
            for who in ("alice", "bob"):
                for dim, code in (("symptom", "crash"),
                                  ("root_cause", "api_misuse"),
                                  ("fix_pattern", "conditional_logic"),
                                  ("phase", "training")):
                    rows.append((i, ids[who], dim, code))
        c.executemany("INSERT INTO labels (item_id, member_id, dimension, "
                      "code, codebook_version, labeled_at) VALUES "
                      "(?, ?, ?, ?, '1.0', 't')", rows)
        c.executemany("INSERT INTO submissions VALUES (?, ?, 't')",
                      [(i, ids[w]) for i in range(1, n_items + 1)
                       for w in ("alice", "bob")])
    return s


def only(d, names):
    return sorted(os.listdir(d)) == sorted(names)


class Atomic(unittest.TestCase):
    def setUp(self):
        self.s = hostile_study()
        self.out = os.path.join(self.s.dir, "out", "agreed.csv")
        os.mkdir(os.path.dirname(self.out))

    def tearDown(self):
        self.s.close()

    def test_failure_mid_way_leaves_no_file(self):
        for what in ([], ["--raw"], ["--resolutions"], ["--format", "jsonl"]):
            p = self.s.run("export", *what, "-o", self.out,
                           env={"BUGCODER_FAIL_EXPORT_AFTER": "1"})
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("not written", p.stderr)
            self.assertTrue(only(os.path.dirname(self.out), []), what)

    def test_failure_keeps_the_old_file(self):
        self.s.ok("export", "-o", self.out)
        with open(self.out, "rb") as f:
            before = f.read()
        p = self.s.run("export", "--include-pending", "-o", self.out,
                       env={"BUGCODER_FAIL_EXPORT_AFTER": "3"})
        self.assertEqual(p.returncode, 1)
        with open(self.out, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertTrue(only(os.path.dirname(self.out), ["agreed.csv"]))

    def stalled(self, sig):
        """Start an export that stalls after 3 rows, wait until it has
        written them, deliver `sig`, return the process."""
        env = dict(os.environ, BUGCODER_STALL_EXPORT_AFTER="3")
        p = subprocess.Popen([BIN, "--study", self.s.path, "export", "-o",
                              self.out], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        deadline = time.time() + 20
        fd_dir = "/proc/%d/fd" % p.pid
        seen = False
        while time.time() < deadline and not seen:
            try:
                for fd in os.listdir(fd_dir):
                    try:
                        target = os.readlink(os.path.join(fd_dir, fd))
                    except OSError:
                        continue
                    if target.startswith(os.path.dirname(self.out)):
                        seen = True
            except OSError:
                pass
            time.sleep(0.02)
        time.sleep(0.1)
        p.send_signal(sig)
        p.wait(timeout=20)
        return p, seen

    def test_sigkill_mid_way_leaves_nothing(self):
        if not os.path.isdir("/proc/self/fd"):
            self.skipTest("no /proc")
        p, seen = self.stalled(signal.SIGKILL)
        self.assertTrue(seen, "the export never opened its output")
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertTrue(only(os.path.dirname(self.out), []),
                        os.listdir(os.path.dirname(self.out)))

    def test_sigterm_mid_way_stops_cleanly(self):
        if not os.path.isdir("/proc/self/fd"):
            self.skipTest("no /proc")
        p, _ = self.stalled(signal.SIGTERM)
        self.assertEqual(p.returncode, 3, p.stderr.read())
        self.assertTrue(only(os.path.dirname(self.out), []))


class KillBigExport(unittest.TestCase):
    def test_killed_at_random_times_never_leaves_half_a_file(self):
        n = 30000
        s = big_study(n)
        try:
            out_dir = os.path.join(s.dir, "out")
            os.mkdir(out_dir)
            out = os.path.join(out_dir, "agreed.csv")
            t0 = time.time()
            s.ok("export", "-o", out)
            full = time.time() - t0
            self.assertEqual(len(read_csv(out)), n + 1)
            os.unlink(out)
            rnd = random.Random(6)
            outcomes = set()
            for _ in range(6):
                p = subprocess.Popen([BIN, "--study", s.path, "export", "-o",
                                      out], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                time.sleep(rnd.uniform(0, full * 1.2))
                p.kill()
                p.wait()
                names = os.listdir(out_dir)
                if names:
                    # whole or nothing: a file that is there is complete
                    self.assertEqual(names, ["agreed.csv"])
                    self.assertEqual(len(read_csv(out)), n + 1)
                    os.unlink(out)
                    outcomes.add("whole")
                else:
                    outcomes.add("none")
            self.assertTrue(outcomes)
        finally:
            s.close()


class ForeignLocales(unittest.TestCase):
    """The user's locale does not change the data.  A user whose locale
    writes 0,85 still gets 0.85: a decimal comma split the days_open cell
    of the CSV (every later column moved one to the right) and made the
    JSON Lines invalid."""

    @classmethod
    def make_locale(cls, charset):
        name = "de_DE." + charset
        try:
            p = subprocess.run(["localedef", "-i", "de_DE", "-f", charset,
                                os.path.join(cls.locdir, name)],
                               capture_output=True, timeout=120)
            ok = p.returncode in (0, 1) and os.path.isdir(
                os.path.join(cls.locdir, name))
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if not ok:
            shutil.rmtree(cls.locdir, ignore_errors=True)
            raise unittest.SkipTest("cannot make a %s locale" % name)
        return {"LOCPATH": cls.locdir, "LC_ALL": name}

    @classmethod
    def setUpClass(cls):
        cls.locdir = tempfile.mkdtemp(prefix="bugcoder-locale-")
        cls.env = cls.make_locale("UTF-8")
        cls.latin1 = cls.make_locale("ISO-8859-1")
        cls.s = hostile_study()

    @classmethod
    def tearDownClass(cls):
        cls.s.close()
        shutil.rmtree(cls.locdir, ignore_errors=True)

    def test_csv_and_jsonl_keep_a_decimal_point(self):
        rows = read_csv(self.s.ok("export", "--include-pending",
                                  env=self.env))
        self.assertEqual(rows[0], HEADER)
        days = HEADER.index("days_open")
        for r in rows[1:]:
            self.assertEqual(len(r), len(HEADER), r)
            if r[days]:
                self.assertRegex(r[days], r"^\d+\.\d\d$")
        for line in self.s.ok("export", "--include-pending", "--format",
                              "jsonl", env=self.env).splitlines():
            json.loads(line)
        stats = read_csv(self.s.ok("agree", "--format", "csv",
                                   env=self.env))
        for r in stats[1:]:
            self.assertEqual(len(r), len(stats[0]), r)

    def test_dimension_name_stays_utf8_in_a_latin1_locale(self):
        """The agreement sentence lower-cases the dimension's name; with
        tolower() in an ISO-8859-1 locale the bytes of a UTF-8 "Ü" became
        other bytes (invalid UTF-8 in agreement.txt and on screen)."""
        with open(CODEBOOK) as f:
            cb = json.load(f)
        cb["dimensions"][0]["name"] = "Überblick Symptom"
        path = os.path.join(self.s.dir, "umlaut.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(cb, f, ensure_ascii=False)
        s = Study(codebook=path, members=MEMBERS)
        try:
            label(s, "DeepSpeed#4187", "alice")
            label(s, "DeepSpeed#4187", "bob", symptom="hang")
            p = subprocess.run([BIN, "--study", s.path, "agree"],
                               capture_output=True, timeout=120,
                               env=dict(os.environ, **self.latin1))
            self.assertEqual(p.returncode, 0, p.stderr)
            out = p.stdout.decode("utf-8")	# raises on invalid UTF-8
            self.assertIn("Cohen's kappa for \u00dcberblick symptom", out)
        finally:
            s.close()


class OutputIsTheStudy(unittest.TestCase):
    """-o naming the study file replaced the whole study by the export."""

    def setUp(self):
        self.s = hostile_study()

    def tearDown(self):
        self.s.close()

    def test_refused_and_the_study_survives(self):
        before = self.s.dump()
        link = os.path.join(self.s.dir, "same.db")
        os.link(self.s.path, link)
        for args in (["export"], ["export", "--raw"], ["report"]):
            for out in (self.s.path, link, self.s.path + "-wal"):
                err = self.s.fail(*args, "-o", out)
                self.assertIn("is the study itself", err)
        self.assertEqual(self.s.dump(), before)
        self.assertIn("agreed items", self.s.ok("report"))


class ReportManyRepositories(unittest.TestCase):
    """The report keeps a tally per repository in a growing array and
    held a pointer to its first element (all repositories) across the
    growth: from the ninth repository on it counted into freed memory
    ("11 agreed items", crash 109.1%; a use after free under ASan)."""

    def test_twelve_repositories(self):
        d = tempfile.mkdtemp(prefix="bugcoder-repos-")
        items = os.path.join(d, "items.jsonl")
        with open(items, "w") as f:
            for i in range(12):
                f.write(json.dumps({"repo": "o%d/r" % i, "number": 1,
                                    "title": "t"}) + "\n")
        s = Study(items=items, members=MEMBERS)
        try:
            for i in range(12):
                for who in ("alice", "bob"):
                    label(s, "o%d/r#1" % i, who)
            out = s.ok("report")
            self.assertTrue(out.startswith("12 agreed items; 12 "
                                           "repositories"), out[:80])
            self.assertRegex(out, r"(?m)^  crash +12 +100\.0%")
            self.assertRegex(out, r"(?m)^  all +12 ")
        finally:
            s.close()
            shutil.rmtree(d, ignore_errors=True)


class Blinding(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422", "--annotators",
                  "alice,bob")
        for item in ("DeepSpeed#4187", "DeepSpeed#4422"):
            label(self.s, item, "alice", symptom="crash")
            label(self.s, item, "bob", symptom="hang" if
                  item.endswith("4187") else "crash")

    def tearDown(self):
        self.s.close()

    def test_open_round_hides_the_other_annotator(self):
        rows = read_csv(self.s.ok("export", "--raw", as_="alice"))
        self.assertEqual(rows[0], RAW_HEADER)
        self.assertEqual({r[1] for r in rows[1:]}, {"alice"})
        self.assertEqual(len(rows) - 1, 8)
        jl = self.s.ok("export", "--raw", "--format", "jsonl", as_="alice")
        self.assertNotIn("bob", jl)
        # the agreed labels and resolutions reveal bob's codes: nothing
        self.assertEqual(read_csv(self.s.ok("export", as_="alice")),
                         [HEADER])
        self.assertEqual(len(read_csv(self.s.ok(
            "export", "--include-pending", as_="alice"))), 1)
        self.assertEqual(len(read_csv(self.s.ok(
            "export", "--resolutions", as_="alice"))), 1)
        self.assertNotIn("bob", self.s.ok("export", "--raw",
                                          "--round", "r1", as_="alice"))
        self.assertIn("0 agreed items", self.s.ok("report", as_="alice"))
        # the owner sees both by name; the adjudicator, blind by
        # default, sees both as Coder 1 and Coder 2 while undecided
        rows = read_csv(self.s.ok("export", "--raw"))
        self.assertEqual({r[1] for r in rows[1:]}, {"alice", "bob"})
        rows = read_csv(self.s.ok("export", "--raw", as_="carol"))
        self.assertEqual({r[1] for r in rows[1:]}, {"Coder 1", "Coder 2"})
        self.assertEqual(len(rows) - 1, 16)
        for item in ("microsoft/DeepSpeed#4187", "microsoft/DeepSpeed#4422"):
            self.assertEqual({r[1] for r in rows[1:] if r[0] == item},
                             {"Coder 1", "Coder 2"})
        self.assertEqual(len(read_csv(self.s.ok("export", as_="carol"))), 2)

    def test_closed_round_shows_everything(self):
        self.s.ok("round", "close", "r1")
        rows = read_csv(self.s.ok("export", "--raw", as_="alice"))
        self.assertEqual({r[1] for r in rows[1:]}, {"alice", "bob"})
        rows = read_csv(self.s.ok("export", "--include-pending", as_="bob"))
        self.assertEqual(len(rows), 3)
        self.assertIn("1 agreed item", self.s.ok("report", as_="bob"))

    def test_round_filter(self):
        rows = read_csv(self.s.ok("export", "--include-pending", "--round",
                                  "r1"))
        self.assertEqual(sorted(r[0] for r in rows[1:]),
                         ["microsoft/DeepSpeed#4187",
                          "microsoft/DeepSpeed#4422"])
        rows = read_csv(self.s.ok("export", "--rounds"))
        self.assertEqual(len(rows), 2)
        r = dict(zip(rows[0], rows[1]))
        self.assertEqual((r["name"], r["annotators"], r["items"],
                          r["closed_at"]), ("r1", "alice;bob", "2", ""))


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = hostile_study()

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_text(self):
        out = self.s.ok("report")
        self.assertIn("9 agreed items (3 more not agreed yet, left out)",
                      out)
        self.assertIn("symptom x root_cause", out)
        self.assertIn("fixes <= 10 lines", out)
        self.assertNotIn("\u2588", out)     # not a terminal: ASCII bars
        self.assertIn("#", out)
        # crash on all 9 items: the bar is full width
        line = [l for l in out.splitlines()
                if l.strip().startswith("crash ")][0]
        self.assertIn("9  100.0%  " + "#" * 30, line)
        # small fixes: items 1,4,6,7,8 (<= 10 lines) of 8 sized (3 has no
        # fix), among the 9 agreed
        # columns: items, fixes <= 10 lines, fixes of known size, share
        self.assertRegex(out, r"all\s+9\s+5\s+8\s+62\.5%")

    def test_markdown(self):
        out = self.s.ok("report", "--format", "markdown")
        self.assertTrue(out.startswith("# Agreed data"))
        self.assertIn("| code | items | share |", out)
        self.assertIn("|---|---:|---:|", out)
        self.assertIn("| crash | 9 | 100.0% |", out)
        self.assertIn("## Effort", out)

    def test_cross(self):
        out = self.s.ok("report", "--cross", "phase,fix_pattern")
        self.assertIn("phase x fix_pattern", out)
        self.s.fail("report", "--cross", "phase", code=2)
        err = self.s.fail("report", "--cross", "phase,mood")
        self.assertIn("mood", err)

    def test_unicode_bars_on_a_terminal(self):
        try:
            import pty
        except ImportError:
            self.skipTest("no pty")
        master, slave = pty.openpty()
        p = subprocess.Popen([BIN, "--study", self.s.path, "report"],
                             stdout=slave, stderr=subprocess.PIPE,
                             env=dict(os.environ, LC_ALL="C.UTF-8"))
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        self.assertEqual(p.wait(timeout=20), 0)
        text = out.decode("utf-8")
        self.assertIn("\u2588" * 30, text)
        self.assertNotIn("#" * 30, text)

    def test_export_to_a_terminal_is_made_safe(self):
        """Exported text is as stored, but an export shown on a terminal
        carries no control character from an issue title."""
        import pty
        piped = self.s.ok("export")
        self.assertTrue(any(ord(ch) < 0x20 and ch not in "\r\n"
                            for ch in piped) or "\r" in piped)
        master, slave = pty.openpty()
        p = subprocess.Popen([BIN, "--study", self.s.path, "export"],
                             stdout=slave, stderr=subprocess.PIPE,
                             env=dict(os.environ, LC_ALL="C.UTF-8"))
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        self.assertEqual(p.wait(timeout=20), 0)
        for bad in (b"\x1b", b"\x07", b"\x08", b"\t"):
            self.assertNotIn(bad, out)
        self.assertIn(b"HYPERLINK", out)

    def test_report_to_file(self):
        out = os.path.join(self.s.dir, "r.md")
        self.s.ok("report", "--format", "markdown", "-o", out)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(),
                             self.s.ok("report", "--format", "markdown"))


def python_with_pandas():
    """This interpreter if it has pandas, else Debian's python3 (where
    `make deps` installs python3-pandas)."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import pandas"], capture_output=True).returncode == 0:
            return exe
    return None


class ReadBack(unittest.TestCase):
    """The agreed-labels CSV as the analysts read it: pandas and R."""

    @classmethod
    def setUpClass(cls):
        cls.s = hostile_study()
        cls.out = os.path.join(cls.s.dir, "a.csv")
        cls.s.ok("export", "-o", cls.out)
        cls.rows = read_csv(cls.out)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_pandas_reads_it(self):
        exe = python_with_pandas()
        self.assertIsNotNone(exe, "pandas is missing: run make deps")
        code = ("import json, sys, pandas\n"
                "df = pandas.read_csv(sys.argv[1], keep_default_na=False, "
                "dtype=str)\n"
                "print(json.dumps([list(df.columns)] + df.values.tolist()))\n")
        p = subprocess.run([exe, "-c", code, self.out], capture_output=True,
                           text=True, check=True)
        got = json.loads(p.stdout)
        self.assertEqual(got[0], HEADER)
        self.assertEqual(len(got) - 1, 9)
        self.assertEqual(got, self.rows)

    def test_r_reads_it(self):
        rscript = shutil.which("Rscript")
        self.assertIsNotNone(rscript, "R is missing: run make deps")
        code = ("d <- read.csv(commandArgs(TRUE)[1], colClasses = 'character', "
                "na.strings = character(0), check.names = FALSE, "
                "encoding = 'UTF-8');"
                "cat(ncol(d), nrow(d), '\\n', sep = ' ');"
                "for (i in seq_len(nrow(d))) cat(d$item[i], nchar(d$title[i], "
                "type = 'chars'), '\\n', sep = '\\t')")
        p = subprocess.run([rscript, "-e", code, self.out],
                           capture_output=True, text=True, check=True,
                           env=dict(os.environ, LANG="C.UTF-8"))
        lines = p.stdout.splitlines()
        ncol, nrow = lines[0].split()
        self.assertEqual(int(ncol), len(HEADER))
        self.assertEqual(int(nrow), len(self.rows) - 1)
        ti = HEADER.index("title")
        for line, row in zip(lines[1:], self.rows[1:]):
            item, n = line.split("\t")[:2]
            self.assertEqual(item, row[0])
            # R reads a CRLF inside a quoted cell as one newline
            self.assertEqual(int(n), len(row[ti].replace("\r\n", "\n")))


if __name__ == "__main__":
    unittest.main()


class RepeatedFixes(unittest.TestCase):
    """A backport repeating a fix is counted once in the item's figures,
    and the export carries each fix's own figures beside them."""

    DIFF = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
            "@@ -1,5 +1,5 @@\n-a = 1\n+a = 2\n b\n-c = 3\n+c = 4\n d\n"
            "-e = 5\n+e = 6\n")

    def test_backport_counted_once(self):
        s = Study(items=None)
        try:
            path = os.path.join(s.dir, "items.jsonl")
            item = {"repo": "o/r", "number": 7, "title": "t",
                    "fixes": [{"number": 8, "diff": self.DIFF},
                              {"number": 9, "diff": self.DIFF},
                              {"number": 10, "additions": 40,
                               "deletions": 2}]}
            with open(path, "w") as f:
                f.write(json.dumps(item) + "\n")
            s.ok("import", path)
            rows = read_csv(s.ok("export", "--include-pending"))
            row = dict(zip(rows[0], rows[1]))
            self.assertEqual(row["fix_numbers"], "8;9;10")
            self.assertEqual(row["fix_lines_changed"], "6;6;42")
            self.assertEqual(row["fix_repeats"], "0;1;0")
            # 6 + 42: the backport's 6 lines are not counted twice
            self.assertEqual(row["lines_changed"], "48")
            doc = json.loads(s.ok("export", "--include-pending",
                                  "--format", "jsonl"))
            self.assertEqual(doc["fix_lines_changed"], [6, 6, 42])
            self.assertEqual(doc["fix_repeats"], [0, 1, 0])
        finally:
            s.close()

