# SPDX-License-Identifier: MIT
"""Evidence: lines of the fix's diff or of the issue cited for a label,
given by scripts (`label ... --evidence`), exported with the raw labels,
audited, and blinded like the label it supports."""
import csv
import io
import json
import os
import re
import unittest

from bchelp import Study, SAMPLE

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]
ITEM = "microsoft/DeepSpeed#4187"
PATH = "deepspeed/runtime/zero/partitioned_param_coordinator.py"


def sample_item(number):
    with open(SAMPLE) as f:
        for line in f:
            o = json.loads(line)
            if o["number"] == number:
                return o
    raise KeyError(number)


def diff_side(diff, path, old, lo, hi):
    """The hunk lines of `path` on one side, numbered as that side counts
    them, in lo..hi - worked out here from the unified diff itself."""
    out, cur, o, n = [], None, 0, 0
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            cur = line.split(" b/", 1)[1]
            continue
        if cur != path:
            continue
        m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)", line)
        if m:
            o, n = int(m.group(1)), int(m.group(2))
            continue
        if not line or line[0] not in " +-":
            continue
        if line[0] == "+" and old or line[0] == "-" and not old:
            n += line[0] == "+"
            o += line[0] == "-"
            continue
        at = o if old else n
        if lo <= at <= hi:
            out.append(line)
        o += line[0] != "+"
        n += line[0] != "-"
    return "".join(l + "\n" for l in out)


class Evidence(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422", "--annotators",
                  "alice,bob")
        self.item = sample_item(4187)
        self.diff = self.item["fixes"][0]["diff"]

    def tearDown(self):
        self.s.close()

    def raw(self, as_, fmt="csv"):
        out = self.s.ok("export", "--raw", "--format", fmt, as_=as_)
        if fmt == "csv":
            return list(csv.DictReader(io.StringIO(out)))
        return [json.loads(l) for l in out.splitlines()]

    def test_cited_lines_are_quoted_and_exported(self):
        out = self.s.ok("label", ITEM, "root_cause=concurrency",
                        "--evidence", "diff:%s:287-290" % PATH,
                        "--evidence",
                        "root_cause=diff:%s:old:287-288" % PATH,
                        as_="alice")
        self.assertIn("2 citations", out)
        self.s.ok("label", ITEM, "symptom=hang", "--evidence",
                  "issue:comment:2:1", as_="alice")
        rows = {r["dimension"]: r for r in self.raw("alice")}
        self.assertEqual(rows["root_cause"]["evidence"],
                         "diff:%s:287-290|diff:%s:old:287-288" % (PATH,
                                                                  PATH))
        self.assertEqual(rows["symptom"]["evidence"], "issue:comment:2:1")
        js = {r["dimension"]: r for r in self.raw("alice", "jsonl")}
        new, old = js["root_cause"]["evidence"]
        self.assertEqual(new["quote"],
                         diff_side(self.diff, PATH, False, 287, 290))
        self.assertEqual(old["quote"],
                         diff_side(self.diff, PATH, True, 287, 288))
        self.assertTrue(new["quote"])
        self.assertNotEqual(new["quote"], old["quote"])
        comment = self.item["comments"][1]["body"].replace("\r\n", "\n")
        self.assertEqual(js["symptom"]["evidence"][0]["quote"],
                         comment.split("\n")[0] + "\n")
        self.assertEqual(self.s.query(
            "SELECT count(*) FROM audit WHERE action = 'evidence.add'"),
            [(3,)])

    def test_a_study_of_the_last_schema_keeps_its_evidence(self):
        self.s.ok("label", ITEM, "symptom=hang", "--evidence",
                  "issue:body:1", "--evidence", "diff:%s:287-288" % PATH,
                  as_="alice")
        before = self.s.query("SELECT id, dimension, pane, path, line_from,"
                              " line_to, quote FROM evidence ORDER BY id")
        self.s.downgrade(9)
        self.s.ok("status")
        self.assertEqual(self.s.query("PRAGMA user_version"), [(13,)])
        self.assertEqual(self.s.query(
            "SELECT id, dimension, pane, path, line_from, line_to, quote "
            "FROM evidence ORDER BY id"), before)
        self.assertEqual(self.s.query("SELECT count(*) FROM evidence WHERE "
                                      "pr IS NOT NULL"), [(0,)])

    def test_bad_citations_save_nothing(self):
        before = self.s.dump()
        for args, code, says in (
                (["--evidence", "diff:no/such.py:1-2"], 1,
                 "no/such.py is not in the fix's diff"),
                (["--evidence", "diff:%s:1-2" % PATH], 1,
                 "shows no line 1-2"),
                (["--evidence", "issue:comment:9:1"], 1,
                 "the item has 5 comments"),
                (["--evidence", "issue:body:900"], 1, "that text has"),
                (["--evidence", "issue:body:3-1"], 1, "expected"),
                (["--evidence", "wiki:x:1"], 1, "cite the diff"),
                # the path left out: refused, not a copy of SIZE_MAX bytes
                (["--evidence", "diff:12"], 1, "which file of the diff?"),
                (["--evidence", "diff:old:3-4"], 1, "old is not in"),
                (["phase=training", "--evidence", "issue:body:1"], 2,
                 "which dimension?"),
                (["--evidence", "nosuchdim=issue:body:1"], 1,
                 "no such dimension")):
            err = self.s.fail("label", ITEM, "symptom=hang", *args,
                              as_="alice", code=code)
            self.assertIn(says, err, args)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertEqual(before, self.s.dump())

    def test_blinded_like_the_label(self):
        rest = ["root_cause=concurrency", "fix_pattern=conditional_logic",
                "phase=training", "--submit"]
        self.s.ok("label", ITEM, "symptom=hang", *rest, "--evidence",
                  "symptom=issue:body:1", as_="alice")
        self.s.ok("label", ITEM, "symptom=crash", *rest, "--evidence",
                  "symptom=issue:body:2", as_="bob")
        def cites(rows):
            return {r["annotator"]: r["evidence"] for r in rows
                    if r["dimension"] == "symptom"}

        # bob sees his own citation only while the round is open
        self.assertEqual(cites(self.raw("bob")), {"bob": "issue:body:2"})
        # the blind adjudicator sees both, under Coder 1 / Coder 2
        self.assertEqual(sorted(cites(self.raw("carol"))),
                         ["Coder 1", "Coder 2"])
        self.assertEqual(sorted(cites(self.raw("carol")).values()),
                         ["issue:body:1", "issue:body:2"])
        self.s.ok("round", "close", "r1", "--force")
        rows = cites(self.raw("bob"))
        self.assertEqual(rows, {"alice": "issue:body:1",
                                "bob": "issue:body:2"})
        # a closed round's labels are frozen: so is the evidence
        err = self.s.fail("label", ITEM, "symptom=hang", "--evidence",
                          "issue:body:3", as_="alice")
        self.assertIn("closed", err)


