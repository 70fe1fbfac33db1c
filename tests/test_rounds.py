# SPDX-License-Identifier: MIT
"""Rounds, blinding, scriptable labelling and the agreement report,
through the real binary."""
import csv
import io
import json
import os
import shutil
import tempfile
import unittest

from bchelp import CODEBOOK, SAMPLE, SAMPLE_LABELS, Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "annotator"), ("dave", "adjudicator")]
LLM_FULL = ["symptom=crash", "root_cause=api_misuse",
            "fix_pattern=conditional_logic", "phase=training"]


class Rounds(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def rounds(self, s=None):
        return (s or self.s).query("SELECT r.name, i.repo, i.number FROM "
                            "assignments a JOIN rounds r ON r.id = "
                            "a.round_id JOIN items i ON i.id = a.item_id "
                            "ORDER BY r.id, a.position")

    def test_sample_is_reproducible_from_the_seed(self):
        self.s.ok("round", "create", "pilot", "--sample", "40%", "--seed",
                  "7", "--annotators", "alice,bob")
        first = self.rounds()
        self.assertEqual(len(first), 12)  # 40% of 30
        other = Study(members=MEMBERS)
        try:
            other.ok("round", "create", "pilot", "--sample", "40%",
                     "--seed", "7", "--annotators", "alice,bob")
            self.assertEqual(first, self.rounds(other))
            other2 = Study(members=MEMBERS)
            other2.ok("round", "create", "pilot", "--sample", "40%",
                      "--seed", "8", "--annotators", "alice,bob")
            self.assertNotEqual(first, self.rounds(other2))
            other2.close()
        finally:
            other.close()
        seed = self.s.query("SELECT seed, spec FROM rounds")
        self.assertEqual(seed[0][0], 7)
        self.assertIn("40%", seed[0][1])

    def test_stratified_sample_is_proportional(self):
        self.s.ok("round", "create", "pilot", "--sample", "50%", "--seed",
                  "3", "--stratify", "repo", "--annotators", "alice,bob")
        per = {}
        for _, repo, _ in self.rounds():
            per[repo] = per.get(repo, 0) + 1
        # 14 DeepSpeed, 11 ColossalAI, 5 Megatron-LM: half of each,
        # largest remainders to the bigger strata
        self.assertEqual(per, {"microsoft/DeepSpeed": 7,
                               "hpcaitech/ColossalAI": 6,
                               "NVIDIA/Megatron-LM": 2})

    def test_rounds_do_not_overlap_and_list(self):
        self.s.ok("round", "create", "r1", "--sample", "10", "--seed", "1",
                  "--annotators", "alice,bob")
        self.s.ok("round", "create", "r2", "--items", "all",
                  "--annotators", "alice,bob")
        rows = self.rounds()
        self.assertEqual(len(rows), 30)
        self.assertEqual(len({(r, n) for _, r, n in rows}), 30)
        out = self.s.ok("round", "list")
        self.assertIn("r1", out)
        self.assertIn("10 items", out)
        self.assertIn("20 items", out)
        # nothing left for a third round
        err = self.s.fail("round", "create", "r3", "--items", "all",
                          "--annotators", "alice,bob")
        self.assertIn("no items", err)

    def test_bad_round_arguments(self):
        self.s.fail("round", "create", "x", "--sample", "10",
                    "--annotators", "alice,bob", code=2)  # no seed
        self.s.fail("round", "create", "x", "--annotators", "alice",
                    code=2)
        err = self.s.fail("round", "create", "x", "--items", "all",
                          "--annotators", "alice,zed")
        self.assertIn("zed", err)
        err = self.s.fail("round", "create", "x", "--items", "all",
                          "--annotators", "alice,dave")
        self.assertIn("adjudicator", err)
        err = self.s.fail("round", "create", "x", "--items",
                          "DeepSpeed#1", "--annotators", "alice,bob")
        self.assertIn("DeepSpeed#1", err)
        self.s.fail("round", "create", "x", "--items", "all",
                    "--annotators", "alice,bob", as_="alice")
        err = self.s.fail("round", "create", "pilot\x1b[2J", "--items",
                          "all", "--annotators", "alice,bob")
        self.assertIn("letters, digits", err)
        self.assertNotIn("\x1b", err)
        # a count too large for a size_t is compared, not converted
        # (undefined behaviour, which said "expected N or P%")
        for big in ("1e30", "1e300", "inf"):
            err = self.s.fail("round", "create", "x", "--sample", big,
                              "--seed", "1", "--annotators", "alice,bob")
            self.assertIn("only 30 items are free for the round", err)
        for bad in ("nan", "nan%", "2.5", "0", "-3"):
            err = self.s.fail("round", "create", "x", "--sample", bad,
                              "--seed", "1", "--annotators", "alice,bob")
            self.assertIn("expected N or P%", err)
        self.assertEqual(self.s.query("SELECT count(*) FROM rounds"),
                         [(0,)])

    def test_queue_follows_the_round(self):
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,ColossalAI#2387", "--annotators",
                  "alice,bob")
        out = self.s.ok("items", as_="alice")
        self.assertIn("2 items", out)
        out = self.s.ok("items", as_="carol")
        self.assertIn("0 items", out)
        # carol is not in the round: she may not label its items
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=hang",
                          as_="carol")
        # before: "the item is not assigned to carol", naming neither
        self.assertIn("microsoft/DeepSpeed#4187 is in round r1, which "
                      "carol does not annotate", err)


    def test_annotator_of_an_open_round_stays(self):
        self.s.ok("round", "create", "r1", "--items", "DeepSpeed#4187",
                  "--annotators", "alice,bob")
        before = self.s.dump()
        err = self.s.fail("member", "remove", "bob")
        self.assertIn("bob annotates the open round r1", err)
        self.assertEqual(before, self.s.dump())
        self.s.ok("member", "remove", "carol")   # in no round
        self.s.ok("round", "close", "r1", "--force")
        self.s.ok("member", "remove", "bob")
        self.assertEqual(self.s.query(
            "SELECT name FROM members WHERE NOT active ORDER BY name"),
            [("bob",), ("carol",)])

class RoleChanges(unittest.TestCase):
    """A role change never strands a round nor rewrites past agreement."""

    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def test_role_change_of_an_open_rounds_annotator_is_refused(self):
        self.s.ok("round", "create", "r1", "--items", "DeepSpeed#4187",
                  "--annotators", "alice,bob")
        before = self.s.dump()
        err = self.s.fail("member", "add", "alice", "--role",
                          "adjudicator")
        self.assertIn("alice annotates the open round r1", err)
        self.assertIn("given another role", err)
        self.assertEqual(before, self.s.dump())
        # another annotator role is no change; carol is in no round
        self.s.ok("member", "add", "alice", "--role", "annotator")
        self.s.ok("member", "add", "carol", "--role", "adjudicator")
        self.s.ok("round", "close", "r1", "--force")
        self.s.ok("member", "add", "alice", "--role", "adjudicator")

    def test_past_agreement_survives_a_role_change(self):
        self.s.ok("labels", "import", SAMPLE_LABELS, "--submit")
        before = self.s.agree_json()
        self.assertGreater(before["dimensions"][0]["items"], 0)
        self.s.ok("member", "add", "alice", "--role", "adjudicator")
        after = self.s.agree_json()
        self.assertEqual(before["annotators"], after["annotators"])
        self.assertEqual(before["dimensions"], after["dimensions"])


