# SPDX-License-Identifier: MIT
"""`labels import` of the wide shape every coding spreadsheet has: one row
per bug, one column per dimension; read as spreadsheet programs write it."""
import csv
import json
import os
import unittest

from bchelp import CODEBOOK, Study, SAMPLE_LABELS

MEMBERS = [("alice", "annotator"), ("bob", "annotator")]


def long_rows():
    with open(SAMPLE_LABELS, newline="") as f:
        return list(csv.DictReader(f))


def codebook():
    with open(CODEBOOK) as f:
        return json.load(f)


class WideLabels(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def write(self, name, text):
        path = os.path.join(self.s.dir, name)
        with open(path, "w", newline="", encoding="utf-8") as f:
            f.write(text)
        return path

    def labels(self, study):
        return sorted(study.query(
            "SELECT i.repo || '#' || i.number, m.name, l.dimension, l.code "
            "FROM labels l JOIN items i ON i.id = l.item_id "
            "JOIN members m ON m.id = l.member_id"))

    def test_wide_sheet_as_a_spreadsheet_saves_it(self):
        cb = codebook()
        dims = [d for d in cb["dimensions"]]
        names = {d["key"]: {c["key"]: c["name"] for c in d["codes"]}
                 for d in dims}
        wide = {}
        for r in long_rows():
            wide.setdefault((r["item"], r["annotator"]), {}).setdefault(
                r["dimension"], []).append(r["code"])
        # headers by the dimensions' names, a ';' separator, CRLF, a BOM;
        # codes by key or by name; the annotator in a column; items as
        # issue URLs
        head = [" Issue ", "Coder"] + [d["name"] for d in dims]
        lines = [";".join(head)]
        for k, ((item, who), codes) in enumerate(sorted(wide.items())):
            repo, num = item.split("#")
            cells = ["https://github.com/%s/issues/%s" % (repo, num), who]
            for d in dims:
                got = codes.get(d["key"], [])
                if k % 2:
                    got = [names[d["key"]][c] for c in got]
                cells.append('"%s"' % "; ".join(got) if len(got) > 1
                             else "".join(got))
            lines.append(";".join(cells))
        path = self.write("wide.csv", "\ufeff" + "\r\n".join(lines) + "\r\n")
        out = self.s.ok("labels", "import", path, "--submit")
        self.assertIn("submissions", out)
        ref = Study(members=MEMBERS)
        try:
            ref.ok("labels", "import", SAMPLE_LABELS, "--submit")
            self.assertEqual(self.labels(self.s), self.labels(ref))
            self.assertEqual(self.s.query("SELECT count(*) FROM submissions"),
                             ref.query("SELECT count(*) FROM submissions"))
        finally:
            ref.close()

    def test_annotator_option_and_tabs(self):
        text = ("item\tsymptom\troot_cause\n"
                "microsoft/DeepSpeed#4187\tCrash\tAPI misuse\n")
        path = self.write("alice.tsv", text)
        self.s.ok("labels", "import", path, "--annotator", "alice",
                  as_="alice")
        self.assertEqual(self.labels(self.s), [
            ("microsoft/DeepSpeed#4187", "alice", "root_cause", "api_misuse"),
            ("microsoft/DeepSpeed#4187", "alice", "symptom", "crash")])

    def test_wide_refusals_name_the_line(self):
        before = self.s.dump()
        cases = [
            ("item,symptom\nmicrosoft/DeepSpeed#4187,crash\n", [],
             "(no annotator column); add an annotator column or give "
             "--annotator NAME"),
            ("Bug,Mood\nmicrosoft/DeepSpeed#4187,happy\n", ["--annotator",
                                                           "alice"],
             ':1: the header has "Bug", "Mood"'),
            ("item,annotator,symptom\nmicrosoft/DeepSpeed#4187,alice,"
             "explosion\n", [], ":2: code: explosion is not a code of "
             "symptom"),
            ("item,annotator,symptom\nmicrosoft/DeepSpeed#4187,alice,"
             "crash\nhttps://github.com/x/y/issues/1,alice,crash\n", [],
             ":3: item"),
            ("item,annotator,symptom\nmicrosoft/DeepSpeed#4187,alice,"
             "crash;hang\n", [], "takes one code"),
            ("item,annotator,symptom\nmicrosoft/DeepSpeed#4187,alice\n", [],
             ":2: 2 fields, the header has 3"),
            # a column that names no dimension is refused, not dropped
            # (a misspelt one lost its dimension without a word)
            ("item,annotator,symptom,rootcause\nmicrosoft/DeepSpeed#4187,"
             "alice,crash,api_misuse\n", [],
             ':1: column "rootcause" names no dimension of the codebook; '
             "did you mean root_cause?"),
            ("item,annotator,symptom,Notes\nmicrosoft/DeepSpeed#4187,alice,"
             "crash,a note\n", [],
             ':1: column "Notes" names no dimension of the codebook (head '
             "each column with a dimension's key or name: symptom, "
             "root_cause, fix_pattern, stage, phase; or remove it)"),
        ]
        for text, extra, words in cases:
            path = self.write("bad.csv", text)
            err = self.s.fail("labels", "import", path, *extra)
            self.assertIn(words, err, text)
        self.assertEqual(before, self.s.dump())


if __name__ == "__main__":
    unittest.main()
