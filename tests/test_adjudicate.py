# SPDX-License-Identifier: MIT
"""Resolutions by script, codebook evolution and proposals, through the
real binary."""
import csv
import io
import json
import os
import unittest

from bchelp import Study, CODEBOOK

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]


def code(alice_symptom, bob_symptom, s, item="DeepSpeed#4187",
         alice_root="api_misuse", bob_root="api_misuse"):
    s.ok("label", item, "symptom=" + alice_symptom, "root_cause=" +
         alice_root, "fix_pattern=conditional_logic", "phase=training",
         "--submit", as_="alice")
    s.ok("label", item, "symptom=" + bob_symptom, "root_cause=" + bob_root,
         "fix_pattern=conditional_logic", "phase=training", "--submit",
         as_="bob")


class Resolve(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def test_resolve_a_disagreement(self):
        code("crash", "hang", self.s)
        out = self.s.ok("status")
        self.assertIn("1 with disagreements left", out)
        self.s.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                  "--rationale", "the traceback is from the watchdog",
                  "--cause", "slip", as_="carol")
        row = self.s.query("SELECT dimension, code, rationale, cause, "
                           "coder1_codes, coder2_codes FROM resolutions")
        self.assertEqual(len(row), 1)
        dim, final, why, cause, c1, c2 = row[0]
        self.assertEqual((dim, final, cause), ("symptom", "hang", "slip"))
        self.assertEqual(sorted([c1, c2]), ["crash", "hang"])
        self.assertIn("watchdog", why)
        self.assertIn("1 resolved", self.s.ok("status"))
        audit = self.s.query("SELECT actor, for_member, old, new FROM audit "
                             "WHERE action = 'resolve'")
        self.assertEqual(audit[0][1:], ("carol", None, "hang"))

    def test_labels_are_frozen_once_adjudicated(self):
        code("crash", "hang", self.s)
        self.s.ok("label", "DeepSpeed#4187", "phase=inference", as_="alice")
        self.s.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                  "--rationale", "r", as_="carol")
        before = self.s.dump()
        for args in (["label", "DeepSpeed#4187", "symptom=hang"],
                     ["label", "DeepSpeed#4187", "phase=training"]):
            err = self.s.fail(*args, as_="alice")
            self.assertIn("has been adjudicated", err)
        self.assertEqual(before, self.s.dump())
        # another item is not affected
        self.s.ok("label", "DeepSpeed#4422", "symptom=hang", as_="alice")

    def test_resolve_refuses(self):
        code("crash", "hang", self.s)
        before = self.s.dump()
        self.s.fail("resolve", "DeepSpeed#4187", "symptom=hang",
                    code=2, as_="carol")            # no rationale
        for args, words in [
                (["symptom=boom"], "boom"),
                (["symptom=hang,crash"], "one code"),
                (["mood=hang"], "mood"),
                (["symptom=hang", "--cause", "tired"], "tired")]:
            err = self.s.fail("resolve", "DeepSpeed#4187", *args,
                              "--rationale", "r", as_="carol")
            self.assertIn(words, err)
        err = self.s.fail("resolve", "DeepSpeed#4187", "symptom=hang",
                          "--rationale", "r", as_="alice")
        self.assertIn("not allowed", err)
        err = self.s.fail("resolve", "DeepSpeed#4422", "symptom=hang",
                          "--rationale", "r", as_="carol")
        self.assertIn("not ready", err)
        # a rationale is bounded like every member's free text
        err = self.s.fail("resolve", "DeepSpeed#4187", "symptom=hang",
                          "--rationale", "x" * 65537, as_="carol")
        self.assertIn("rationale", err)
        self.assertIn("64 KiB", err)
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertEqual(before, self.s.dump())

    def test_blind_coder_order_is_stable_and_mixed(self):
        items = ["DeepSpeed#4187", "DeepSpeed#4422", "DeepSpeed#4650",
                 "DeepSpeed#4903", "DeepSpeed#5012", "DeepSpeed#5240",
                 "DeepSpeed#5388", "DeepSpeed#5561"]
        # the order is a coin per item from the study's random salt;
        # fix the salt so the test does not depend on chance
        with self.s.db() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) "
                      "VALUES ('coder_salt', 'fixed-salt-for-tests')")
        for it in items:
            code("crash", "hang", self.s, item=it)
            self.s.ok("resolve", it, "symptom=hang", "--rationale", "r",
                      as_="carol")
        first = self.s.query("SELECT coder1 FROM resolutions ORDER BY item_id")
        names = {r[0] for r in first}
        self.assertEqual(names, {"alice", "bob"})
        # each study draws its own salt
        other = Study(members=MEMBERS)
        try:
            code("crash", "hang", other)
            other.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                     "--rationale", "r", as_="carol")
            salts = [s.query("SELECT value FROM meta WHERE key='coder_salt'")
                     for s in (self.s, other)]
            self.assertEqual(len(salts[1][0][0]), 32)
            self.assertNotEqual(salts[0], salts[1])
        finally:
            other.close()
        for it in items:
            self.s.ok("resolve", it, "symptom=crash", "--rationale", "r2",
                      as_="carol")
        self.assertEqual(first, self.s.query(
            "SELECT coder1 FROM resolutions ORDER BY item_id"))


