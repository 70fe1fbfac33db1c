# SPDX-License-Identifier: MIT
"""CLI tests: the real ./bugcoder on temporary studies.

Covers the commands of the foundation (init, member, codebook, import,
items, status), the global options, exit codes (0 ok, 1 user-fixable, 2
usage, 3 transient) and every bad-input path: malformed JSON, a bad field
on line 7, missing fields, wrong types, bad dates, unreadable and empty
files, non-owners, init over a study, unknown commands, missing arguments,
bad codebooks.  A refused import must leave the study exactly as it was,
which is checked by dumping every table with Python's sqlite3 before and
after.

Standard library only.  Run from anywhere; paths are made from this file.
"""
import datetime
import json
import os
import pty
import pwd
import re
import shutil
import sqlite3
import stat
import subprocess
from bchelp import Study
import tempfile
import threading
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bugcoder")
CODEBOOK = os.path.join(ROOT, "codebooks", "llm-framework-bugs.json")
CODEBOOK_DL = os.path.join(ROOT, "codebooks", "dl-framework-bugs.json")
BAD_CODEBOOKS = os.path.join(ROOT, "tests", "fixtures", "codebooks")
GITHUB = os.path.join(ROOT, "tests", "fixtures", "github", "rest")
SAMPLE = os.path.join(ROOT, "tests", "sample", "items.jsonl")
HOSTILE_RAW = os.path.join(ROOT, "tests", "sample", "hostile-raw.jsonl")
HOSTILE = "hpcaitech/ColossalAI#5467"

# The commands of this issue; each must answer --help.
ISSUE_COMMANDS = ["init", "member", "codebook", "import", "items", "status"]


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BUGCODER_")}
    env.update(TZ="UTC", LC_ALL="C.UTF-8")
    env.update(extra)
    return env


def run(args, cwd=None, env=None, umask=None, timeout=60):
    """Run bugcoder with `args`; text output."""
    def pre():
        if umask is not None:
            os.umask(umask)
    return subprocess.run([BIN] + list(args), cwd=cwd or ROOT,
                          env=env or clean_env(), capture_output=True,
                          text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL,
                          preexec_fn=pre if umask is not None else None)


def run_pty(args, env=None):
    """Run bugcoder with stdout on a pseudo-terminal; returns (rc, bytes
    written to the terminal, stderr bytes)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN] + list(args), cwd=ROOT,
                         env=env or clean_env(), stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:		# EIO: the other side is closed
            break
        if not chunk:
            break
        out += chunk
    err = p.stderr.read()
    p.stderr.close()
    rc = p.wait(timeout=30)
    os.close(master)
    return rc, out, err


def dump(path):
    """Every table of a study, row by row, with the schema and version."""
    con = sqlite3.connect(path)
    try:
        d = {"user_version": con.execute("PRAGMA user_version").fetchone(),
             "schema": con.execute("SELECT type, name, sql FROM sqlite_master"
                                   " ORDER BY name").fetchall()}
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE "
                                "type = 'table' ORDER BY name").fetchall():
            d[t] = con.execute(f'SELECT * FROM "{t}" ORDER BY rowid')\
                      .fetchall()
    finally:
        con.close()
    return d


def query(path, sql, *params):
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def item_line(n, repo="o/r", **fields):
    d = {"repo": repo, "number": n, "title": f"item {n}"}
    d.update(fields)
    return json.dumps(d) + "\n"


def parse_date(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")


class OutputErrors(unittest.TestCase):
    """A command whose output was lost fails (as git checks stdout)."""

    def setUp(self):
        self.s = Study()

    def tearDown(self):
        self.s.close()

    def full(self, *args):
        with open("/dev/full", "w") as out:
            return subprocess.run([BIN, "--study", self.s.path] + list(args),
                                  stdout=out, stderr=subprocess.PIPE,
                                  text=True, timeout=60)

    def test_dev_full(self):
        for args in (["items"], ["status"], ["export"],
                     ["export", "--raw"], ["member", "list"],
                     ["codebook", "show"], ["agree"]):
            p = self.full(*args)
            self.assertEqual(p.returncode, 1, (args, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1,
                             (args, p.stderr))
            self.assertIn("bugcoder: ", p.stderr)
        p = self.full("items")
        self.assertIn("No space left on device", p.stderr)


class StudyCase(unittest.TestCase):
    """A temporary directory with a study path in it (not yet created)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bugcoder-cli-")
        self.study = os.path.join(self.dir, "study.db")
        self.env = clean_env(BUGCODER_NOW="2024-06-01T00:00:00Z")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def bc(self, *args, **kw):
        kw.setdefault("env", self.env)
        return run(["--study", self.study] + list(args), **kw)

    def ok(self, *args, **kw):
        p = self.bc(*args, **kw)
        self.assertEqual(p.returncode, 0, f"{args}: {p.stderr}")
        self.assertEqual(p.stderr, "")
        return p.stdout

    def fails(self, code, *args, **kw):
        """Run, expect exit `code` and one "bugcoder: " error line first;
        return stderr."""
        p = self.bc(*args, **kw)
        self.assertEqual(p.returncode, code,
                         f"{args}: rc {p.returncode}\n{p.stdout}{p.stderr}")
        self.assertTrue(p.stderr.startswith("bugcoder: "), p.stderr)
        return p.stderr

    def write(self, name, text, mode="w"):
        path = os.path.join(self.dir, name)
        with open(path, mode) as f:
            f.write(text)
        return path

    def init(self, *extra):
        return self.ok("init", "--codebook", CODEBOOK, *extra)

    def add_member(self, name, role):
        out = self.ok("member", "add", name, "--role", role)
        self.assertEqual(out, f"{name} is now an {role}\n")


# ---------------------------------------------------------------------------

