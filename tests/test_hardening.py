# SPDX-License-Identifier: MIT
"""What a clumsy or hostile input, or a kill, cannot do to a study: the
real ./bugcoder on temporary studies.

- `label --from` lines: #N is an item, '#' otherwise a comment, a bad
  line (a NUL byte among them) named with nothing saved;
- `label --evidence` with the path left out is refused, not a crash;
- memo, rationale, proposal name and definition, settle note, and a
  machine coder's rationale and note are at most 64 KiB: longer ones are
  refused naming the limit, by a command, a screen's editor or paste, or
  $EDITOR, and the study is left as it was;
- a `backup` killed with SIGKILL mid-way leaves nothing under the chosen
  name (no journal either), only a hidden temporary that the next backup
  removes, and that next backup is whole.

Standard library only.
"""
import glob
import json
import os
import random
import signal
import sqlite3
import stat
import subprocess
import time
import unittest

from bchelp import BIN, Study

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
            self.assertIn("; nothing saved", p.stderr)
        self.assertEqual(self.st.dump(), before)

    def test_evidence_path_left_out(self):
        p = self.st.run("label", "#4187", "symptom=hang", "--evidence",
                        "diff:12", as_="alice")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("--evidence diff:12: which file of the diff?",
                      p.stderr)
        self.assertEqual(self.labels(), [])


LIMIT = 64 * 1024
CODES = ["symptom=hang", "root_cause=api_misuse",
         "fix_pattern=conditional_logic", "phase=training"]
LIMIT_MSG = "bytes, more than the limit of 64 KiB (65536 bytes)"


