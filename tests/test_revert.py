# SPDX-License-Identifier: MIT
"""Undo for the owner: `codebook revert VERSION` goes back to an earlier
codebook version, refusing (naming them) while labels use a code that
version lacks unless --map moves them; a proposal accepted since is
undone the same way: open again, its labels back on `other` with the
proposal attached.  Everything audited.

Before: a codebook version, or an accepted proposal, could not be taken
back without SQL."""
import json
import os
import unittest

from bchelp import CODEBOOK, Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]


class Revert(unittest.TestCase):
    def setUp(self):
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

    def audit(self, action):
        return self.s.query("SELECT old, new FROM audit WHERE action = ? "
                            "ORDER BY id", action)

    def current(self):
        return self.s.query("SELECT version FROM codebooks WHERE current")

    def test_revert_a_version(self):
        self.s.ok("label", "DeepSpeed#4187",
                  "root_cause=configuration_error", as_="alice")
        self.s.ok("codebook", "update", self.v2, "--map",
                  "root_cause:configuration_error=misconfig")
        self.s.ok("label", "DeepSpeed#4422", "root_cause=misconfig",
                  as_="bob")
        before = self.s.dump()
        # labels on a code 1.0 lacks: named, nothing changed
        err = self.s.fail("codebook", "revert", "1.0")
        self.assertIn("version 1.0 lacks codes labels use: "
                      "root_cause=misconfig (2 labels)", err)
        self.assertIn("--map root_cause:misconfig=NEW", err)
        self.assertEqual(before, self.s.dump())
        # owner only
        self.s.fail("codebook", "revert", "1.0", "--map",
                    "root_cause:misconfig=configuration_error", as_="carol")
        out = self.s.ok("codebook", "revert", "1.0", "--map",
                        "root_cause:misconfig=configuration_error")
        self.assertIn("codebook llm-framework-bugs 1.0 is current again "
                      "(it was 2.0); 2 labels", out)
        self.assertEqual(self.current(), [("1.0",)])
        self.assertEqual(self.s.query(
            "SELECT DISTINCT code FROM labels WHERE dimension = "
            "'root_cause'"), [("configuration_error",)])
        self.assertEqual(self.audit("codebook.revert"),
                         [("2.0", "llm-framework-bugs 1.0")])
        # the history keeps every step: 1.0, 2.0, 1.0 again
        self.assertEqual(self.s.query(
            "SELECT version, source LIKE 'revert%' FROM codebooks "
            "ORDER BY id"), [("1.0", 0), ("2.0", 0), ("1.0", 1)])
        # a pick is checked against 1.0 now
        err = self.s.fail("label", "DeepSpeed#4422", "root_cause=misconfig",
                          as_="bob")
        self.assertIn("no such code", err)

    def test_revert_refusals(self):
        err = self.s.fail("codebook", "revert", "1.0")
        self.assertIn("1.0 is the current version already", err)
        self.s.ok("codebook", "update", self.v2)
        err = self.s.fail("codebook", "revert", "1.1")
        self.assertIn("codebook version 1.1: the study never had it; "
                      "did you mean 1.0?", err)
        err = self.s.fail("codebook", "revert", "1.0", "--map",
                          "root_cause:misconfig=nosuch")
        self.assertIn("nosuch is not a code of root_cause in version 1.0",
                      err)
        self.s.fail("codebook", "revert", code=2)

    def test_undo_an_accepted_proposal(self):
        self.s.ok("proposals", "add", "DeepSpeed#4187", "root_cause",
                  "checkpoint_format", "--name", "Checkpoint format",
                  "--definition", "The saved layout does not match",
                  as_="alice")
        self.s.ok("proposals", "accept", "1", as_="carol")
        self.assertEqual(self.s.query("SELECT code FROM labels"),
                         [("checkpoint_format",)])
        out = self.s.ok("codebook", "revert", "1.0")
        self.assertIn("1 accepted proposal is open again, 1 label back on "
                      "other", out)
        self.assertEqual(self.s.query("SELECT code, proposal_id FROM "
                                      "labels"), [("other", 1)])
        self.assertEqual(self.s.query(
            "SELECT status, decided_code FROM proposals"), [("open", None)])
        self.assertEqual(self.audit("proposal.reopen"),
                         [("checkpoint_format",
                           "open (1 label back to other)")])
        self.assertNotIn("checkpoint_format", self.s.ok("codebook", "show"))
        # and it can be decided again
        self.s.ok("proposals", "map", "1", "incorrect_implementation",
                  as_="carol")
        self.assertEqual(self.s.query("SELECT code FROM labels"),
                         [("incorrect_implementation",)])

    def test_help(self):
        out = self.s.ok("codebook", "--help")
        self.assertIn("revert VERSION", out)


if __name__ == "__main__":
    unittest.main()