class TestGlobal(StudyCase):

    def test_version(self):
        for arg in ("--version", "version"):
            p = run([arg])
            self.assertEqual(p.returncode, 0)
            # the version and the commit of the build (git's, when the
            # tree is a clone)
            self.assertRegex(p.stdout, r"^bugcoder \d+\.\d+\.\d+ \(commit "
                             r"([0-9a-f]{12}(-dirty)?|unknown)\)\n$")
            self.assertEqual(p.stderr, "")
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"],
                              cwd=ROOT, capture_output=True, text=True)
        if head.returncode == 0:
            self.assertIn("(commit " + head.stdout.strip(), p.stdout)

    def test_top_help(self):
        for arg in ("--help", "-h", "help"):
            p = run([arg])
            self.assertEqual(p.returncode, 0)
            self.assertTrue(p.stdout.startswith(
                "usage: bugcoder [--study FILE] [--as USER] COMMAND"))
            for cmd in ISSUE_COMMANDS:
                self.assertRegex(p.stdout, rf"(?m)^  {cmd} +\S")
            self.assertEqual(p.stderr, "")

    def _listed_commands(self):
        out = run(["--help"]).stdout
        return re.findall(r"(?m)^  ([a-z]+) +\S", out)

    def test_help_on_issue_commands(self):
        for cmd in ISSUE_COMMANDS:
            p = self.bc(cmd, "--help")
            self.assertEqual(p.returncode, 0, f"{cmd}: {p.stderr}")
            self.assertTrue(p.stdout.startswith("usage: "), cmd)
            self.assertIn(f" {cmd}", p.stdout)
            self.assertEqual(p.stderr, "")
            # -h too, and --help wins wherever it stands
            p = self.bc(cmd, "-h")
            self.assertEqual(p.returncode, 0, cmd)
            self.assertTrue(p.stdout.startswith("usage: "), cmd)
        p = self.bc("member", "add", "--help")
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith("usage: bugcoder member add"))
        # asking for help creates nothing
        self.assertFalse(os.path.exists(self.study))

    def test_help_on_every_listed_command(self):
        cmds = self._listed_commands()
        self.assertGreaterEqual(len(cmds), 17)
        bad = []
        for cmd in cmds:
            p = self.bc(cmd, "--help")
            if p.returncode != 0 or not p.stdout.startswith("usage: ") \
                    or cmd not in p.stdout:
                bad.append(f"{cmd}: rc {p.returncode} "
                           f"{(p.stderr or p.stdout).strip()[:80]}")
        self.assertEqual(bad, [], "commands without --help")
        self.assertFalse(os.path.exists(self.study))

    def test_unknown_command(self):
        p = self.bc("frobnicate")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")
        self.assertTrue(p.stderr.startswith(
            "bugcoder: frobnicate: unknown command\n"))
        self.assertIn("usage: bugcoder", p.stderr)
        self.assertFalse(os.path.exists(self.study))

    def test_unknown_option(self):
        err = self.fails(2, "init", "--bogus")
        self.assertTrue(err.startswith("bugcoder: unknown option --bogus\n"))
        self.assertIn("\nusage: bugcoder [--study FILE] init", err)
        err = self.fails(2, "status", "--verbose=3")
        self.assertTrue(err.startswith("bugcoder: unknown option --verbose\n"))
        self.assertFalse(os.path.exists(self.study))

    def test_missing_arguments(self):
        cases = [
            (["import"], "import needs at least one FILE"),
            (["member"], "member: add, list or remove?"),
            (["member", "add", "alice"], "member add needs USER and --role"),
            (["member", "add", "--role", "annotator"],
             "member add needs USER and --role"),
            (["member", "remove"], "member remove needs USER"),
            (["member", "list", "extra"], "member list takes no arguments"),
            (["member", "frob"], "member frob: unknown action"),
            (["member", "add", "x", "--role", "king"],
             "--role king: not a role"),
            (["member", "add", "x", "--role"], "--role needs a value"),
            (["codebook"], "codebook: check, show, update or revert?"),
            (["codebook", "check"], "codebook check needs FILE"),
            (["codebook", "frob"], "codebook frob: unknown action"),
            (["init", "--codebook"], "--codebook needs a value"),
            (["init", "extra"], "unexpected argument extra"),
            (["items", "--status", "weird"], "--status weird: one of"),
            (["items", "extra"], "unexpected argument"),
            (["status", "extra"], "status takes no arguments"),
            (["init", "--title=x", "--help=3"], "unknown option --help"),
            (["status", "--", "--help"], "status takes no arguments"),
        ]
        for args, msg in cases:
            p = self.bc(*args)
            self.assertEqual(p.returncode, 2, f"{args}: {p.stderr}")
            first = p.stderr.splitlines()[0]
            self.assertTrue(first.startswith("bugcoder: "), args)
            self.assertIn(msg, first, args)
            self.assertIn("usage: ", p.stderr, args)
            self.assertEqual(p.stdout, "", args)
        self.assertFalse(os.path.exists(self.study))

    def test_global_option_needs_value(self):
        for args, msg in ((["--study"], "--study needs a value"),
                          (["status", "--as"], "--as needs a value"),
                          (["--study=", "status"], "--study needs a value"),
                          (["--as=", "status"], "--as= needs a value")):
            p = run(args)
            self.assertEqual(p.returncode, 2, args)
            self.assertEqual(p.stderr, f"bugcoder: {msg}\n", args)

    def test_no_study(self):
        err = self.fails(1, "status")
        self.assertEqual(err, f"bugcoder: {self.study}: no study here (create"
                         " one with `bugcoder init`, or name it with --study"
                         " FILE)\n")
        self.fails(1, "items")
        self.fails(1, "import", SAMPLE)
        self.fails(1, "member", "list")
        self.assertFalse(os.path.exists(self.study))

    def test_not_a_study(self):
        path = self.write("notes.db", "just some notes, not SQLite at all, "
                          "long enough to fill a header\n")
        with open(path, "rb") as f:
            before = f.read()
        p = run(["--study", path, "status"])
        self.assertEqual(p.returncode, 1)
        self.assertTrue(p.stderr.startswith("bugcoder: "))
        # the file named, as not being a study (it was "reading the
        # schema version: file is not a database")
        self.assertIn(f"{path}: not a bugcoder study: a file of 65 bytes "
                      "that is not an SQLite database", p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_empty_file_is_not_a_study(self):
        path = self.write("empty.db", "")
        for args in (["status"], ["items"], ["import", SAMPLE]):
            p = run(["--study", path] + args, env=self.env)
            self.assertEqual(p.returncode, 1, args)
            self.assertEqual(p.stderr, f"bugcoder: {path}: not a bugcoder "
                             "study (an empty file)\n")
        self.assertEqual(os.path.getsize(path), 0)
        # another program's database is left alone too
        other = os.path.join(self.dir, "other.db")
        con = sqlite3.connect(other)
        con.execute("CREATE TABLE notes (text)")
        con.commit()
        con.close()
        before = dump(other)
        p = run(["--study", other, "status"], env=self.env)
        self.assertEqual(p.returncode, 1)
        self.assertIn("not a bugcoder study", p.stderr)
        self.assertEqual(dump(other), before)

    def test_newer_study_refused(self):
        self.init()
        con = sqlite3.connect(self.study)
        con.execute("PRAGMA user_version = 99")
        con.close()
        err = self.fails(1, "status")
        self.assertIn("newer than this bugcoder understands", err)
        self.assertEqual(query(self.study, "PRAGMA user_version"), [(99,)])

    def test_study_from_environment_and_default(self):
        env = dict(self.env, BUGCODER_STUDY=self.study)
        p = run(["init"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(self.study))
        # --study wins over the environment
        other = os.path.join(self.dir, "other.db")
        p = run(["--study", other, "init"], env=env)
        self.assertEqual(p.returncode, 0)
        self.assertTrue(os.path.exists(other))
        # with neither, ./bugcoder.db
        sub = os.path.join(self.dir, "sub")
        os.mkdir(sub)
        p = run(["init"], cwd=sub, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("created study bugcoder.db;", p.stdout)
        self.assertTrue(os.path.exists(os.path.join(sub, "bugcoder.db")))


# ---------------------------------------------------------------------------

class TestInit(StudyCase):

    def test_init(self):
        me = pwd.getpwuid(os.getuid()).pw_name
        p = self.bc("init", "--codebook", CODEBOOK, "--title", "LLM bugs",
                    umask=0o077)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout,
                         f"created study {self.study}; {me} is its owner\n"
                         "codebook llm-framework-bugs 1.0: 5 dimensions\n")
        # group-shared even under a restrictive umask, never world
        self.assertEqual(stat.S_IMODE(os.stat(self.study).st_mode), 0o660)
        self.assertEqual(query(self.study, "PRAGMA journal_mode"),
                         [("wal",)])
        self.assertEqual(query(self.study, "SELECT name, role, active FROM "
                               "members"), [(me, "owner", 1)])
        self.assertEqual(query(self.study, "SELECT value FROM meta WHERE "
                               "key = 'title'"), [("LLM bugs",)])
        self.assertEqual(query(self.study, "SELECT name, version, current "
                               "FROM codebooks"),
                         [("llm-framework-bugs", "1.0", 1)])
        self.assertEqual(query(self.study, "SELECT actor, action, new FROM "
                               "audit ORDER BY id"),
                         [(me, "study.init", "LLM bugs"),
                          (me, "codebook.load", "llm-framework-bugs 1.0")])
        out = self.ok("status")
        self.assertTrue(out.startswith(f"study {self.study}: LLM bugs\n"
                                       "codebook llm-framework-bugs 1.0\n"
                                       f"you are {me} (owner)\n"))

    def test_init_without_codebook(self):
        out = self.ok("init")
        self.assertNotIn("codebook", out)
        self.assertIn("codebook: none yet\n", self.ok("status"))
        err = self.fails(1, "codebook", "show")
        self.assertIn("the study has no codebook yet", err)

    def test_init_over_existing_study(self):
        self.init()
        self.add_member("alice", "annotator")
        before = dump(self.study)
        err = self.fails(1, "init", "--codebook", CODEBOOK_DL)
        self.assertEqual(err, f"bugcoder: {self.study}: cannot create a "
                         "study here: a bugcoder study is there already "
                         "(open it with --study, or choose another "
                         "name)\n")
        self.assertEqual(dump(self.study), before)

    def test_init_over_other_file(self):
        path = self.write("precious.txt", "do not touch\n")
        p = run(["--study", path, "init"], env=self.env)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"bugcoder: {path}: cannot create a "
                         "study here: a file of 13 bytes that is not a "
                         "study is there\n")
        with open(path) as f:
            self.assertEqual(f.read(), "do not touch\n")

    def test_init_with_bad_codebook_leaves_nothing(self):
        bad = os.path.join(BAD_CODEBOOKS, "bad-select.json")
        err = self.fails(1, "init", "--codebook", bad)
        self.assertIn("bad-select.json:", err)
        self.assertIn("select", err)
        err = self.fails(1, "init", "--codebook",
                         os.path.join(self.dir, "missing.json"))
        self.assertIn("missing.json", err)
        self.assertEqual(os.listdir(self.dir), [])

    def test_init_in_missing_directory(self):
        p = run(["--study", os.path.join(self.dir, "no", "such.db"), "init"],
                env=self.env)
        self.assertEqual(p.returncode, 1)
        self.assertIn("No such file or directory", p.stderr)


# ---------------------------------------------------------------------------

class TestMembers(StudyCase):

    def setUp(self):
        super().setUp()
        self.init()
        self.me = pwd.getpwuid(os.getuid()).pw_name

    def members(self):
        return query(self.study, "SELECT name, role, active FROM members "
                     "ORDER BY id")

    def test_add_list_remove(self):
        self.add_member("alice", "annotator")
        self.add_member("carol", "adjudicator")
        out = self.ok("member", "list")
        lines = out.splitlines()
        self.assertEqual([ln.split()[:2] for ln in lines],
                         [[self.me, "owner"], ["carol", "adjudicator"],
                          ["alice", "annotator"]])
        self.assertTrue(all(ln.endswith("2024-06-01T00:00:00Z")
                            for ln in lines))
        out = self.ok("member", "remove", "alice")
        self.assertEqual(out, "alice removed (their labels stay in the "
                         "study)\n")
        self.assertNotIn("alice", self.ok("member", "list"))
        self.assertIn(("alice", "annotator", 0), self.members())
        self.assertEqual(query(self.study, "SELECT actor, for_member, action,"
                               " old, new FROM audit WHERE action LIKE "
                               "'member.%' ORDER BY id"),
                         [(self.me, None, "member.add", None,
                           "alice=annotator"),
                          (self.me, None, "member.add", None,
                           "carol=adjudicator"),
                          (self.me, None, "member.remove", "alice", None)])
        err = self.fails(1, "member", "remove", "alice")
        self.assertEqual(err, "bugcoder: alice: not a member of this study\n")

    def test_global_options_anywhere(self):
        self.add_member("alice", "annotator")
        p = run(["member", "--study", self.study, "list"], env=self.env)
        self.assertEqual(p.returncode, 0)
        self.assertIn("alice", p.stdout)
        p = run(["member", "list", f"--study={self.study}"], env=self.env)
        self.assertEqual(p.returncode, 0)
        self.assertIn("alice", p.stdout)

    def test_bad_member_name(self):
        err = self.fails(1, "member", "add", "bad;name", "--role",
                         "annotator")
        self.assertEqual(err, "bugcoder: bad;name: not a valid member name "
                         "(an OS account name)\n")

    def test_last_owner_protected(self):
        before = dump(self.study)
        err = self.fails(1, "member", "remove", self.me)
        self.assertEqual(err, f"bugcoder: {self.me} is the only owner and "
                         "cannot be removed\n")
        err = self.fails(1, "member", "add", self.me, "--role", "annotator")
        self.assertEqual(err, f"bugcoder: {self.me} is the only owner; add "
                         "another owner first\n")
        self.assertEqual(dump(self.study), before)

    def test_as_alice_cannot_do_owner_things(self):
        self.add_member("alice", "annotator")
        before = dump(self.study)
        err = self.fails(1, "--as", "alice", "member", "add", "x", "--role",
                         "annotator")
        self.assertEqual(err, "bugcoder: member add: not allowed for alice "
                         "(annotator)\n")
        err = self.fails(1, "--as", "alice", "member", "remove", self.me)
        self.assertIn("not allowed for alice", err)
        err = self.fails(1, "--as", "alice", "import", SAMPLE)
        self.assertIn("import: not allowed for alice (annotator)", err)
        self.assertEqual(dump(self.study), before)

    def test_as_unknown_member(self):
        err = self.fails(1, "--as", "mallory", "status")
        self.assertEqual(err, "bugcoder: mallory: not a member of this "
                         "study\n")

    def test_as_only_for_the_owner(self):
        # carol becomes an owner; acting as carol, the owner steps down
        self.add_member("alice", "annotator")
        self.add_member("carol", "owner")
        self.ok("--as", "carol", "member", "add", self.me, "--role",
                "annotator")
        self.assertIn((self.me, "annotator", 1), self.members())
        # the audit log names both the account and the member acted for
        self.assertEqual(query(self.study, "SELECT actor, for_member, new "
                               "FROM audit ORDER BY id DESC LIMIT 1"),
                         [(self.me, "carol", f"{self.me}=annotator")])
        # now a mere annotator, the account may act for nobody
        before = dump(self.study)
        for who in ("alice", "carol"):
            err = self.fails(1, "--as", who, "member", "list")
            self.assertEqual(err, f"bugcoder: --as {who}: only the study's "
                             "owner may act for another member\n")
        err = self.fails(1, "--as", "carol", "member", "add", "x", "--role",
                         "annotator")
        self.assertIn("only the study's owner", err)
        err = self.fails(1, "member", "add", "x", "--role", "annotator")
        self.assertEqual(err, f"bugcoder: member add: not allowed for "
                         f"{self.me} (annotator)\n")
        self.assertEqual(dump(self.study), before)

    def test_not_a_member(self):
        self.add_member("carol", "owner")
        self.ok("--as", "carol", "member", "remove", self.me)
        err = self.fails(1, "member", "list")
        self.assertEqual(err, f"bugcoder: {self.me} is not a member of this "
                         "study (the owner adds members with `bugcoder "
                         "member add`)\n")
        self.fails(1, "import", SAMPLE)
        self.fails(1, "items")
        # status and the study's codebook are for members too
        err = self.fails(1, "status")
        self.assertIn("is not a member of this study", err)
        err = self.fails(1, "codebook", "show")
        self.assertIn("is not a member of this study", err)


# ---------------------------------------------------------------------------

class TestCodebook(StudyCase):

    def test_check_bundled(self):
        for path, name, dims in ((CODEBOOK, "llm-framework-bugs", 5),
                                 (CODEBOOK_DL, "dl-framework-bugs", None)):
            p = run(["codebook", "check", path])
            self.assertEqual(p.returncode, 0, p.stderr)
            m = re.fullmatch(rf"{re.escape(path)}: ok: {name} (\S+), "
                             r"(\d+) dimensions, (\d+) codes\n", p.stdout)
            self.assertIsNotNone(m, p.stdout)
            with open(path) as f:
                cb = json.load(f)
            self.assertEqual(m.group(1), cb["version"])
            self.assertEqual(int(m.group(2)), len(cb["dimensions"]))
            self.assertEqual(int(m.group(3)),
                             sum(len(d["codes"]) for d in cb["dimensions"]))
            if dims:
                self.assertEqual(int(m.group(2)), dims)

    def test_check_every_bad_fixture(self):
        names = sorted(n for n in os.listdir(BAD_CODEBOOKS)
                       if n.startswith("bad-") and n.endswith(".json"))
        self.assertGreaterEqual(len(names), 20)
        for name in names:
            rel = os.path.join("tests", "fixtures", "codebooks", name)
            p = run(["codebook", "check", rel])
            self.assertEqual(p.returncode, 1, f"{name}: {p.stdout}")
            self.assertEqual(p.stdout, "", name)
            m = re.fullmatch(r"bugcoder: (\S+):(\d+):(\d+): (.+)\n",
                             p.stderr)
            self.assertIsNotNone(m, f"{name}: {p.stderr!r}")
            self.assertEqual(m.group(1), rel)
            # the position is inside the file
            with open(os.path.join(ROOT, rel), "rb") as f:
                lines = f.read().split(b"\n")
            line, col = int(m.group(2)), int(m.group(3))
            self.assertTrue(1 <= line <= max(len(lines), 1), name)
            self.assertTrue(1 <= col <= len(lines[line - 1]) + 1,
                            f"{name}: column {col} on line {line}")

    def test_check_unreadable(self):
        p = run(["codebook", "check", os.path.join(self.dir, "none.json")])
        self.assertEqual(p.returncode, 1)
        self.assertIn("none.json", p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1)

    def test_show(self):
        p = run(["codebook", "show", CODEBOOK])
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith("llm-framework-bugs 1.0"))
        self.assertRegex(p.stdout, r"(?m)^symptom \(.+\): select one, "
                         r"required, 10 codes$")
        self.assertRegex(p.stdout, r"(?m)^fix_pattern \(.+\): select many, "
                         r"required, 9 codes$")
        self.assertRegex(p.stdout, r"(?m)^stage \(.+\): select one, "
                         r"7 codes$")
        self.assertRegex(p.stdout, r"(?m)^   1 crash ")
        # the study's stored copy shows the same
        self.init()
        self.assertEqual(self.ok("codebook", "show"), p.stdout)


    def test_hostile_codebook_on_a_terminal(self):
        """Codebook strings other than keys may hold escapes (\\u001b is
        valid JSON); every command that shows them on a terminal makes
        them harmless, and a pipe still gets them as stored."""
        evil = "\x1b]0;pwned\x07\x1b[2J\u009b31m"
        with open(CODEBOOK) as f:
            cb = json.load(f)
        cb["version"] = "9" + evil
        cb["title"] = "T" + evil
        cb["dimensions"][0]["name"] = "Symptom" + evil
        cb["dimensions"][0]["codes"][0]["name"] = "Crash" + evil
        cb["dimensions"][0]["codes"][0]["group"] = "g" + evil
        path = self.write("evil.json", json.dumps(cb))
        p = run(["codebook", "check", path], env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("9" + evil, p.stdout)	# a pipe: as stored
        st = ["--study", self.study]
        outs = [run_pty(["codebook", "check", path], env=self.env),
                run_pty(["codebook", "show", path], env=self.env),
                run_pty(st + ["init", "--codebook", path], env=self.env)]
        self.ok("import", SAMPLE)
        for who in ("alice", "bob"):
            self.ok("member", "add", who, "--role", "annotator")
            self.ok("label", "DeepSpeed#4187", "symptom=crash",
                    "root_cause=api_misuse", "fix_pattern=conditional_logic",
                    "phase=training", "--submit", "--as", who)
        for args in (["codebook", "show"], ["status"], ["agree"]):
            outs.append(run_pty(st + args, env=self.env))
        cb["version"] = "10" + evil
        path2 = self.write("evil2.json", json.dumps(cb))
        outs.insert(0, run_pty(st + ["codebook", "update", path2],
                               env=self.env))
        for rc, out, err in outs:
            self.assertEqual(rc, 0, err)
            self.assertNotIn(b"\x1b", out)
            self.assertNotIn(b"\x07", out)
            self.assertNotIn(b"\xc2\x9b", out)
            self.assertIn(b"pwned", out)	# shown, made harmless
        self.assertIn(b"Symptom", outs[-1][1])	# agree names the dimension


# ---------------------------------------------------------------------------

class ImportCase(StudyCase):

    def setUp(self):
        super().setUp()
        self.init()

    def refused(self, path, *msgs, code=1, args=()):
        """Import `path`, expect a refusal naming `msgs`, and the study
        untouched."""
        before = dump(self.study)
        p = self.bc(*args, "import", path)
        self.assertEqual(p.returncode, code, p.stderr)
        lines = p.stderr.splitlines()
        self.assertTrue(lines and lines[0].startswith("bugcoder: "),
                        p.stderr)
        for m in msgs:
            self.assertIn(m, lines[0])
        self.assertEqual(dump(self.study), before)
        return lines


class TestImportErrors(ImportCase):

    def test_several_files_go_in_together_or_not_at_all(self):
        good = self.write("good.jsonl", item_line(1) + item_line(2))
        bad = self.write("bad.jsonl", item_line(3) + '{"repo": "o/r"}\n')
        before = dump(self.study)
        p = self.bc("import", good, bad)
        self.assertEqual(p.returncode, 1, p.stderr)
        # one line, as every refusal
        self.assertEqual(p.stderr.splitlines(), [
            f"bugcoder: {bad}:2: number: missing (required); nothing "
            "imported: the 2 files go in together or not at all"])
        self.assertEqual(p.stdout, "")
        self.assertEqual(dump(self.study), before)
        p = self.bc("import", good, self.write("more.jsonl", item_line(3)))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(), [
            f"{good}: 2 added, 0 updated (0 comments, 0 fixes)",
            f"{self.dir}/more.jsonl: 1 added, 0 updated (0 comments, "
            "0 fixes)"])

    def test_malformed_json_line_and_column(self):
        path = self.write("broken.jsonl", item_line(1) + item_line(2) +
                          '{"repo": "o/r" "number": 3, "title": "x"}\n' +
                          item_line(4))
        lines = self.refused(path)
        self.assertEqual(lines, [f"bugcoder: {path}:3:16: invalid JSON; "
                                 "nothing imported from this file"])

    def test_malformed_pretty_json(self):
        path = self.write("broken.json", '[\n  {"repo": "o/r",\n'
                          '   "number": 1,\n   "title": tru}\n]\n')
        lines = self.refused(path)
        self.assertEqual(lines[0], f"bugcoder: {path}:4:13: invalid JSON; "
                         "nothing imported from this file")

    def test_line_7_bad_field_leaves_study_unchanged(self):
        self.ok("import", SAMPLE)
        text = "".join(item_line(n) for n in range(1, 7))
        text += item_line(7, fixes=[{"number": 8, "additions": "seven"}])
        text += item_line(8)
        path = self.write("items.jsonl", text)
        lines = self.refused(path)
        self.assertEqual(lines[0], f"bugcoder: {path}:7: fixes[0].additions:"
                         " expected a whole number >= 0; nothing imported "
                         "from this file")
        self.assertEqual(query(self.study, "SELECT count(*) FROM items WHERE "
                               "repo = 'o/r'"), [(0,)])

    def test_missing_required_fields(self):
        for field, msg in (("repo", "repo: missing (required)"),
                           ("number", "number: missing (required)"),
                           ("title", "title: missing (required)")):
            d = {"repo": "o/r", "number": 2, "title": "t"}
            del d[field]
            path = self.write(f"no-{field}.jsonl",
                              item_line(1) + json.dumps(d) + "\n")
            self.refused(path, f"{path}:2: {msg}")
        path = self.write("empty-title.jsonl", item_line(1, title=""))
        self.refused(path, f"{path}:1: title: must not be empty")

    def test_wrong_types(self):
        cases = [
            ({"number": "12"}, "number: expected a whole number >= 0"),
            ({"number": -4}, "number: expected a whole number >= 0"),
            ({"number": 2.5}, "number: expected a whole number >= 0"),
            ({"title": ["t"]}, "title: expected a string"),
            ({"repo": "no-slash"}, 'repo: "no-slash" is not owner/name'),
            ({"labels": "bug"}, "labels: expected an array"),
            ({"labels": ["bug", 1]}, "labels[1]: expected a string"),
            ({"comments": [{"body": "x"}, "y"]},
             "comments[1]: expected an object"),
            ({"comments": [{"body": 3}]}, "comments[0].body: expected a "
             "string"),
            ({"fixes": {"number": 1}}, "fixes: expected an array"),
            ({"fixes": [{"deletions": True}]},
             "fixes[0].deletions: expected a whole number >= 0"),
            ({"fixes": [{"diff": ["x"]}]}, "fixes[0].diff: expected a "
             "string"),
            ({"author": 7}, "author: expected a user name"),
        ]
        for i, (over, msg) in enumerate(cases):
            path = self.write(f"types{i}.jsonl", item_line(1, **over))
            self.refused(path, f"{path}:1: {msg}")
        # a whole line that is not an object
        path = self.write("array-line.jsonl", item_line(1) + "[1, 2]\n")
        self.refused(path, f"{path}:2: expected one item object per line")

    def test_bad_dates(self):
        cases = [
            ({"created_at": "yesterday"}, 'created_at: not an ISO 8601 date:'
             ' "yesterday"'),
            ({"closed_at": "2024-02-30T00:00:00Z"},
             'closed_at: not an ISO 8601 date: "2024-02-30T00:00:00Z"'),
            ({"closed_at": "2023-02-29"}, "closed_at: not an ISO 8601 date"),
            ({"created_at": 1700000000}, "created_at: expected a string"),
            ({"comments": [{"created_at": "2024-01-01T25:00:00Z"}]},
             "comments[0].created_at: not an ISO 8601 date"),
            ({"fixes": [{"merged_at": "01/02/2024"}]},
             "fixes[0].merged_at: not an ISO 8601 date"),
        ]
        for i, (over, msg) in enumerate(cases):
            path = self.write(f"dates{i}.jsonl", item_line(1) +
                              item_line(2, **over))
            self.refused(path, f"{path}:2: {msg}")

    def test_error_quoting_hostile_input_stays_one_safe_line(self):
        path = self.write("evil.jsonl", item_line(1) + item_line(
            2, created_at="\x1b]0;pwned\x07\x1b[2J\nnext"))
        lines = self.refused(path, f"{path}:2: created_at: not an ISO 8601 "
                             "date")
        self.assertEqual(len(lines), 1)
        self.assertNotIn("\x1b", lines[0])
        self.assertNotIn("\x07", lines[0])
        self.assertIn("pwned", lines[0])

    def test_unreadable_files(self):
        missing = os.path.join(self.dir, "missing.jsonl")
        self.refused(missing, f"{missing}: No such file or directory")
        sub = os.path.join(self.dir, "a-directory")
        os.mkdir(sub)
        self.refused(sub, f"{sub}: Is a directory")
        if os.geteuid() != 0:
            locked = self.write("locked.jsonl", item_line(1))
            os.chmod(locked, 0)
            self.refused(locked, f"{locked}: Permission denied")

    def test_empty_files(self):
        for name, text in (("empty.jsonl", ""), ("blank.jsonl", "\n \n\t\n")):
            path = self.write(name, text)
            self.refused(path, f"{path}: empty file, no items")

    def test_nul_byte(self):
        path = self.write("nul.jsonl", (item_line(1) + "\0").encode(), "wb")
        self.refused(path, f"{path}: a NUL byte in the file")

    def test_non_owner_refused(self):
        self.add_member("alice", "annotator")
        self.add_member("carol", "adjudicator")
        for who, role in (("alice", "annotator"), ("carol", "adjudicator")):
            self.refused(SAMPLE, f"import: not allowed for {who} ({role})",
                         args=("--as", who))

    def test_one_bad_file_among_good_ones(self):
        good1 = self.write("good1.jsonl", item_line(1) + item_line(2))
        bad = self.write("bad.jsonl", item_line(3) + "{oops\n")
        good2 = self.write("good2.jsonl", item_line(4))
        before = dump(self.study)
        p = self.bc("import", good1, bad, good2)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertRegex(p.stderr, rf"^bugcoder: {re.escape(bad)}:2:\d+: "
                         "invalid JSON; nothing imported: the 3 "
                         "files go in together or not at all\n$")
        self.assertEqual(dump(self.study), before)

    def test_busy_study(self):
        """A writer holding the study: the import waits for it, and gives
        up with exit 3 (worth retrying) when it does not let go."""
        path = self.write("one.jsonl", item_line(1))
        con = sqlite3.connect(self.study, isolation_level=None, timeout=1,
                              check_same_thread=False)
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO meta VALUES ('holder', 'python')")
        release = threading.Timer(0.5, lambda: con.execute("COMMIT"))
        release.start()
        t0 = time.time()
        p = self.bc("import", path)
        release.join()
        con.close()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(time.time() - t0, 0.4)
        self.assertEqual(query(self.study, "SELECT count(*) FROM items"),
                         [(1,)])

        con = sqlite3.connect(self.study, isolation_level=None, timeout=1)
        con.execute("BEGIN IMMEDIATE")
        try:
            before = query(self.study, "SELECT count(*) FROM audit")
            t0 = time.time()
            p = self.bc("import", self.write("two.jsonl", item_line(2)))
            took = time.time() - t0
        finally:
            con.execute("ROLLBACK")
            con.close()
        self.assertEqual(p.returncode, 3, p.stderr)
        # naming who holds the lock (this test's python3)
        self.assertRegex(p.stderr.splitlines()[0],
                         rf"^bugcoder: {re.escape(self.study)}: the study is "
                         rf"busy: {re.escape(pwd.getpwuid(os.getuid()).pw_name)}'s "
                         rf"python3 \(process "
                         rf"{os.getpid()}, running since [-0-9: ]+\) holds "
                         r"the write lock; nothing was written")
        self.assertGreater(took, 2)	# it waited a while first
        self.assertLess(took, 20)
        self.assertEqual(query(self.study, "SELECT count(*) FROM items"),
                         [(1,)])
        self.assertEqual(query(self.study, "SELECT count(*) FROM audit"),
                         before)