class Limits(unittest.TestCase):
    """Free texts are bounded: one byte over 64 KiB is refused, from every
    way in, and nothing changes; 64 KiB itself is taken."""

    def setUp(self):
        self.st = Study(members=[("alice", "annotator"),
                                 ("bob", "annotator"),
                                 ("carol", "adjudicator")])
        self.item = "microsoft/DeepSpeed#4187"

    def tearDown(self):
        self.st.close()

    def refused(self, *args, as_=None, env=None, what=""):
        before = self.st.dump()
        p = self.st.run(*args, as_=as_, env=env)
        self.assertEqual(p.returncode, 1, p.stderr + p.stdout)
        self.assertIn(what + " is %d %s" % (LIMIT + 1, LIMIT_MSG), p.stderr)
        self.assertEqual(self.st.dump(), before)

    def both_submit(self, item, alice=CODES, bob=CODES):
        self.st.ok("label", item, *alice, "--submit", as_="alice")
        self.st.ok("label", item, *bob, "--submit", as_="bob")

    def screen(self, args, as_, keys, editor_text=None):
        """Run a screen on a key script, $EDITOR writing `editor_text`
        into the file it is given; returns the finished process."""
        script = os.path.join(self.st.dir, "keys")
        with open(script, "w") as f:
            f.write(keys)
        env = {"BUGCODER_KEYS": script, "BUGCODER_NO_DISPLAY": "1",
               "LINES": "40", "COLUMNS": "120", "TERM": "dumb",
               "XDG_CONFIG_HOME": os.path.join(self.st.dir, "cfg"),
               "BUGCODER_DUMP_DIR": self.st.dir}
        if editor_text is not None:
            text = os.path.join(self.st.dir, "editor-text")
            with open(text, "w") as f:
                f.write(editor_text)
            editor = os.path.join(self.st.dir, "editor.sh")
            with open(editor, "w") as f:
                f.write('#!/bin/sh\ncat "%s" > "$1"\n' % text)
            os.chmod(editor, stat.S_IRWXU)
            env["EDITOR"] = editor
            env["VISUAL"] = ""
        p = self.st.run(*args, as_=as_, env=env)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        return p

    def dump(self, name):
        with open(os.path.join(self.st.dir, name)) as f:
            return f.read()

    def test_rationale(self):
        self.both_submit(self.item, bob=["symptom=crash"] + CODES[1:])
        self.refused("resolve", self.item, "symptom=hang", "--rationale",
                     "r" * (LIMIT + 1), as_="carol", what="the rationale")
        self.st.ok("resolve", self.item, "symptom=hang", "--rationale",
                   "r" * LIMIT, as_="carol")
        self.assertEqual(self.st.query(
            "SELECT length(rationale) FROM resolutions"), [(LIMIT,)])

    def test_proposal_name_and_definition(self):
        for opt, what in (("--name", "the proposal's name"),
                          ("--definition", "the proposal's definition")):
            args = {"--name": "N", "--definition": "D"}
            args[opt] = "x" * (LIMIT + 1)
            self.refused("proposals", "add", self.item, "root_cause",
                         "ckpt_format", "--name", args["--name"],
                         "--definition", args["--definition"],
                         as_="alice", what=what)
        self.st.ok("proposals", "add", self.item, "root_cause",
                   "ckpt_format", "--name", "n" * LIMIT, "--definition",
                   "d" * LIMIT, as_="alice")

    def test_memo_typed_pasted_or_from_the_editor(self):
        memos = "SELECT count(*) FROM memos"
        # pasted into the memo editor, Esc saves: refused, kept there
        self.screen(["code", self.item], "alice",
                    "m\n:paste %s\n<Esc>\n:dump-screen memo\n<C-g>\nq\n"
                    % ("x" * (LIMIT + 1)))
        self.assertIn("memo not saved: the memo is %d" % (LIMIT + 1),
                      self.dump("memo"))
        self.assertIn("Memo on", self.dump("memo"))
        self.assertEqual(self.st.query(memos), [(0,)])
        # from $EDITOR (M): refused, and the text opens in the memo
        # editor rather than being lost
        self.screen(["code", self.item], "alice",
                    "M\n:dump-screen editor\n<C-g>\nq\n",
                    editor_text="y" * (LIMIT + 1))
        self.assertIn("memo not saved: the memo is %d" % (LIMIT + 1),
                      self.dump("editor"))
        self.assertIn("Memo on", self.dump("editor"))
        self.assertIn("yyyyyyyy", self.dump("editor"))
        self.assertEqual(self.st.query(memos), [(0,)])
        # 64 KiB is a memo
        self.screen(["code", self.item], "alice", "M\nq\n",
                    editor_text="z" * LIMIT)
        self.assertEqual(self.st.query("SELECT length(text) FROM memos"),
                         [(LIMIT,)])

    def test_settle_note(self):
        self.both_submit(self.item)
        self.screen(["code", self.item], "alice", "d\nq\n")
        before = self.st.dump()
        self.screen(["adjudicate", self.item], "carol",
                    "S\n:paste %s\n<Enter>\n:dump-screen settle\n<Esc>\nq\n"
                    % ("n" * (LIMIT + 1)))
        self.assertIn("not saved: the settle note is %d" % (LIMIT + 1),
                      self.dump("settle"))
        self.assertEqual(self.st.dump(), before)
        # from $EDITOR too (C-o in the settle dialog)
        self.screen(["adjudicate", self.item], "carol",
                    "S\n<C-o>\n:dump-screen settle2\n<Esc>\nq\n",
                    editor_text="e" * (LIMIT + 1))
        self.assertIn("not saved: the settle note is %d" % (LIMIT + 1),
                      self.dump("settle2"))
        self.assertEqual(self.st.dump(), before)
        self.screen(["adjudicate", self.item], "carol",
                    "S\n:paste %s\n<Enter>\nq\n" % ("n" * LIMIT))
        self.assertEqual(self.st.query("SELECT length(note) FROM settled"),
                         [(LIMIT,)])

    def test_machine_rationale_and_note(self):
        self.st.ok("member", "add", "bot", "--role", "machine")
        self.st.ok("round", "create", "r1", "--items", self.item,
                   "--annotators", "alice,bot")
        answer = os.path.join(self.st.dir, "answer.json")
        with open(answer, "w") as f:
            json.dump({"labels": {"symptom": "hang",
                                  "root_cause": "api_misuse",
                                  "fix_pattern": ["conditional_logic"],
                                  "phase": "training"},
                       "rationale": "w" * (LIMIT + 1)}, f)
        before = self.st.dump()
        p = self.st.run("machine-code", "bot", "--command",
                        "cat " + answer)
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn("the answer's rationale is %d %s" % (LIMIT + 1,
                                                          LIMIT_MSG),
                      p.stderr + p.stdout)
        self.assertEqual(self.st.query(
            "SELECT count(*) FROM machine_answers"), [(0,)])
        self.refused("machine-code", "bot", "--command", "cat " + answer,
                     "--note", "n" * (LIMIT + 1), what="--note")


