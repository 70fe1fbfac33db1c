# SPDX-License-Identifier: MIT
"""What a team new to bugcoder meets in its first hour: every message
says what is wrong in words that fit the case, and nothing is a failure
that is not one.

Each class is one thing that once read wrong: "1 rounds"; a refusal on
two lines; a file that is not a study reported as "reading the schema
version"; a UTF-16 spreadsheet called "a NUL byte"; a cell's spaces kept;
`doctor` calling TERM=dumb fine while the screen refused it; "nothing to
adjudicate" as exit 1; `--stdy` an unknown command; a misspelt option or
round name without a suggestion; a read-only mount reported as "no write
permission"; a misspelt dimension column silently dropped; a NUL byte
cutting a line short; a URL on any host taken for GitHub; a codebook path
from outside the tree without the hint that its bare name works."""
import os
import shutil
import subprocess
import unittest

from bchelp import BIN, ROOT, Study

MEMBERS = [("alice", "annotator"), ("bob", "annotator"),
           ("carol", "adjudicator")]
FIRST = "microsoft/DeepSpeed#3468"


class Plurals(unittest.TestCase):
    def setUp(self):
        self.s = Study(items=None, members=[("alice", "annotator")])

    def tearDown(self):
        self.s.close()

    def test_one_is_singular(self):
        one = os.path.join(self.s.dir, "one.jsonl")
        with open(os.path.join(ROOT, "tests", "sample", "items.jsonl")) as f:
            first = f.readline()
        import json
        item = json.loads(first)
        item["comments"] = item["comments"][:1]
        item["fixes"] = item["fixes"][:1]
        with open(one, "w") as f:
            f.write(json.dumps(item) + "\n")
        out = self.s.ok("import", one)
        self.assertEqual(out, f"{one}: 1 added, 0 updated (1 comment, "
                         "1 fix)\n")
        self.s.ok("round", "create", "r1", "--items", FIRST,
                  "--annotators", "alice")
        out = self.s.ok("round", "list")
        self.assertRegex(out, r"^r1 +open +1 item,  +0 done")
        out = self.s.ok("status")
        self.assertIn("\n2 members, 1 round\n", out)
        self.assertIn("\n0 labels, 0 submissions, 0 open proposals, "
                      "0 resolutions\n", out)
        self.s.ok("label", FIRST, "symptom=hang", as_="alice")
        out = self.s.ok("status")
        self.assertIn("\n1 label, 0 submissions,", out)
        csv = os.path.join(self.s.dir, "l.csv")
        with open(csv, "w") as f:
            f.write("item,annotator,dimension,code\n"
                    f"{FIRST},alice,phase,training\n")
        out = self.s.ok("labels", "import", csv, as_="alice")
        self.assertEqual(out, f"{csv}: 1 row, 1 label set\n")
        err = self.s.fail("round", "close", "r1")
        self.assertIn("round r1: 1 of 1 item is not submitted", err)