class TestImportSample(ImportCase):

    def sample_items(self):
        with open(SAMPLE) as f:
            return [json.loads(ln) for ln in f if ln.strip()]

    def items_rows(self, *args):
        out = self.ok("items", *args)
        rows = {}
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("ITEM "))
        for ln in lines[1:-1]:
            name = ln.split()[0]
            tail = ln[78:].split()
            rows[name] = {"fixes": tail[0], "lines": tail[1],
                          "files": tail[2], "days": tail[3],
                          "comments": tail[4], "title": ln[33:77]}
        return rows, lines[-1]

    def test_import_status_items(self):
        sample = self.sample_items()
        out = self.ok("import", SAMPLE)
        ncomments = sum(len(i.get("comments", [])) for i in sample)
        nfixes = sum(len(i.get("fixes", [])) for i in sample)
        self.assertEqual(out, f"{SAMPLE}: {len(sample)} added, 0 updated "
                         f"({ncomments} comments, {nfixes} fixes)\n")

        # stored figures agree with an independent computation
        for it in sample:
            (days, lines, small, files, cmts, has_fix), = query(
                self.study, "SELECT days_open, lines_changed, small_fix, "
                "changed_files, comment_count, has_fix FROM items WHERE "
                "repo = ? AND number = ?", it["repo"], it["number"])
            want_days = (parse_date(it["closed_at"]) -
                         parse_date(it["created_at"])).total_seconds() / 86400
            self.assertAlmostEqual(days, want_days, places=9)
            self.assertEqual(cmts, len(it.get("comments", [])))
            fx = it.get("fixes", [])
            self.assertEqual(has_fix, 1 if fx else 0)
            if fx:
                want = sum(f["additions"] + f["deletions"] for f in fx)
                self.assertEqual(lines, want, it["number"])
                self.assertEqual(small, 1 if want <= 10 else 0)
                self.assertEqual(files, sum(f["changed_files"] for f in fx))
            else:
                self.assertIsNone(lines)
                self.assertIsNone(small)

        # items: every item, with exact figures for a few
        rows, last = self.items_rows()
        self.assertEqual(last, f"{len(sample)} items")
        self.assertEqual(len(rows), len(sample))
        r = rows["microsoft/DeepSpeed#5890"]	# the big multi-file fix
        self.assertEqual((r["fixes"], r["lines"], r["files"], r["days"],
                          r["comments"]), ("1", "290", "3", "74.5", "7"))
        r = rows["microsoft/DeepSpeed#6011"]	# two fixes
        self.assertEqual((r["fixes"], r["lines"], r["files"], r["days"]),
                         ("2", "17", "2", "33.9"))
        r = rows["microsoft/DeepSpeed#6203"]	# no fix
        self.assertEqual((r["fixes"], r["lines"], r["files"], r["days"]),
                         ("0", "-", "-", "96.9"))
        r = rows["hpcaitech/ColossalAI#5102"]	# a one-line fix in a day
        self.assertEqual((r["fixes"], r["lines"], r["days"], r["comments"]),
                         ("1", "1", "0.6", "0"))
        rows, last = self.items_rows("--repo", "NVIDIA/Megatron-LM")
        self.assertEqual(last, "5 items")
        self.assertTrue(all(n.startswith("NVIDIA/") for n in rows))
        rows, last = self.items_rows("--status", "todo")
        self.assertEqual(last, f"{len(sample)} items")
        rows, last = self.items_rows("--status", "submitted")
        self.assertEqual(last, "0 items")
        err = self.fails(1, "items", "--round", "pilot")
        self.assertEqual(err, "bugcoder: --round pilot: no such round\n")
        # an annotator sees whether they submitted, not a count
        self.add_member("alice", "annotator")
        out = self.ok("--as", "alice", "items")
        body = out.splitlines()[1:-1]
        self.assertEqual(len(body), len(sample))
        # SUBMITTED, then ROUND ("-": in none)
        self.assertTrue(all(ln.split()[-2:] == ["no", "-"] for ln in body),
                        body)

        # status: per repository and overall, the small-fix share
        out = self.ok("status")
        table = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()
                 if re.match(r"(NVIDIA|hpcaitech|microsoft|all)\b", ln)}
        self.assertEqual(table["all"], ["30", "29", "30", "48%", "23.3",
                                        "3.0", "11.0"])
        self.assertEqual(table["microsoft/DeepSpeed"][:4],
                         ["14", "13", "14", "54%"])
        self.assertEqual(table["NVIDIA/Megatron-LM"][:4],
                         ["5", "5", "5", "40%"])
        self.assertIn("1 item without a fix, 0 with a partial diff", out)
        self.assertIn("0 labels, 0 submissions", out)

    def test_reimport_is_idempotent(self):
        self.ok("import", SAMPLE)
        self.add_member("alice", "annotator")
        ids = dict(((r, n), i) for i, r, n in query(
            self.study, "SELECT id, repo, number FROM items"))
        con = sqlite3.connect(self.study)
        con.execute("INSERT INTO labels SELECT i.id, m.id, 'symptom', "
                    "'hang', '1.0', NULL, 'x' FROM items i, members m "
                    "WHERE m.name = 'alice' AND i.number IN (4187, 5890)")
        con.commit()
        con.close()
        counts = [query(self.study, f"SELECT count(*) FROM {t}")
                  for t in ("items", "comments", "fixes", "labels")]

        out = self.ok("import", SAMPLE)
        self.assertIn(": 0 added, 30 updated (", out)
        self.assertEqual([query(self.study, f"SELECT count(*) FROM {t}")
                          for t in ("items", "comments", "fixes", "labels")],
                         counts)
        self.assertEqual(dict(((r, n), i) for i, r, n in query(
            self.study, "SELECT id, repo, number FROM items")), ids)
        self.assertEqual(query(self.study, "SELECT i.number FROM labels l "
                               "JOIN items i ON i.id = l.item_id ORDER BY "
                               "i.number"), [(4187,), (5890,)])
        self.assertEqual(query(self.study, "SELECT new FROM audit WHERE "
                               "action = 'import' ORDER BY id"),
                         [("30 added, 0 updated",), ("0 added, 30 updated",)])

    def test_hostile_title_on_a_terminal(self):
        self.ok("import", SAMPLE, HOSTILE_RAW)
        raw_title = [i["title"] for i in self.sample_items()
                     if f'{i["repo"]}#{i["number"]}' == HOSTILE][0]
        self.assertIn("\x1b", raw_title)	# the fixture is hostile
        rc, out, err = run_pty(["--study", self.study, "items"],
                               env=self.env)
        self.assertEqual(rc, 0, err)
        self.assertNotIn(b"\x1b", out)
        self.assertNotIn(b"\xc2\x9b", out)	# no 8-bit CSI either
        self.assertNotIn(b"\x07", out)
        text = out.decode("utf-8")	# and it is valid UTF-8
        line = [ln for ln in text.splitlines() if HOSTILE in ln]
        self.assertEqual(len(line), 1)
        self.assertIn("[BUG]: colossalai run log is full of escape", line[0])
        self.assertIn("hpcaitech/ColossalAI#5471", text)
        self.assertTrue(text.rstrip().endswith("31 items"))

    def test_hostile_study_title(self):
        """status prints the study title safely on a terminal, and as
        stored into a pipe."""
        evil = "Bugs\x1b]0;pwned\x07\x1b[2J\u202eend"
        study = os.path.join(self.dir, "evil.db")
        p = run(["--study", study, "init", "--title", evil], env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["--study", study, "status"], env=self.env)
        self.assertTrue(p.stdout.startswith(f"study {study}: {evil}\n"))
        rc, out, err = run_pty(["--study", study, "status"], env=self.env)
        self.assertEqual(rc, 0, err)
        self.assertNotIn(b"\x1b", out)
        self.assertNotIn(b"\x07", out)
        self.assertNotIn("\u202e".encode(), out)
        first = out.decode("utf-8").splitlines()[0]
        self.assertTrue(first.startswith(f"study {study}: Bugs"))
        self.assertIn("pwned", first)	# shown, made harmless

    def test_hostile_raw_bytes_kept(self):
        out = self.ok("import", HOSTILE_RAW)
        self.assertIn("1 added", out)
        con = sqlite3.connect(self.study)
        con.text_factory = bytes
        (body,), = con.execute("SELECT body FROM items WHERE number = 5471")
        con.close()
        self.assertIn(b"\xff\xfe", body)	# kept as imported


