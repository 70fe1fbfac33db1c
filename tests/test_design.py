# SPDX-License-Identifier: MIT
"""The study's numbers follow its design.

- Assignments: once a study has a round, a member labels only the items
  of open rounds that assign them, from every entry point (the screen by
  a key script, `label`, `label --from`, `labels import`); a study with
  no rounds is open coding and says so; whole-study figures count the
  items of coding rounds and say how many lie outside.
- Items never fetched stay out of rounds and screens.
- A submitted item keeps its required codes.
- Screening rounds: two coders, a disagreement adjudicated, the excluded
  items out of the next sample and the report's shares.
- The selection flow against counts computed here.
- Splitting a code: two coders' labels recoded, the closed round's record
  unchanged.

Before: labels on items in no round were saved and counted everywhere
(whole-study n = 20 where the README's rounds held 8 + 0), unfetched
items went into rounds and onto the screen, a submitted item could lose
a required code, and there was no screening, no selection flow and no
split."""
import csv
import io
import json
import os
import subprocess
import sys
import unittest

from bchelp import SAMPLE, SAMPLE_LABELS, Study

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("dave", "annotator"), ("carol", "adjudicator")]


def sample_items():
    with open(SAMPLE, encoding="utf-8") as f:
        return [json.loads(ln) for ln in f]


def names():
    return ["%s#%d" % (j["repo"], j["number"]) for j in sample_items()]


def labelled():
    """The sample's labelled items, in file order."""
    out = []
    with open(SAMPLE_LABELS, newline="") as f:
        for r in csv.DictReader(f):
            if r["item"] not in out:
                out.append(r["item"])
    return out


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def screen(s, as_, item, keys, tag):
    """Run the coding screen as `as_` on `item` with a key script; the
    dumps made by `:dump-screen NAME` lines, by name."""
    work = os.path.join(s.dir, "screen-" + tag)
    os.makedirs(work, exist_ok=True)
    script = os.path.join(work, "keys")
    with open(script, "w") as f:
        f.write("\n".join(keys + ["q", "q"]) + "\n")
    argv = ["code"] + ([item] if item else [])
    p = s.run(*argv, as_=as_, env={
        "BUGCODER_KEYS": script, "BUGCODER_NO_DISPLAY": "1",
        "BUGCODER_DUMP_DIR": work, "TERM": "xterm", "LINES": "40",
        "COLUMNS": "150"})
    dumps = {}
    for n in os.listdir(work):
        if n != "keys":
            with open(os.path.join(work, n), encoding="utf-8",
                      errors="replace") as f:
                dumps[n] = f.read()
    return p, dumps


def label_count(s, who=None):
    if who:
        return s.query("SELECT count(*) FROM labels l JOIN members m ON "
                       "m.id = l.member_id WHERE m.name = ?", who)[0][0]
    return s.query("SELECT count(*) FROM labels")[0][0]


class OpenCoding(unittest.TestCase):
    def test_no_rounds_is_open_coding_and_says_so(self):
        s = Study(members=MEMBERS)
        try:
            self.assertIn("open coding", s.ok("round", "list"))
            item = names()[3]
            s.ok("label", item, "symptom=crash", as_="dave")
            out = s.ok("status")
            self.assertIn("Items counted: every item, 30 (open coding: "
                          "the study has no round yet)", out)
            s.ok("labels", "import", SAMPLE_LABELS, "--submit")
            ag = s.agree_json()
            self.assertEqual(ag["dimensions"][0]["items"], 20)
            self.assertIn("open coding", ag["counting"][0])
        finally:
            s.close()


