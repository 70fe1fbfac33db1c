# SPDX-License-Identifier: MIT
"""A damaged study tells the truth, and no write pays for the whole study.

Copies of one study are damaged in several ways (a page of random bytes,
a page of zeros, a page's head overwritten from its first byte, the file
cut short, the file header overwritten), at pages drawn with a fixed seed.  On every copy,
every reading command either answers exactly as on the sound study or
says the study is damaged and exits non-zero; `export --package` makes
no package from a copy any command found damaged; a write either works
or says the study is damaged and that nothing was written.

What no check short of a checksum on every page can see is left out: a
few bytes changed inside a record's text, which still reads as a record.
Damage here is to pages, which SQLite's page checks (cell_size_check on)
and the full check find.

Then: a `label` on a large study reads a small fraction of its pages and
prepares few statements (BUGCODER_STATS); the full check runs after an
unclean stop and once a day, recorded in the study.
"""
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time
import unittest

from bchelp import BIN, CODEBOOK, SAMPLE, SAMPLE_LABELS, Study

SEED = 20240601
PILOT = ("microsoft/DeepSpeed#3468,microsoft/DeepSpeed#4187,"
         "microsoft/DeepSpeed#4422,microsoft/DeepSpeed#4650,"
         "microsoft/DeepSpeed#4903,microsoft/DeepSpeed#5012,"
         "microsoft/DeepSpeed#5240,microsoft/DeepSpeed#5561")
R1 = ("microsoft/DeepSpeed#5733,microsoft/DeepSpeed#5890,"
      "microsoft/DeepSpeed#6011,microsoft/DeepSpeed#6203,"
      "hpcaitech/ColossalAI#3105,hpcaitech/ColossalAI#3562,"
      "hpcaitech/ColossalAI#4261,hpcaitech/ColossalAI#4799,"
      "hpcaitech/ColossalAI#5412,hpcaitech/ColossalAI#5702,"
      "NVIDIA/Megatron-LM#412,NVIDIA/Megatron-LM#1088")

# (as, argv): every command that only reads
READS = [
    (None, ["status"]),
    (None, ["items"]),
    (None, ["items", "--status", "submitted"]),
    (None, ["round", "list"]),
    (None, ["member", "list"]),
    (None, ["codebook", "show"]),
    (None, ["agree", "--round", "pilot", "--ci", "wald"]),
    (None, ["agree", "--format", "json", "--seed", "1"]),
    (None, ["agree", "--by-round"]),
    (None, ["disagreements"]),
    (None, ["export"]),
    (None, ["export", "--raw"]),
    (None, ["export", "--resolutions"]),
    (None, ["export", "--memos"]),
    (None, ["export", "--rounds"]),
    (None, ["export", "--audit"]),
    (None, ["report", "--round", "pilot"]),
    (None, ["audit"]),
    (None, ["audit", "verify"]),
    (None, ["proposals", "list", "--all"]),
    ("alice", ["items"]),
    ("alice", ["export", "--raw"]),
    ("carol", ["disagreements", "--format", "csv"]),
]


def build_study():
    """The demo's shape: two closed rounds with resolutions, an open
    one with work in progress, a long rationale and evidence."""
    s = Study(members=[("alice", "annotator"), ("bob", "annotator"),
                       ("carol", "adjudicator")])
    s.ok("round", "create", "pilot", "--items", PILOT, "--annotators",
         "alice,bob")
    s.ok("round", "create", "r1", "--items", R1, "--annotators",
         "alice,bob")
    s.ok("labels", "import", SAMPLE_LABELS, "--submit")
    s.ok("round", "close", "pilot")
    s.ok("round", "close", "r1")
    s.ok("resolve", "microsoft/DeepSpeed#3468",
         "root_cause=distributed_communication", "--rationale",
         "the group mismatch", as_="carol")
    s.ok("resolve", "microsoft/DeepSpeed#5240", "phase=inference",
         "--rationale", "serving path only; " * 60, as_="carol")
    s.ok("round", "create", "r2", "--items", "all", "--annotators",
         "alice,bob")
    items = [r[0] + "#" + str(r[1]) for r in s.query(
        "SELECT i.repo, i.number FROM items i JOIN assignments a ON "
        "a.item_id = i.id JOIN rounds r ON r.id = a.round_id WHERE "
        "r.name = 'r2' ORDER BY a.position")]
    for k, it in enumerate(items[:6]):
        s.ok("label", it, "symptom=crash", "root_cause=api_misuse",
             "fix_pattern=conditional_logic", "phase=training",
             *(["--submit"] if k % 2 == 0 else []), as_="alice")
    s.ok("label", items[0], "symptom=hang", "root_cause=api_misuse",
         "fix_pattern=conditional_logic", "phase=training", "--submit",
         as_="bob")
    s.ok("label", "--from", "-", as_="bob",
         input="%s symptom=crash phase=training\n" % items[1])
    s.ok("label", items[2], "symptom=crash", "--evidence", "issue:body:1-2",
         as_="alice")
    return s, items


