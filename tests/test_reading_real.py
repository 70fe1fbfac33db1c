"""Reading real-looking bugs on the annotator's screen, through the real
binary on a virtual terminal: every hunk and file jump over the fixtures
of tests/fixtures/ (tests/bench/hunk_jumps.py reads each screen back)
keeps the start of every changed line in view, or says that the line is
scrolled."""
import os
import sys
import unittest

from bchelp import BIN

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "bench"))
import hunk_jumps  # noqa: E402


class HunkJumps(unittest.TestCase):
    def test_no_jump_hides_the_start_of_a_changed_line(self):
        for name in ("reading-real.jsonl", "reading.jsonl"):
            res = hunk_jumps.measure(BIN, os.path.join(HERE, "fixtures",
                                                       name))
            for (rows, cols), t in res.items():
                where = "%s at %dx%d: %r" % (name, cols, rows, t)
                self.assertGreater(t["jumps"], 0, where)
                self.assertEqual(t["hiding"], 0, where)
                self.assertEqual(t["bare"] + t["cut"], 0, where)
                # the fixtures make the screen scroll sideways, and what
                # is scrolled says so
                self.assertGreater(t["scrolled"], 0, where)
                self.assertGreater(t["marked"], 0, where)
                self.assertLess(t["scrolled"], t["jumps"] + 1, where)
            # a hunk whose first change is a short line is not scrolled
            if name == "reading-real.jsonl":
                self.assertLessEqual(res[(35, 120)]["scrolled"], 2)


if __name__ == "__main__":
    unittest.main()
