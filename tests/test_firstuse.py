"""What a team new to bugcoder meets in its first hour: every message
says what is wrong in words that fit the case, and nothing is a failure
that is not one.

Each class is one thing that once read wrong: "1 rounds"; a refusal on
two lines; a file that is not a study reported as "reading the schema
version"; a UTF-16 spreadsheet called "a NUL byte"; a cell's spaces kept;
`doctor` calling TERM=dumb fine while the screen refused it; "nothing to
adjudicate" as exit 1; `--stdy` an unknown command; a misspelt option or
round name without a suggestion; a read-only mount reported as "no write
permission"; a misspelt dimension column silently dropped; a NUL byte
cutting a line short; a URL on any host taken for GitHub; a codebook path
from outside the tree without the hint that its bare name works."""
import os
import subprocess
import unittest

from bchelp import BIN, ROOT, Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]
FIRST = "microsoft/DeepSpeed#3468"


class Plurals(unittest.TestCase):
    def setUp(self):
        self.s = Study(items=None, members=[("alice", "annotator")])

    def tearDown(self):
        self.s.close()

    def test_one_is_singular(self):
        one = os.path.join(self.s.dir, "one.jsonl")
        with open(os.path.join(ROOT, "tests", "sample", "items.jsonl")) as f:
            first = f.readline()
        import json
        item = json.loads(first)
        item["comments"] = item["comments"][:1]
        item["fixes"] = item["fixes"][:1]
        with open(one, "w") as f:
            f.write(json.dumps(item) + "\n")
        out = self.s.ok("import", one)
        self.assertEqual(out, f"{one}: 1 added, 0 updated (1 comment, "
                         "1 fix)\n")
        self.s.ok("round", "create", "r1", "--items", FIRST,
                  "--annotators", "alice")
        out = self.s.ok("round", "list")
        self.assertRegex(out, r"^r1 +open +1 item,  +0 done")
        out = self.s.ok("status")
        self.assertIn("\n2 members, 1 round\n", out)
        self.assertIn("\n0 labels, 0 submissions, 0 open proposals, "
                      "0 resolutions\n", out)
        self.s.ok("label", FIRST, "symptom=hang", as_="alice")
        out = self.s.ok("status")
        self.assertIn("\n1 label, 0 submissions,", out)
        csv = os.path.join(self.s.dir, "l.csv")
        with open(csv, "w") as f:
            f.write("item,annotator,dimension,code\n"
                    f"{FIRST},alice,phase,training\n")
        out = self.s.ok("labels", "import", csv, as_="alice")
        self.assertEqual(out, f"{csv}: 1 row, 1 label set\n")
        err = self.s.fail("round", "close", "r1")
        self.assertIn("round r1: 1 of 1 item is not submitted", err)


if __name__ == "__main__":
    unittest.main()
