"""What a clumsy or hostile input, or a kill, cannot do to a study: the
real ./bugcoder on temporary studies.

- `label --from` lines: #N is an item, '#' otherwise a comment, a bad
  line (a NUL byte among them) named with nothing saved;
- `label --evidence` with the path left out is refused, not a crash.

Standard library only.
"""
import os
import unittest

from bchelp import Study

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class LabelFrom(unittest.TestCase):
    def setUp(self):
        self.st = Study(members=[("alice", "annotator")])

    def tearDown(self):
        self.st.close()

    def labels(self):
        return self.st.query(
            "SELECT i.number, l.dimension, l.code FROM labels l "
            "JOIN items i ON i.id = l.item_id ORDER BY 1, 2, 3")

    def test_hash_number_is_an_item_and_hash_a_comment(self):
        out = self.st.ok("label", "--from", "-", as_="alice", input=(
            "# alice's codes\n"
            "#4187 symptom=hang\n"
            "  #note symptom=crash\n"
            "microsoft/DeepSpeed#3468 symptom=crash\r\n"))
        self.assertIn("2 items labelled", out)
        self.assertEqual(self.labels(), [(3468, "symptom", "crash"),
                                         (4187, "symptom", "hang")])

    def test_bad_lines_named_nothing_saved(self):
        before = self.st.dump()
        for text, msg in (
                ("#4187 symptom=hang\n#4187 hang\n",
                 "stdin:2: 'hang' is not DIM=CODE"),
                ("#4187 symptom=hang\n#4187 symptom=crash\0 x=y\n",
                 "stdin:2: a NUL byte in the line"),
                ("#4187 symptom=hang -x\n",
                 "stdin:1: unknown option -x"),
                ("#4187\n", "stdin:1: expected ITEM DIM=CODE")):
            p = self.st.run("label", "--from", "-", as_="alice",
                            input=text)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(msg, p.stderr)
            self.assertIn("stdin: nothing saved", p.stderr)
        self.assertEqual(self.st.dump(), before)

    def test_evidence_path_left_out(self):
        p = self.st.run("label", "#4187", "symptom=hang", "--evidence",
                        "diff:12", as_="alice")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("--evidence diff:12: which file of the diff?",
                      p.stderr)
        self.assertEqual(self.labels(), [])


if __name__ == "__main__":
    unittest.main()