class Labelling(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def test_label_and_submit(self):
        self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, as_="alice")
        self.assertEqual(self.s.query(
            "SELECT count(*) FROM submissions"), [(0,)])
        self.s.ok("label", "DeepSpeed#4187", "fix_pattern=conditional_logic,"
                  "synchronization", "--submit", as_="alice")
        rows = self.s.query("SELECT dimension, code FROM labels ORDER BY 1, 2")
        self.assertEqual(rows, [("fix_pattern", "conditional_logic"),
                                ("fix_pattern", "synchronization"),
                                ("phase", "training"),
                                ("root_cause", "api_misuse"),
                                ("symptom", "crash")])
        self.assertEqual(self.s.query(
            "SELECT count(*) FROM submissions"), [(1,)])
        audit = self.s.query("SELECT actor, for_member, action FROM audit "
                             "WHERE action IN ('label', 'submit')")
        self.assertTrue(all(r[1] == "alice" for r in audit))
        self.assertIn("submit", [r[2] for r in audit])

    def test_submit_refuses_missing_required(self):
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=crash",
                          "--submit", as_="alice")
        self.assertIn("root_cause", err)
        self.assertIn("fix_pattern", err)
        self.assertEqual(self.s.query("SELECT count(*) FROM labels"), [(0,)])

    def test_label_refuses_bad_input(self):
        before = self.s.dump()
        for args, words in [
                (["NoSuch#1", "symptom=crash"], "no such item"),
                (["DeepSpeed#4187", "mood=crash"], "mood"),
                (["DeepSpeed#4187", "symptom=explosion"], "explosion"),
                (["DeepSpeed#4187", "symptom=crash,hang"], "one code"),
                (["DeepSpeed#4187", "symptom=crash", "root_cause=nope"],
                 "nope")]:
            err = self.s.fail("label", *args, as_="alice")
            self.assertIn(words, err)
        self.assertEqual(before, self.s.dump())
        self.s.fail("label", "DeepSpeed#4187", "symptom", as_="alice",
                    code=2)
        # an adjudicator does not label
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=crash",
                          as_="dave")
        self.assertIn("adjudicator", err)

    def write(self, text):
        path = os.path.join(self.s.dir, "labels.csv")
        with open(path, "w", newline="") as f:
            f.write(text)
        return path

    def test_labels_import_sample(self):
        out = self.s.ok("labels", "import", SAMPLE_LABELS, "--submit")
        self.assertIn("40 submissions", out)
        n = self.s.query("SELECT count(*) FROM labels")[0][0]
        with open(SAMPLE_LABELS) as f:
            self.assertEqual(n, len(f.read().strip().splitlines()) - 1)

    def test_labels_import_refuses_with_line_numbers(self):
        head = "item,annotator,dimension,code\n"
        good = "microsoft/DeepSpeed#4187,alice,symptom,crash\n"
        cases = [
            (good + "microsoft/DeepSpeed#1,alice,symptom,crash\n", ":3:",
             "item"),
            (good + "microsoft/DeepSpeed#4187,zed,symptom,crash\n", ":3:",
             "zed"),
            (good + good.replace("symptom,crash", "mood,crash"), ":3:",
             "mood"),
            (good * 1 + good.replace("crash", "boom"), ":3:", "boom"),
            (good + good.replace("crash", "hang"), ":3:", "one code"),
            (good + "microsoft/DeepSpeed#4187,dave,symptom,crash\n", ":3:",
             "adjudicator"),
            ("item,annotator,dimension\n" + "x,y,z\n", ":1:", "header"),
            (good + '"unterminated,alice,symptom,crash\n', ":3:",
             "unterminated"),
        ]
        before = self.s.dump()
        for text, where, words in cases:
            path = self.write(text if text.startswith("item,annotator,dimension\n")
                              else head + text)
            err = self.s.fail("labels", "import", path, "--submit")
            self.assertIn(where, err, text)
            self.assertIn(words, err, text)
        self.assertEqual(before, self.s.dump())

    def test_annotator_imports_only_their_own(self):
        path = self.write("item,annotator,dimension,code\n"
                          "microsoft/DeepSpeed#4187,alice,symptom,crash\n"
                          "microsoft/DeepSpeed#4187,bob,symptom,crash\n")
        err = self.s.fail("labels", "import", path, as_="alice")
        self.assertIn(":3:", err)
        self.assertEqual(self.s.query("SELECT count(*) FROM labels"), [(0,)])