class OneLineRefusals(unittest.TestCase):
    """The README promises that an error is one line on stderr: the
    refusals of imports and label files said "nothing imported" on a
    second line."""

    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def write(self, name, text):
        path = os.path.join(self.s.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_refusals_are_one_line(self):
        bad_items = self.write("bad.jsonl", '{"repo": "o/r"}\n')
        good_items = self.write("good.jsonl", '{"repo": "o/r", "number": 1, '
                                '"title": "t"}\n')
        bad_labels = self.write("bad.csv", "item,annotator,dimension,code\n"
                                f"{FIRST},alice,symptom,nosuch\n")
        bad_from = self.write("from.txt", f"{FIRST} symptom=hang\n"
                              f"{FIRST} nosuch=hang\n")
        before = self.s.dump()
        cases = [
            (("import", bad_items), None,
             f"{bad_items}:1: number: missing (required); nothing "
             "imported from this file"),
            (("import", good_items, bad_items), None,
             "; nothing imported: the 2 files go in together or not at all"),
            (("labels", "import", bad_labels), "alice",
             "; nothing imported"),
            (("label", "--from", bad_from), "alice",
             f"{bad_from}:2: "),
            (("label", FIRST, "symptom=hang", "--submit"), "alice",
             "not submitted: required dimensions not coded"),
            (("round", "close", "nosuch"), None, "nosuch: no such round"),
        ]
        for args, who, words in cases:
            p = self.s.run(*args, as_=who)
            self.assertEqual(p.returncode, 1, (args, p.stderr))
            lines = p.stderr.splitlines()
            self.assertEqual(len(lines), 1, (args, p.stderr))
            self.assertTrue(lines[0].startswith("bugcoder: "), lines)
            self.assertIn(words, lines[0])
        self.assertTrue(p.stderr.endswith("\n"))
        # label --from names the line and says nothing was saved, on it
        p = self.s.run("label", "--from", bad_from, as_="alice")
        self.assertTrue(p.stderr.rstrip().endswith("; nothing saved"),
                        p.stderr)
        self.assertEqual(self.s.dump(), before)


class NotAStudy(unittest.TestCase):
    def test_a_file_that_is_no_database_is_named(self):
        s = Study(items=None)
        try:
            path = os.path.join(s.dir, "notes.db")
            with open(path, "w") as f:
                f.write("hello\n")
            p = subprocess.run([BIN, "--study", path, "status"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stderr, f"bugcoder: {path}: not a bugcoder "
                             "study: a file of 6 bytes that is not an SQLite "
                             "database (name the study's file with --study)"
                             "\n")
            with open(path) as f:
                self.assertEqual(f.read(), "hello\n")
        finally:
            s.close()


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"),
                     "mounting a read-only file system needs root and "
                     "unshare")
class ReadOnlyMount(unittest.TestCase):
    """A study on a read-only mount: the refusal names the mount (it was
    "no write permission (...; you are root)")."""

    def test_the_mount_is_named(self):
        s = Study(members=MEMBERS)
        try:
            ro = os.path.join(s.dir, "ro")
            os.mkdir(ro)
            script = ('mount --bind "$1" "$2" && '
                      'mount -o remount,ro,bind "$2" && '
                      'exec "$3" --study "$2/study.db" --as alice label '
                      '"$4" symptom=hang')
            p = subprocess.run(["unshare", "--mount", "--propagation",
                                "private", "sh", "-c", script, "sh", s.dir,
                                ro, BIN, FIRST], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stderr, f"bugcoder: {ro}/study.db: cannot "
                             "write the study: the file system is mounted "
                             f"read-only (at {os.path.realpath(ro)}); copy "
                             "the study to a writable place, or ask for the "
                             "mount to be made writable\n")
            self.assertNotIn("permission", p.stderr)
            self.assertEqual(s.query("SELECT count(*) FROM labels"), [(0,)])
        finally:
            s.close()


class SpreadsheetCsv(unittest.TestCase):
    """What spreadsheets write: "Unicode text" is UTF-16 (named as such;
    it was "a NUL byte"), and cells typed as "a, b" have spaces."""

    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def test_utf16_is_named(self):
        text = ("item,annotator,dimension,code\n"
                f"{FIRST},alice,symptom,hang\n")
        for enc in ("utf-16", "utf-16-le", "utf-16-be"):
            path = os.path.join(self.s.dir, enc + ".csv")
            with open(path, "wb") as f:
                f.write(text.encode(enc))
            err = self.s.fail("labels", "import", path, as_="alice")
            self.assertEqual(err, f"bugcoder: {path}: UTF-16 text, not "
                             "UTF-8 (as a spreadsheet's \"Unicode text\" is "
                             "saved): save it as \"CSV UTF-8\", or convert "
                             "it with `iconv -f UTF-16 -t UTF-8`; nothing "
                             "imported\n")
            self.assertNotIn("NUL", err)
        path = os.path.join(self.s.dir, "known.csv")
        with open(path, "wb") as f:
            f.write("url\nhttps://github.com/a/b/issues/1\n"
                    .encode("utf-16"))
        err = self.s.fail("import", path)
        self.assertIn(f"{path}: UTF-16 text, not UTF-8", err)
        self.assertEqual(self.s.query("SELECT count(*) FROM labels"), [(0,)])

    def test_spaces_around_cells_are_dropped(self):
        path = os.path.join(self.s.dir, "spaced.csv")
        with open(path, "w") as f:
            f.write("item, annotator , dimension,code\n"
                    f" {FIRST} , alice,  symptom ,\" hang\" \n")
        err = self.s.fail("labels", "import", path, as_="alice")
        # inside quotes the space is the cell's: no code " hang"
        self.assertIn("code:  hang is not a code of symptom; did you mean "
                      "hang?", err)
        with open(path, "w") as f:
            f.write("item, annotator , dimension,code\n"
                    f" {FIRST} , alice,  symptom , hang \n")
        self.s.ok("labels", "import", path, as_="alice")
        self.assertEqual(self.s.query(
            "SELECT dimension, code FROM labels"), [("symptom", "hang")])


class DoctorAndTheScreenAgree(unittest.TestCase):
    """`doctor` said "ok TERM dumb" while the screen refused TERM=dumb;
    both now give the same reason."""

    def test_same_words(self):
        from test_messages import run_tty
        s = Study(members=MEMBERS)
        try:
            keys = os.path.join(s.dir, "keys")
            with open(keys, "w") as f:
                f.write("q\n")
            base = {k: v for k, v in os.environ.items()
                    if not k.startswith(("BUGCODER_", "LC_", "LANG", "TERM"))}
            base.update(LC_ALL="C.UTF-8", BUGCODER_KEYS=keys)
            for term in ("dumb", "xterm-nosuch-terminal", None):
                env = dict(base)
                if term:
                    env["TERM"] = term
                rc, _, err = run_tty(["--study", s.path, "--as", "alice",
                                      "code"], env)
                self.assertEqual(rc, 1, err)
                refusal = err.strip().splitlines()[-1]
                self.assertTrue(refusal.startswith("bugcoder: "), err)
                p = subprocess.run([BIN, "--study", s.path, "doctor"],
                                   env=env, capture_output=True, text=True)
                line = [l for l in p.stdout.splitlines() if "TERM" in l]
                self.assertEqual(line, ["warn  " + refusal[10:]], p.stdout)
            env = dict(base, TERM="xterm")
            p = subprocess.run([BIN, "--study", s.path, "doctor"], env=env,
                               capture_output=True, text=True)
            self.assertIn("ok    TERM xterm\n", p.stdout)
        finally:
            s.close()


class NothingToDo(unittest.TestCase):
    """Nothing left to do is no failure (it was exit 1)."""

    def test_exit_0(self):
        s = Study(members=MEMBERS)
        try:
            p = s.run("adjudicate", as_="carol")
            self.assertEqual((p.returncode, p.stderr), (0, ""))
            self.assertEqual(p.stdout, "nothing to adjudicate: no item that "
                             "all its coders submitted has a disagreement "
                             "or a discussion flag left\n")
            # whoever may not adjudicate is still refused
            self.assertIn("alice is an annotator",
                          s.fail("adjudicate", as_="alice"))
            s.ok("round", "create", "r1", "--items", FIRST,
                 "--annotators", "alice,bob")
            s.ok("round", "close", "r1", "--force")
            before = s.dump()
            self.assertEqual(s.ok("round", "close", "r1"),
                             "round r1 is closed already: nothing to do\n")
            self.assertEqual(s.dump(), before)
            s.ok("round", "reopen", "r1")
            self.assertEqual(s.ok("round", "reopen", "r1"),
                             "round r1 is open already: nothing to do\n")
            # permissions come first: an annotator is refused all the same
            s.fail("round", "reopen", "r1", as_="alice")
        finally:
            s.close()


class DidYouMeanOptionsAndRounds(unittest.TestCase):
    """`--stdy` was "an unknown command"; misspelt options and round names
    got no suggestion."""

    @classmethod
    def setUpClass(cls):
        cls.s = Study(members=MEMBERS)
        cls.s.ok("round", "create", "pilot", "--items", FIRST,
                 "--annotators", "alice,bob")

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_global_options(self):
        for args, typed, near in ((["--stdy", "x.db", "status"], "--stdy",
                                   "--study"),
                                  (["--stdy=x.db", "status"], "--stdy",
                                   "--study"),
                                  (["--verison"], "--verison", "--version"),
                                  (["-as", "alice", "items"], "-as", None)):
            p = subprocess.run([BIN, *args], capture_output=True, text=True,
                               cwd=self.s.dir)
            self.assertEqual(p.returncode, 2, p.stderr)
            first = p.stderr.splitlines()[0]
            want = f"bugcoder: {typed}: unknown option"
            if near:
                want += f"; did you mean {near}?"
            self.assertEqual(first, want)
            self.assertNotIn("unknown command", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.s.dir,
                                                         "x.db")))

    def test_command_options(self):
        for args, want in (
                (("agree", "--fromat", "json"),
                 "unknown option --fromat; did you mean --format?"),
                (("report", "--cros", "symptom,stage"),
                 "unknown option --cros; did you mean --cross?"),
                (("items", "--stdy", "x.db"),
                 "unknown option --stdy; did you mean --study?"),
                (("export", "--zzzzzz"), "unknown option --zzzzzz\n")):
            err = self.s.fail(*args, code=2)
            self.assertTrue(err.startswith("bugcoder: " + want), err)

    def test_round_names(self):
        for args, want in (
                (("round", "close", "pilto"),
                 "pilto: no such round; did you mean pilot?"),
                (("agree", "--round", "Pilot"),
                 "Pilot: no such round; did you mean pilot?"),
                (("items", "--round", "pilott"),
                 "--round pilott: no such round; did you mean pilot?"),
                (("export", "--round", "plot"),
                 "--round plot: no such round; did you mean pilot?"),
                (("round", "create", "r2", "--items", "all", "--annotators",
                  "alice,bob", "--after", "pliot", "--min-kappa", "0.6"),
                 "pliot: no such round; did you mean pilot?"),
                (("agree", "--round", "main"), "main: no such round\n"),
        ):
            p = self.s.run(*args)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stdout, "")
            self.assertTrue(p.stderr.startswith("bugcoder: " + want),
                            p.stderr)
        self.assertEqual(self.s.query("SELECT name FROM rounds"),
                         [("pilot",)])