class KilledBackup(unittest.TestCase):
    """kill -9 a backup of a 60 MB study at ten points of its copy."""

    @classmethod
    def setUpClass(cls):
        cls.st = Study(items=None)
        items = os.path.join(cls.st.dir, "big.jsonl")
        r = random.Random(7)
        words = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]
        with open(items, "w") as f:
            for i in range(1, 2501):
                body = " ".join(r.choice(words) + str(r.randrange(1000))
                                for _ in range(2000))
                f.write(json.dumps({"repo": "big/repo", "number": i,
                                    "title": "t%d" % i, "body": body}))
                f.write("\n")
        cls.st.ok("import", items)
        os.unlink(items)

    @classmethod
    def tearDownClass(cls):
        cls.st.close()

    def leftovers(self, d):
        return sorted(glob.glob(os.path.join(d, ".copy.db.bugcoder-tmp-*")))

    def test_kill_mid_way_leaves_nothing_under_the_name(self):
        d = os.path.join(self.st.dir, "out")
        os.mkdir(d)
        copy = os.path.join(d, "copy.db")
        size = os.path.getsize(self.st.path)
        killed = 0
        for k in range(10):
            p = subprocess.Popen([BIN, "--study", self.st.path, "backup",
                                  copy], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            # wait until the copy is k/10 written, then kill it
            want = size * k // 10
            deadline = time.monotonic() + 60
            while p.poll() is None and time.monotonic() < deadline:
                # whatever it writes to: its temporary, or the name
                written = [t for t in self.leftovers(d) + [copy]
                           if not t.endswith(("-journal", "-wal", "-shm"))]
                try:
                    if any(os.path.getsize(t) >= want and want
                           for t in written if os.path.exists(t)):
                        break
                    if not want and written:
                        break
                except OSError:
                    pass
                time.sleep(0.0005)
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                killed += 1
            p.wait()
            if p.returncode == -signal.SIGKILL:
                # nothing under the name, no journal beside it; one
                # temporary at most (the killed one: the last backup
                # removed the ones before)
                self.assertFalse(os.path.exists(copy), k)
                self.assertEqual(glob.glob(copy + "*"), [], k)
                self.assertLessEqual(
                    len([t for t in self.leftovers(d)
                         if not t.endswith(("-journal", "-wal", "-shm"))]),
                    1, self.leftovers(d))
            else:
                # it finished first: then the copy is whole
                self.assertEqual(p.returncode, 0, k)
                os.unlink(copy)
        self.assertGreaterEqual(killed, 8)
        self.assertNotEqual(self.leftovers(d), [])
        # the next backup to the name is not refused, and cleans up
        out = self.st.ok("backup", copy)
        self.assertIn("copy.db", out)
        self.assertEqual(self.leftovers(d), [])
        self.assertEqual(sorted(os.listdir(d)), ["copy.db"])
        self.assertEqual(stat.S_IMODE(os.stat(copy).st_mode), 0o600)
        with sqlite3.connect(copy) as c:
            self.assertEqual(c.execute("PRAGMA integrity_check").fetchall(),
                             [("ok",)])
            self.assertEqual(c.execute("PRAGMA journal_mode").fetchall(),
                             [("delete",)])
            self.assertEqual(c.execute("SELECT count(*) FROM items")
                             .fetchall(), [(2500,)])

    def test_existing_file_never_replaced(self):
        d = os.path.join(self.st.dir, "keep")
        os.mkdir(d)
        keep = os.path.join(d, "keep.db")
        with open(keep, "w") as f:
            f.write("mine")
        p = self.st.run("backup", keep)
        self.assertEqual(p.returncode, 1)
        self.assertIn("keep.db: already exists; name a new file", p.stderr)
        with open(keep) as f:
            self.assertEqual(f.read(), "mine")
        self.assertEqual(os.listdir(d), ["keep.db"])


if __name__ == "__main__":
    unittest.main()