def damage(src, dst, kind, rng):
    """Copy `src` to `dst` and damage the copy; say what was done."""
    shutil.copyfile(src, dst)
    size = os.path.getsize(dst)
    with open(dst, "r+b") as f:
        f.seek(16)
        ps = int.from_bytes(f.read(2), "big")
        ps = 65536 if ps == 1 else ps
        pages = size // ps
        page = rng.randrange(2, pages + 1)
        off = (page - 1) * ps
        if kind == "random page":
            f.seek(off)
            f.write(rng.randbytes(ps))
        elif kind == "zeroed page":
            f.seek(off)
            f.write(bytes(ps))
        elif kind == "page head":
            # from the page's first byte, its type: a record's bytes
            # changed behind an intact header read as a record, which no
            # check short of a checksum on every page can see
            rng.randrange(0, 64)
            f.seek(off)
            f.write(rng.randbytes(rng.randrange(16, 512)))
        elif kind == "cut short":
            f.truncate(off)
        elif kind == "file header":
            page = 1
            f.seek(16)
            f.write(rng.randbytes(84))
        else:
            raise ValueError(kind)
    return "%s, page %d of %d" % (kind, page, pages)


def run(path, as_, argv, cwd, input=None):
    cmd = [BIN, "--study", path] + (["--as", as_] if as_ else []) + argv
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          input=input, timeout=120, errors="replace")


def damaged_said(p, argv):
    """Did command `p` (run with `argv`) refuse saying the study is
    damaged?  A garbled first page reads as no SQLite database, and the
    message says so and what to do; `audit verify` says what in the state
    differs from its log."""
    if p.returncode == 0:
        return False
    if "the study is damaged" in p.stderr:
        return True
    if "not an SQLite database" in p.stderr and \
            "restore it from a backup" in p.stderr:
        return True
    return argv[:2] == ["audit", "verify"] and p.returncode == 1