class Evolution(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        code("crash", "hang", self.s)
        self.s.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                  "--rationale", "r", as_="carol")
        with open(CODEBOOK) as f:
            self.cb = json.load(f)

    def tearDown(self):
        self.s.close()

    def write(self, cb):
        path = os.path.join(self.s.dir, "v2.json")
        with open(path, "w") as f:
            json.dump(cb, f)
        return path

    def symptom(self, cb):
        return [d for d in cb["dimensions"] if d["key"] == "symptom"][0]

    def test_rename_moves_labels_and_resolutions(self):
        cb = self.cb
        cb["version"] = "2.0"
        for c in self.symptom(cb)["codes"]:
            if c["key"] == "hang":
                c["key"] = "stall"
        path = self.write(cb)
        err = self.s.fail("codebook", "update", path)
        self.assertIn("symptom=hang", err)
        self.assertIn("--map", err)
        out = self.s.ok("codebook", "update", path, "--map",
                        "symptom:hang=stall")
        self.assertIn("2.0", out)
        self.assertEqual(self.s.query(
            "SELECT code FROM labels WHERE dimension = 'symptom' ORDER BY 1"),
            [("crash",), ("stall",)])
        self.assertEqual(self.s.query("SELECT code FROM resolutions"),
                         [("stall",)])
        # the label keeps the version it was made under
        self.assertEqual(self.s.query(
            "SELECT DISTINCT codebook_version FROM labels"), [("1.0",)])
        self.assertTrue(self.s.query(
            "SELECT 1 FROM audit WHERE action = 'codebook.map'"))
        ag = self.s.agree_json("--dimension", "symptom")
        codes = [p["code"] for p in ag["dimensions"][0]["per_code"]]
        self.assertIn("stall", codes)
        self.assertNotIn("hang", codes)

    def test_merge_with_short_map(self):
        cb = self.cb
        cb["version"] = "1.1"
        sym = self.symptom(cb)
        sym["codes"] = [c for c in sym["codes"] if c["key"] != "crash"]
        out = self.s.ok("codebook", "update", self.write(cb), "--map",
                        "crash=hang")
        self.assertIn("1 label", out)
        self.assertEqual(self.s.query(
            "SELECT DISTINCT code FROM labels WHERE dimension = 'symptom'"),
            [("hang",)])

    def test_refusals_leave_the_study_alone(self):
        before = self.s.dump()
        cb = dict(self.cb)
        err = self.s.fail("codebook", "update", self.write(
            dict(cb, title="changed")))
        self.assertIn("new version", err)
        cb2 = json.loads(json.dumps(self.cb))
        cb2["version"] = "3"
        cb2["dimensions"] = [d for d in cb2["dimensions"]
                             if d["key"] != "phase"]
        err = self.s.fail("codebook", "update", self.write(cb2))
        self.assertIn("phase", err)
        err = self.s.fail("codebook", "update", self.write(cb2), "--map",
                          "symptom:crash=nonexistent")
        self.assertIn("nonexistent", err)
        self.s.fail("codebook", "update", self.write(cb2), as_="carol")
        self.assertEqual(before, self.s.dump())


    def test_a_version_names_one_codebook(self):
        """Labels record only the version they were made under: an
        earlier version's string must not be reused for other content
        (only the current version was checked, and proposals accept
        --version not at all)."""
        cb = json.loads(json.dumps(self.cb))
        cb["version"] = "1.1"
        cb["title"] = "the second"
        self.s.ok("codebook", "update", self.write(cb))
        before = self.s.dump()
        cb["version"] = "1.0"
        err = self.s.fail("codebook", "update", self.write(cb))
        self.assertIn("1.0 is already in the study", err)
        self.s.ok("proposals", "add", "DeepSpeed#4422", "root_cause",
                  "checkpoint_format", "--name", "Checkpoint format",
                  "--definition", "The saved layout does not match",
                  as_="alice")
        mid = self.s.dump()
        for v in ("1.0", "1.1"):
            err = self.s.fail("proposals", "accept", "1", "--version", v,
                              as_="carol")
            self.assertIn(v + " is already in the study", err)
        self.assertEqual(self.s.dump(), mid)
        self.assertNotEqual(before, mid)
        out = self.s.ok("proposals", "accept", "1", "--version", "1.2",
                        as_="carol")
        self.assertIn("1.2 is now current", out)
        # the very same text of an earlier version may come back
        out = self.s.ok("codebook", "update", CODEBOOK, "--map",
                        "root_cause:checkpoint_format=other")
        self.assertIn("1.0 is now current", out)