class TestEffortFigures(ImportCase):

    def test_unknown_fix_size_is_not_a_small_fix(self):
        diff = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
                "@@ -1,2 +1,2 @@\n-a\n+b\n c\n")
        path = self.write("effort.jsonl",
                          item_line(1, created_at="2024-01-01T00:00:00Z",
                                    closed_at="2024-01-03T12:00:00Z",
                                    fixes=[{"number": 2, "diff": diff}])
                          + item_line(3, fixes=[{"number": 4}])
                          + item_line(5, fixes=[{"number": 6, "additions": 30,
                                                 "deletions": 0,
                                                 "changed_files": 2}]))
        self.ok("import", path)
        self.assertEqual(query(self.study, "SELECT number, lines_changed, "
                               "changed_files, small_fix, days_open FROM "
                               "items ORDER BY number"),
                         [(1, 2, 1, 1, 2.5), (3, None, None, None, None),
                          (5, 30, 2, 0, None)])
        lines = self.ok("items").splitlines()
        self.assertEqual(lines[1].split()[1:], ["item", "1", "1", "2", "1",
                                                "2.5", "0", "0", "-"])
        self.assertEqual(lines[2].split()[1:], ["item", "3", "1", "?", "?",
                                                "-", "0", "0", "-"])
        self.assertEqual(lines[3].split()[1:], ["item", "5", "1", "30", "2",
                                                "-", "0", "0", "-"])
        # the share is over fixes of known size: 1 of 2
        all_row = [ln for ln in self.ok("status").splitlines()
                   if ln.startswith("all ")][0]
        self.assertEqual(all_row.split()[1:5], ["3", "3", "3", "50%"])