class DamagedCopies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s, cls.items = build_study()
        cls.truth = {}
        for as_, argv in READS:
            p = run(cls.s.path, as_, argv, cls.s.dir)
            if p.returncode != 0:
                raise AssertionError("%s fails on the sound study: %s" %
                                     (argv, p.stderr))
            again = run(cls.s.path, as_, argv, cls.s.dir)
            if again.stdout != p.stdout:
                raise AssertionError("%s: not the same twice" % argv)
            cls.truth[(as_, tuple(argv))] = p.stdout

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_every_read_answers_right_or_says_damaged(self):
        rng = random.Random(SEED)
        kinds = (["random page"] * 12 + ["zeroed page"] * 12 +
                 ["page head"] * 12 + ["cut short"] * 6 +
                 ["file header"] * 6)
        tmp = tempfile.mkdtemp(prefix="bugcoder-damaged-")
        problems, found = [], 0
        try:
            for n, kind in enumerate(kinds):
                path = os.path.join(tmp, "copy%02d.db" % n)
                what = damage(self.s.path, path, kind, rng)
                seen = False
                for as_, argv in READS:
                    p = run(path, as_, argv, tmp)
                    said = damaged_said(p, argv)
                    # the answer names the study it read
                    out = p.stdout.replace(path, self.s.path)
                    if p.returncode == 0 and not said and \
                            out == self.truth[(as_, tuple(argv))]:
                        continue
                    if p.returncode != 0 and said and \
                            len(p.stderr.strip().splitlines()) == 1:
                        seen = True
                        continue
                    problems.append("%s: %s%s: exit %d, %s" % (
                        what, " ".join(argv), " as " + as_ if as_ else "",
                        p.returncode, p.stderr.strip()[:300] or
                        "a different answer"))
                found += seen
                # a package only from a study the full check passes
                pkg = os.path.join(tmp, "pkg%02d" % n)
                p = run(path, None, ["export", "--package", pkg], tmp)
                if p.returncode == 0:
                    if seen:
                        problems.append("%s: a package was written from "
                                        "a study found damaged" % what)
                    shutil.rmtree(pkg, ignore_errors=True)
                elif not damaged_said(p, ["export"]) or \
                        os.path.exists(pkg):
                    problems.append("%s: export --package: exit %d, %s" %
                                    (what, p.returncode, p.stderr.strip()))
                # a write works, or refuses saying so
                p = run(path, "alice", ["label", self.items[8],
                                        "symptom=hang"], tmp)
                if p.returncode != 0 and not (
                        damaged_said(p, ["label"]) and
                        ("nothing was written" in p.stderr or
                         "not an SQLite database" in p.stderr)):
                    problems.append("%s: label: exit %d, %s" % (
                        what, p.returncode, p.stderr.strip()))
                os.unlink(path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.maxDiff = None
        self.assertEqual(problems, [], "\n".join(problems))
        # the damage was met, not missed: most copies were found out
        self.assertGreater(found, len(kinds) // 2)

    def test_damaged_message_is_one_line_with_the_way_out(self):
        tmp = tempfile.mkdtemp(prefix="bugcoder-damaged-")
        try:
            path = os.path.join(tmp, "header.db")
            damage(self.s.path, path, "file header", random.Random(1))
            p = run(path, None, ["status"], tmp)
            self.assertEqual(p.returncode, 1)
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            # a garbled first page is no SQLite database any more: the
            # message says what a damaged study would be told
            for words in ("not an SQLite database", "a study whose first "
                          "page is damaged", "restore it from a backup"):
                self.assertIn(words, lines[0])
            with open(path, "rb") as f:
                before = f.read()
            p = run(path, "alice", ["label", self.items[8], "symptom=hang"],
                    tmp)
            self.assertEqual(p.returncode, 1)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), before)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def stats(path):
    """The last BUGCODER_STATS line as a dict."""
    with open(path) as f:
        words = f.read().strip().splitlines()[-1].split()
    return {words[i]: float(words[i + 1]) for i in range(0, len(words), 2)}


def big_items(path, n):
    """`n` items with bodies, comments and a fix each, as JSON Lines."""
    import json
    rng = random.Random(7)
    with open(path, "w") as f:
        for i in range(1, n + 1):
            body = " ".join("word%d" % rng.randrange(5000)
                            for _ in range(rng.randrange(200, 500)))
            diff = "".join("+line %d of the fix\n" % k
                           for k in range(rng.randrange(20, 80)))
            f.write(json.dumps({
                "repo": "big/repo%d" % (i % 7), "number": i,
                "title": "bug %d" % i, "body": body, "state": "closed",
                "created_at": "2024-01-01T00:00:00Z",
                "closed_at": "2024-01-03T00:00:00Z",
                "comments": [{"author": "x", "body": body[:300]}],
                "fixes": [{"number": 100000 + i, "title": "fix",
                           "additions": 3, "deletions": 1,
                           "changed_files": 1,
                           "diff": "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
                                   "@@ -1,1 +1,80 @@\n" + diff}]}) + "\n")