class Disagreements(unittest.TestCase):
    """`bugcoder disagreements`: the queue without the screen."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422,ColossalAI#2387",
                  "--annotators", "alice,bob")
        code("crash", "hang", self.s)
        code("crash", "crash", self.s, item="DeepSpeed#4422",
             alice_root="api_misuse", bob_root="configuration_error")
        code("crash", "crash", self.s, item="ColossalAI#2387")

    def tearDown(self):
        self.s.close()

    def test_owner_sees_names_adjudicator_sees_coders(self):
        out = self.s.ok("disagreements")
        self.assertIn("microsoft/DeepSpeed#4187 (r1)  symptom:", out)
        self.assertIn("alice crash", out)
        self.assertIn("bob hang", out)
        self.assertIn("root_cause:", out)
        self.assertIn("2 open disagreements", out)
        self.assertNotIn("ColossalAI#2387", out)
        blind = self.s.ok("disagreements", as_="carol")
        self.assertIn("Coder 1", blind)
        self.assertIn("Coder 2", blind)
        self.assertNotIn("alice", blind)
        self.assertNotIn("bob", blind)
        # Coder 1 is who the adjudicator's screen calls Coder 1: the
        # coder stored as coder1 once the item is resolved
        rows = list(csv.DictReader(io.StringIO(self.s.ok(
            "disagreements", "--format", "csv", as_="carol"))))
        self.assertEqual(len(rows), 4)
        self.assertEqual({r["reason"] for r in rows}, {"disagree"})
        c1 = [r["codes"] for r in rows if r["coder"] == "Coder 1" and
              r["item"] == "microsoft/DeepSpeed#4187"][0]
        self.s.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                  "--rationale", "r", as_="carol")
        self.assertEqual(self.s.query(
            "SELECT coder1_codes FROM resolutions"), [(c1,)])
        doc = json.loads(self.s.ok("disagreements", "--format", "json",
                                   "--round", "r1", as_="carol"))
        self.assertEqual(doc["round"], "r1")
        self.assertEqual([d["item"] for d in doc["disagreements"]],
                         ["microsoft/DeepSpeed#4422"])
        d = doc["disagreements"][0]
        self.assertEqual(d["dimension"], "root_cause")
        self.assertEqual(sorted(c["codes"][0] for c in d["coders"]),
                         ["api_misuse", "configuration_error"])
        self.assertEqual(sorted(c["coder"] for c in d["coders"]),
                         ["Coder 1", "Coder 2"])

    def test_blind_adjudication_is_a_setting_of_the_owner(self):
        self.assertIn("blind-adjudication: on", self.s.ok("study", "show"))
        # nobody else turns it off, and nothing changes when they try
        for who in ("carol", "alice"):
            err = self.s.fail("study", "set", "blind-adjudication", "off",
                              as_=who)
            self.assertIn("only the owner turns blind adjudication off",
                          err)
        self.assertNotIn("alice", self.s.ok("disagreements", as_="carol"))
        out = self.s.ok("study", "set", "blind-adjudication", "off")
        self.assertEqual(out, "blind adjudication off\n")
        self.assertIn("blind-adjudication: off",
                      self.s.ok("study", "show", as_="carol"))
        names = self.s.ok("disagreements", as_="carol")
        self.assertIn("alice crash", names)
        self.assertIn("bob hang", names)
        self.assertIn("(it was already)", self.s.ok(
            "study", "set", "blind-adjudication", "off"))
        self.s.ok("study", "set", "blind-adjudication", "on")
        self.assertNotIn("alice", self.s.ok("disagreements", as_="carol"))
        # two changes, both audited with old and new
        rows = [r for r in csv.DictReader(io.StringIO(self.s.ok(
            "audit", "--format", "csv"))) if r["action"] ==
            "blind_adjudication"]
        self.assertEqual([(r["old"], r["new"]) for r in rows],
                         [("1", "0"), ("0", "1")])
        self.s.fail("study", "set", "blind-adjudication", "maybe", code=2)
        self.s.fail("study", "set", "title", "x", code=2)

    def test_not_for_annotators_and_bad_input(self):
        err = self.s.fail("disagreements", as_="alice")
        self.assertIn("not allowed for alice", err)
        self.s.fail("disagreements", "--format", "xml", code=2)
        err = self.s.fail("disagreements", "--round", "nope")
        self.assertIn("nope", err)

    def test_discussion_flags_are_in_the_queue(self):
        # the flag is set on the screen (no command sets it): write the
        # row the screen writes
        with self.s.db() as db:
            db.execute("INSERT INTO flags (item_id, member_id, flag, "
                       "set_at) SELECT i.id, m.id, 'discuss', 'x' FROM "
                       "items i, members m WHERE i.number = 2387 AND "
                       "m.name = 'alice'")
        rows = list(csv.DictReader(io.StringIO(self.s.ok(
            "disagreements", "--format", "csv"))))
        flagged = [r for r in rows if r["item"].endswith("#2387")]
        self.assertEqual({r["reason"] for r in flagged}, {"discuss"})
        self.assertEqual({r["dimension"] for r in flagged}, {""})


class Proposals(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("proposals", "add", "DeepSpeed#4187", "root_cause",
                  "checkpoint_format", "--name", "Checkpoint format",
                  "--definition", "The saved layout does not match",
                  as_="alice")

    def tearDown(self):
        self.s.close()

    def test_proposal_labels_other_and_is_listed(self):
        self.assertEqual(self.s.query(
            "SELECT code, proposal_id FROM labels"), [("other", 1)])
        out = self.s.ok("proposals", as_="carol")
        self.assertIn("checkpoint_format", out)
        # a blind adjudicator is not told who proposed it: alice has
        # not submitted the item, so she is not even a numbered coder
        self.assertNotIn("alice", out)
        self.assertIn("alice", self.s.ok("proposals"))
        self.s.fail("proposals", as_="alice")

    def test_accept_makes_a_new_version(self):
        out = self.s.ok("proposals", "accept", "1", as_="carol")
        self.assertIn("1.1", out)
        self.assertEqual(self.s.query("SELECT code FROM labels"),
                         [("checkpoint_format",)])
        shown = self.s.ok("codebook", "show")
        self.assertIn("checkpoint_format", shown)
        self.assertIn("llm-framework-bugs 1.1", shown)
        err = self.s.fail("proposals", "accept", "1", as_="carol")
        self.assertIn("already accepted", err)

    def test_map_onto_existing(self):
        self.s.ok("proposals", "map", "1", "incorrect_implementation",
                  as_="carol")
        self.assertEqual(self.s.query("SELECT code FROM labels"),
                         [("incorrect_implementation",)])
        self.assertEqual(self.s.query(
            "SELECT status, decided_code FROM proposals"),
            [("mapped", "incorrect_implementation")])
        err = self.s.fail("proposals", "map", "1", "crash", as_="carol")
        self.assertIn("already", err)


if __name__ == "__main__":
    unittest.main()