class RoundLifeCycle(unittest.TestCase):
    """A round closed too early stranded its items for good: closed with
    0 of 30 done and no warning, no way to reopen it, no way to move its
    items, and refusals that named neither the item nor the round."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items", "all",
                  "--annotators", "alice,bob")

    def tearDown(self):
        self.s.close()

    def audit(self, action):
        return self.s.query("SELECT actor, item_id, old, new FROM audit "
                            "WHERE action = ? ORDER BY id", action)

    def test_close_refuses_unfinished_items_unless_forced(self):
        before = self.s.dump()
        err = self.s.fail("round", "close", "r1")
        self.assertIn("round r1: 30 of 30 items are not submitted by "
                      "every annotator", err)
        self.assertIn("round close r1 --force", err)
        self.assertRegex(err, r"\(\S+#\d+ is one\)")
        self.assertEqual(before, self.s.dump())
        # one item done by both: 29 left
        for who in ("alice", "bob"):
            self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, "--submit",
                      as_=who)
        err = self.s.fail("round", "close", "r1", as_="dave")
        self.assertIn("29 of 30 items", err)
        self.s.ok("round", "close", "r1", "--force", as_="dave")
        self.assertEqual(self.audit("round.close"),
                         [("root", None, None,
                           "r1 (forced: 29 of 30 items unfinished)")])
        # a finished round closes without --force
        self.s.ok("round", "create", "r2", "--items", "unfinished:r1",
                  "--annotators", "alice,bob")
        self.s.ok("round", "close", "r2", "--force")
        self.assertEqual(len(self.audit("round.close")), 2)
        # --force means nothing elsewhere
        self.s.fail("round", "list", "--force", code=2)

    def test_reopen(self):
        self.s.ok("round", "close", "r1", "--force")
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=crash",
                          as_="alice")
        self.assertIn("microsoft/DeepSpeed#4187 is in round r1, which is "
                      "closed", err)
        self.assertIn("round reopen r1", err)
        # owner only
        self.s.fail("round", "reopen", "r1", as_="dave")
        self.s.fail("round", "reopen", "r1", as_="alice")
        out = self.s.ok("round", "reopen", "r1")
        self.assertIn("reopened round r1", out)
        self.assertEqual(self.s.query("SELECT closed_at FROM rounds"),
                         [(None,)])
        reopen = self.audit("round.reopen")
        self.assertEqual(len(reopen), 1)
        self.assertTrue(reopen[0][2].startswith("r1 (closed "))
        self.s.ok("label", "DeepSpeed#4187", "symptom=crash", as_="alice")
        # an open round: nothing to do, which is no failure
        out = self.s.ok("round", "reopen", "r1")
        self.assertEqual(out, "round r1 is open already: nothing to do\n")
        self.assertEqual(len(self.audit("round.reopen")), 1)
        err = self.s.fail("round", "reopen", "nosuch")
        self.assertIn("nosuch: no such round", err)

    def test_reopen_refuses_adjudicated_rounds_unless_forced(self):
        self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, "--submit",
                  as_="alice")
        self.s.ok("label", "DeepSpeed#4187", "symptom=hang",
                  "root_cause=concurrency", "fix_pattern=synchronization",
                  "phase=training", "--submit", as_="bob")
        self.s.ok("round", "close", "r1", "--force")
        self.s.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                  "--rationale", "the log shows a hang", as_="dave")
        before = self.s.dump()
        err = self.s.fail("round", "reopen", "r1")
        self.assertIn("round r1: 1 of its items has been adjudicated "
                      "(microsoft/DeepSpeed#4187 is one)", err)
        self.assertIn("round reopen r1 --force", err)
        self.assertEqual(before, self.s.dump())
        self.s.ok("round", "reopen", "r1", "--force")
        self.assertIn("forced", self.audit("round.reopen")[0][3])
        # the adjudicated item stays frozen; the others are open again
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=crash",
                          as_="alice")
        self.assertIn("adjudicated", err)
        self.s.ok("label", "DeepSpeed#4422", "symptom=crash", as_="alice")

    def test_unfinished_items_move_to_a_new_round(self):
        for who in ("alice", "bob"):
            self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, "--submit",
                      as_=who)
        self.s.ok("label", "DeepSpeed#4422", *LLM_FULL, "--submit",
                  as_="alice")
        # before: "would have no items (all are in rounds already?)"
        err = self.s.fail("round", "create", "r1b", "--items", "all",
                          "--annotators", "alice,bob")
        self.assertIn("round r1b would have no items", err)
        # an open round's items do not move
        err = self.s.fail("round", "create", "r1b", "--items",
                          "unfinished:r1", "--annotators", "alice,bob")
        self.assertIn("round r1 is still open", err)
        # before: "an item named in --items is already in another round"
        err = self.s.fail("round", "create", "r1b", "--items",
                          "microsoft/DeepSpeed#4187", "--annotators",
                          "alice,bob")
        self.assertIn("microsoft/DeepSpeed#4187 is already in round r1",
                      err)
        self.s.ok("round", "close", "r1", "--force")
        err = self.s.fail("round", "create", "r1b", "--items", "all",
                          "--annotators", "alice,bob")
        self.assertIn("--items unfinished:r1", err)
        err = self.s.fail("round", "create", "r1b", "--items",
                          "DeepSpeed#4422", "--annotators", "alice,bob")
        self.assertIn("microsoft/DeepSpeed#4422 is already in round r1 "
                      "(closed; --items unfinished:r1", err)
        self.s.fail("round", "create", "r1b", "--items",
                    "unfinished:nosuch", "--annotators", "alice,bob")
        self.assertEqual(self.s.query("SELECT count(*) FROM rounds"),
                         [(1,)])
        out = self.s.ok("round", "create", "r1b", "--items",
                        "unfinished:r1", "--annotators", "alice,bob")
        self.assertIn("29 items", out)
        by_round = dict(self.s.query(
            "SELECT r.name, count(*) FROM assignments a JOIN rounds r ON "
            "r.id = a.round_id GROUP BY r.name"))
        self.assertEqual(by_round, {"r1": 1, "r1b": 29})
        moves = self.audit("round.move")
        self.assertEqual(len(moves), 29)
        self.assertEqual({(o, n) for _, _, o, n in moves}, {("r1", "r1b")})
        # alice's submission of 4422 carries over; bob codes it now
        self.s.ok("label", "DeepSpeed#4422", *LLM_FULL, "--submit",
                  as_="bob")
        out = self.s.ok("round", "list")
        self.assertRegex(out, r"r1b +open +29 items, +1 done")
        err = self.s.fail("round", "create", "r1c", "--items",
                          "unfinished:r1", "--annotators", "alice,bob")
        self.assertIn("round r1 has none left that is unfinished", err)

    def test_round_list_does_not_claim_all_items(self):
        out = self.s.ok("round", "list")
        self.assertIn("items: all free for coding at creation", out)

    def test_help_documents_items_spec_and_force(self):
        out = self.s.ok("round", "--help")
        for form in ("repo:OWNER/REPO", "@FILE", "unfinished:ROUND",
                     "--force", "reopen NAME"):
            self.assertIn(form, out)


class StaleCodes(unittest.TestCase):
    """`label` and `labels import` read the codebook before they took the
    write lock: racing a `codebook update --map` that renamed a code,
    they stored the renamed-away code (10 of 10 runs), which then fell
    out of agreement, and running the update again said there was
    nothing to do.  The race is made deterministic by a gate the
    process waits at just before it takes the write lock."""

    def setUp(self):
        from bchelp import CODEBOOK
        self.s = Study(members=MEMBERS)
        with open(CODEBOOK) as f:
            cb = json.load(f)
        cb["version"] = "2.0"
        for d in cb["dimensions"]:
            for c in d["codes"]:
                if c["key"] == "configuration_error":
                    c["key"] = "misconfig"
        self.v2 = os.path.join(self.s.dir, "v2.json")
        with open(self.v2, "w") as f:
            json.dump(cb, f)

    def tearDown(self):
        self.s.close()

    def race(self, *args):
        """Run `args` as alice up to its write lock, update the codebook
        meanwhile, then let it go on."""
        import subprocess
        import time
        from bchelp import BIN
        gate = os.path.join(self.s.dir, "gate")
        env = dict(os.environ, BUGCODER_TEST_BEGIN_GATE=gate)
        p = subprocess.Popen([BIN, "--study", self.s.path, "--as", "alice",
                              *args], cwd=self.s.dir, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        for _ in range(3000):
            if os.path.exists(gate + ".waiting") or p.poll() is not None:
                break
            time.sleep(0.01)
        self.assertTrue(os.path.exists(gate + ".waiting"), p.stderr.read()
                        if p.poll() is not None else "no gate reached")
        self.s.ok("codebook", "update", self.v2, "--map",
                  "root_cause:configuration_error=misconfig")
        open(gate, "w").close()
        out, err = p.communicate(timeout=60)
        return p.returncode, out, err

    def stored(self, code):
        return self.s.query("SELECT count(*) FROM labels WHERE code = ?",
                            code)[0][0]

    def test_label_racing_codebook_update(self):
        rc, out, err = self.race("label", "DeepSpeed#4187",
                                 "root_cause=configuration_error")
        self.assertEqual(rc, 1, out + err)
        self.assertIn("configuration_error", err)
        self.assertEqual(self.stored("configuration_error"), 0)
        # the same label after the update is checked against 2.0
        self.s.ok("label", "DeepSpeed#4187", "root_cause=misconfig",
                  as_="alice")
        self.assertEqual(self.s.query(
            "SELECT codebook_version FROM labels WHERE code = 'misconfig'"),
            [("2.0",)])

    def test_labels_import_racing_codebook_update(self):
        csv_path = os.path.join(self.s.dir, "alice.csv")
        with open(csv_path, "w") as f:
            f.write("item,annotator,dimension,code\n"
                    "microsoft/DeepSpeed#4187,alice,symptom,crash\n"
                    "microsoft/DeepSpeed#4187,alice,root_cause,"
                    "configuration_error\n")
        rc, out, err = self.race("labels", "import", csv_path)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("configuration_error", err)
        self.assertIn("nothing imported", err)
        self.assertEqual(self.s.query("SELECT count(*) FROM labels"),
                         [(0,)])

    def test_update_reports_labels_whose_code_the_codebook_lacks(self):
        self.s.ok("codebook", "update", self.v2)
        # a label as a stale writer left it before the fix
        with self.s.db() as db:
            db.execute("INSERT INTO labels (item_id, member_id, dimension, "
                       "code, codebook_version, labeled_at) SELECT i.id, "
                       "m.id, 'root_cause', 'configuration_error', '1.0', "
                       "'x' FROM items i, members m WHERE i.number = 4187 "
                       "AND m.name = 'alice'")
        # before: "the same as the current codebook; nothing to do", exit 0
        p = self.s.run("codebook", "update", self.v2)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("root_cause=configuration_error (1 label)", p.stderr)
        self.assertIn("--map root_cause:configuration_error=NEW", p.stderr)
        # the same file with the map mends it, and loads no new version
        out = self.s.ok("codebook", "update", self.v2, "--map",
                        "root_cause:configuration_error=misconfig")
        self.assertIn("1 label and 0 resolutions moved", out)
        self.assertEqual(self.stored("configuration_error"), 0)
        self.assertEqual(self.stored("misconfig"), 1)
        self.assertEqual(self.s.query("SELECT count(*) FROM codebooks"),
                         [(2,)])
        self.assertIn("nothing to load",
                      self.s.ok("codebook", "update", self.v2))

    def test_help_gives_the_map_form_that_works(self):
        out = self.s.ok("codebook", "--help")
        self.assertIn("--map DIM:OLD=NEW", out)
        self.assertNotIn("DIM.OLD", out)


class ImportLocksOnlyToWrite(unittest.TestCase):
    """`import` took the write lock before it read its files, so a long
    import held the study (every annotator's save waited) while it
    parsed.  Now every file is read and checked first: at the moment it
    asks for the lock (the gate), it has read them all."""

    def test_files_are_read_before_the_lock(self):
        import subprocess
        import time
        from bchelp import BIN
        s = Study(items=None)
        try:
            a = os.path.join(s.dir, "a.jsonl")
            b = os.path.join(s.dir, "b.jsonl")
            with open(a, "w") as f:
                f.write(json.dumps({"repo": "o/r", "number": 1,
                                    "title": "one"}) + "\n")
            with open(b, "w") as f:
                f.write(json.dumps({"repo": "o/r", "number": 2,
                                    "title": "two"}) + "\n")
            gate = os.path.join(s.dir, "gate")
            p = subprocess.Popen([BIN, "--study", s.path, "import", a, b],
                                 env=dict(os.environ,
                                          BUGCODER_TEST_BEGIN_GATE=gate),
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            for _ in range(3000):
                if os.path.exists(gate + ".waiting") or \
                        p.poll() is not None:
                    break
                time.sleep(0.01)
            self.assertTrue(os.path.exists(gate + ".waiting"))
            # what it reads from here on would be refused
            with open(b, "w") as f:
                f.write("not json\n")
            open(gate, "w").close()
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err)
            self.assertIn("b.jsonl: 1 added", out)
            self.assertEqual(s.query("SELECT title FROM items ORDER BY "
                                     "number"), [("one",), ("two",)])
        finally:
            s.close()


class DraftsMigration(unittest.TestCase):
    """A study made before drafts were kept (schema version 2) gets the
    table on first open, its data untouched."""

    def test_version_2_study_is_migrated(self):
        s = Study(members=MEMBERS)
        try:
            s.ok("label", "DeepSpeed#4187", "symptom=crash", as_="alice")
            s.downgrade(2)
            before = s.dump()
            s.ok("status")
            after = s.dump()
            self.assertEqual(after.pop("drafts"), [])
            # the replay's baseline is taken: one audit row more, at the
            # end
            baseline = after["audit"].pop()
            self.assertEqual(baseline[4], "audit.baseline")
            # every row kept; later steps only add columns at the end
            # (the audit's hashes, ...) and tables
            for table, rows in before.items():
                self.assertEqual([r[:len(rows[0])] for r in after[table]]
                                 if rows else after[table], rows, table)
            self.assertEqual(s.query("PRAGMA user_version"),
                             [(len(Study.UNDO) + 1,)])
        finally:
            s.close()


class Blinding(unittest.TestCase):
    """An annotator sees nobody else's work by any path until the round
    is closed; the owner and adjudicators see everything."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422", "--annotators",
                  "alice,bob")
        self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, "--submit",
                  as_="alice")
        self.s.ok("label", "DeepSpeed#4187", "symptom=hang",
                  "root_cause=concurrency", "fix_pattern=synchronization",
                  "phase=training", "--submit", as_="bob")

    def tearDown(self):
        self.s.close()

    def test_every_path_is_blind_until_closed(self):
        # agreement
        err = self.s.fail("agree", as_="alice")
        self.assertIn("closed round", err)
        self.s.fail("agree", "--round", "r1", as_="alice")
        # status shows no label counts to an annotator
        out = self.s.ok("status", as_="alice")
        self.assertNotIn("labels,", out)
        self.assertIn("yours only", out)
        # items shows only her own submission state
        out = self.s.ok("items", as_="bob")
        self.assertIn("yes", out)
        # exports (once the export command exists) never carry bob's rows
        p = self.s.run("export", "--raw", as_="alice")
        if p.returncode == 0:
            self.assertNotIn(",bob,", p.stdout)
        # resolve and adjudicate are not an annotator's
        self.s.fail("resolve", "DeepSpeed#4187", "symptom=hang",
                    "--rationale", "x", as_="alice")
        # the owner and the adjudicator see everything; the adjudicator,
        # blind by default, without the annotators' names
        ag = self.s.agree_json("--round", "r1")
        self.assertEqual(ag["annotators"], ["alice", "bob"])
        blind = self.s.agree_json("--round", "r1", as_="dave")
        self.assertEqual(blind["annotators"], ["annotator 1", "annotator 2"])
        self.assertEqual([(d["key"], d["cohen_kappa"]) for d in
                          blind["dimensions"]],
                         [(d["key"], d["cohen_kappa"]) for d in
                          ag["dimensions"]])
        self.assertNotIn("alice", json.dumps(blind))
        # after closing, alice may see the round's agreement
        self.s.fail("round", "close", "r1", as_="alice")
        self.s.ok("round", "close", "r1", "--force", as_="dave")
        ag = self.s.agree_json("--round", "r1", as_="alice")
        self.assertEqual(ag["dimensions"][0]["items"], 1)
        # and labels are frozen
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=crash",
                          as_="alice")
        self.assertIn("closed", err)