class Assignments(unittest.TestCase):
    """A round r1 for alice and bob; the other items are in no round."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.items = labelled()
        self.r1 = self.items[:6]
        self.out = [n for n in names() if n not in self.items][0]
        self.s.ok("round", "create", "r1", "--items", ",".join(self.r1),
                  "--annotators", "alice,bob")

    def tearDown(self):
        self.s.close()

    def test_label(self):
        s = self.s
        err = s.fail("label", self.out, "symptom=crash", as_="alice")
        self.assertIn("%s is in no round (the study's rounds: r1)" %
                      self.out, err)
        err = s.fail("label", self.r1[0], "symptom=crash", as_="dave")
        self.assertIn("%s is in round r1, which dave does not annotate" %
                      self.r1[0], err)
        s.ok("label", self.r1[0], "symptom=crash", as_="alice")
        self.assertEqual(label_count(s), 1)
        # a closed round
        s.ok("round", "close", "r1", "--force")
        err = s.fail("label", self.r1[0], "symptom=hang", as_="alice")
        self.assertIn("is in round r1, which is closed", err)
        self.assertEqual(label_count(s), 1)

    def test_label_from(self):
        s = self.s
        text = "%s symptom=crash\n%s symptom=hang\n" % (self.r1[0],
                                                        self.out)
        err = s.fail("label", "--from", "-", as_="alice", input=text)
        self.assertIn("stdin:2: %s is in no round" % self.out, err)
        self.assertIn("nothing saved", err)
        self.assertEqual(label_count(s), 0)

    def test_labels_import(self):
        s = self.s
        before = s.query("SELECT count(*) FROM audit")[0][0]
        err = s.fail("labels", "import", SAMPLE_LABELS, "--submit")
        self.assertIn("14 items are in no round", err)
        self.assertIn("--round R", err)
        self.assertEqual(label_count(s), 0)
        self.assertEqual(s.query("SELECT count(*) FROM audit")[0][0],
                         before)
        # an annotator may not put items into a round
        mine = os.path.join(s.dir, "alice.csv")
        with open(SAMPLE_LABELS) as f, open(mine, "w") as g:
            g.writelines(ln for ln in f if ",bob," not in ln)
        err = s.fail("labels", "import", mine, "--round", "r1",
                     as_="alice")
        self.assertIn("adding items to a round: not allowed for alice",
                      err)
        # the owner puts them in on the way in, each audited
        out = s.ok("labels", "import", SAMPLE_LABELS, "--submit",
                   "--round", "r1")
        self.assertIn("14 items put into round r1", out)
        self.assertEqual(s.query("SELECT count(*) FROM assignments")[0][0],
                         20)
        self.assertEqual(s.query("SELECT count(*) FROM audit WHERE action "
                                 "= 'round.add'")[0][0], 14)
        # an item no round may take is refused by name
        s.ok("round", "close", "r1", "--force")
        s.ok("round", "create", "r2", "--items", self.out,
             "--annotators", "alice,bob")
        err = s.fail("labels", "import", mine, "--round", "r2")
        self.assertIn("is in round r1, which is closed", err)

    def test_screen(self):
        s = self.s
        # an item in no round: the screen says so, and a pick is refused
        p, d = screen(s, "alice", self.out, [":dump-screen a", "1", "1",
                                              ":dump-screen b"], "out")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("is in no round", d["a"])
        self.assertIn("is in no round", d["b"])
        self.assertEqual(label_count(s), 0)
        # dave opens an item of r1, which he does not annotate
        p, d = screen(s, "dave", self.r1[0], ["1", "1", ":dump-screen c"],
                      "dave")
        self.assertIn("which dave does not annotate", d["c"])
        self.assertEqual(label_count(s), 0)
        # alice codes her own queue
        p, d = screen(s, "alice", None, ["1", "1", ":dump-screen e"],
                      "alice")
        self.assertIn("saved: symptom = crash", d["e"])
        self.assertEqual(label_count(s, "alice"), 1)

    def test_whole_study_counts_the_rounds(self):
        s = Study(members=MEMBERS)
        try:
            # open coding first: every item's labels count ...
            s.ok("labels", "import", SAMPLE_LABELS, "--submit")
            self.assertEqual(s.agree_json()["dimensions"][0]["items"], 20)
            # ... then the study gets a round: only its items count
            s.ok("round", "create", "r1", "--items",
                 ",".join(self.items[:8]), "--annotators", "alice,bob")
            ag = s.agree_json()
            self.assertEqual(ag["dimensions"][0]["items"], 8)
            self.assertIn("the 8 items of the coding rounds (r1); 22 items "
                          "outside every coding round are left out (22 in "
                          "no round)", ag["counting"][0])
            out = s.ok("status")
            self.assertIn("22 items outside every coding round", out)
            self.assertIn("8 items coded by all their annotators", out)
            agreed = rows(s.ok("export", "--include-pending"))
            self.assertEqual(len(agreed), 8)
            rep = json.loads(s.ok("report", "--format", "json",
                                  "--include-pending"))
            self.assertEqual(rep["items"], 8)
            # the adjudicator's queue: no item outside the rounds
            out = s.ok("disagreements", as_="carol")
            for it in self.items[8:]:
                self.assertNotIn(it + " ", out)
        finally:
            s.close()


class Unfetched(unittest.TestCase):
    """A list of known bugs whose fetch failed (the mock GitHub refuses
    every request), then `round create --items all`."""

    def test_failed_fetch_then_round(self):
        sys.path.insert(0, HERE)
        from test_fetch import Mock, base_env
        from bchelp import BIN
        mock = Mock()
        s = Study(members=MEMBERS)
        try:
            urls = os.path.join(s.dir, "known.txt")
            with open(urls, "w") as f:
                f.write("".join("https://github.com/acme/big/issues/%d\n"
                                % x["number"] for x in
                                mock.expected("acme/big")[:4]))
            s.ok("import", urls)
            mock.config(faults=[{"path": ".*", "kind": "status",
                                 "arg": 500, "times": 100000}])
            p = subprocess.run([BIN, "--study", s.path, "fetch",
                                "--missing", "--api-url", mock.url],
                               capture_output=True, text=True,
                               env=base_env(), timeout=120)
            self.assertNotEqual(p.returncode, 0, p.stdout)
            missing = s.ok("items", "--missing").split()
            self.assertEqual(len(missing), 4)
            out = s.ok("round", "create", "r3", "--sample", "10",
                       "--seed", "1", "--annotators", "dave,alice")
            self.assertIn("sample: 10 of 30", out)
            self.assertIn("left out 4 items never fetched", out)
            out = s.ok("round", "create", "r1", "--items", "all",
                       "--annotators", "alice,bob")
            self.assertIn("20 items", out)
            self.assertIn("left out 4 items never fetched: `bugcoder "
                          "fetch --missing` fetches them", out)
            err = s.fail("round", "create", "r2", "--items", missing[0],
                         "--annotators", "alice,bob")
            self.assertIn("%s has not been fetched yet" % missing[0], err)
            self.assertEqual(s.query(
                "SELECT count(*) FROM assignments a JOIN items i ON i.id "
                "= a.item_id WHERE i.missing")[0][0], 0)
            # the screen never asks anyone to code them: bob's queue
            p, d = screen(s, "bob", None, [":dump-screen q"], "bob")
            self.assertIn("0/20 done", d["q"])
            err = s.fail("label", missing[0], "symptom=crash", as_="bob")
            self.assertIn("has not been fetched yet", err)
            # nor in a study without rounds
            t = Study(members=MEMBERS)
            try:
                t.ok("import", urls)
                p, d = screen(t, "alice", None, [":dump-screen q"], "t")
                self.assertIn("0/30 done", d["q"])
            finally:
                t.close()
        finally:
            mock.stop()
            s.close()


class SubmittedIsComplete(unittest.TestCase):
    def test_clearing_a_required_code_is_refused(self):
        s = Study(members=MEMBERS)
        try:
            s.ok("labels", "import", SAMPLE_LABELS, "--submit")
            item = labelled()[0]
            err = s.fail("label", item, "symptom=", as_="alice")
            self.assertIn("alice submitted %s, and symptom is required: "
                          "choose another code instead of clearing it" %
                          item, err)
            s.ok("label", item, "symptom=hang", as_="alice")
            # the same from the picker's Del
            p, d = screen(s, "alice", item, ["1", "<Del>",
                                             ":dump-screen x"], "del")
            self.assertIn("symptom is required: choose another code", d["x"])
            self.assertEqual(s.query(
                "SELECT code FROM labels l JOIN items i ON i.id = l.item_id "
                "JOIN members m ON m.id = l.member_id WHERE m.name = "
                "'alice' AND l.dimension = 'symptom' AND i.repo || '#' || "
                "i.number = ?", item), [("hang",)])
            # a dimension that is not required may be cleared
            s.ok("label", item, "stage=", as_="alice")
        finally:
            s.close()


class Screening(unittest.TestCase):
    """Two screeners, one disagreement adjudicated, the excluded items
    out of every coding round and table."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.all = names()
        self.out = [self.all[0], self.all[1]]
        self.split = self.all[2]
        s = self.s
        s.ok("round", "create", "scr", "--screen", "--items", "all",
             "--annotators", "alice,bob", "--reasons",
             "not_a_bug,no_merged_fix,duplicate")
        lines = ["item,annotator,dimension,code"]
        for it in self.all:
            a = b = "include"
            if it == self.out[0]:
                a = b = "not_a_bug"
            if it == self.out[1]:
                a, b = "duplicate", "include"
            lines += ["%s,alice,inclusion,%s" % (it, a),
                      "%s,bob,inclusion,%s" % (it, b)]
        self.sheet = os.path.join(s.dir, "screening.csv")
        with open(self.sheet, "w") as f:
            f.write("\n".join(lines) + "\n")

    def tearDown(self):
        self.s.close()

    def test_screening_round(self):
        s = self.s
        # the same blinding: bob sees no agreement while it is open
        s.ok("labels", "import", self.sheet, "--submit")
        s.fail("agree", "--round", "scr", as_="bob")
        # a coding label on an item being screened, inclusion elsewhere
        err = s.fail("label", self.all[3], "symptom=crash", as_="alice")
        self.assertIn("is being screened", err)
        err = s.fail("label", self.all[3], "inclusion=bogus", as_="alice")
        self.assertIn("inclusion=bogus: no such answer", err)
        # no coding round takes an item before it is screened in
        err = s.fail("round", "create", "c0", "--items", "all",
                     "--annotators", "alice,bob")
        self.assertIn("30 not decided in screening yet", err)
        # agreement on inclusion, like any dimension
        ag = s.agree_json("--round", "scr")
        self.assertEqual([d["key"] for d in ag["dimensions"]],
                         ["inclusion"])
        self.assertEqual(ag["dimensions"][0]["items"], 30)
        out = s.ok("round", "close", "scr")
        self.assertIn("29 items decided", out)
        dis = s.ok("disagreements", "--round", "scr", "--format", "json",
                   as_="carol")
        self.assertIn(self.out[1], dis)
        self.assertIn("Coder 1", dis)
        self.assertNotIn("alice", dis)
        s.ok("resolve", self.out[1], "inclusion=duplicate", "--rationale",
             "repeats the first", as_="carol")
        self.assertEqual(s.query("SELECT how FROM screen_decisions d JOIN "
                                 "items i ON i.id = d.item_id WHERE "
                                 "i.repo || '#' || i.number = ?",
                                 self.out[1]), [("adjudicated",)])
        # the excluded items: in no sample, nowhere in the tables
        out = s.ok("round", "create", "pilot", "--sample", "100%",
                   "--seed", "3", "--annotators", "alice,bob")
        self.assertIn("28 items", out)
        self.assertIn("left out 2 items screened out", out)
        pilot = s.ok("items", "--round", "pilot")
        for it in self.out:
            self.assertNotIn(it + " ", pilot)
            err = s.fail("round", "create", "x", "--items", it,
                         "--annotators", "alice,bob")
            self.assertIn("was screened out", err)
        items = s.ok("items")
        self.assertIn("excluded: not_a_bug (scr)", items)
        self.assertIn("excluded: duplicate (scr)", items)
        # coding the included items; the report's shares leave the
        # excluded out, the flow counts them
        coded = [r for r in rows(open(SAMPLE_LABELS).read())
                 if r["item"] not in self.out]
        sheet = os.path.join(s.dir, "coding.csv")
        with open(sheet, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["item", "annotator", "dimension", "code"])
            for r in coded:
                w.writerow([r["item"], r["annotator"], r["dimension"],
                            r["code"]])
        s.ok("labels", "import", sheet, "--submit")
        rep = json.loads(s.ok("report", "--format", "json",
                              "--include-pending"))
        self.assertEqual(rep["items"], 28)
        tot = next(t for t in rep["tables"] if t["id"] == "shares.symptom")
        self.assertEqual(tot["rows"][-1][:2], ["total", 28])
        for it in self.out:
            self.assertNotIn(it, s.ok("export", "--include-pending"))
        sel = rows(self.package_file("selection.csv"))
        got = {r["item"]: (r["decision"], r["decided"], r["counted"])
               for r in sel}
        self.assertEqual(got[self.out[0]], ("not_a_bug", "agreed",
                                            "FALSE"))
        self.assertEqual(got[self.out[1]], ("duplicate", "adjudicated",
                                            "FALSE"))
        self.assertEqual(len(sel), 30)
        ans = rows(self.package_file("screening.csv"))
        self.assertEqual(len(ans), 60)
        # every change audited with its new value
        acts = dict(s.query("SELECT action, count(*) FROM audit WHERE "
                            "action LIKE 'screen.%' GROUP BY action"))
        self.assertEqual(acts, {"screen.label": 60, "screen.submit": 60,
                                "screen.agreed": 29,
                                "screen.adjudicated": 1})

    def package_file(self, name):
        d = os.path.join(self.s.dir, "pkg-%d" % len(os.listdir(self.s.dir)))
        self.s.ok("export", "--package", d)
        with open(os.path.join(d, name), encoding="utf-8") as f:
            return f.read()

    def test_screen_answers_inclusion(self):
        s = self.s
        item = self.all[5]
        # the coding bar holds the one question; 1 then 1 picks include
        p, d = screen(s, "alice", item, [":dump-screen a", "1", "1",
                                         ":dump-screen b", "s",
                                         ":dump-screen c"], "scr")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("inclusion:", d["a"])
        self.assertNotIn("symptom:", d["a"])
        self.assertIn("saved: inclusion = include", d["b"])
        self.assertEqual(s.query(
            "SELECT l.code, l.submitted_at IS NOT NULL FROM screen_labels l "
            "JOIN items i ON i.id = l.item_id WHERE i.repo || '#' || "
            "i.number = ?", item), [("include", 1)])
        # submitted means complete here too
        err = s.fail("label", item, "inclusion=", as_="alice")
        self.assertIn("inclusion is required", err)
        # the codebook's versions never hear of it
        self.assertNotIn("inclusion", s.ok("codebook", "show",
                                           "--format", "json"))


