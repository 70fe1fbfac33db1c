# SPDX-License-Identifier: MIT
"""Batch writes through the real binary: `label --from` makes exactly the
rows, audit rows included, that the same lines given to `label` one at a
time make; a refused batch (a bad line, a bad row) leaves the study as it
was; the write lock is held only while the rows are written."""
import os
import shutil
import unittest

from bchelp import Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]
NOW = {"BUGCODER_NOW": "2024-07-01T10:00:00Z"}


def copy_study(s):
    """A second study, a copy of `s` as it is now."""
    other = Study.__new__(Study)
    import tempfile
    other.dir = tempfile.mkdtemp(prefix="bugcoder-test-")
    other.path = os.path.join(other.dir, "study.db")
    shutil.copyfile(s.path, other.path)
    return other


def rows(s):
    return {t: s.query(sql) for t, sql in (
        ("labels", "SELECT item_id, member_id, dimension, code, "
                   "codebook_version, proposal_id, labeled_at FROM labels "
                   "ORDER BY 1, 2, 3, 4"),
        ("submissions", "SELECT * FROM submissions ORDER BY 1, 2"),
        ("audit", "SELECT * FROM audit ORDER BY id"))}


class LabelFrom(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items", "all",
                  "--annotators", "alice,bob")
        self.items = ["%s#%d" % r for r in self.s.query(
            "SELECT i.repo, i.number FROM items i JOIN assignments a ON "
            "a.item_id = i.id ORDER BY a.position")]
        # some work there already: the batch has old values to audit
        self.s.ok("label", self.items[0], "symptom=hang", as_="alice",
                  env=NOW)
        self.lines = []
        for k, it in enumerate(self.items[:12]):
            words = [it, "symptom=crash", "root_cause=api_misuse",
                     "fix_pattern=conditional_logic" +
                     (",algorithm_rewrite" if k % 3 == 0 else ""),
                     "phase=training"]
            if k % 2 == 0:
                words.append("--submit")
            if k % 4 == 1:
                words.insert(2, "stage=")
            self.lines.append(" ".join(words))
        # the same item again, and a line that changes nothing
        self.lines.append(self.items[1] + " symptom=hang")
        self.lines.append(self.items[2] + " phase=training")

    def tearDown(self):
        self.s.close()

    def test_same_rows_as_label_one_line_at_a_time(self):
        other = copy_study(self.s)
        try:
            out = self.s.ok("label", "--from", "-", as_="alice", env=NOW,
                            input="\n".join(self.lines) + "\n")
            self.assertIn("14 items labelled, 6 submitted", out)
            for line in self.lines:
                other.ok("label", *line.split(), as_="alice", env=NOW)
            mine, theirs = rows(self.s), rows(other)
            self.assertEqual(mine, theirs)
            self.assertGreater(len(mine["audit"]), 50)
            self.assertEqual(self.s.ok("audit", "verify").strip(),
                             other.ok("audit", "verify").strip())
        finally:
            other.close()

    def test_the_owner_for_a_member(self):
        other = copy_study(self.s)
        try:
            self.s.ok("label", "--from", "-", as_="bob", env=NOW,
                      input="\n".join(self.lines[:4]) + "\n")
            for line in self.lines[:4]:
                other.ok("label", *line.split(), as_="bob", env=NOW)
            self.assertEqual(rows(self.s), rows(other))
        finally:
            other.close()

    def test_a_bad_line_saves_nothing(self):
        for bad, why in (
                ("%s symptom=nope" % self.items[5], "stdin:7: symptom=nope: "
                 "no such code in dimension symptom"),
                ("microsoft/DeepSpeed#1 symptom=crash", "stdin:7: "
                 "microsoft/DeepSpeed#1: no such item"),
                ("%s stage=communication --submit" % self.items[6],
                 "stdin:7: not submitted: required dimensions not coded")):
            before = self.s.dump()
            lines = self.lines[:6] + [bad] + self.lines[6:]
            err = self.s.fail("label", "--from", "-", as_="alice", env=NOW,
                              input="\n".join(lines) + "\n")
            self.assertIn(why, err)
            self.assertIn("; nothing saved", err)
            self.assertEqual(self.s.dump(), before)

    def test_labels_import_refused_row_saves_nothing(self):
        path = os.path.join(self.s.dir, "sheet.csv")
        with open(path, "w") as f:
            f.write("item,annotator,dimension,code\n")
            for it in self.items[:10]:
                f.write("%s,alice,symptom,crash\n" % it)
            # bob's row, imported by alice: refused, and nothing else in
            f.write("%s,bob,symptom,crash\n" % self.items[3])
        before = self.s.dump()
        err = self.s.fail("labels", "import", path, as_="alice")
        self.assertIn("sheet.csv:12: annotator: alice may import only "
                      "their own labels", err)
        self.assertEqual(self.s.dump(), before)
        # the item adjudicated: refused at its row, nothing in
        self.s.ok("label", self.items[4], "symptom=hang",
                  "root_cause=api_misuse", "fix_pattern=conditional_logic",
                  "phase=training", "--submit", as_="bob")
        self.s.ok("label", self.items[4], "symptom=crash",
                  "root_cause=api_misuse", "fix_pattern=conditional_logic",
                  "phase=training", "--submit", as_="alice")
        self.s.ok("resolve", self.items[4], "symptom=crash", "--rationale",
                  "r", as_="carol")
        with open(path, "w") as f:
            f.write("item,annotator,dimension,code\n")
            for it in self.items[:10]:
                f.write("%s,alice,stage,communication\n" % it)
        before = self.s.dump()
        err = self.s.fail("labels", "import", path, as_="alice")
        self.assertIn("sheet.csv:6: microsoft/DeepSpeed#4903 has been adjudicated", err)
        self.assertIn("nothing imported", err)
        self.assertEqual(self.s.dump(), before)

    def test_write_lock_held_only_to_write(self):
        stats = os.path.join(self.s.dir, "stats.txt")
        lines = [" ".join([it, "symptom=crash", "root_cause=api_misuse",
                           "fix_pattern=conditional_logic", "phase=training",
                           "--submit"]) for it in self.items]
        self.s.ok("label", "--from", "-", as_="alice", input="\n".join(
            lines) + "\n", env={"BUGCODER_STATS": stats})
        with open(stats) as f:
            words = f.read().split()
        st = dict(zip(words[::2], map(float, words[1::2])))
        # one write transaction, and few statements for 30 items
        self.assertGreater(st["lock_total"], 0)
        self.assertEqual(st["lock_total"], st["lock_max"])
        self.assertLess(st["prepares"], 40, st)


if __name__ == "__main__":
    unittest.main()