class TestImportGitHub(ImportCase):

    def load(self, name):
        with open(os.path.join(GITHUB, name)) as f:
            return json.load(f)

    def test_issue_list_skips_pull_requests(self):
        path = os.path.join(GITHUB, "issues-list-for-repo.json")
        self.assertTrue(all("pull_request" in i for i in self.load(
            "issues-list-for-repo.json")))
        out = self.ok("import", path)
        self.assertEqual(out, f"{path}: 0 added, 0 updated, 1 pull requests "
                         "skipped (0 comments, 0 fixes)\n")
        self.assertEqual(query(self.study, "SELECT count(*) FROM items"),
                         [(0,)])

    def test_issue_object(self):
        path = os.path.join(GITHUB, "issues-get.json")
        self.assertIn(": 0 added, 0 updated, 1 pull requests skipped",
                      self.ok("import", path))
        # the same issue as a plain issue (no pull_request member)
        issue = self.load("issues-get.json")
        del issue["pull_request"]
        plain = self.write("issue.json", json.dumps(issue, indent=2))
        self.assertEqual(self.ok("import", plain),
                         f"{plain}: 1 added, 0 updated (0 comments, 0 fixes)\n")
        self.assertEqual(query(self.study, "SELECT repo, number, title, "
                               "author, state, labels, url, created_at, "
                               "closed_at, days_open, has_fix FROM items"),
                         [("octocat/Hello-World", 1347, "Found a bug",
                           "octocat", "open", '["bug"]',
                           "https://github.com/octocat/Hello-World/issues/"
                           "1347", "2011-04-22T13:33:48Z", None, None, 0)])
        rows, = [ln for ln in self.ok("items").splitlines()
                 if ln.startswith("octocat/")]
        self.assertTrue(rows.startswith("octocat/Hello-World#1347"))

    def test_bundle(self):
        issue = self.load("issues-get.json")
        del issue["pull_request"]
        issue["state"] = "closed"
        issue["closed_at"] = "2011-04-25T13:33:48Z"
        pull = self.load("pulls-get.json")
        pull["diff"] = ("diff --git a/README b/README\n--- a/README\n"
                        "+++ b/README\n@@ -1 +1 @@\n-Hello\n+Hello World\n")
        comments = self.load("issues-list-comments.json")
        bundle = {"issue": issue, "comments": comments,
                  "pull_requests": [pull]}
        path = self.write("bundle.json", json.dumps(bundle))
        self.assertEqual(self.ok("import", path),
                         f"{path}: 1 added, 0 updated (1 comment, 1 fix)\n")
        self.assertEqual(query(self.study, "SELECT days_open, "
                               "lines_changed, changed_files, small_fix, "
                               "comment_count FROM items"),
                         [(3.0, 103, 5, 0, 1)])
        self.assertEqual(query(self.study, "SELECT number, title, url, "
                               "merged_at, additions, deletions FROM fixes"),
                         [(1347, "Amazing new feature",
                           "https://github.com/octocat/Hello-World/pull/1347",
                           "2011-01-26T19:01:12Z", 100, 3)])
        self.assertEqual(query(self.study, "SELECT author, body FROM "
                               "comments"), [("octocat", "Me too")])
        # a ghost (deleted account) comment, in a JSON Lines bundle file
        comments.append({"user": None, "created_at": "2011-04-15T00:00:00Z",
                         "body": "from a deleted account"})
        path = self.write("bundles.jsonl", json.dumps(bundle) + "\n")
        self.assertIn("0 added, 1 updated (2 comments, 1 fix)",
                      self.ok("import", path))
        self.assertEqual(query(self.study, "SELECT author FROM comments "
                               "ORDER BY position"), [("octocat",), (None,)])
        self.assertEqual(query(self.study, "SELECT count(*) FROM items"),
                         [(1,)])

    def test_github_errors(self):
        issue = self.load("issues-get.json")
        del issue["pull_request"]
        del issue["title"]
        # a pretty-printed file names the element; a one-line file its line
        path = self.write("untitled.json", json.dumps([issue], indent=2))
        self.refused(path, f"{path}: [0]: title: missing (required)")
        path = self.write("untitled.jsonl", json.dumps([issue]) + "\n")
        self.refused(path, f"{path}:1: [0]: title: missing (required)")
        issue["title"] = "t"
        issue["created_at"] = "22/04/2011"
        path = self.write("baddate.json", json.dumps(issue))
        self.refused(path, f"{path}:1: created_at: not an ISO 8601 date")


