# SPDX-License-Identifier: MIT
"""Reading real-looking bugs on the annotator's screen, through the real
binary on a virtual terminal: every hunk and file jump over the fixtures
(tests/bench/hunk_jumps.py reads each screen back) keeps the start of every
changed line in view or says that the line is scrolled, and the fix
pane's position mark never says "all" or "end" while lines of the diff are
below it (tests/bench/reading_figures.py)."""
import os
import sys
import unittest

from bchelp import BIN, SAMPLE

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "bench"))
import hunk_jumps  # noqa: E402
import reading_figures  # noqa: E402

FIXTURES = [os.path.join(HERE, "fixtures", "reading-real.jsonl"),
            os.path.join(HERE, "fixtures", "reading.jsonl")]


class HunkJumps(unittest.TestCase):
    def test_no_jump_hides_the_start_of_a_changed_line(self):
        for path in FIXTURES + [SAMPLE]:
            name = os.path.basename(path)
            res = hunk_jumps.measure(BIN, path)
            for (rows, cols), t in res.items():
                where = "%s at %dx%d: %r" % (name, cols, rows, t)
                self.assertGreater(t["jumps"], 0, where)
                self.assertEqual(t["hiding"], 0, where)
                self.assertEqual(t["bare"] + t["cut"], 0, where)
                if path in FIXTURES:
                    # these make the screen scroll sideways, and what is
                    # scrolled says so
                    self.assertGreater(t["scrolled"], 0, where)
                    self.assertGreater(t["marked"], 0, where)
            # a hunk whose first change is a short line is not scrolled
            if name == "reading-real.jsonl":
                self.assertLessEqual(res[(35, 120)]["scrolled"], 2)


class PositionMark(unittest.TestCase):
    def test_all_or_end_only_with_the_last_line_on_screen(self):
        for path in FIXTURES + [SAMPLE]:
            res = reading_figures.measure(BIN, path)
            for (rows, cols), t in res.items():
                where = "%s at %dx%d: %r" % (os.path.basename(path), cols,
                                             rows, t)
                self.assertGreater(t["fixes"], 0, where)
                self.assertEqual(t["lying"], 0, where)


if __name__ == "__main__":
    unittest.main()
