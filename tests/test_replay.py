# SPDX-License-Identifier: MIT
"""`audit verify` checks the study against its audit log: the chain, the
schema bugcoder makes, and the state a replay of the log gives; it prints
the log's head, and `--head HASH` checks the log still begins with the
one that head closed.  The sample study verifies after every command it
is made with; changes made with the sqlite3 shell are named."""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from bchelp import BIN, ROOT, Study, verifying_shim

MEMBERS = (("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator"))
FULL = ["symptom=crash", "root_cause=api_misuse",
        "fix_pattern=conditional_logic", "phase=training"]


def head_of(out):
    """The head hash `audit verify` printed."""
    line = out.splitlines()[0]
    return line.rsplit(" ", 1)[1]


class SampleStudy(unittest.TestCase):
    """tests/demo.sh (what `make demo` makes) run as written, through a
    bugcoder that runs `audit verify` after each of its commands."""

    def test_sample_verifies_after_every_command(self):
        tmp = tempfile.mkdtemp(prefix="bugcoder-replay-")
        try:
            os.mkdir(os.path.join(tmp, "tests"))
            shutil.copy(os.path.join(ROOT, "tests", "demo.sh"),
                        os.path.join(tmp, "tests", "demo.sh"))
            os.symlink(os.path.join(ROOT, "tests", "sample"),
                       os.path.join(tmp, "tests", "sample"))
            os.symlink(os.path.join(ROOT, "codebooks"),
                       os.path.join(tmp, "codebooks"))
            log = os.path.join(tmp, "verify.log")
            shim = verifying_shim(os.path.join(tmp, "shim"), BIN, log)
            os.symlink(shim, os.path.join(tmp, "bugcoder"))
            p = subprocess.run(["sh", "tests/demo.sh"], cwd=tmp,
                               stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertFalse(os.path.exists(log), os.path.exists(log) and
                             open(log).read())
            db = os.path.join(tmp, "tests", "tmp", "demo", "study.db")
            p = subprocess.run([BIN, "--study", db, "audit", "verify"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("state: as replaying the log gives it", p.stdout)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Verify(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.s.ok("round", "create", "r1", "--items",
                  "DeepSpeed#4187,DeepSpeed#4422", "--annotators",
                  "alice,bob")
        self.s.ok("label", "DeepSpeed#4187", *FULL, "--submit", as_="alice")
        self.s.ok("label", "DeepSpeed#4187", "symptom=hang",
                  "root_cause=api_misuse", "fix_pattern=conditional_logic",
                  "phase=training", "--submit", as_="bob")

    def tearDown(self):
        self.s.close()

    def sql(self, script):
        """Change the study as someone with the file would: the sqlite3
        shell, nothing of bugcoder's."""
        p = subprocess.run(["sqlite3", self.s.path, script],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def verify(self, *args, as_=None):
        return self.s.run("audit", "verify", *args, as_=as_)

    def test_clean_study_prints_head_schema_and_state(self):
        p = self.verify()
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertRegex(lines[0], r"^audit log: \d+ rows, the chain holds; "
                         r"head [0-9a-f]{64}$")
        self.assertRegex(lines[1], r"^schema: version \d+, \d+ tables, "
                         "indexes and triggers as bugcoder makes them$")
        self.assertTrue(lines[2].startswith("state: as replaying the log "
                                            "gives it"))
        self.assertIn("rows of state compared", lines[2])
        # the head is the newest row's hash
        (h,) = self.s.query("SELECT hash FROM audit ORDER BY id DESC "
                            "LIMIT 1")[0]
        self.assertEqual(head_of(p.stdout), h)
        # how much there is to compare is progress an annotator is not
        # told
        p = self.verify(as_="alice")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[2],
                         "state: as replaying the log gives it")

    def test_a_label_changed_with_sqlite3_is_named(self):
        self.sql("UPDATE labels SET code = 'memory_issue' WHERE dimension = "
                 "'symptom' AND member_id = (SELECT id FROM members WHERE "
                 "name = 'alice')")
        p = self.verify()
        self.assertEqual(p.returncode, 1)
        err = p.stderr.strip().splitlines()
        self.assertEqual(len(err), 1, p.stderr)
        self.assertIn("state: labels (item microsoft/DeepSpeed#4187, member "
                      "alice, dimension symptom, code crash): in what the "
                      "audit log gives, not in the study", err[0])
        # an annotator is told where, not what or whose
        p = self.verify(as_="bob")
        self.assertEqual(p.returncode, 1)
        self.assertIn("labels (item microsoft/DeepSpeed#4187, dimension "
                      "symptom)", p.stderr)
        self.assertNotIn("alice", p.stderr)
        self.assertNotIn("crash", p.stderr)
        # doctor runs the same check
        p = self.s.run("doctor")
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"FAIL +state: labels \(item "
                         r"microsoft/DeepSpeed#4187, member alice")

    def test_a_dropped_trigger_is_named(self):
        self.sql("DROP TRIGGER audit_no_delete")
        p = self.verify()
        self.assertEqual(p.returncode, 1)
        self.assertIn("schema: the trigger audit_no_delete that bugcoder "
                      "makes is missing", p.stderr)
        p = self.s.run("doctor")
        self.assertRegex(p.stdout, r"FAIL +schema: the trigger "
                         "audit_no_delete")

    def test_other_changes_are_named(self):
        for script, want in (
                ("UPDATE members SET role = 'adjudicator' WHERE name = "
                 "'alice'", "state: members (id 2): role is \"adjudicator\""),
                ("DELETE FROM submissions", "state: submissions"),
                ("UPDATE rounds SET closed_at = '2024-01-01T00:00:00Z'",
                 "state: rounds (id 1): closed_at"),
                ("CREATE INDEX x ON labels (labeled_at)",
                 "schema: the index x is not one bugcoder makes"),
                ("UPDATE codebooks SET json = json || ' '",
                 "state: codebooks (id 1): sha256")):
            backup = self.s.path + ".orig"
            shutil.copy(self.s.path, backup)
            try:
                self.sql(script)
                p = self.verify()
                self.assertEqual(p.returncode, 1, script)
                self.assertIn(want, p.stderr, script)
            finally:
                shutil.copy(backup, self.s.path)
        self.assertEqual(self.verify().returncode, 0)

    def test_replaced_study_caught_with_head(self):
        head = head_of(self.verify().stdout)
        # the log only grows: the head stays in it
        self.s.ok("member", "add", "dave", "--role", "annotator")
        p = self.verify("--head", head)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("so the log still begins with the log it pinned",
                      p.stdout)
        # another study, whole and consistent, put in this one's place
        other = Study(members=MEMBERS)
        try:
            other.ok("label", "DeepSpeed#4187", "symptom=hang", as_="alice")
            self.assertEqual(other.run("audit", "verify").returncode, 0)
            self.sql(".restore '%s'" % other.path)
        finally:
            other.close()
        self.assertEqual(self.verify().returncode, 0)
        p = self.verify("--head", head)
        self.assertEqual(p.returncode, 1)
        self.assertIn("audit log: no row has head " + head, p.stderr)
        self.assertIn("another study", p.stderr)
        # a head is 64 hex digits
        p = self.verify("--head", "abc")
        self.assertEqual(p.returncode, 2)
        p = self.s.run("audit", "--head", head)
        self.assertEqual(p.returncode, 2)

    def test_package_records_the_head(self):
        self.s.ok("export", "--package", "pkg")
        with open(os.path.join(self.s.dir, "pkg", "manifest.json")) as f:
            m = json.load(f)
        head = m["audit_head"]["sha256"]
        (row,) = self.s.query("SELECT id FROM audit WHERE hash = ?", head)[0]
        self.assertEqual(m["audit_head"]["row"], row)
        self.s.ok("member", "add", "dave", "--role", "annotator")
        p = self.verify("--head", head)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_detail_is_the_owners(self):
        rows = list(csv.DictReader(io.StringIO(
            self.s.ok("audit", "--format", "csv"))))
        self.assertIn("detail", rows[0])
        create = [r for r in rows if r["action"] == "round.create"][0]
        detail = json.loads(create["detail"])
        ids = [r[0] for r in self.s.query("SELECT item_id FROM assignments "
                                          "ORDER BY position")]
        self.assertEqual(detail["items"], "%d-%d" % (ids[0], ids[1])
                         if ids[1] == ids[0] + 1 else "%d,%d" % tuple(ids))
        self.assertEqual(len(detail["annotators"]), 2)
        mine = list(csv.DictReader(io.StringIO(
            self.s.ok("audit", "--format", "csv", as_="alice"))))
        self.assertTrue(mine)
        self.assertTrue(all(r["detail"] == "" for r in mine))

    def test_bulk_labels_and_resolutions_replay(self):
        path = os.path.join(self.s.dir, "codes.txt")
        with open(path, "w") as f:
            f.write("DeepSpeed#4422 symptom=hang root_cause=api_misuse "
                    "fix_pattern=conditional_logic,synchronization "
                    "phase=inference --submit\n")
        self.s.ok("label", "--from", path, as_="alice")
        self.s.ok("label", "DeepSpeed#4422", *FULL, "--submit", as_="bob")
        self.s.ok("round", "close", "r1")
        self.s.ok("resolve", "DeepSpeed#4187", "symptom=hang",
                  "--rationale", "the trace", "--cause", "slip",
                  as_="carol")
        p = self.verify()
        self.assertEqual(p.returncode, 0, p.stderr)
        # the coders the adjudicator saw are part of what is checked
        self.sql("UPDATE resolutions SET coder1_codes = 'x'")
        p = self.verify()
        self.assertEqual(p.returncode, 1)
        self.assertIn("resolutions (item microsoft/DeepSpeed#4187, "
                      "dimension symptom): coder1_codes", p.stderr)


if __name__ == "__main__":
    unittest.main()