class RoundListBlinding(unittest.TestCase):
    """`round list` counted the items every annotator submitted: an
    annotator who submits one item at a time could read there, item by
    item, whether the other annotator had submitted it."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422", "--annotators",
                  "alice,bob")

    def tearDown(self):
        self.s.close()

    def line(self, as_=None):
        out = self.s.ok("round", "list", as_=as_)
        return [ln for ln in out.splitlines() if ln.startswith("r1")][0]

    def test_annotator_sees_only_her_own_progress(self):
        self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, "--submit",
                  as_="bob")
        self.s.ok("label", "DeepSpeed#4422", *LLM_FULL, "--submit",
                  as_="bob")
        self.assertIn("0 done by you", self.line("alice"))
        self.s.ok("label", "DeepSpeed#4187", *LLM_FULL, "--submit",
                  as_="alice")
        # before the fix: "1 done", telling her bob had submitted 4187
        self.assertIn("1 done by you", self.line("alice"))
        self.assertIn("2 done by you", self.line("bob"))
        # the owner and the adjudicator see the round's progress
        for who in (None, "dave"):
            self.assertRegex(self.line(who), r"\b1 done  annotators")
        # a closed round hides nothing
        self.s.ok("round", "close", "r1", "--force")
        self.assertRegex(self.line("alice"), r"\b1 done  annotators")


class Agreement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Study(members=MEMBERS)
        cls.s.ok("labels", "import", SAMPLE_LABELS, "--submit")

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def expected_table(self, dim):
        """The confusion table recomputed here from the sample CSV."""
        rows = list(csv.DictReader(open(SAMPLE_LABELS)))
        by = {}
        for r in rows:
            if r["dimension"] == dim:
                by.setdefault(r["item"], {})[r["annotator"]] = r["code"]
        return [(v["alice"], v["bob"]) for v in by.values()
                if "alice" in v and "bob" in v]

    def test_json_has_the_agreed_keys_and_right_numbers(self):
        ag = self.s.agree_json()
        self.assertEqual(ag["annotators"], ["alice", "bob"])
        self.assertIsNone(ag["round"])
        keys = [d["key"] for d in ag["dimensions"]]
        self.assertEqual(keys, ["symptom", "root_cause", "fix_pattern",
                                "stage", "phase"])
        d = ag["dimensions"][0]
        for k in ("key", "items", "categories", "observed_agreement",
                  "expected_agreement", "cohen_kappa", "scott_pi",
                  "krippendorff_alpha", "gwet_ac1", "pabak", "band",
                  "per_code", "confusion"):
            self.assertIn(k, d)
        for k in ("value", "se", "se0", "z", "p", "ci95"):
            self.assertIn(k, d["cohen_kappa"])
        pairs = self.expected_table("symptom")
        n = len(pairs)
        self.assertEqual(d["items"], n)
        po = sum(a == b for a, b in pairs) / n
        codes = d["confusion"]["codes"]
        pa = {c: sum(a == c for a, _ in pairs) / n for c in codes}
        pb = {c: sum(b == c for _, b in pairs) / n for c in codes}
        pe = sum(pa[c] * pb[c] for c in codes)
        self.assertAlmostEqual(d["observed_agreement"], po, places=12)
        self.assertAlmostEqual(d["expected_agreement"], pe, places=12)
        self.assertAlmostEqual(d["cohen_kappa"]["value"],
                               (po - pe) / (1 - pe), places=12)
        lo, hi = d["cohen_kappa"]["ci95"]
        self.assertLess(lo, d["cohen_kappa"]["value"])
        self.assertGreater(hi, d["cohen_kappa"]["value"])
        counts = d["confusion"]["counts"]
        self.assertEqual(sum(map(sum, counts)), n)
        for a, b in pairs:
            self.assertGreater(counts[codes.index(a)][codes.index(b)], 0)
        per = {p["code"]: p for p in d["per_code"]}
        self.assertEqual(per["crash"]["count_a"],
                         sum(a == "crash" for a, _ in pairs))
        self.assertEqual(per["crash"]["count_b"],
                         sum(b == "crash" for _, b in pairs))

    def test_undefined_is_null_with_a_reason(self):
        ag = self.s.agree_json("--dimension", "stage")
        d = ag["dimensions"][0]
        if d["cohen_kappa"]["value"] is None:
            self.assertIn("undefined_reason", d["cohen_kappa"])
        # no items at all: a round nobody coded
        s = Study(members=MEMBERS)
        try:
            s.ok("round", "create", "empty", "--items", "DeepSpeed#4187",
                 "--annotators", "alice,bob")
            ag = s.agree_json("--round", "empty")
            d = ag["dimensions"][0]
            self.assertEqual(d["items"], 0)
            self.assertIsNone(d["cohen_kappa"]["value"])
            self.assertTrue(d["cohen_kappa"]["undefined_reason"])
            text = s.ok("agree", "--round", "empty")
            self.assertIn("undefined", text)
            self.assertNotIn("nan", text.lower())
        finally:
            s.close()

    def test_text_has_the_sentence(self):
        out = self.s.ok("agree", "--dimension", "root_cause")
        self.assertRegex(out, r"Cohen's kappa for root cause was 0\.\d\d "
                         r"\(95% CI -?\d\.\d\d\u2013-?\d\.\d\d, bootstrap "
                         r"percentile, 2000 resamples \(\d+ degenerate, "
                         r"drawn again\), seed \d+; n = \d+ bugs, "
                         r"16 codes, 2 annotators; observed agreement "
                         r"\d\.\d\d\), [a-z ]+ agreement(, [a-z ]+ to [a-z ]+ "
                         r"within the interval)? \(Landis & Koch, 1977\)\.")

    def test_csv_format(self):
        out = self.s.ok("agree", "--format", "csv")
        rows = [r for r in csv.DictReader(io.StringIO(out))
                if r["level"] == "code"]
        self.assertEqual([r["dimension"] for r in rows],
                         ["symptom", "root_cause", "fix_pattern", "stage",
                          "phase"])
        js = self.s.agree_json()
        self.assertAlmostEqual(float(rows[0]["cohen_kappa"]),
                               js["dimensions"][0]["cohen_kappa"]["value"],
                               places=5)

    def test_select_many_reports_per_code(self):
        d = self.s.agree_json("--dimension", "fix_pattern")["dimensions"][0]
        self.assertEqual(d["select"], "many")
        self.assertIsNotNone(d["exact_agreement"])
        self.assertTrue(0 <= d["exact_agreement"] <= 1)
        self.assertTrue(any(p["kappa"] is not None for p in d["per_code"]))

    def test_three_annotators_get_fleiss_and_pairs(self):
        s = Study(members=MEMBERS)
        try:
            for who, code in (("alice", "crash"), ("bob", "crash"),
                              ("carol", "hang")):
                for item in ("DeepSpeed#4187", "DeepSpeed#4422",
                             "DeepSpeed#4650"):
                    c = code if item != "DeepSpeed#4650" else "memory_issue"
                    s.ok("label", item, "symptom=" + c,
                         "root_cause=api_misuse",
                         "fix_pattern=conditional_logic", "phase=training",
                         "--submit", as_=who)
            d = s.agree_json("--dimension", "symptom")["dimensions"][0]
            self.assertIn("fleiss_kappa", d)
            self.assertEqual(len(d["pairs"]), 3)
            self.assertIsNotNone(d["fleiss_kappa"]["value"])
            ab = [p for p in d["pairs"] if p["annotators"] == ["alice", "bob"]]
            self.assertEqual(ab[0]["cohen_kappa"]["value"], 1.0)
            # Conger's kappa from the labels, recomputed here
            lab = {"alice": ["crash", "crash", "memory_issue"],
                   "bob": ["crash", "crash", "memory_issue"],
                   "carol": ["hang", "hang", "memory_issue"]}
            codes = sorted({c for v in lab.values() for c in v})
            po = sum(sum(n * (n - 1) for n in
                         [sum(lab[r][u] == c for r in lab) for c in codes])
                     / 6 for u in range(3)) / 3
            pe = 0
            for c in codes:
                ps = [lab[r].count(c) / 3 for r in lab]
                m = sum(ps) / 3
                pe += m * m - sum((x - m) ** 2 for x in ps) / 2 / 3
            self.assertAlmostEqual(d["conger_kappa"]["value"],
                                   (po - pe) / (1 - pe), places=12)
            self.assertEqual(set(d["per_code"][0]["counts"]),
                             {"alice", "bob", "carol"})
            self.assertIsNotNone(d["fleiss_kappa"]["se"])
            self.assertIn("Conger's kappa", d["sentence"])
            rows = list(csv.DictReader(io.StringIO(
                s.ok("agree", "--format", "csv", "--dimension", "symptom"))))
            pairs = [r for r in rows
                     if r["annotator_a"] and r["level"] == "code"]
            self.assertEqual(len(pairs), 3)
            text = s.ok("agree", "--dimension", "symptom")
            self.assertIn("Fleiss' kappa for symptom was", text)
            self.assertNotIn("p 0.000", text)
        finally:
            s.close()

    def test_intervals_stay_in_range(self):
        """No interval outside [-1, 1] in any format; Wald keeps its raw
        bounds beside the clipped ones; the bootstrap's seed is printed."""
        for ci in ("bootstrap", "wald"):
            js = self.s.agree_json("--ci", ci)
            self.assertEqual(js["interval"]["method"],
                             "Wald" if ci == "wald" else
                             "bootstrap percentile")
            for d in js["dimensions"]:
                k = d["kappa"]
                if k["ci95"] is not None:
                    lo, hi = k["ci95"]
                    self.assertTrue(-1 <= lo <= hi <= 1, (ci, d["key"], k))
                if ci == "wald" and k["wald_ci95"] is not None:
                    raw_lo, raw_hi = k["wald_ci95"]
                    self.assertEqual(k["ci_clipped"],
                                     raw_hi > 1 or raw_lo < -1)
                    if k["ci95"] is not None:
                        self.assertEqual(k["ci95"][1], min(raw_hi, 1))
                if k["value"] is None:
                    self.assertTrue(k["undefined_reason"])
            rows = list(csv.DictReader(io.StringIO(
                self.s.ok("agree", "--format", "csv", "--ci", ci))))
            for r in rows:
                for key in ("ci_low", "ci_high"):
                    if r[key]:
                        self.assertTrue(-1 <= float(r[key]) <= 1, r)
            text = self.s.ok("agree", "--ci", ci)
            self.assertNotIn("-0.00", text)
            self.assertNotIn(" 1 codes", text)
        # symptom's Wald interval passes 1 on the sample labels
        d = self.s.agree_json("--ci", "wald", "--dimension",
                              "symptom")["dimensions"][0]
        self.assertGreater(d["cohen_kappa"]["wald_ci95"][1], 1)
        self.assertEqual(d["cohen_kappa"]["ci95"][1], 1)
        self.assertTrue(d["cohen_kappa"]["ci_clipped"])
        out = self.s.ok("agree", "--seed", "77", "--boot", "500")
        self.assertIn("500 resamples, seed 77", out)
        self.assertRegex(out, r"500 resamples \(\d+ degenerate, drawn "
                              r"again\), seed 77")
        a = self.s.ok("agree", "--format", "json", "--seed", "77")
        self.assertEqual(a, self.s.ok("agree", "--format", "json",
                                      "--seed", "77"))
        self.assertNotEqual(a, self.s.ok("agree", "--format", "json",
                                         "--seed", "78"))
        self.s.fail("agree", "--ci", "exact", code=2)
        self.s.fail("agree", "--boot", "-3", code=2)
        self.s.fail("agree", "--ci", "wald", "--seed", "1", code=2)

    def test_select_many_groups(self):
        """fix_pattern (select many) at the level of its code groups: the
        exact-set agreement and one group's kappa recomputed here."""
        d = self.s.agree_json("--dimension", "fix_pattern")["dimensions"][0]
        g = d["groups"]
        self.assertIsNotNone(g)
        with open(CODEBOOK) as f:
            cb = json.load(f)
        dim = [x for x in cb["dimensions"] if x["key"] == "fix_pattern"][0]
        grp = {c["key"]: c.get("group", c["key"]) for c in dim["codes"]}
        sets = {}
        with open(SAMPLE_LABELS) as f:
            for r in csv.DictReader(f):
                if r["dimension"] == "fix_pattern":
                    sets.setdefault(r["item"], {}).setdefault(
                        r["annotator"], set()).add(grp[r["code"]])
        pairs = [(v.get("alice", set()), v.get("bob", set()))
                 for v in sets.values()]
        # items both submitted: every item of the sample has both
        self.assertEqual(g["items"], d["items"])
        n = g["items"]
        pairs += [(set(), set())] * (n - len(pairs))
        same = sum(a == b for a, b in pairs) / n
        self.assertAlmostEqual(g["exact_agreement"], same, places=12)
        per = {p["group"]: p for p in g["per_code"]}
        # bob never chose a distributed fix: no kappa, and a reason
        self.assertFalse(any("distributed" in q for _, q in pairs))
        self.assertIsNone(per["distributed"]["kappa"])
        self.assertIn("never chose", per["distributed"]["undefined_reason"])
        x = "general"
        a = sum(x in p and x in q for p, q in pairs)
        b = sum(x in p and x not in q for p, q in pairs)
        c = sum(x not in p and x in q for p, q in pairs)
        dd = n - a - b - c
        po = (a + dd) / n
        pe = ((a + b) * (a + c) + (c + dd) * (b + dd)) / n / n
        self.assertAlmostEqual(per[x]["kappa"], (po - pe) / (1 - pe),
                               places=12)
        self.assertEqual(per[x]["count_a"], a + b)
        self.assertEqual(per[x]["count_b"], a + c)

    def test_levels(self):
        js = self.s.agree_json("--dimension", "root_cause")["dimensions"][0]
        self.assertEqual(js["level"], "code")
        g = js["groups"]
        self.assertEqual(g["level"], "group")
        # the group table recomputed here from the code table and codebook
        with open(CODEBOOK) as f:
            cb = json.load(f)
        dim = [x for x in cb["dimensions"] if x["key"] == "root_cause"][0]
        grp = {c["key"]: c.get("group", c["key"]) for c in dim["codes"]}
        pairs = self.expected_table("root_cause")
        same = sum(grp[a] == grp[b] for a, b in pairs) / len(pairs)
        self.assertAlmostEqual(g["observed_agreement"], same, places=12)
        only = self.s.agree_json("--dimension", "root_cause", "--level",
                                 "group")["dimensions"][0]
        self.assertEqual(only["level"], "group")
        self.assertAlmostEqual(only["kappa"]["value"], g["kappa"]["value"])
        code = self.s.agree_json("--dimension", "root_cause", "--level",
                                 "code")["dimensions"][0]
        self.assertIsNone(code["groups"])


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
# section E: 4 coders, 12 units, values 1-5, None where a coder left the
# unit; published alpha .743 nominal, .815 ordinal, .849 interval.
KRIPP = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