class KeysFile(unittest.TestCase):
    """A keys file's bad lines are named, by file and line, on stderr when
    the screen ends; its good lines are in force."""

    def test_bad_lines_named_and_left_out(self):
        from bchelp import Study

        here = os.path.dirname(os.path.abspath(__file__))
        st = Study(items=os.path.join(here, "fixtures", "reading.jsonl"),
                   members=[("alice", "annotator")])
        try:
            cfg = os.path.join(st.dir, "cfg")
            os.makedirs(os.path.join(cfg, "bugcoder"))
            keys = os.path.join(cfg, "bugcoder", "keys")
            with open(keys, "w") as f:
                f.write("# mine\nbind main x submit\nbind main y fly\n"
                        "bind nope x quit\n")
            script = os.path.join(st.dir, "script")
            with open(script, "w") as f:
                f.write("x\nq\n")
            p = st.run("code", as_="alice", env={
                "BUGCODER_KEYS": script, "BUGCODER_NO_DISPLAY": "1",
                "LINES": "24", "COLUMNS": "80", "XDG_CONFIG_HOME": cfg})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(f'{keys}:3: no action "fly" (line ignored)\n',
                          p.stderr)
            self.assertIn(f'{keys}:4: no keymap "nope" (line ignored)\n',
                          p.stderr)
            self.assertNotIn(":2:", p.stderr)
            # x submitted nothing (nothing coded), and said so: nothing
            # stored
            self.assertEqual(st.query("SELECT count(*) FROM submissions"),
                             [(0,)])
        finally:
            st.close()


if __name__ == "__main__":
    unittest.main()