class Costs(unittest.TestCase):
    N = 6000

    @classmethod
    def setUpClass(cls):
        cls.s = Study(items=None, members=[("alice", "annotator"),
                                           ("bob", "annotator")])
        jsonl = os.path.join(cls.s.dir, "big.jsonl")
        big_items(jsonl, cls.N)
        cls.s.ok("import", jsonl)
        with open(os.path.join(cls.s.dir, "labels.csv"), "w") as f:
            f.write("item,annotator,dimension,code\n")
            for i in range(1, cls.N + 1):
                for who in ("alice", "bob"):
                    f.write("big/repo%d#%d,%s,symptom,crash\n" %
                            (i % 7, i, who))
        cls.s.ok("labels", "import", os.path.join(cls.s.dir, "labels.csv"))
        # the daily full check is done and recorded
        cls.s.ok("label", "big/repo1#1", "symptom=hang", as_="alice")

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_a_label_reads_a_small_fraction_of_the_study(self):
        out = os.path.join(self.s.dir, "stats.txt")
        self.s.ok("label", "big/repo4#3000", "symptom=hang",
                  "root_cause=api_misuse", "fix_pattern=conditional_logic",
                  "phase=training", "--submit", as_="alice",
                  env={"BUGCODER_STATS": out})
        st = stats(out)
        self.assertGreater(st["pages"], 5000, st)
        # a few B-tree descents, the schema and the codebook: well under
        # 1% of the study (a whole-study check read every page)
        self.assertLess(st["reads"], st["pages"] / 100, st)
        # one access check and one codebook check: few statements
        self.assertLessEqual(st["prepares"], 30, st)
        self.assertLess(st["lock_max"], 2.0, st)

    def test_opening_the_screen_reads_a_small_fraction(self):
        # the queue asks which items were never fetched: an index
        # answers, not a read of every item's row
        out = os.path.join(self.s.dir, "screen.txt")
        keys = os.path.join(self.s.dir, "quit.keys")
        with open(keys, "w") as f:
            f.write("q")
        self.s.ok("code", "big/repo3#10", as_="bob",
                  env={"BUGCODER_STATS": out, "BUGCODER_KEYS": keys,
                       "BUGCODER_NO_DISPLAY": "1"})
        st = stats(out)
        self.assertGreater(st["pages"], 5000, st)
        self.assertLess(st["reads"], st["pages"] / 20, st)

    def test_checked_once_a_day_and_recorded(self):
        day1 = {"BUGCODER_NOW": "2031-03-01T09:00:00Z"}
        day2 = {"BUGCODER_NOW": "2031-03-02T09:00:01Z"}
        out = os.path.join(self.s.dir, "daily.txt")
        self.s.ok("label", "big/repo2#2", "symptom=hang", as_="alice",
                  env=dict(day1, BUGCODER_STATS=out))
        first = stats(out)
        self.assertGreaterEqual(first["reads"], first["pages"] / 2, first)
        self.assertEqual(self.s.query(
            "SELECT value FROM meta WHERE key = 'integrity_checked_at'"),
            [("2031-03-01T09:00:00Z",)])
        self.s.ok("label", "big/repo2#2", "symptom=crash", as_="alice",
                  env=dict(day1, BUGCODER_STATS=out))
        self.assertLess(stats(out)["reads"], first["pages"] / 100)
        self.s.ok("label", "big/repo2#2", "symptom=hang", as_="alice",
                  env=dict(day2, BUGCODER_STATS=out))
        self.assertGreaterEqual(stats(out)["reads"], first["pages"] / 2)

    def test_checked_after_an_unclean_stop(self):
        out = os.path.join(self.s.dir, "unclean.txt")
        # a program killed after a write, the study still open: its
        # -wal stays behind (SQLite's own recovery keeps what it wrote)
        subprocess.run(["python3", "-c", "import os, sqlite3, sys\n"
                        "c = sqlite3.connect(sys.argv[1])\n"
                        "c.execute(\"INSERT OR REPLACE INTO meta (key, value) "
                        "VALUES ('note', 'killed')\")\n"
                        "c.commit()\nos._exit(0)\n", self.s.path],
                       check=True)
        wal = self.s.path + "-wal"
        self.assertGreater(os.path.getsize(wal), 0)
        self.s.ok("label", "big/repo4#4", "symptom=crash", as_="bob",
                  env={"BUGCODER_STATS": out})
        st = stats(out)
        self.assertGreaterEqual(st["reads"], st["pages"] / 2, st)
        # closed cleanly: nothing to check next time
        self.assertEqual(os.path.exists(wal) and os.path.getsize(wal), 0)
        self.s.ok("label", "big/repo4#4", "symptom=hang", as_="bob",
                  env={"BUGCODER_STATS": out})
        self.assertLess(stats(out)["reads"], st["pages"] / 100)


if __name__ == "__main__":
    unittest.main()