class Flow(unittest.TestCase):
    """The report's flow table against counts made here from `items`,
    the raw labels and the agreed labels."""

    def test_flow_matches_counts(self):
        s = Study(members=MEMBERS)
        try:
            items = labelled()
            everything = names()
            s.ok("round", "create", "scr", "--screen", "--items",
                 ",".join(everything[:26]), "--annotators", "alice,bob")
            sheet = os.path.join(s.dir, "scr.csv")
            out_item = "microsoft/DeepSpeed#6203"
            with open(sheet, "w") as f:
                f.write("item,annotator,dimension,code\n")
                for it in everything[:26]:
                    c = "no_merged_fix" if it == out_item else "include"
                    f.write("%s,alice,inclusion,%s\n%s,bob,inclusion,%s\n"
                            % (it, c, it, c))
            s.ok("labels", "import", sheet, "--submit")
            s.ok("round", "close", "scr")
            ins = [i for i in items if i in everything[:26] and
                   i != out_item]
            s.ok("round", "create", "r1", "--items", ",".join(ins[:9]),
                 "--annotators", "alice,bob")
            s.ok("round", "create", "r2", "--items", ",".join(ins[9:]),
                 "--annotators", "alice,bob")
            with open(SAMPLE_LABELS) as f:
                lab = [ln for ln in f if ln.split(",")[0] in ins or
                       ln.startswith("item,")]
            sheet = os.path.join(s.dir, "lab.csv")
            with open(sheet, "w") as f:
                f.writelines(lab)
            s.ok("labels", "import", sheet, "--submit")
            s.ok("resolve", "microsoft/DeepSpeed#3468",
                 "root_cause=api_misuse", "--rationale", "r", as_="carol")
            rep = json.loads(s.ok("report", "--format", "json"))
            flow = next(t for t in rep["tables"] if t["id"] == "flow")
            got = {r[0]: dict(zip(flow["columns"], r)) for r in flow["rows"]}
            # the counts, made here
            listing = s.ok("items").splitlines()[1:-1]
            want = {}
            raw = rows(s.ok("export", "--raw"))
            subm = {}
            for r in raw:
                if r["submitted_at"]:
                    subm.setdefault(r["item"], set()).add(r["annotator"])
            agreed = {r["item"]: r for r in
                      rows(s.ok("export", "--include-pending"))}
            dims = ["symptom", "root_cause", "fix_pattern", "stage", "phase"]
            for ln in listing:
                name = ln.split()[0]
                repo = name.split("#")[0]
                fixes = int(ln[78:83])
                for key in (repo, "all"):
                    w = want.setdefault(key, dict.fromkeys(
                        ["seen", "with merged fix", "screened", "included",
                         "excluded: no_merged_fix", "coded", "agreed",
                         "adjudicated", "open"], 0))
                    w["seen"] += 1
                    w["with merged fix"] += fixes > 0
                    w["screened"] += "scr)" in ln
                    w["included"] += "screened in" in ln
                    w["excluded: no_merged_fix"] += "excluded: " \
                        "no_merged_fix" in ln
                    if subm.get(name) == {"alice", "bob"}:
                        w["coded"] += 1
                        st = [agreed[name][d + "_status"] for d in dims]
                        if "pending" in st:
                            w["open"] += 1
                        elif "adjudicated" in st:
                            w["adjudicated"] += 1
                        else:
                            w["agreed"] += 1
            for key, w in want.items():
                for col, v in w.items():
                    self.assertEqual(got[key][col], v, (key, col))
            self.assertEqual(got["all"]["seen"], 30)
            self.assertEqual(got["all"]["screened"], 26)
            self.assertEqual(got["all"]["included"], 25)
            self.assertEqual(got["all"]["coded"], len(ins))
            self.assertEqual(got["all"]["adjudicated"], 1)
            # and status says the same
            st = s.ok("status")
            self.assertIn("%d items coded by all their annotators: %d "
                          "agreed, 1 resolved, %d with disagreements left"
                          % (len(ins), got["all"]["agreed"],
                             got["all"]["open"]), st)
        finally:
            s.close()