def weighted_kappa(pairs, k, quadratic):
    """Cohen's weighted kappa (Cohen 1968) of (a, b) value pairs 1..k."""
    n = len(pairs)
    w = [[1 - (abs(i - j) / (k - 1)) ** (2 if quadratic else 1)
          for j in range(k)] for i in range(k)]
    pa = [sum(a == i + 1 for a, _ in pairs) / n for i in range(k)]
    pb = [sum(b == j + 1 for _, b in pairs) / n for j in range(k)]
    po = sum(w[a - 1][b - 1] for a, b in pairs) / n
    pe = sum(w[i][j] * pa[i] * pb[j] for i in range(k) for j in range(k))
    return (po - pe) / (1 - pe)


class Scales(unittest.TestCase):
    """A codebook's "scale" through the whole path: codebook, labels
    import, agree in JSON, CSV and text."""

    def study(self, scale, coders="abcd"):
        cb = {"name": "k", "version": "1", "dimensions": [{
            "key": "rating", "name": "Rating", "scale": scale,
            "codes": [dict({"key": f"v{i}", "name": f"V{i}",
                            "definition": "d"},
                           **({"value": i} if scale == "interval" else {}))
                      for i in range(1, 6)]}]}
        tmp = tempfile.mkdtemp(prefix="bugcoder-scale-")
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "cb.json")
        with open(path, "w") as f:
            json.dump(cb, f)
        with open(SAMPLE) as f:
            items = [json.loads(line) for line in f][:12]
        s = Study(codebook=path, members=[(c, "annotator")
                                          for c in coders])
        names = [f"{i['repo']}#{i['number']}" for i in items]
        rows = ["item,annotator,dimension,code"]
        for c, coder in zip("abcd", KRIPP):
            if c not in coders:
                continue
            for item, v in zip(names, coder):
                if v is not None:
                    rows.append(f"{item},{c},rating,v{v}")
        labels = os.path.join(s.dir, "labels.csv")
        with open(labels, "w") as f:
            f.write("\n".join(rows) + "\n")
        s.ok("labels", "import", labels, "--submit")
        return s

    def test_published_alphas_and_weighted_kappas(self):
        for scale, want in (("ordinal", 0.815), ("interval", 0.849)):
            s = self.study(scale)
            try:
                d = s.agree_json()["dimensions"][0]
                self.assertEqual(d["scale"], scale)
                self.assertAlmostEqual(d["krippendorff_alpha"], 0.743,
                                       delta=5e-4)
                wt = d["weighted"]
                self.assertAlmostEqual(wt["krippendorff_alpha"]["value"],
                                       want, delta=5e-4)
                for key, quad in (("linear_kappa", False),
                                  ("quadratic_kappa", True)):
                    ks = []
                    for x in range(4):
                        for y in range(x + 1, 4):
                            ks.append(weighted_kappa(
                                [(a, b) for a, b in zip(KRIPP[x], KRIPP[y])
                                 if a is not None and b is not None],
                                5, quad))
                    self.assertAlmostEqual(wt[key]["value"],
                                           sum(ks) / len(ks), places=12)
                rows = list(csv.DictReader(io.StringIO(
                    s.ok("agree", "--format", "csv"))))
                self.assertAlmostEqual(float(rows[0]["scale_alpha"]), want,
                                       delta=5e-4)
                text = s.ok("agree")
                self.assertIn(f"{scale} scale", text)
                self.assertIn("quadratic weighted", text)
            finally:
                s.close()

    def test_two_coders_weighted_kappa(self):
        s = self.study("interval", coders="bd")
        try:
            d = s.agree_json()["dimensions"][0]
            pairs = [(a, b) for a, b in zip(KRIPP[1], KRIPP[3])
                     if a is not None and b is not None]
            for key, quad in (("linear_kappa", False),
                              ("quadratic_kappa", True)):
                k = d["weighted"][key]
                self.assertAlmostEqual(k["value"],
                                       weighted_kappa(pairs, 5, quad),
                                       places=12)
                lo, hi = k["ci95"]
                self.assertTrue(-1 <= lo <= k["value"] <= hi <= 1)
        finally:
            s.close()