class NulBytes(unittest.TestCase):
    """A NUL byte cut a `label --from` line short without a word, and
    ended the keys file's reading there."""

    def setUp(self):
        self.s = Study(members=MEMBERS)

    def tearDown(self):
        self.s.close()

    def test_label_from_names_the_line(self):
        path = os.path.join(self.s.dir, "from.txt")
        with open(path, "wb") as f:
            f.write(f"{FIRST} symptom=hang\n{FIRST} phase=training"
                    "\0 root_cause=concurrency\n".encode())
        before = self.s.dump()
        err = self.s.fail("label", "--from", path, as_="alice")
        self.assertEqual(err, f"bugcoder: {path}:2: a NUL byte in the line; "
                         "nothing saved\n")
        p = self.s.run("label", "--from", "-", as_="alice",
                       input=f"{FIRST} phase=training\0\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("stdin:1: a NUL byte in the line", p.stderr)
        self.assertEqual(self.s.dump(), before)

    def test_keys_file_names_the_line_and_reads_on(self):
        cfg = os.path.join(self.s.dir, "cfg")
        os.makedirs(os.path.join(cfg, "bugcoder"))
        keys = os.path.join(cfg, "bugcoder", "keys")
        with open(keys, "wb") as f:
            f.write(b"bind main x\0 quit\nbind main y fly\n")
        script = os.path.join(self.s.dir, "script")
        with open(script, "w") as f:
            f.write("q\n")
        p = self.s.run("code", as_="alice", env={
            "BUGCODER_KEYS": script, "BUGCODER_NO_DISPLAY": "1",
            "LINES": "24", "COLUMNS": "80", "XDG_CONFIG_HOME": cfg})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{keys}:1: a NUL byte in the line (line ignored)\n",
                      p.stderr)
        # the lines after it are read
        self.assertIn(f'{keys}:2: no action "fly" (line ignored)\n',
                      p.stderr)


