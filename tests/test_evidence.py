"""Evidence: lines of the fix's diff or of the issue cited for a label,
given by scripts (`label ... --evidence`), exported with the raw labels,
audited, and blinded like the label it supports."""
import csv
import io
import json
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


if __name__ == "__main__":
    unittest.main()