class ByRound(unittest.TestCase):
    """agree --by-round: a row per round, the same figures as agree
    --round, and the least-squares trend."""

    @classmethod
    def setUpClass(cls):
        cls.s = Study(members=MEMBERS)
        with open(SAMPLE_LABELS) as f:
            items = sorted({r["item"] for r in csv.DictReader(f)})
        cls.s.ok("round", "create", "pilot", "--items", ",".join(items[:8]),
                 "--annotators", "alice,bob")
        cls.s.ok("round", "create", "r1", "--items", ",".join(items[8:]),
                 "--annotators", "alice,bob")
        cls.s.ok("labels", "import", SAMPLE_LABELS, "--submit")

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_rows_match_single_rounds_and_trend(self):
        js = json.loads(self.s.ok("agree", "--by-round", "--format", "json"))
        dims = {d["key"]: d for d in js["dimensions"]}
        self.assertEqual(set(dims), {"symptom", "root_cause", "fix_pattern",
                                     "stage", "phase"})
        for key, d in dims.items():
            self.assertEqual([r["round"] for r in d["rounds"]],
                             ["pilot", "r1"])
            ys = []
            for r in d["rounds"]:
                one = self.s.agree_json("--round", r["round"], "--dimension",
                                        key)["dimensions"][0]
                self.assertEqual(r["kappa"]["value"], one["kappa"]["value"])
                self.assertEqual(r["kappa"]["ci95"], one["kappa"]["ci95"])
                self.assertEqual(r["items"], one["items"])
                self.assertEqual(r["codebook_version"], "1.0")
                ys.append(r["kappa"]["value"])
            if None in ys:
                self.assertIsNone(d["trend"]["slope_per_round"])
                self.assertTrue(d["trend"]["undefined_reason"])
            else:
                # two points: the slope is their difference
                self.assertAlmostEqual(d["trend"]["slope_per_round"],
                                       ys[1] - ys[0], places=12)
        # the whole study closes each dimension's rows, as `agree` has it
        for key, d in dims.items():
            whole = d["whole_study"]
            one = self.s.agree_json("--dimension", key)["dimensions"][0]
            self.assertEqual(whole["round"], "(whole study)")
            self.assertEqual(whole["kappa"]["value"], one["kappa"]["value"])
            self.assertEqual(whole["kappa"]["ci95"], one["kappa"]["ci95"])
            self.assertEqual(whole["items"], one["items"])
        rows = list(csv.DictReader(io.StringIO(
            self.s.ok("agree", "--by-round", "--format", "csv"))))
        self.assertEqual(len(rows), 15)
        self.assertEqual([r["round"] for r in rows[:3]],
                         ["pilot", "r1", "(whole study)"])
        text = self.s.ok("agree", "--by-round", "--dimension", "symptom")
        self.assertRegex(text, r"pilot +(open|closed) +8 ")
        self.assertIn("trend (Cohen's kappa):", text)
        self.s.fail("agree", "--by-round", "--round", "pilot", code=2)

    def test_annotator_sees_closed_rounds_only(self):
        self.s.ok("round", "close", "pilot")
        text = self.s.ok("agree", "--by-round", as_="alice")
        self.assertRegex(text, r"r1 +open +not shown: the round is open")
        self.assertRegex(text, r"pilot +closed +8 ")