class GitHubUrlsOnly(unittest.TestCase):
    """https://example.com/a/b/issues/1 was taken for GitHub's a/b#1."""

    def test_host_is_checked(self):
        s = Study(members=MEMBERS)
        try:
            url = "https://example.com/microsoft/DeepSpeed/issues/3468"
            err = s.fail("label", url, "symptom=hang", as_="alice")
            self.assertEqual(err, f"bugcoder: {url}: example.com is not "
                             "GitHub (github.com, or the host of "
                             "$GITHUB_API_URL)\n")
            path = os.path.join(s.dir, "known.txt")
            with open(path, "w") as f:
                f.write("https://github.com/a/b/issues/1\n"
                        "https://example.com/a/b/issues/2\n")
            err = s.fail("import", path)
            self.assertIn(f"{path}:2: https://example.com/a/b/issues/2: "
                          "example.com is not GitHub", err)
            self.assertEqual(s.query("SELECT count(*) FROM items WHERE "
                                     "repo = 'a/b'"), [(0,)])
            # GitHub itself, and the GitHub Enterprise of $GITHUB_API_URL
            s.ok("label", "https://github.com/microsoft/DeepSpeed/issues/"
                 "3468", "symptom=hang", as_="alice")
            s.ok("label", url, "phase=training", as_="alice",
                 env={"GITHUB_API_URL": "https://example.com/api/v3"})
            self.assertEqual(s.query("SELECT dimension FROM labels ORDER BY "
                                     "1"), [("phase",), ("symptom",)])
        finally:
            s.close()


class CodebookPathOutsideTheTree(unittest.TestCase):
    """`init --codebook codebooks/x.json` from another directory said only
    "No such file or directory"."""

    def test_hint_the_bare_name(self):
        s = Study(items=None)
        try:
            new = os.path.join(s.dir, "new.db")
            p = subprocess.run([BIN, "--study", new, "init", "--codebook",
                                "codebooks/llm-framework-bugs.json"],
                               cwd=s.dir, capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stderr, "bugcoder: codebooks/llm-framework-"
                             "bugs.json: no such file; the bundled codebook "
                             "of that name is found by its bare name: "
                             "--codebook llm-framework-bugs\n")
            self.assertFalse(os.path.exists(new))
            p = subprocess.run([BIN, "--study", new, "init", "--codebook",
                                "llm-framework-bugs"], cwd=s.dir,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            p = subprocess.run([BIN, "--study", new + "2", "init",
                                "--codebook", "elsewhere/mine.json"],
                               cwd=s.dir, capture_output=True, text=True)
            self.assertEqual(p.stderr, "bugcoder: elsewhere/mine.json: No "
                             "such file or directory\n")
        finally:
            s.close()


if __name__ == "__main__":
    unittest.main()
