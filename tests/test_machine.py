# SPDX-License-Identifier: MIT
"""Machine coders (issue 17): `member add --role machine`, `machine-code`
running a command per item with a JSON document in and a JSON answer out,
refusals of bad answers, provenance, retries, Ctrl-C, blinding."""
import csv
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from bchelp import BIN, Study

CODER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "machine",
                     "keyword_coder.py")
REPO = "microsoft/DeepSpeed"
ITEMS = [3468, 4187, 4422, 4650]


def cmd(mode="good", *extra):
    return " ".join([sys.executable, CODER, mode] + list(extra))


def ref(n):
    return "%s#%d" % (REPO, n)


class MachineTest(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=[("alice", "annotator"), ("bob", "annotator"),
                                ("carol", "adjudicator"),
                                ("gpt", "machine")])
        self.s.ok("round", "create", "r1", "--items",
                  ",".join(ref(n) for n in ITEMS),
                  "--annotators", "alice,bob")
        self.tmp = tempfile.mkdtemp(prefix="bugcoder-mc-")

    def tearDown(self):
        self.s.close()
        subprocess.run(["rm", "-rf", self.tmp])

    def machine_rows(self):
        return self.s.query(
            "SELECT i.number, ma.command, ma.model, ma.note, "
            "ma.input_sha256, ma.answer_sha256, ma.answer, ma.duration_ms "
            "FROM machine_answers ma JOIN items i ON i.id = ma.item_id "
            "JOIN members m ON m.id = ma.member_id WHERE m.name = 'gpt' "
            "ORDER BY i.number")

    def gpt_labels(self):
        return self.s.query(
            "SELECT i.number, l.dimension, l.code FROM labels l JOIN items i "
            "ON i.id = l.item_id JOIN members m ON m.id = l.member_id WHERE "
            "m.name = 'gpt' ORDER BY 1, 2, 3")

    def gpt_submissions(self):
        return [r[0] for r in self.s.query(
            "SELECT i.number FROM submissions s JOIN items i ON i.id = "
            "s.item_id JOIN members m ON m.id = s.member_id WHERE m.name = "
            "'gpt' ORDER BY 1")]

    def test_member(self):
        out = self.s.ok("member", "list")
        self.assertRegex(out, r"gpt\s+machine")
        err = self.s.fail("status", as_="gpt")
        self.assertIn("machine coder", err)
        err = self.s.fail("label", ref(3468), "symptom=crash", as_="gpt")
        self.assertIn("machine coder", err)
        # not an OS account: no account check even where one applies
        self.s.ok("member", "add", "no-such-account-x9", "--role", "machine")
        # only the owner runs machines
        err = self.s.fail("machine-code", "gpt", "--command", cmd(),
                          as_="alice")
        self.assertIn("machine-code", err)
        # a human is no machine
        err = self.s.fail("machine-code", "alice", "--command", cmd())
        self.assertIn("not a machine coder", err)

    def test_codes_round_with_provenance(self):
        # not declared in r1: nothing assigned to it
        out = self.s.ok("machine-code", "gpt", "--command", cmd())
        self.assertIn("nothing to code", out)
        env = {"MC_TEST_VAR": "from-the-caller"}
        out = self.s.ok("machine-code", "gpt", "--round", "r1", "--command",
                        cmd("save", self.tmp), "--note", "prompt v2",
                        env=env)
        self.assertIn("gpt: 4 coded, 0 failed", out)
        self.assertEqual(self.gpt_submissions(), ITEMS)
        rows = self.machine_rows()
        self.assertEqual([r[0] for r in rows], ITEMS)
        ids = dict(self.s.query("SELECT number, id FROM items"))
        for num, command, model, note, in_sha, ans_sha, answer, ms in rows:
            self.assertEqual(command, cmd("save", self.tmp))
            self.assertEqual(model, "keyword-coder 1.0")  # the answer's
            self.assertEqual(note, "prompt v2")
            self.assertEqual(ans_sha,
                             hashlib.sha256(answer.encode()).hexdigest())
            with open(os.path.join(self.tmp, "%d.json" % ids[num]),
                      "rb") as f:
                raw = f.read()
            doc = json.loads(raw)
            self.assertEqual(doc["item"]["number"], num)
            self.assertGreaterEqual(ms, 0)
            a = json.loads(answer)
            # ran in a directory of its own, with the caller's environment
            cwd = a["rationale"].split()[0][4:]
            self.assertNotEqual(cwd, self.s.dir)
            self.assertFalse(os.path.exists(cwd))   # removed after
            self.assertIn("var=from-the-caller", a["rationale"])
            stored = {d: c for n, d, c in self.gpt_labels() if n == num
                      and d != "fix_pattern"}
            self.assertEqual(stored, {d: c for d, c in a["labels"].items()
                                      if d != "fix_pattern"})
        # the document: the item with its comments and fixes, the whole
        # codebook with definitions, the dimensions to code
        doc = json.load(open(os.path.join(self.tmp, "%d.json" %
                                          ids[4187])))
        self.assertIn("hangs", doc["item"]["title"])
        self.assertTrue(doc["item"]["fixes"][0]["diff"])
        self.assertIn("additions", doc["item"]["fixes"][0])
        self.assertIn("comments", doc["item"])
        dims = {d["key"]: d for d in doc["codebook"]["dimensions"]}
        self.assertIn("definition", dims["symptom"]["codes"][0])
        self.assertEqual(doc["dimensions"],
                         ["symptom", "root_cause", "fix_pattern", "stage",
                          "phase"])
        # the keyword coder's codes, worked out by hand from the titles
        self.assertIn((4187, "symptom", "hang"), self.gpt_labels())
        self.assertIn((4650, "symptom", "memory_issue"), self.gpt_labels())
        # the input hash is the SHA-256 of the document given
        sha = hashlib.sha256()
        p = subprocess.run([BIN, "--study", self.s.path, "machine-code",
                            "gpt", "--round", "r1", "--command", cmd()],
                           capture_output=True, text=True)
        self.assertIn("nothing to code", p.stdout)
        # --model overrides the answer's; audit names the owner for gpt
        audit = self.s.query("SELECT for_member, action FROM audit WHERE "
                             "action = 'machine.answer'")
        self.assertEqual(len(audit), 4)
        self.assertTrue(all(r[0] == "gpt" for r in audit))
        self.s.ok("audit", "verify")

    def test_declared_and_limit_and_model(self):
        self.s.ok("round", "create", "r2", "--items", ref(5240) + "," +
                  ref(5388) + "," + ref(5561), "--annotators", "alice,gpt")
        out = self.s.ok("machine-code", "gpt", "--command", cmd(),
                        "--limit", "2", "--model", "kw-2024-01")
        self.assertIn("gpt: 2 coded", out)
        self.assertEqual(self.gpt_submissions(), [5240, 5388])
        self.assertEqual({r[2] for r in self.machine_rows()}, {"kw-2024-01"})
        out = self.s.ok("machine-code", "gpt", "--command", cmd(),
                        "--items", ref(5561))
        self.assertIn("gpt: 1 coded", out)
        # an item in no round is refused, reported, nothing stored
        p = self.s.run("machine-code", "gpt", "--command", cmd(), "--items",
                       ref(5733))
        self.assertEqual(p.returncode, 1)
        self.assertIn(ref(5733), p.stderr)
        self.assertIn("in no round", p.stderr)
        self.assertNotIn(5733, self.gpt_submissions())

    def test_declared_machine_is_an_annotator(self):
        self.s.ok("round", "create", "r2", "--items", ref(5240) + "," +
                  ref(5388), "--annotators", "alice,gpt")
        self.s.ok("machine-code", "gpt", "--command", cmd())
        for n in (5240, 5388):
            # the keyword coder never says `unreported`
            self.s.ok("label", ref(n), "symptom=unreported",
                      "root_cause=version_incompatibility",
                      "fix_pattern=api_correction", "phase=training",
                      "--submit", as_="alice")
        doc = self.s.agree_json("--round", "r2")
        self.assertEqual(doc["annotators"], ["alice", "gpt"])
        (gpt,) = doc["machines"]["coders"]
        self.assertTrue(gpt["declared"])
        self.assertIn("declared an annotator of the round",
                      self.s.ok("agree", "--round", "r2"))
        # its disagreements go to the adjudicator like anyone's
        self.assertIn(ref(5240), self.s.ok("disagreements", "--round",
                                           "r2"))
        # a blind adjudicator: no names, numbered as the main table
        doc = self.s.agree_json("--round", "r2", as_="carol")
        self.assertEqual(doc["annotators"], ["annotator 1", "annotator 2"])
        self.assertEqual(doc["machines"]["coders"][0]["name"], "machine 1")
        others = {p["other"] for p in doc["machines"]["pairs"]}
        self.assertEqual(others, {"annotator 1", None})
        self.assertNotIn("alice", json.dumps(doc))
        self.assertNotIn("gpt", json.dumps(doc))

    def test_refusals_and_retry(self):
        cases = [
            ("badjson", "not JSON"),
            ("unknown-code", "unknown code `explodes`"),
            ("unknown-dim", "unknown dimension `mood`"),
            ("exit", "exited with status 3"),
            ("huge", "larger than"),
        ]
        for mode, why in cases:
            before = self.s.dump()
            p = self.s.run("machine-code", "gpt", "--round", "r1",
                           "--command", cmd(mode), "--limit", "2")
            self.assertEqual(p.returncode, 1, mode)
            self.assertIn("gpt: 0 coded, 2 failed", p.stdout, mode)
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 2, p.stderr)
            self.assertIn(ref(ITEMS[0]), lines[0])
            self.assertIn(ref(ITEMS[1]), lines[1])
            for line in lines:
                self.assertIn(why, line, mode)
                self.assertNotIn("\x1b", line)
            after = self.s.dump()
            self.assertEqual(before, after, mode)   # nothing stored
        # the shell's status is the command's; the stderr line is made safe
        p = self.s.run("machine-code", "gpt", "--round", "r1", "--command",
                       cmd("exit"), "--limit", "1")
        self.assertIn("model \u241b[31mservice unavailable", p.stderr)
        # a flaky command: items it fails on are tried again next run
        p = self.s.run("machine-code", "gpt", "--round", "r1", "--command",
                       cmd("flaky", self.tmp))
        self.assertEqual(p.returncode, 1)
        self.assertIn("gpt: 3 coded, 1 failed", p.stdout)   # 4187 is odd
        self.assertIn(ref(4187), p.stderr)
        self.assertEqual(self.gpt_submissions(), [3468, 4422, 4650])
        out = self.s.ok("machine-code", "gpt", "--round", "r1",
                        "--command", cmd("flaky", self.tmp))
        self.assertIn("gpt: 1 coded, 0 failed", out)
        self.assertEqual(self.gpt_submissions(), ITEMS)

    def test_trailing_text_is_refused(self):
        """An answer is one JSON document: a second one, or a word after
        it, is not an answer; white space after it is."""
        for extra in ("\nDone.", ' {"labels": {}}', "]"):
            before = self.s.dump()
            p = self.s.run("machine-code", "gpt", "--round", "r1",
                           "--command", cmd("trailing", repr(extra)),
                           "--limit", "1")
            self.assertEqual(p.returncode, 1, extra)
            self.assertIn("text after its JSON document", p.stderr, extra)
            self.assertEqual(before, self.s.dump(), extra)
        p = self.s.run("machine-code", "gpt", "--round", "r1", "--command",
                       cmd("trailing", "'\n\t  \n'"), "--limit", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(self.gpt_submissions()), 1)

    def test_background_child_keeps_no_answer_back(self):
        """The command prints a whole answer and exits, leaving a child
        that holds its stdout open for 30 s: the answer is kept at once,
        and the child is killed with the command's group."""
        pidfile = os.path.join(self.tmp, "pid")
        t0 = time.monotonic()
        p = self.s.run("machine-code", "gpt", "--round", "r1", "--command",
                       cmd("background", pidfile), "--limit", "1",
                       "--timeout", "20")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertIn("gpt: 1 coded, 0 failed", p.stdout)
        self.assertEqual(self.gpt_submissions(), [ITEMS[0]])
        (answer,) = self.s.query("SELECT answer FROM machine_answers")[0]
        self.assertNotIn("too late", answer)
        pid = int(open(pidfile).read())
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            self.fail("the command's background child %d still runs" % pid)

    def test_escapes_are_stored_not_shown(self):
        p = self.s.run("machine-code", "gpt", "--round", "r1", "--command",
                       cmd("escapes"), "--limit", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("\x1b", p.stdout + p.stderr)
        (answer,) = self.s.query("SELECT answer FROM machine_answers")[0]
        self.assertIn("\\u001b]0;owned", answer)  # kept as given

    def test_timeout_kills_the_group(self):
        pidfile = os.path.join(self.tmp, "pid")
        t0 = time.monotonic()
        p = self.s.run("machine-code", "gpt", "--round", "r1", "--command",
                       cmd("sleep", pidfile), "--limit", "1", "--timeout",
                       "1")
        self.assertLess(time.monotonic() - t0, 8)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no answer within 1 s", p.stderr)
        pid = int(open(pidfile).read())
        # python is a child of sh: killed with its process group (a
        # deadline, for a loaded machine)
        deadline = time.monotonic() + 15
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            if time.monotonic() > deadline:
                self.fail("the command's child %d still runs" % pid)
            time.sleep(0.05)
        self.assertEqual(self.gpt_submissions(), [])

    def test_ctrl_c_keeps_what_was_stored(self):
        proc = subprocess.Popen(
            [BIN, "--study", self.s.path, "machine-code", "gpt", "--round",
             "r1", "--command", cmd("slow")], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while not self.gpt_submissions() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("stopped", err)
        subs = self.gpt_submissions()
        self.assertGreaterEqual(len(subs), 1)
        self.assertLess(len(subs), 4)
        self.assertEqual(len(self.machine_rows()), len(subs))
        self.s.ok("audit", "verify")
        out = self.s.ok("machine-code", "gpt", "--round", "r1",
                        "--command", cmd())
        self.assertIn("%d coded, 0 failed" % (4 - len(subs)), out)

    def test_blinding(self):
        self.s.ok("machine-code", "gpt", "--round", "r1", "--command",
                  cmd())
        # alice, an annotator of the open round, sees none of gpt's work
        raw = self.s.ok("export", "--raw", as_="alice")
        self.assertNotIn("gpt", raw)
        out = self.s.ok("items", as_="alice")
        self.assertNotIn("gpt", out)
        self.s.fail("agree", "--round", "r1", as_="alice")
        # the owner sees it
        self.assertIn("gpt", self.s.ok("export", "--raw"))
        # undeclared: not one of r1's coders, nor in human agreement
        for n in ITEMS:
            for c in ("alice", "bob"):
                self.s.ok("label", ref(n), "symptom=crash",
                          "root_cause=api_misuse",
                          "fix_pattern=api_correction", "phase=training",
                          "--submit", as_=c)
        ag = self.s.agree_json()
        self.assertNotIn("gpt", json.dumps(ag["annotators"]))
        self.assertEqual(self.s.ok("disagreements"), self.s.ok(
            "disagreements"))
        self.s.ok("round", "close", "r1")
        raw = self.s.ok("export", "--raw", as_="alice")
        self.assertIn("gpt", raw)
        # agreed labels stay human: every item agreed by alice and bob
        agreed = self.s.ok("export", "--format", "jsonl")
        for line in agreed.splitlines():
            self.assertIn('"crash"', line)



class MachineAgreementTest(unittest.TestCase):
    """gpt and kw (the same keyword coder) beside alice and bob; the
    figures below are worked out by hand from these labels."""

    # symptom: the keyword coder says incorrect_functionality, hang,
    # incorrect_functionality, memory_issue on ITEMS (from their titles)
    ALICE = ["incorrect_functionality", "hang", "crash", "memory_issue"]
    BOB = ["incorrect_functionality", "crash", "crash", "memory_issue"]

    @classmethod
    def setUpClass(cls):
        s = cls.s = Study(members=[("alice", "annotator"),
                                   ("bob", "annotator"), ("gpt", "machine"),
                                   ("kw", "machine")])
        s.ok("round", "create", "r1", "--items",
             ",".join(ref(n) for n in ITEMS), "--annotators", "alice,bob")
        s.ok("machine-code", "gpt", "--round", "r1", "--command", cmd(),
             "--note", "prompt v1")
        s.ok("machine-code", "kw", "--round", "r1", "--command", cmd(),
             "--model", "kw-fixed")
        for who, codes in (("alice", cls.ALICE), ("bob", cls.BOB)):
            for n, code in zip(ITEMS, codes):
                s.ok("label", ref(n), "symptom=" + code,
                     "root_cause=api_misuse", "fix_pattern=api_correction",
                     "phase=training", "--submit", as_=who)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def pairs(self, doc):
        return {(p["machine"], p["other"]): p for p in doc["pairs"]
                if p["dimension"] == "symptom"}

    def test_json(self):
        doc = self.s.agree_json("--round", "r1")
        self.assertEqual(doc["annotators"], ["alice", "bob"])
        m = doc["machines"]
        coders = {c["name"]: c for c in m["coders"]}
        self.assertEqual(coders["gpt"]["models"], "keyword-coder 1.0")
        self.assertEqual(coders["gpt"]["notes"], "prompt v1")
        self.assertEqual(coders["kw"]["models"], "kw-fixed")
        self.assertEqual(coders["gpt"]["answers"], 4)
        self.assertFalse(coders["gpt"]["declared"])
        self.assertIn("keyword_coder.py", coders["gpt"]["commands"])
        p = self.pairs(m)
        # gpt vs alice: po 3/4, pe (2*1 + 1*1 + 1*1)/16 = 1/4 -> 2/3
        self.assertAlmostEqual(p["gpt", "alice"]["cohen_kappa"], 2 / 3)
        self.assertEqual(p["gpt", "alice"]["items"], 4)
        self.assertAlmostEqual(p["gpt", "alice"]["observed_agreement"],
                               0.75)
        lo, hi = p["gpt", "alice"]["ci95"]
        self.assertTrue(-1 <= lo < 2 / 3 < hi <= 1)
        # gpt vs bob: po 1/2, pe (2*1 + 1*1)/16 = 3/16 -> 5/13
        self.assertAlmostEqual(p["gpt", "bob"]["cohen_kappa"], 5 / 13)
        # agreed labels: 3468, 4422, 4650 (4187 disagrees): po 2/3,
        # pe (2*1 + 1*1)/9 = 1/3 -> 1/2; accuracy 2/3
        self.assertEqual(p["gpt", None]["items"], 3)
        self.assertAlmostEqual(p["gpt", None]["cohen_kappa"], 0.5)
        self.assertAlmostEqual(p["gpt", None]["accuracy"], 2 / 3)
        # machine against machine: the same coder
        self.assertAlmostEqual(p["gpt", "kw"]["cohen_kappa"], 1.0)
        self.assertAlmostEqual(p["gpt", "kw"]["observed_agreement"], 1.0)
        # the whole study: the same comparisons; the humans alone above
        doc = self.s.agree_json()
        self.assertEqual(doc["annotators"], ["alice", "bob"])
        self.assertAlmostEqual(self.pairs(doc["machines"])["kw", "bob"]
                               ["cohen_kappa"], 5 / 13)

    def test_text_and_csv(self):
        out = self.s.ok("agree", "--round", "r1")
        self.assertIn("Machine coders", out)
        self.assertIn("model: keyword-coder 1.0", out)
        self.assertIn("note: prompt v1", out)
        self.assertRegex(out, r"gpt\s+vs alice\s+n 4\s+kappa 0.667")
        self.assertRegex(out, r"gpt\s+vs agreed labels\s+n 3\s+kappa "
                         r"0.500 .* accuracy 66.7%")
        out = self.s.ok("agree", "--round", "r1", "--format", "csv")
        rows = list(csv.reader(io.StringIO(out)))
        head = rows[0]
        mach = [dict(zip(head, r)) for r in rows[1:]
                if r[head.index("coefficient")] == "Cohen's kappa (machine)"]
        self.assertTrue(all(len(r) == len(head) for r in rows))
        sym = {(r["annotator_a"], r["annotator_b"]): r for r in mach
               if r["dimension"] == "symptom"}
        self.assertAlmostEqual(float(sym["gpt (keyword-coder 1.0)",
                                         "bob"]["kappa"]), 5 / 13, 5)
        self.assertAlmostEqual(float(sym["kw (kw-fixed)", "agreed"]
                                     ["observed_agreement"]), 2 / 3, 5)

    def test_the_rules_of_the_headline(self):
        """The machine table holds to the annotators' rules: a machine
        that copies another has a kappa of 1 with its exact lower bound,
        a constant machine's kappa is undefined with the reason, and
        every interval names its method."""
        doc = self.s.agree_json("--round", "r1")
        p = self.pairs(doc["machines"])
        same = p["gpt", "kw"]
        self.assertEqual(same["cohen_kappa"], 1)
        self.assertEqual(same["ci_method"], "exact lower bound (kappa = 1)")
        self.assertTrue(same["ci_one_sided"])
        # 4 items: observed agreement >= 0.05^(1/4)
        self.assertAlmostEqual(same["observed_agreement_lower"],
                               0.05 ** 0.25, places=12)
        lo, hi = same["ci95"]
        self.assertEqual(hi, 1)
        self.assertTrue(-1 <= lo < 1)
        self.assertIn("fewer than 10 items", same["ci_warning"])
        for q in doc["machines"]["pairs"]:
            self.assertIn(q["ci_method"], ("bootstrap percentile",
                                           "exact lower bound (kappa = 1)"))
            if q["ci95"]:
                self.assertTrue(-1 <= q["ci95"][0] <= q["ci95"][1] <= 1)
            if q["cohen_kappa"] is None:
                self.assertTrue(q["undefined_reason"])
        text = self.s.ok("agree", "--round", "r1")
        self.assertRegex(text, r"gpt\s+vs kw\s+n 4\s+kappa 1.000  one-sided "
                               r"95% lower bound")
        self.assertNotIn("[1.000, 1.000]", text)

    def test_constant_machine(self):
        s = Study(members=[("alice", "annotator"), ("bob", "annotator"),
                           ("flat", "machine")])
        try:
            s.ok("round", "create", "r1", "--items",
                 ",".join(ref(n) for n in ITEMS), "--annotators", "alice,bob")
            s.ok("machine-code", "flat", "--round", "r1", "--command",
                 cmd("constant"))
            for who, codes in (("alice", self.ALICE), ("bob", self.BOB)):
                for n, code in zip(ITEMS, codes):
                    s.ok("label", ref(n), "symptom=" + code,
                         "root_cause=api_misuse", "fix_pattern=api_correction",
                         "phase=training", "--submit", as_=who)
            p = self.pairs(s.agree_json("--round", "r1")["machines"])
            k = p["flat", "alice"]
            self.assertIsNone(k["cohen_kappa"])
            self.assertEqual(k["undefined_reason"],
                             "one annotator used a single code on every item")
            self.assertIsNone(k["ci95"])
            text = s.ok("agree", "--round", "r1")
            self.assertRegex(text, r"flat\s+vs alice\s+n 4\s+kappa undefined "
                                   r"\(one annotator used a single code")
            self.assertNotIn("0.000 [0.000, 0.000]", text)
            rows = list(csv.DictReader(io.StringIO(
                s.ok("agree", "--round", "r1", "--format", "csv"))))
            r = [x for x in rows if x["coefficient"] ==
                 "Cohen's kappa (machine)" and x["dimension"] == "symptom"
                 and x["annotator_b"] == "alice"][0]
            self.assertEqual(r["kappa"], "")
            self.assertEqual(r["undefined_reason"],
                             "one annotator used a single code on every item")
        finally:
            s.close()

    def test_blinding_and_package(self):
        # alice, in the open round, learns nothing of the machines
        self.s.fail("agree", "--round", "r1", as_="alice")
        self.assertNotIn("gpt", self.s.ok("export", "--raw", as_="alice"))
        out = os.path.join(self.s.dir, "pkg")
        self.s.ok("export", "--package", out)
        with open(os.path.join(out, "machine-answers.jsonl")) as f:
            lines = [json.loads(x) for x in f]
        self.assertEqual(len(lines), 8)
        self.assertEqual({x["machine"] for x in lines}, {"gpt", "kw"})
        for x in lines:
            self.assertEqual(x["answer_sha256"], hashlib.sha256(
                x["answer"].encode()).hexdigest())
            self.assertIn("keyword_coder.py", x["command"])
        self.assertIn("machines", json.load(open(os.path.join(
            out, "agreement.json"))))
        with open(os.path.join(out, "MANIFEST")) as f:
            self.assertIn("machine-answers.jsonl", f.read())


if __name__ == "__main__":
    unittest.main()