class Split(unittest.TestCase):
    """root_cause:api_misuse split into two codes, after the pilot closed
    with alice's and bob's labels on it."""

    def write_cb(self, s):
        with open(os.path.join(HERE, "..", "codebooks",
                               "llm-framework-bugs.json")) as f:
            cb = json.load(f)
        cb["version"] = "1.1"
        for d in cb["dimensions"]:
            if d["key"] == "root_cause":
                i = [c["key"] for c in d["codes"]].index("api_misuse")
                old = d["codes"].pop(i)
                d["codes"][i:i] = [dict(old, key="api_call_error",
                                        name="API call error"),
                                   dict(old, key="api_contract_change",
                                        name="API contract change")]
        path = os.path.join(s.dir, "v11.json")
        with open(path, "w") as f:
            json.dump(cb, f)
        return path

    def test_split(self):
        s = Study(members=MEMBERS)
        try:
            items = labelled()
            item = "microsoft/DeepSpeed#3468"
            s.ok("round", "create", "pilot", "--items",
                 ",".join(items[:8]), "--annotators", "alice,bob")
            s.ok("round", "create", "r1", "--items", ",".join(items[8:]),
                 "--annotators", "alice,bob")
            s.ok("labels", "import", SAMPLE_LABELS, "--submit")
            s.ok("round", "close", "pilot")
            before = s.agree_json("--round", "pilot")
            path = self.write_cb(s)
            # only alice's label is on the old code in the closed round
            labels_on = s.query("SELECT m.name FROM labels l JOIN members m "
                                "ON m.id = l.member_id WHERE l.code = "
                                "'api_misuse'")
            self.assertEqual(labels_on, [("alice",)])
            # put one of bob's r1 labels on it (r1 is open)
            target = items[8]
            s.ok("label", target, "root_cause=api_misuse", as_="bob")
            s.ok("label", target, "root_cause=api_misuse", as_="alice")
            out = s.ok("codebook", "update", path, "--split",
                       "root_cause:api_misuse=api_call_error,"
                       "api_contract_change")
            self.assertIn("3 labels back in their coders' queues", out)
            self.assertEqual(s.query("SELECT count(*) FROM labels WHERE "
                                     "code = 'api_misuse'"), [(0,)])
            # the closed round keeps its figures
            after = s.agree_json("--round", "pilot")
            self.assertEqual([d["kappa"] for d in after["dimensions"]],
                             [d["kappa"] for d in before["dimensions"]])
            self.assertTrue(any("was split after the round closed" in x
                                for x in after["changed_after_close"]))
            # agreement and the report say which items await recoding
            ag = s.ok("agree")
            self.assertIn("root_cause: 2 items await recoding after "
                          "api_misuse was split", ag)
            self.assertIn(item, ag)
            rep = s.ok("report")
            self.assertIn("await recoding", rep)
            # the item is back in alice's queue, the old code shown
            p, d = screen(s, "alice", item, [":dump-screen r"], "split")
            self.assertIn("was api_misuse", d["r"])
            # only the new codes; in the closed round, nothing else
            err = s.fail("label", item, "root_cause=concurrency",
                         as_="alice")
            self.assertIn("choose api_call_error or api_contract_change",
                          err)
            err = s.fail("label", item, "symptom=hang", as_="alice")
            self.assertIn("only the dimensions a split left to recode", err)
            s.ok("label", item, "root_cause=api_call_error", as_="alice")
            # both coders of the open round's item recode it
            s.ok("label", target, "root_cause=api_contract_change",
                 as_="alice")
            p, d = screen(s, "bob", target, [":dump-screen b"], "bob")
            self.assertIn("was api_misuse", d["b"])
            s.ok("label", target, "root_cause=api_contract_change",
                 as_="bob")
            self.assertNotIn("await recoding", s.ok("agree"))
            self.assertEqual(s.query("SELECT count(*) FROM recodes WHERE "
                                     "done_at IS NULL"), [(0,)])
            acts = dict(s.query("SELECT action, count(*) FROM audit WHERE "
                                "action LIKE 'recode.%' OR action = "
                                "'codebook.split' GROUP BY action"))
            self.assertEqual(acts, {"codebook.split": 1, "recode.queue": 3,
                                    "recode.done": 3})
            # the closed round still keeps its figures
            self.assertEqual([d["kappa"] for d in s.agree_json(
                "--round", "pilot")["dimensions"]],
                [d["kappa"] for d in before["dimensions"]])
            # the new version is clean: no old code, no inclusion
            show = s.ok("codebook", "show", "--format", "json")
            self.assertNotIn("api_misuse", show)
            self.assertIn("api_call_error", show)
        finally:
            s.close()

    def test_split_needs_the_new_codes(self):
        s = Study(members=MEMBERS)
        try:
            path = self.write_cb(s)
            err = s.fail("codebook", "update", path, "--split",
                         "root_cause:api_misuse=api_call_error,nope")
            self.assertIn("nope is not a code of root_cause in the new "
                          "codebook", err)
            err = s.fail("codebook", "update", path, "--split",
                         "root_cause:api_misuse=api_call_error", code=2)
            self.assertIn("two or more new codes", err)
        finally:
            s.close()


if __name__ == "__main__":
    unittest.main()
