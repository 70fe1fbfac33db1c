# SPDX-License-Identifier: MIT
"""Messages that explain themselves: "did you mean" for commands, items,
codes, dimensions, members and codebooks; what is at the path `init`
will not use; permission problems that name the file, the operation and
the missing permission; a terminal that cannot show the screen; a locale
that is not UTF-8.

Before: `rund: unknown command`, `no such item`, `no such code`, `not a
member` with no hint; `init` on a directory said a study already
existed; a permission problem showed only `unable to open database
file`; TERM=dumb showed a blank screen and an unknown TERM was refused
with no hint; a non-UTF-8 locale turned text into `??` with no word."""
import os
import pty
import select
import shutil
import stat
import subprocess
import time
import unittest

from bchelp import BIN, Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]


def run_tty(args, env, timeout=20):
    """Run bugcoder on a pseudo-terminal (stdin and stdout); returns
    (exit code, what it wrote to the terminal, stderr)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, *args], env=env, stdin=slave, stdout=slave,
                         stderr=subprocess.PIPE)
    os.close(slave)
    out = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    if p.poll() is None:
        p.kill()
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    rc = p.wait(timeout=10)
    os.close(master)
    return rc, out, err


class DidYouMean(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Study(members=MEMBERS)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_commands(self):
        err = self.s.fail("rund", "list", code=2)
        self.assertTrue(err.startswith("bugcoder: rund: unknown command; "
                                       "did you mean `bugcoder round`?"),
                        err)
        err = self.s.fail("lable", code=2)
        self.assertIn("did you mean `bugcoder label`?", err)
        err = self.s.fail("frobnicate", code=2)
        self.assertNotIn("did you mean", err)

    def test_items(self):
        err = self.s.fail("label", "DeepSpeed#4817", "symptom=crash",
                          as_="alice")
        self.assertIn("DeepSpeed#4817: no such item; did you mean "
                      "DeepSpeed#4187?", err)
        err = self.s.fail("label", "microsoft/DeepSped#4187",
                          "symptom=crash", as_="alice")
        self.assertIn("did you mean microsoft/DeepSpeed#4187?", err)
        err = self.s.fail("label", "nosuch/repo#1", "symptom=crash",
                          as_="alice")
        self.assertNotIn("did you mean", err)

    def test_codes_and_dimensions(self):
        err = self.s.fail("label", "DeepSpeed#4187", "symptom=crahs",
                          as_="alice")
        self.assertIn("symptom=crahs: no such code in dimension symptom; "
                      "did you mean crash?", err)
        err = self.s.fail("label", "DeepSpeed#4187", "symtom=crash",
                          as_="alice")
        self.assertIn("did you mean symptom?", err)
        err = self.s.fail("resolve", "DeepSpeed#4187",
                          "root_cause=api_missuse", "--rationale", "x",
                          as_="carol")
        self.assertIn("did you mean api_misuse?", err)
        csv = os.path.join(self.s.dir, "l.csv")
        with open(csv, "w") as f:
            f.write("item,annotator,dimension,code\n"
                    "microsoft/DeepSpeed#4187,alice,phase,trainng\n")
        err = self.s.fail("labels", "import", csv, as_="alice")
        self.assertIn(f"{csv}:2: code: trainng is not a code of phase; "
                      "did you mean training?", err)

    def test_members(self):
        err = self.s.fail("items", as_="alcie")
        self.assertIn("alcie: not a member of this study; did you mean "
                      "alice?", err)
        err = self.s.fail("round", "create", "r", "--items", "all",
                          "--annotators", "alice,bbo")
        self.assertIn("did you mean bob?", err)
        self.assertEqual(self.s.query("SELECT count(*) FROM rounds"),
                         [(0,)])

    def test_codebooks(self):
        p = self.s.run("--study", os.path.join(self.s.dir, "n.db"), "init",
                       "--codebook", "llm-framework-bug")
        self.assertEqual(p.returncode, 1)
        self.assertIn("llm-framework-bug: no such file, nor a bundled "
                      "codebook of that name; did you mean "
                      "llm-framework-bugs?", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.s.dir, "n.db")))


class InitSaysWhatIsThere(unittest.TestCase):
    def setUp(self):
        self.s = Study(items=None)

    def tearDown(self):
        self.s.close()

    def init_at(self, path):
        p = self.s.run("--study", path, "init")
        self.assertEqual(p.returncode, 1, p.stdout)
        return p.stderr

    def test_what_is_at_the_path(self):
        d = self.s.dir
        err = self.init_at(self.s.path)
        self.assertIn("a bugcoder study is there already", err)
        err = self.init_at(d)
        self.assertIn(f"{d}: cannot create a study here: it is a "
                      f"directory (name a study file in it, e.g. --study "
                      f"{d}/bugcoder.db)", err)
        self.assertNotIn("already", err)
        empty = os.path.join(d, "empty.db")
        open(empty, "w").close()
        self.assertIn("an empty file is there", self.init_at(empty))
        text = os.path.join(d, "notes.txt")
        with open(text, "w") as f:
            f.write("hello\n")
        self.assertIn("a file of 6 bytes that is not a study",
                      self.init_at(text))
        import sqlite3
        other = os.path.join(d, "other.db")
        con = sqlite3.connect(other)
        con.execute("CREATE TABLE t (x)")
        con.commit()
        con.close()
        self.assertIn("an SQLite database that is not a bugcoder study",
                      self.init_at(other))


class Permissions(unittest.TestCase):
    """As another account (nobody, when the tests run as root), or as the
    owner of files whose permission bits are taken away."""

    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.root = os.geteuid() == 0
        if self.root:
            self.s.ok("member", "add", "nobody", "--role", "annotator")
            os.chmod(self.s.dir, 0o755)
        self.who = "nobody" if self.root else None

    def tearDown(self):
        for name in os.listdir(self.s.dir):
            os.chmod(os.path.join(self.s.dir, name), 0o700)
        os.chmod(self.s.dir, 0o700)
        self.s.close()

    def run_other(self, *args):
        def drop():
            if self.root:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
        env = dict(os.environ)
        return subprocess.run([BIN, "--study", self.s.path, *args],
                              cwd="/", env=env, capture_output=True,
                              text=True, preexec_fn=drop, timeout=60)

    def test_unreadable_study(self):
        os.chmod(self.s.path, 0o200 if not self.root else 0o600)
        p = self.run_other("items")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(f"{self.s.path}: cannot read the study: no read "
                      "permission (", p.stderr)
        self.assertNotIn("unable to open database file", p.stderr)
        if self.who:
            self.assertIn("you are nobody", p.stderr)

    def test_unwritable_study(self):
        os.chmod(self.s.path, 0o644 if self.root else 0o444)
        for side in ("-wal", "-shm"):
            if os.path.exists(self.s.path + side):
                os.chmod(self.s.path + side, 0o666)
        p = self.run_other("label", "DeepSpeed#4187", "symptom=crash",
                           *(["--as", "alice"] if not self.root else []))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(f"{self.s.path}: cannot write the study: no write "
                      "permission (r", p.stderr)

    def test_directory_without_write_permission(self):
        # no journal files yet: WAL mode must create them next to it
        for side in ("-wal", "-shm"):
            if os.path.exists(self.s.path + side):
                os.remove(self.s.path + side)
        os.chmod(self.s.path, 0o666)
        os.chmod(self.s.dir, 0o755 if self.root else 0o555)
        # reading works in a read-only directory; a write says why not
        p = self.run_other("items")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("30 items", p.stdout)
        p = self.run_other("label", "DeepSpeed#4187", "symptom=crash",
                           *(["--as", "alice"] if not self.root else []))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(f"{self.s.dir}: cannot create {self.s.path}-wal (the "
                      "study's journal) in it: no write permission (r-x"
                      if not self.root else
                      f"{self.s.dir}: cannot create {self.s.path}-wal (the "
                      "study's journal) in it: no write permission (rwx",
                      p.stderr)
        new = os.path.join(self.s.dir, "new.db")
        p = self.run_other("--study", new, "init")
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"{self.s.dir}: cannot create {new} in it: no write "
                      "permission", p.stderr)


class Terminal(unittest.TestCase):
    def setUp(self):
        self.s = Study(members=MEMBERS)
        self.keys = os.path.join(self.s.dir, "keys")
        with open(self.keys, "w") as f:
            f.write("q\n")

    def tearDown(self):
        self.s.close()

    def env(self, **kw):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(("BUGCODER_", "LC_", "LANG", "TERM"))}
        e.update(LC_ALL="C.UTF-8", BUGCODER_KEYS=self.keys)
        e.update(kw)
        return {k: v for k, v in e.items() if v is not None}

    def code(self, **env):
        return run_tty(["--study", self.s.path, "--as", "alice", "code"],
                       self.env(**env))

    def test_dumb_terminal(self):
        rc, out, err = self.code(TERM="dumb")
        self.assertEqual(rc, 1, err)
        self.assertIn("TERM=dumb", err)
        self.assertIn("set TERM to your terminal's type "
                      "(TERM=xterm-256color", err)

    def test_unset_and_unknown_terminals(self):
        rc, out, err = self.code(TERM=None)
        self.assertEqual(rc, 1, err)
        self.assertIn("TERM is not set", err)
        rc, out, err = self.code(TERM="xterm-nosuch-terminal")
        self.assertEqual(rc, 1, err)
        self.assertIn("TERM=xterm-nosuch-terminal: this system has no "
                      "terminfo entry for it", err)
        self.assertIn("TERM=xterm-256color", err)

    def test_a_good_terminal_opens(self):
        rc, out, err = self.code(TERM="xterm")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("warning", err)

    def test_non_utf8_locale_warns_once(self):
        rc, out, err = self.code(TERM="xterm", LC_ALL="C")
        self.assertEqual(rc, 0, err)
        lines = [ln for ln in err.splitlines() if "warning" in ln]
        self.assertEqual(len(lines), 1, err)
        self.assertIn("not UTF-8", lines[0])
        self.assertIn("LANG=C.UTF-8", lines[0])
        # written before the screen opened
        self.assertTrue(err.startswith("bugcoder: warning:"), err)


if __name__ == "__main__":
    unittest.main()