ODD_DIFF = (
    "diff --git a/notes:old b/notes:old\n"
    "--- a/notes:old\n"
    "+++ b/notes:old\n"
    "@@ -10,3 +10,3 @@\n"
    " ten\n"
    "-eleven\n"
    "+ELEVEN\n"
    " twelve\n"
    "@@ -40,2 +40,3 @@\n"
    " forty\n"
    "+forty-one\n"
    " forty-two\n")


class EvidenceCommand(unittest.TestCase):
    """`bugcoder evidence list|remove`: one's own citations, with ids."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422", "--annotators",
                  "alice,bob")
        self.s.ok("label", ITEM, "symptom=hang", "root_cause=concurrency",
                  "--evidence", "symptom=issue:body:1", "--evidence",
                  "root_cause=diff:%s:287-288" % PATH, as_="alice")
        self.s.ok("label", ITEM, "symptom=crash", "--evidence",
                  "issue:body:2", as_="bob")

    def tearDown(self):
        self.s.close()

    def ids(self, who):
        return {d: i for i, d in self.s.query(
            "SELECT e.id, e.dimension FROM evidence e JOIN members m ON "
            "m.id = e.member_id WHERE m.name = ?", who)}

    def test_list_shows_ones_own_with_ids(self):
        mine = self.ids("alice")
        out = self.s.ok("evidence", "list", as_="alice")
        self.assertIn("%-6d microsoft/DeepSpeed#4187  symptom      "
                      "issue:body:1" % mine["symptom"], out)
        self.assertIn("root_cause   diff:%s:287-288" % PATH, out)
        self.assertIn("| +        elif not self.__is_next_in_trace", out)
        # never bob's, never his name
        self.assertNotIn("issue:body:2", out)
        rows = list(csv.DictReader(io.StringIO(self.s.ok(
            "evidence", "list", ITEM, "--format", "csv", as_="alice"))))
        self.assertEqual([(int(r["id"]), r["dimension"], r["evidence"])
                          for r in rows],
                         [(mine["root_cause"], "root_cause",
                           "diff:%s:287-288" % PATH),
                          (mine["symptom"], "symptom", "issue:body:1")])
        js = json.loads(self.s.ok("evidence", "list", "--format", "json",
                                  as_="bob"))
        self.assertEqual(js["annotator"], "bob")
        self.assertEqual([(e["item"], e["evidence"]) for e in js["evidence"]],
                         [(ITEM, "issue:body:2")])
        self.assertIn("bob has cited nothing on DeepSpeed#4422",
                      self.s.ok("evidence", "list", "DeepSpeed#4422",
                                as_="bob"))

    def test_remove_is_audited_and_ones_own(self):
        mine = self.ids("alice")
        bobs = self.ids("bob")
        # bob cannot remove alice's citation, nor one on another item
        err = self.s.fail("evidence", "remove", ITEM, str(mine["symptom"]),
                          as_="bob")
        self.assertIn("no evidence %d of bob's" % mine["symptom"], err)
        err = self.s.fail("evidence", "remove", "DeepSpeed#4422",
                          str(mine["symptom"]), as_="alice")
        self.assertIn("is not on that item", err)
        self.assertEqual(self.s.fail("evidence", "remove", ITEM, "x",
                                     as_="alice", code=2).count("\n"), 1)
        out = self.s.ok("evidence", "remove", ITEM, str(mine["symptom"]),
                        as_="alice")
        self.assertIn("evidence %d removed" % mine["symptom"], out)
        self.assertEqual(set(self.ids("alice")), {"root_cause"})
        self.assertEqual(self.ids("bob"), bobs)
        self.assertEqual(self.s.query(
            "SELECT actor, dimension, old, new FROM audit WHERE action = "
            "'evidence.remove'"), [(self.s.query(
                "SELECT actor FROM audit WHERE action = 'evidence.add' "
                "LIMIT 1")[0][0], "symptom", "issue:body:1", None)])
        # what the label keeps: the export no longer has it
        rows = {r["dimension"]: r for r in csv.DictReader(io.StringIO(
            self.s.ok("export", "--raw", as_="alice")))}
        self.assertEqual(rows["symptom"]["evidence"], "")
        # a closed round freezes evidence as it freezes labels
        self.s.ok("round", "close", "r1", "--force")
        before = self.s.dump()
        err = self.s.fail("evidence", "remove", ITEM,
                          str(mine["root_cause"]), as_="alice")
        self.assertIn("closed", err)
        self.assertEqual(before, self.s.dump())

    def test_clearing_a_dimension_says_its_citations_stay(self):
        out = self.s.ok("label", ITEM, "symptom=", as_="alice")
        self.assertIn("symptom cleared; its 1 citation stays", out)
        self.assertEqual(set(self.ids("alice")), {"symptom", "root_cause"})


class EvidenceChecks(unittest.TestCase):
    """Evidence is checked as evenly as the issue's text: every line cited
    must be shown by the diff, the dimension must be coded, and a path
    that ends like a side reads back from the compact form."""

    def setUp(self):
        self.s = Study(items=None, members=MEMBERS)
        items = os.path.join(self.s.dir, "odd.jsonl")
        with open(items, "w") as f:
            f.write(json.dumps({
                "repo": "acme/odd", "number": 1, "title": "odd paths",
                "body": "one\ntwo\nthree",
                "fixes": [{"number": 2, "title": "fix", "diff": ODD_DIFF}],
            }) + "\n")
        self.s.ok("import", items)

    def tearDown(self):
        self.s.close()

    def test_ranges_past_the_diff_or_between_hunks_are_refused(self):
        before = self.s.dump()
        for spec, says in (
                ("diff:notes:old:new:4-400",
                 "shows only 6 of the lines 4-400 of notes:old on its new "
                 "side (it shows 10-12, 40-42)"),
                ("diff:notes:old:new:12-40",
                 "shows only 2 of the lines 12-40"),
                ("diff:notes:old:new:13", "shows no line 13 of notes:old"),
                ("diff:notes:old:old:40-42",
                 "shows only 2 of the lines 40-42 of notes:old on its old "
                 "side (it shows 10-12, 40-41)"),
                ("issue:body:2-4", "that text has 3 lines")):
            err = self.s.fail("label", "acme/odd#1", "symptom=hang",
                              "--evidence", spec, as_="alice")
            self.assertIn(says, err, spec)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertEqual(before, self.s.dump())

    def test_a_dimension_without_a_label_is_refused(self):
        before = self.s.dump()
        err = self.s.fail("label", "acme/odd#1", "symptom=hang",
                          "--evidence", "root_cause=issue:body:1",
                          as_="alice")
        self.assertIn("alice has no code for root_cause on this item", err)
        # clearing a dimension and citing for it in one go: refused too
        err = self.s.fail("label", "acme/odd#1", "symptom=",
                          "--evidence", "issue:body:1", as_="alice")
        self.assertIn("has no code for symptom", err)
        self.assertEqual(before, self.s.dump())

    def test_side_like_paths_round_trip_through_the_export(self):
        self.s.ok("label", "acme/odd#1", "symptom=hang", "--evidence",
                  "diff:notes:old:new:40-41", "--evidence",
                  "diff:notes:old:old:11", as_="alice")
        out = self.s.ok("export", "--raw", as_="alice")
        row, = [r for r in csv.DictReader(io.StringIO(out))
                if r["dimension"] == "symptom"]
        self.assertEqual(row["evidence"], "diff:notes:old:new:40-41|"
                         "diff:notes:old:old:11")
        # what the export wrote cites the same lines again
        self.s.ok("label", "acme/odd#1", "phase=training", *sum(
            (["--evidence", "phase=" + c]
             for c in row["evidence"].split("|")), []), as_="alice")
        self.assertEqual(self.s.query(
            "SELECT path, old_side, line_from, line_to, quote FROM evidence "
            "WHERE dimension = 'phase' ORDER BY id"),
            [("notes:old", 0, 40, 41, " forty\n+forty-one\n"),
             ("notes:old", 1, 11, 11, "-eleven\n")])


class EvidenceOfRealLookingBugs(unittest.TestCase):
    """Citations of tests/fixtures/reading-real.jsonl."""

    def setUp(self):
        self.s = Study(items=os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "fixtures", "reading-real.jsonl"),
            members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def test_a_cr_to_lf_change_is_quoted_with_its_cr(self):
        path = ("applications/ColossalChat/examples/training_scripts/"
                "train_sft.sh")
        self.s.ok("label", "hpcaitech/ColossalAI#5580", "root_cause=other",
                  "--evidence", "diff:%s:old:2" % path, "--evidence",
                  "diff:%s:1-2" % path, as_="alice")
        js = [json.loads(l) for l in self.s.ok(
            "export", "--raw", "--format", "jsonl", as_="alice").splitlines()]
        ev, = [r["evidence"] for r in js if r["dimension"] == "root_cause"]
        self.assertEqual([e["quote"] for e in ev], [
            "-export OMP_NUM_THREADS=8\r\n",
            " #!/bin/bash\n+export OMP_NUM_THREADS=8\n"])

    def test_the_pull_request_description_and_comments(self):
        item = "microsoft/DeepSpeed#5337"
        out = self.s.ok("label", item, "root_cause=numerical_issue",
                        "--evidence", "pr:5342:body:3", "--evidence",
                        "pr:5342:comment:1:2", as_="alice")
        self.assertIn("2 citations", out)
        js = [json.loads(l) for l in self.s.ok(
            "export", "--raw", "--format", "jsonl", as_="alice").splitlines()]
        ev, = [r["evidence"] for r in js if r["dimension"] == "root_cause"]
        self.assertEqual([e["cite"] for e in ev],
                         ["pr:5342:body:3", "pr:5342:comment:1:2"])
        self.assertTrue(ev[0]["quote"].startswith(
            "The gradients of the first micro step were never averaged"))
        self.assertEqual(ev[1]["quote"],
                         "This also explains the divergence reported in "
                         "#5301.\n")
        rows = list(csv.DictReader(io.StringIO(self.s.ok(
            "export", "--raw", as_="alice"))))
        self.assertEqual([r["evidence"] for r in rows
                          if r["dimension"] == "root_cause"],
                         ["pr:5342:body:3|pr:5342:comment:1:2"])
        before = self.s.dump()
        for spec, says in (
                ("pr:9999:body:1", "no pull request #9999"),
                ("pr:5342:comment:2:1", "the pull request has 1 comment"),
                ("pr:5342:body:40", "that text has 7 lines"),
                ("pr:5342:1", "pr:N:body:L1-L2")):
            err = self.s.fail("label", item, "root_cause=numerical_issue",
                              "--evidence", spec, as_="alice")
            self.assertIn(says, err, spec)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertEqual(before, self.s.dump())


if __name__ == "__main__":
    unittest.main()