class Gate(unittest.TestCase):
    """round create --after ROUND --min-kappa K: the calibration gate."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        with open(SAMPLE_LABELS) as f:
            items = sorted({r["item"] for r in csv.DictReader(f)})
        # the later 12 items: every required dimension has a kappa
        self.s.ok("round", "create", "pilot", "--items",
                  ",".join(items[8:]), "--annotators", "alice,bob")
        # the pilot's rows only: labels go to the items of rounds
        pilot = os.path.join(self.s.dir, "pilot.csv")
        with open(SAMPLE_LABELS, newline="") as f, \
                open(pilot, "w", newline="") as out:
            rd = csv.DictReader(f)
            w = csv.DictWriter(out, rd.fieldnames)
            w.writeheader()
            for r in rd:
                if r["item"] in items[8:]:
                    w.writerow(r)
        self.s.ok("labels", "import", pilot, "--submit")
        self.required = {"symptom", "root_cause", "fix_pattern", "phase"}

    def tearDown(self):
        self.s.close()

    def kappas(self):
        js = self.s.agree_json("--round", "pilot")
        return {d["key"]: d["kappa"] for d in js["dimensions"]
                if d["key"] in self.required}

    def test_refused_until_closed_and_high_enough(self):
        k = self.kappas()
        low = min(v["value"] for v in k.values())
        self.assertIsNotNone(low)
        before = self.s.dump()
        err = self.s.fail("round", "create", "main", "--items", "all",
                          "--annotators", "alice,bob", "--after", "pilot",
                          "--min-kappa", "0")
        self.assertIn("round pilot is still open", err)
        self.assertEqual(self.s.dump(), before)   # nothing stored
        self.s.ok("round", "close", "pilot")
        # one dimension below the threshold: refused, and named
        err = self.s.fail("round", "create", "main", "--items", "all",
                          "--annotators", "alice,bob", "--after", "pilot",
                          "--min-kappa", f"{low + 0.001:.4f}")
        worst = min(k, key=lambda x: k[x]["value"])
        self.assertRegex(err, worst + r" kappa [0-9.]+ <")
        out = self.s.ok("round", "create", "main", "--items", "all",
                        "--annotators", "alice,bob", "--after", "pilot",
                        "--min-kappa", f"{low - 0.001:.4f}")
        self.assertIn("gate passed", out)
        self.assertEqual(self.s.query(
            "SELECT r.name, a.name, g.forced FROM round_gates g JOIN "
            "rounds r ON r.id = g.round_id JOIN rounds a ON a.id = "
            "g.after_round_id"), [("main", "pilot", 0)])

    def test_lower_bound_and_force(self):
        self.s.ok("round", "close", "pilot")
        k = self.kappas()
        lows = [v["ci95"][0] if v["ci95"] else None for v in k.values()]
        # just under the highest kappa: every lower bound is under it
        # too, so a gate on the lower bound cannot pass
        thr = max(v["value"] for v in k.values()) - 0.001
        self.assertTrue(all(lo is None or lo < thr for lo in lows))
        self.s.fail("round", "create", "main", "--items", "all",
                    "--annotators", "alice,bob", "--after", "pilot",
                    "--min-kappa", f"{thr:.4f}", "--gate", "lower")
        out = self.s.ok("round", "create", "main", "--items", "all",
                        "--annotators", "alice,bob", "--after", "pilot",
                        "--min-kappa", f"{thr:.4f}", "--gate", "lower",
                        "--force")
        self.assertIn("gate forced", out)
        audit = self.s.query("SELECT action, old FROM audit WHERE action "
                             "LIKE 'round.gate%'")
        self.assertEqual(audit, [("round.gate-forced", "pilot")])
        self.assertEqual(self.s.query("SELECT on_lower, forced FROM "
                                      "round_gates"), [(1, 1)])

    def test_usage(self):
        self.s.fail("round", "create", "main", "--items", "all",
                    "--annotators", "alice,bob", "--after", "pilot",
                    code=2)
        self.s.fail("round", "create", "main", "--items", "all",
                    "--annotators", "alice,bob", "--after", "pilot",
                    "--min-kappa", "1.5", code=2)
        self.s.fail("round", "create", "main", "--items", "all",
                    "--annotators", "alice,bob", "--after", "nope",
                    "--min-kappa", "0.5")
        self.s.fail("round", "create", "main", "--items", "all",
                    "--annotators", "alice,bob", "--after", "pilot",
                    "--min-kappa", "0.5", as_="alice")


class ChangedAfterClose(unittest.TestCase):
    """agree --round R on a closed round says when a later decision moved
    labels it covered."""

    def test_accepted_proposal_is_reported(self):
        s = Study(members=MEMBERS)
        try:
            items = ("DeepSpeed#4187", "DeepSpeed#4422")
            s.ok("round", "create", "pilot", "--items", ",".join(items),
                 "--annotators", "alice,bob")
            s.ok("proposals", "add", items[0], "root_cause",
                 "checkpoint_format", "--name", "Checkpoint format",
                 "--definition", "The saved layout does not match",
                 as_="alice")
            s.ok("label", items[0], "symptom=crash",
                 "fix_pattern=conditional_logic", "phase=training",
                 "--submit", as_="alice")
            s.ok("label", items[1], *LLM_FULL, "--submit", as_="alice")
            for item in items:
                s.ok("label", item, *LLM_FULL, "--submit", as_="bob")
            s.ok("round", "close", "pilot",
                 env={"BUGCODER_NOW": "2024-06-01T00:00:00Z"})
            js = s.agree_json("--round", "pilot")
            self.assertEqual(js["changed_after_close"], [])
            self.assertNotIn("Changed since", s.ok("agree", "--round",
                                                   "pilot"))
            s.ok("proposals", "accept", "1",
                 env={"BUGCODER_NOW": "2024-06-02T00:00:00Z"})
            js = s.agree_json("--round", "pilot")
            self.assertEqual(js["changed_after_close"], [
                "root_cause: 1 label moved by proposals decided after "
                "the round closed"])
            text = s.ok("agree", "--round", "pilot")
            self.assertIn("Changed since the round closed", text)
        finally:
            s.close()


class FrozenRound(unittest.TestCase):
    """A closed round is a record: later decisions re-map the labels it
    covered (and the agreed labels follow them), but its agreement stays
    what it was at the close, against the codebook it was coded with."""

    def test_figures_do_not_move(self):
        s = Study(members=MEMBERS)
        try:
            with open(SAMPLE_LABELS) as f:
                items = sorted({r.split(",")[0]
                                for r in f.read().splitlines()[1:]})
            with open(os.path.join(s.dir, "pilot.txt"), "w") as f:
                f.write("\n".join(items) + "\n")
            s.ok("round", "create", "pilot", "--items",
                 "@" + os.path.join(s.dir, "pilot.txt"), "--annotators",
                 "alice,bob")
            s.ok("labels", "import", SAMPLE_LABELS, "--submit")
            s.ok("proposals", "add", "DeepSpeed#4187", "root_cause",
                 "checkpoint_format", "--name", "Checkpoint format",
                 "--definition", "The saved layout does not match",
                 as_="alice")
            s.ok("round", "close", "pilot")

            def figures(*args):
                js = s.agree_json(*args)
                return {d["key"]: (d["items"], d["categories"],
                                   d["cohen_kappa"], d["gwet_ac1"],
                                   d["pabak"]) for d in js["dimensions"]}

            pilot = figures("--round", "pilot")
            study = figures()
            self.assertEqual(pilot, study)
            s.ok("proposals", "accept", "1")
            # the label moved: the agreed labels and the study follow
            self.assertEqual(s.query(
                "SELECT count(*) FROM labels WHERE code = "
                "'checkpoint_format'"), [(1,)])
            moved = figures()
            self.assertEqual(moved["root_cause"][1],
                             pilot["root_cause"][1] + 1)
            self.assertNotEqual(moved["root_cause"], pilot["root_cause"])
            # the round's record does not move
            self.assertEqual(figures("--round", "pilot"), pilot)
            # reopened, the round is live again; closed, a new record
            s.ok("round", "reopen", "pilot")
            s.ok("round", "close", "pilot", "--force")
            self.assertEqual(figures("--round", "pilot")["root_cause"],
                             moved["root_cause"])
        finally:
            s.close()


if __name__ == "__main__":
    unittest.main()
