# SPDX-License-Identifier: MIT
"""Server install tests: the operating system keeps blinding and the log.

Needs root (CI runs the suite as root): the tests create OS accounts and
groups with unique names, run `make install-server` into a temporary
PREFIX and STUDYDIR, and act as each account through runuser.  Elsewhere
every test is reported as skipped, with the reason.  The accounts, their
homes and the groups are removed afterwards, also when a test fails
(class cleanups run whatever happens).

Accounts: an owner, two annotators (alice, bob) and, for the personal
install in a group-shared directory, a team group both annotators join.
The tampering test sorts last (test_zz_...) since it breaks the chain of
the shared study.
"""
import csv
import grp
import io
import os
import pwd
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bugcoder")
SAMPLE = os.path.join(ROOT, "tests", "sample", "items.jsonl")
TOOLS = ("useradd", "userdel", "groupadd", "groupdel", "runuser", "sqlite3",
         "tmux", "make", "setpriv")
# labels each annotator saves in the concurrent test
CONCURRENT = int(os.environ.get("BUGCODER_TEST_CONCURRENT", "200"))


def why_skip():
    if os.geteuid() != 0:
        return ("needs root: creates OS accounts, groups and a setgid "
                "install (CI runs the suite as root)")
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        return "needs " + ", ".join(missing)
    if not os.path.exists(BIN):
        return "bugcoder is not built"
    return None


def quiet(*args):
    subprocess.run(list(args), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def keep_counts(user):
    """Under `make coverage`, what the runs as `user` counted (in its
    home, see run_as()) is kept in tests/tmp/gcov-accounts/USER, which
    tests/coverage.py merges into the tree's counts."""
    if not os.environ.get("COVERAGE"):
        return
    src = os.path.join(pwd.getpwnam(user).pw_dir, ".gcov") + ROOT
    if os.path.isdir(src):
        shutil.copytree(src, os.path.join(ROOT, "tests", "tmp",
                                          "gcov-accounts", user),
                        dirs_exist_ok=True)


class ServerInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        reason = why_skip()
        if reason:
            print("\ntest_server: skipped: " + reason, flush=True)
            raise unittest.SkipTest(reason)
        tag = secrets.token_hex(3)
        cls.group = "bcg" + tag
        cls.team = "bct" + tag
        cls.owner, cls.alice, cls.bob = ("bco" + tag, "bca" + tag,
                                         "bcb" + tag)
        cls.eve = "bce" + tag   # an account on the machine, no member
        cls.tmp = tempfile.mkdtemp(prefix="bcsrv.")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        os.chmod(cls.tmp, 0o755)
        cls.prefix = os.path.join(cls.tmp, "usr")
        cls.studydir = os.path.join(cls.tmp, "studies")
        cls.bin = os.path.join(cls.prefix, "bin", "bugcoder")
        cls.study = os.path.join(cls.studydir, "llm.db")

        # cleanups run in reverse: accounts go before their groups
        cls.addClassCleanup(quiet, "groupdel", cls.group)
        cls.addClassCleanup(quiet, "groupdel", cls.team)
        subprocess.run(["groupadd", cls.team], check=True)
        for name in (cls.owner, cls.alice, cls.bob, cls.eve):
            cls.addClassCleanup(quiet, "userdel", "-r", name)
            subprocess.run(["useradd", "-m", "-s", "/bin/sh", name],
                           check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            # before the account goes: its coverage counts, for
            # tests/coverage.py to add to the tree's
            cls.addClassCleanup(keep_counts, name)
        for name in (cls.alice, cls.bob):
            subprocess.run(["usermod", "-a", "-G", cls.team, name],
                           check=True)

        # the install: the binary as built (no rebuild, so a SAN=1 build
        # stays what it is)
        p = subprocess.run(["make", "-C", ROOT, "--no-print-directory",
                            "-o", "bugcoder", "install-server",
                            "PREFIX=" + cls.prefix,
                            "STUDYDIR=" + cls.studydir,
                            "GROUP=" + cls.group,
                            "CREATORS=" + cls.owner],
                           capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError("make install-server failed:\n" + p.stdout +
                               p.stderr)
        items = os.path.join(cls.tmp, "items.jsonl")
        shutil.copy(SAMPLE, items)
        os.chmod(items, 0o644)
        codebook = os.path.join(cls.prefix, "share", "bugcoder",
                                "codebooks", "llm-framework-bugs.json")
        cls.must(cls.owner, "init", "--codebook", codebook, "--title", "T")
        cls.must(cls.owner, "import", items)
        cls.must(cls.owner, "member", "add", cls.alice, "--role",
                 "annotator")
        cls.must(cls.owner, "member", "add", cls.bob, "--role", "annotator")
        cls.must(cls.owner, "round", "create", "r1", "--sample", "4",
                 "--seed", "1", "--annotators",
                 cls.alice + "," + cls.bob)
        out = cls.must(cls.owner, "items", "--round", "r1").stdout
        cls.items = [ln.split()[0] for ln in out.splitlines()[1:]
                     if ln.split() and "#" in ln.split()[0]]
        assert len(cls.items) == 4, out

    # ---- helpers ------------------------------------------------------

    @classmethod
    def run_as(cls, user, args, env=None, input=None, umask=0o022,
               binary=None, study="llm", timeout=60, popen=False):
        home = pwd.getpwnam(user).pw_dir
        base = ["env", "-i", "PATH=/usr/bin:/bin", "HOME=" + home,
                "LC_ALL=C.UTF-8", "TZ=UTC", "TERM=xterm"]
        if study:
            base.append("BUGCODER_STUDY=" + study)
        for k, v in (env or {}).items():
            base.append(k + "=" + v)
        # under `make coverage` the binary is instrumented, and this
        # account cannot write its counts into the tree: they go to its
        # home (gcov would otherwise complain on the stderr read here),
        # and keep_counts() saves them before the account goes
        if os.environ.get("COVERAGE"):
            base.append("GCOV_PREFIX=" + os.path.join(home, ".gcov"))
        cmd = (["runuser", "-u", user, "--"] + base +
               ["sh", "-c", 'umask %03o; cd "$HOME" && exec "$@"' % umask,
                "sh", binary or cls.bin] + list(args))
        if popen:
            return subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        return subprocess.run(cmd, input=input, capture_output=True,
                              text=True, timeout=timeout)

    @classmethod
    def must(cls, user, *args, **kw):
        p = cls.run_as(user, args, **kw)
        if p.returncode != 0:
            raise AssertionError("%s %s: exit %d\n%s%s" % (
                user, " ".join(args), p.returncode, p.stdout, p.stderr))
        return p

    def sh_as(self, user, script):
        return subprocess.run(["runuser", "-u", user, "--", "sh", "-c",
                               script], capture_output=True, text=True,
                              timeout=30)

    def audit_rows(self, user="owner", *args):
        who = self.owner if user == "owner" else user
        out = self.must(who, "audit", "--format", "csv", *args).stdout
        return list(csv.DictReader(io.StringIO(out)))

    def open_screen(self, user, binary=None, study="llm"):
        """The coding screen of `user` in tmux, holding the study open.
        Returns the tmux command prefix; the screen goes at cleanup."""
        home = pwd.getpwnam(user).pw_dir
        sock = os.path.join(home, "tmux-%s.sock" % secrets.token_hex(3))
        tmux = ["runuser", "-u", user, "--", "tmux", "-S", sock]
        subprocess.run(["runuser", "-u", user, "--", "env", "-i",
                        "PATH=/usr/bin:/bin", "HOME=" + home,
                        "LC_ALL=C.UTF-8", "TERM=xterm",
                        "BUGCODER_STUDY=" + study, "tmux", "-S", sock,
                        "new-session", "-d", "-x", "120", "-y", "40",
                        "exec %s code" % (binary or self.bin)], check=True)
        self.addCleanup(self.close_screen, user, tmux)
        end = time.time() + 15
        screen = ""
        while time.time() < end:
            screen = subprocess.run(tmux + ["capture-pane", "-p"],
                                    capture_output=True, text=True).stdout
            if "m memo" in screen:
                return tmux
            time.sleep(0.1)
        self.fail("the screen did not open:\n" + screen)

    def close_screen(self, user, tmux):
        """End `user`'s screen and wait until its bugcoder has exited
        (a screen still closing holds the study open for the next test)."""
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        end = time.time() + 15
        while time.time() < end and subprocess.run(
                ["pgrep", "-u", user, "-x", "bugcoder"],
                capture_output=True).returncode == 0:
            time.sleep(0.1)

    def wait_for(self, path, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            if os.path.exists(path):
                return
            time.sleep(0.05)
        self.fail(path + " never appeared")

    # ---- the install --------------------------------------------------

    def test_install_layout(self):
        gid = grp.getgrnam(self.group).gr_gid
        sb = os.stat(self.bin)
        self.assertEqual((sb.st_uid, sb.st_gid), (0, gid))
        self.assertEqual(stat.S_IMODE(sb.st_mode), 0o2755)
        sb = os.stat(self.studydir)
        self.assertEqual((sb.st_uid, sb.st_gid), (0, gid))
        self.assertEqual(stat.S_IMODE(sb.st_mode), 0o2770)
        sb = os.stat(self.study)
        self.assertEqual(sb.st_gid, gid)
        self.assertEqual(stat.S_IMODE(sb.st_mode), 0o660)
        self.assertTrue(os.path.exists(os.path.join(
            self.prefix, "share", "bugcoder", "codebooks",
            "dl-framework-bugs.json")))
        # members are not in the group
        for u in (self.owner, self.alice, self.bob):
            self.assertNotIn(u, grp.getgrnam(self.group).gr_mem)

    def test_annotator_cannot_open_study_or_wal(self):
        # bob's screen holds the study open, so its -wal and -shm exist
        self.open_screen(self.bob)
        self.wait_for(self.study + "-wal")
        self.wait_for(self.study + "-shm")
        p = self.sh_as(self.alice, "sqlite3 '%s' 'SELECT count(*) "
                       "FROM labels'" % self.study)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("unable to open", p.stdout + p.stderr)
        for f in (self.study, self.study + "-wal", self.study + "-shm"):
            p = self.sh_as(self.alice, "cat '%s' >/dev/null" % f)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("Permission denied", p.stderr)
        p = self.sh_as(self.alice, "ls '%s'" % self.studydir)
        self.assertIn("Permission denied", p.stderr)
        # and -wal, -shm were made right while bob's umask is 022
        gid = grp.getgrnam(self.group).gr_gid
        for f in (self.study + "-wal", self.study + "-shm"):
            sb = os.stat(f)
            self.assertEqual(sb.st_gid, gid, f)
            self.assertEqual(stat.S_IMODE(sb.st_mode), 0o660, f)

    def test_codes_through_bugcoder_blind_to_the_other(self):
        item = self.items[1]
        self.must(self.alice, "label", item, "symptom=crash")
        self.must(self.bob, "label", item, "symptom=hang")
        mine = self.audit_rows(self.alice)
        self.assertTrue(mine)
        self.assertTrue(all(r["actor"] == self.alice for r in mine))
        self.assertEqual(self.audit_rows(self.alice, "--member", self.bob),
                         [])
        raw = self.must(self.alice, "export", "--raw").stdout
        self.assertNotIn(self.bob, raw)
        self.assertNotIn("hang", raw)
        # the owner sees both
        actors = {r["actor"] for r in self.audit_rows("owner", "--item",
                                                       item)}
        self.assertTrue({self.alice, self.bob} <= actors)

    def test_annotator_cannot_change_audit_log(self):
        before = len(self.audit_rows())
        for sql in ("DELETE FROM audit", "UPDATE members SET role='owner'",
                    "DROP TRIGGER audit_no_delete"):
            p = self.sh_as(self.alice, "sqlite3 '%s' \"%s\"" %
                           (self.study, sql))
            self.assertNotEqual(p.returncode, 0)
        self.assertGreaterEqual(len(self.audit_rows()), before)
        p = self.run_as(self.alice, ["--as", self.owner, "status"])
        self.assertEqual(p.returncode, 1)

    def test_outputs_belong_to_the_user(self):
        pw = pwd.getpwnam(self.alice)
        self.must(self.alice, "export", "-o", "agreed.csv")
        self.must(self.alice, "audit", "--format", "jsonl", "-o", "a.jsonl")
        for name in ("agreed.csv", "a.jsonl"):
            sb = os.stat(os.path.join(pw.pw_dir, name))
            self.assertEqual((sb.st_uid, sb.st_gid), (pw.pw_uid, pw.pw_gid))
        # an input she cannot read is not read with the group either
        secret = os.path.join(self.studydir, "llm.db")
        p = self.run_as(self.alice, ["labels", "import", secret])
        self.assertEqual(p.returncode, 1)
        self.assertIn("ermission denied", p.stderr)
        # nor written: -o into the study directory is refused
        p = self.run_as(self.alice, ["export", "-o",
                                     os.path.join(self.studydir, "x.csv")])
        self.assertEqual(p.returncode, 1)
        self.assertFalse(os.path.exists(os.path.join(self.studydir,
                                                     "x.csv")))

    def test_editor_runs_without_the_group(self):
        home = pwd.getpwnam(self.alice).pw_dir
        editor = os.path.join(self.tmp, "editor.sh")
        with open(editor, "w") as f:
            # written aside, then renamed: ids.txt appears whole
            f.write('#!/bin/sh\n{ id -G; grep Gid /proc/self/status; '
                    'env | grep BUGCODER_ || true; } > "$HOME/ids.tmp"\n'
                    'mv "$HOME/ids.tmp" "$HOME/ids.txt"\n'
                    'echo "memo from the editor" > "$1"\n')
        os.chmod(editor, 0o755)
        ids = os.path.join(home, "ids.txt")
        sock = os.path.join(home, "tmux.sock")
        tmux = ["runuser", "-u", self.alice, "--", "tmux", "-S", sock]
        subprocess.run(["runuser", "-u", self.alice, "--", "env", "-i",
                        "PATH=/usr/bin:/bin", "HOME=" + home,
                        "LC_ALL=C.UTF-8", "TERM=xterm", "EDITOR=" + editor,
                        "BUGCODER_STUDY=llm", "BUGCODER_HOOK=1", "tmux",
                        "-S", sock, "new-session", "-d", "-x", "120", "-y",
                        "40", self.bin + " code " + self.items[2] +
                        "; sleep 30"], check=True)
        try:
            end = time.time() + 15
            while time.time() < end:
                screen = subprocess.run(tmux + ["capture-pane", "-p"],
                                        capture_output=True,
                                        text=True).stdout
                if "m memo" in screen:
                    break
                time.sleep(0.1)
            subprocess.run(tmux + ["send-keys", "M"], check=True)
            self.wait_for(ids, 30)
            with open(ids) as f:
                text = f.read()
            # the memo is saved; an idle screen then empties the -wal
            # into the study, while it stays open
            end = time.time() + 10
            while time.time() < end:
                if os.path.getsize(self.study + "-wal") == 0:
                    break
                time.sleep(0.2)
            self.assertEqual(os.path.getsize(self.study + "-wal"), 0)
            self.assertEqual(subprocess.run(
                tmux + ["has-session"], capture_output=True).returncode, 0)
        finally:
            subprocess.run(tmux + ["kill-server"], capture_output=True)
        gid = grp.getgrnam(self.group).gr_gid
        own = pwd.getpwnam(self.alice).pw_gid
        groups = [int(g) for g in text.split("\n")[0].split()]
        self.assertNotIn(gid, groups)
        self.assertIn(own, groups)
        gids = text.split("\n")[1].split()[1:]
        self.assertEqual(gids, [str(own)] * 4)  # real, eff, saved, fs
        self.assertNotIn("BUGCODER_", text)

    def test_test_hooks_ignored(self):
        self.must(self.alice, "label", self.items[3], "symptom=crash",
                  env={"BUGCODER_NOW": "2001-01-01T00:00:00Z"})
        rows = self.audit_rows(self.alice)
        self.assertFalse(rows[-1]["at"].startswith("2001"), rows[-1])
        # the key script hook: no screen runs from a script
        p = self.run_as(self.alice, ["code"],
                        env={"BUGCODER_KEYS": "q", "TERM": "dumb",
                             "BUGCODER_NO_DISPLAY": "1"})
        self.assertNotEqual(p.returncode, 0)
        # the write-lock gate: honoured, it would make PATH.waiting and
        # wait a minute for PATH
        gates = tempfile.mkdtemp(prefix="gate.", dir=self.tmp)
        os.chmod(gates, 0o1777)
        gate = os.path.join(gates, "gate")
        start = time.monotonic()
        self.must(self.alice, "label", self.items[3], "symptom=hang",
                  env={"BUGCODER_TEST_BEGIN_GATE": gate})
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(os.listdir(gates), [])

    def test_concurrent_labels_umask_022(self):
        # each call changes one label, so each is one audit row
        codes = ("training", "inference")
        scripts = {}
        for user in (self.alice, self.bob):
            lines = []
            for k in range(CONCURRENT):
                item = self.items[k % 4]
                code = codes[(k // 4) % 2]
                lines.append('"$B" label %s phase=%s >/dev/null 2>>err.txt '
                             '|| echo "$?" >> fails.txt' % (item, code))
            home = pwd.getpwnam(user).pw_dir
            for f in ("err.txt", "fails.txt"):
                if os.path.exists(os.path.join(home, f)):
                    os.unlink(os.path.join(home, f))
            path = os.path.join(self.tmp, "run-%s.sh" % user)
            with open(path, "w") as f:
                f.write("B=%s\n" % self.bin + "\n".join(lines) + "\n")
            os.chmod(path, 0o644)
            scripts[user] = path
        start = time.time()
        procs = [subprocess.Popen(
            ["runuser", "-u", u, "--", "env", "-i", "PATH=/usr/bin:/bin",
             "HOME=" + pwd.getpwnam(u).pw_dir, "LC_ALL=C.UTF-8",
             "BUGCODER_STUDY=llm", "sh", "-c",
             'umask 022; cd "$HOME" && . %s' % scripts[u]])
            for u in scripts]
        for p in procs:
            p.wait(timeout=300)
        elapsed = time.time() - start
        failures = {}
        for user in scripts:
            home = pwd.getpwnam(user).pw_dir
            fails = os.path.join(home, "fails.txt")
            failures[user] = (open(fails).read().split()
                              if os.path.exists(fails) else [])
        rows = self.audit_rows()
        saved = {u: sum(1 for r in rows if r["actor"] == u and
                        r["action"] == "label" and r["dimension"] == "phase")
                 for u in scripts}
        print("\n  concurrent labels: %d + %d calls under umask 022 in "
              "%.1fs: %d + %d failed, %d + %d saved" % (
                  CONCURRENT, CONCURRENT, elapsed,
                  len(failures[self.alice]), len(failures[self.bob]),
                  saved[self.alice], saved[self.bob]), flush=True)
        self.assertEqual(failures, {self.alice: [], self.bob: []})
        self.assertEqual(saved, {self.alice: CONCURRENT,
                                 self.bob: CONCURRENT})
        self.must(self.owner, "audit", "verify")

    def test_label_from_file(self):
        home = pwd.getpwnam(self.bob).pw_dir
        path = os.path.join(home, "codes.txt")
        with open(path, "w") as f:
            f.write("# bob's codes\n%s fix_pattern=conditional_logic\n"
                    "\n%s fix_pattern=nosuch\n" % (self.items[0],
                                                   self.items[1]))
        os.chmod(path, 0o644)
        p = self.run_as(self.bob, ["label", "--from", path])
        self.assertEqual(p.returncode, 1)
        self.assertIn("codes.txt:4:", p.stderr)
        p = self.run_as(self.bob, ["label", "--from", "-"],
                        input="%s fix_pattern=conditional_logic\n" %
                        self.items[0])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [r for r in self.audit_rows(self.bob)
                if r["dimension"] == "fix_pattern"]
        self.assertEqual(len(rows), 1)

    def test_bad_study_names(self):
        for name in ("..", ".llm", "ll m", "a..b", "-x"):
            p = self.run_as(self.alice, ["status"], study=name)
            self.assertEqual(p.returncode, 2, name)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1)
            self.assertIn("refused", p.stderr)
        # a path is a path, opened as the user: no way into STUDYDIR
        p = self.run_as(self.alice, ["status"],
                        study="../../" + self.study)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no search (x) permission", p.stderr)
        # a symlink planted in STUDYDIR
        link = os.path.join(self.studydir, "planted.db")
        os.symlink(self.study, link)
        try:
            p = self.run_as(self.alice, ["status"], study="planted")
            self.assertEqual(p.returncode, 1)
            self.assertIn("symbolic link", p.stderr)
        finally:
            os.unlink(link)
        # a second name for the study (a hard link root made): its own
        # -wal and -shm would let two writers corrupt it
        linked = os.path.join(self.studydir, "linked.db")
        os.link(self.study, linked)
        try:
            p = self.run_as(self.alice, ["status"], study="linked")
            self.assertEqual(p.returncode, 1)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1)
            self.assertIn("hard link", p.stderr)
            self.assertFalse(os.path.exists(linked + "-wal"))
            p = self.run_as(self.alice, ["status"])
            self.assertEqual(p.returncode, 1)
            self.assertIn("hard link", p.stderr)
        finally:
            for sfx in ("", "-wal", "-shm"):
                if os.path.lexists(linked + sfx):
                    os.unlink(linked + sfx)
        # a study of another group
        other = os.path.join(self.studydir, "other.db")
        shutil.copy(self.study, other)
        os.chown(other, pwd.getpwnam(self.owner).pw_uid,
                 grp.getgrnam(self.team).gr_gid)
        try:
            p = self.run_as(self.alice, ["status"], study="other")
            self.assertEqual(p.returncode, 1)
            self.assertIn("another group", p.stderr)
        finally:
            os.unlink(other)
        # a path to a study one cannot read
        p = self.run_as(self.alice, ["status"], study=self.study)
        self.assertEqual(p.returncode, 1)
        self.assertIn(self.study, p.stderr)
        # a member who is no OS account
        p = self.run_as(self.owner, ["member", "add", "nosuchuser" +
                                     self.group, "--role", "annotator"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("nosuchuser" + self.group, p.stderr)

    def test_backup_and_doctor(self):
        home = pwd.getpwnam(self.owner).pw_dir
        self.must(self.owner, "backup", "copy.db")
        sb = os.stat(os.path.join(home, "copy.db"))
        self.assertEqual(sb.st_uid, pwd.getpwnam(self.owner).pw_uid)
        self.assertEqual(stat.S_IMODE(sb.st_mode), 0o600)
        p = self.must(self.owner, "audit", "verify", study="./copy.db")
        self.assertIn("the chain holds", p.stdout)
        p = self.run_as(self.alice, ["backup", "mine.db"])
        self.assertEqual(p.returncode, 1)
        self.assertFalse(os.path.exists(os.path.join(
            pwd.getpwnam(self.alice).pw_dir, "mine.db")))

        p = self.run_as(self.alice, ["doctor"])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("cannot open the study without bugcoder", p.stdout)
        os.chmod(self.studydir, 0o2775)
        try:
            p = self.run_as(self.alice, ["doctor"])
        finally:
            os.chmod(self.studydir, 0o2770)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"FAIL +study directory")

    def test_personal_install_group_shared_directory(self):
        # a personal (not setgid) binary, a team directory without the
        # setgid bit; alice and bob have their own primary groups
        bindir = os.path.join(self.tmp, "personal", "bin")
        os.makedirs(bindir, exist_ok=True)
        binary = os.path.join(bindir, "bugcoder")
        shutil.copy(BIN, binary)
        os.chmod(binary, 0o755)
        team = os.path.join(self.tmp, "team")
        os.makedirs(team, exist_ok=True)
        gid = grp.getgrnam(self.team).gr_gid
        os.chown(team, 0, gid)
        os.chmod(team, 0o770)
        study = os.path.join(team, "p.db")
        kw = dict(binary=binary, study=study)
        self.must(self.alice, "init", "--title", "P", "--codebook",
                  os.path.join(self.prefix, "share", "bugcoder",
                               "codebooks", "llm-framework-bugs.json"),
                  **kw)
        os.chown(study, -1, gid)
        self.must(self.alice, "import", os.path.join(self.tmp,
                                                     "items.jsonl"), **kw)
        self.must(self.alice, "member", "add", self.bob, "--role",
                  "owner", **kw)
        self.must(self.alice, "round", "create", "p1", "--sample", "2",
                  "--seed", "1", "--annotators", self.alice + "," +
                  self.bob, **kw)
        # alice (umask 022, her own primary group) opens it first
        tmux = self.open_screen(self.alice, binary=binary, study=study)
        for f in (study + "-wal", study + "-shm"):
            self.wait_for(f)
            sb = os.stat(f)
            self.assertEqual(sb.st_gid, gid, f)
            self.assertEqual(stat.S_IMODE(sb.st_mode), 0o660, f)
        p = self.run_as(self.bob, ["status"], **kw)
        self.assertEqual(p.returncode, 0, p.stderr)
        # kill -9 the screen: -wal and -shm stay, nobody is locked out
        pid = int(subprocess.run(tmux + ["list-panes", "-F",
                                         "#{pane_pid}"],
                                 capture_output=True, text=True,
                                 check=True).stdout.split()[0])
        os.kill(pid, signal.SIGKILL)
        self.assertTrue(os.path.exists(study + "-shm"))
        p = self.run_as(self.bob, ["member", "add", self.owner, "--role",
                                   "annotator"], **kw)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("you are", self.must(self.alice, "status",
                                           **kw).stdout)

    # ---- no name reaches the privileged layer ----------------------------

    def study_state(self):
        """What the study holds, read by root (nobody writes meanwhile):
        a digest of its rows, the way root's sqlite3 sees them."""
        p = subprocess.run(["sqlite3", self.study,
                            "SELECT value FROM meta WHERE key IN "
                            "('title','coder_salt') ORDER BY key; "
                            "SELECT name, role FROM members ORDER BY id; "
                            "SELECT count(*) FROM labels; "
                            "SELECT count(*) FROM items; "
                            "SELECT count(*), max(id) FROM audit;"],
                           capture_output=True, text=True, check=True)
        return p.stdout

    def test_uri_names_change_no_study(self):
        before = self.study_state()
        uri = "file:%s?vfs=bugcoder-priv" % self.study
        for user in (self.eve, self.alice):
            home = pwd.getpwnam(user).pw_dir
            attempts = [
                (["init", "--title", "x"], uri),
                (["status"], uri),
                (["export", "--raw"], uri),
                (["label", self.items[0], "symptom=hang"], uri),
            ]
            for args, study in attempts:
                p = self.run_as(user, args, study=study)
                self.assertNotEqual(p.returncode, 0, (user, args, p.stdout))
            # a study of her own, by path, backed up "over" the team's
            self.must(user, "init", "--title", "mine", study="./mine.db")
            for args in (["backup", uri],
                         ["backup", "file:" + self.study],
                         ["import", uri],
                         ["export", "-o", uri],
                         ["export", "--package", uri],
                         ["report", "-o", uri],
                         ["audit", "-o", uri]):
                p = self.run_as(user, args, study="./mine.db")
                self.assertNotEqual(p.returncode, 0, (user, args))
            # the names were plain names: at most files of hers, in her
            # home, under the literal name
            for root, _dirs, files in os.walk(home):
                for f in files:
                    st = os.lstat(os.path.join(root, f))
                    self.assertEqual(st.st_uid, pwd.getpwnam(user).pw_uid)
        self.assertEqual(self.study_state(), before)
        out = self.must(self.owner, "status").stdout
        self.assertIn("you are %s (owner)" % self.owner, out)
        self.must(self.owner, "audit", "verify")

    # ---- the group given up for good -------------------------------------

    def gids(self, pid):
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                if ln.startswith("Gid:"):
                    return [int(g) for g in ln.split()[1:]]
        self.fail("no Gid line for %d" % pid)

    def bugcoder_pid(self, user, args_hint, timeout=15):
        """The pid of `user`'s running bugcoder whose command line holds
        `args_hint`."""
        uid = pwd.getpwnam(user).pw_uid
        end = time.time() + timeout
        while time.time() < end:
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open("/proc/%s/cmdline" % d, "rb") as f:
                        cmd = f.read().split(b"\0")
                    st = os.stat("/proc/%s/status" % d)
                    with open("/proc/%s/status" % d) as f:
                        real = [ln for ln in f if ln.startswith("Uid:")]
                except OSError:
                    continue
                if (cmd and cmd[0].endswith(b"bugcoder") and real and
                        int(real[0].split()[1]) == uid and
                        args_hint.encode() in b" ".join(cmd)):
                    return int(d)
            time.sleep(0.05)
        self.fail("no running bugcoder of %s with %s" % (user, args_hint))

    def test_group_given_up_while_running(self):
        own = {u: pwd.getpwnam(u).pw_gid for u in (self.alice, self.bob,
                                                   self.owner)}
        seen = {}
        # a running screen
        self.open_screen(self.bob)
        pid = self.bugcoder_pid(self.bob, "code")
        seen["screen"] = (self.gids(pid), own[self.bob])
        # `label --from -` waiting on its input
        p = self.run_as(self.alice, ["label", "--from", "-"], popen=True)
        try:
            pid = self.bugcoder_pid(self.alice, "--from")
            time.sleep(0.3)
            seen["label --from -"] = (self.gids(pid), own[self.alice])
        finally:
            out, err = p.communicate("%s symptom=crash\n" % self.items[0],
                                     timeout=30)
        self.assertEqual(p.returncode, 0, err)
        # `import` reading a slow input (a FIFO nobody writes to yet)
        home = pwd.getpwnam(self.owner).pw_dir
        fifo = os.path.join(home, "slow.jsonl")
        if os.path.exists(fifo):
            os.unlink(fifo)
        os.mkfifo(fifo)
        os.chown(fifo, pwd.getpwnam(self.owner).pw_uid, -1)
        p = self.run_as(self.owner, ["import", fifo], popen=True)
        try:
            pid = self.bugcoder_pid(self.owner, "import")
            time.sleep(0.3)
            seen["import"] = (self.gids(pid), own[self.owner])
        finally:
            with open(fifo, "w") as f:
                f.write("")
            p.communicate(timeout=30)
            os.unlink(fifo)
        # a study opened by path: the group goes before anything
        self.must(self.alice, "init", "--title", "p", study="./p.db")
        p = self.run_as(self.alice, ["label", "--from", "-"],
                        study="./p.db", popen=True)
        try:
            pid = self.bugcoder_pid(self.alice, "--from")
            time.sleep(0.3)
            seen["by path"] = (self.gids(pid), own[self.alice])
        finally:
            p.communicate("", timeout=30)
        print("\n  group ids (real, effective, saved, fs): " + "; ".join(
            "%s %s" % (k, v[0]) for k, v in seen.items()), flush=True)
        for what, (gids, mine) in seen.items():
            self.assertEqual(gids, [mine] * 4, what)
        # and doctor says so
        p = self.must(self.alice, "doctor")
        self.assertRegex(p.stdout, r"ok +group privilege given up")

    def test_study_files_are_no_input(self):
        """The study's -wal and -shm belong to whoever first opened the
        study (here alice, after root removed them), and the study file
        to its creator.  A process that has the study open reaches them
        through /proc/self/fd/N with the owner's own rights: no input it
        reads may be one of them."""
        name = "fdin" + self.group
        self.must(self.owner, "init", "--title", "F", "--codebook",
                  os.path.join(self.prefix, "share", "bugcoder", "codebooks",
                               "llm-framework-bugs.json"), study=name)
        self.must(self.owner, "member", "add", self.alice, "--role",
                  "annotator", study=name)
        path = os.path.join(self.studydir, name + ".db")
        self.addCleanup(lambda: [os.unlink(path + s) for s in
                                 ("", "-wal", "-shm")
                                 if os.path.lexists(path + s)])
        for sfx in ("-wal", "-shm"):
            os.unlink(path + sfx)
        self.must(self.alice, "status", study=name)
        uid = pwd.getpwnam(self.alice).pw_uid
        for sfx in ("-wal", "-shm"):
            self.assertEqual(os.stat(path + sfx).st_uid, uid, sfx)
        self.assertEqual(os.stat(path).st_uid,
                         pwd.getpwnam(self.owner).pw_uid)
        cases = []
        for n in range(3, 9):
            fd = "/proc/self/fd/%d" % n
            cases += [(self.alice, ["label", "--from", fd]),
                      (self.alice, ["labels", "import", fd]),
                      (self.alice, ["codebook", "check", fd]),
                      (self.owner, ["label", "--from", fd]),
                      (self.owner, ["import", fd])]
        for user, args in cases:
            p = self.run_as(user, args, study=name)
            self.assertNotEqual(p.returncode, 0, (user, args))
            self.assertRegex(p.stderr, "Permission denied|No such file",
                             (user, args))
        # nor a keys file linked there (the screen reads it)
        home = pwd.getpwnam(self.alice).pw_dir
        self.sh_as(self.alice, "mkdir -p '%s/.config/bugcoder' && ln -sf "
                   "/proc/self/fd/5 '%s/.config/bugcoder/keys'" %
                   (home, home))
        try:
            p = self.run_as(self.alice, ["label", "--from",
                                         home + "/.config/bugcoder/keys"],
                            study=name)
            self.assertIn("Permission denied", p.stderr)
        finally:
            shutil.rmtree(os.path.join(home, ".config"), True)

    # ---- private outputs ---------------------------------------------------

    def test_outputs_private_under_umask_022(self):
        home = pwd.getpwnam(self.owner).pw_dir
        for f in ("o.csv", "r.txt", "a.csv", "b.db"):
            path = os.path.join(home, f)
            if os.path.exists(path):
                os.unlink(path)
        shutil.rmtree(os.path.join(home, "pkg"), ignore_errors=True)
        shutil.rmtree(os.path.join(home, "pkg640"), ignore_errors=True)
        self.must(self.owner, "export", "--raw", "-o", "o.csv")
        self.must(self.owner, "report", "-o", "r.txt")
        self.must(self.owner, "audit", "--format", "csv", "-o", "a.csv")
        self.must(self.owner, "backup", "b.db")
        self.must(self.owner, "export", "--package", "pkg")
        for f in ("o.csv", "r.txt", "a.csv", "b.db"):
            mode = stat.S_IMODE(os.stat(os.path.join(home, f)).st_mode)
            self.assertEqual(mode, 0o600, f)
        pkg = os.path.join(home, "pkg")
        for root, dirs, files in os.walk(pkg):
            self.assertEqual(stat.S_IMODE(os.stat(root).st_mode), 0o700,
                             root)
            for f in files:
                self.assertEqual(stat.S_IMODE(os.stat(
                    os.path.join(root, f)).st_mode), 0o600, f)
        # bob, another member with a shell, reads none of it
        for f in ("o.csv", "r.txt", "a.csv", "pkg/raw-labels.csv"):
            p = self.sh_as(self.bob, "cat '%s' >/dev/null" %
                           os.path.join(home, f))
            self.assertNotEqual(p.returncode, 0, f)
        # --mode widens on purpose
        self.must(self.owner, "report", "-o", "r.txt", "--mode", "640")
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(
            home, "r.txt")).st_mode), 0o640)
        self.must(self.owner, "export", "--package", "pkg640", "--mode",
                  "644")
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(
            home, "pkg640")).st_mode), 0o755)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(
            home, "pkg640", "README.txt")).st_mode), 0o644)
        p = self.run_as(self.owner, ["report", "-o", "r.txt", "--mode",
                                     "755"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--mode 755", p.stderr)
        # doctor warns about the umask and a home open to everyone
        os.chmod(home, 0o755)
        p = self.run_as(self.owner, ["doctor"])
        self.assertRegex(p.stdout, r"warn +umask 022")
        self.assertRegex(p.stdout, r"warn +your home directory")
        p = self.run_as(self.owner, ["doctor"], umask=0o077)
        self.assertRegex(p.stdout, r"ok +umask 077")

    # ---- one member cannot stop everyone unseen ----------------------------

    def test_busy_names_the_lock_holder(self):
        # bob's process holds the write lock and is stopped (kill -STOP);
        # it runs with the group, as bob's own bugcoder would mid-write
        code = ("import sqlite3, sys, time\n"
                "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                "c.execute('BEGIN IMMEDIATE')\n"
                "print('held', flush=True)\n"
                "time.sleep(120)\n")
        holder = subprocess.Popen(
            ["setpriv", "--reuid", self.bob, "--regid", self.group,
             "--clear-groups", sys.executable, "-c", code, self.study],
            stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(holder.stdout.readline().strip(), "held")
            os.kill(holder.pid, signal.SIGSTOP)
            p = self.run_as(self.alice, ["label", self.items[1],
                                         "symptom=crash"])
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1,
                             p.stderr)
            self.assertIn("%s's python3 (process %d, running since" %
                          (self.bob, holder.pid), p.stderr)
            self.assertIn("nothing was written", p.stderr)
            out = self.must(self.alice, "status").stdout
            self.assertIn("write lock: held by %s's python3 (process %d"
                          % (self.bob, holder.pid), out)
            out = self.run_as(self.alice, ["doctor"]).stdout
            self.assertRegex(out, r"warn +write lock: held by %s" %
                             self.bob)
        finally:
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait()
        out = self.run_as(self.alice, ["doctor"]).stdout
        self.assertRegex(out, r"ok +write lock: free")

    # ---- members only; who creates studies ---------------------------------

    def test_members_only(self):
        for args in (["status"], ["codebook", "show"], ["items"]):
            p = self.run_as(self.eve, args)
            self.assertEqual(p.returncode, 1, args)
            self.assertIn("not a member", p.stderr)
            self.assertNotIn("T", p.stdout)   # no title, nothing at all
        p = self.run_as(self.eve, ["doctor"])
        self.assertIn("its checks are for its members", p.stdout)
        self.assertNotIn("integrity", p.stdout)
        self.assertNotIn("audit log", p.stdout)

    def test_who_may_create_studies(self):
        p = self.run_as(self.alice, ["init", "--title", "x"],
                        study="alices")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)
        self.assertIn("only root and %s may create studies" % self.owner,
                      p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.studydir,
                                                     "alices.db")))
        # a comment after the names (an administrator's note) names
        # nobody: alice is still refused
        conf = os.path.join(self.prefix, "share", "bugcoder", "server.conf")
        with open(conf) as f:
            kept = f.read()
        try:
            with open(conf, "w") as f:
                f.write(kept.replace("creators = %s" % self.owner,
                                     "creators = %s  # %s asked too" %
                                     (self.owner, self.alice)))
            p = self.run_as(self.alice, ["init", "--title", "x"],
                            study="alices")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("only root and %s may create" % self.owner,
                          p.stderr)
        finally:
            with open(conf, "w") as f:
                f.write(kept)
        self.assertFalse(os.path.exists(os.path.join(self.studydir,
                                                     "alices.db")))
        # the owner may; a bad codebook leaves nothing behind (the keeper
        # removes what was made before the group was given up)
        bad = os.path.join(pwd.getpwnam(self.owner).pw_dir, "bad.json")
        with open(bad, "w") as f:
            f.write('{"name": "x", "version": ')
        os.chmod(bad, 0o644)
        p = self.run_as(self.owner, ["init", "--codebook", bad], study="s2")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("bad.json", p.stderr)
        for sfx in ("", "-wal", "-shm"):
            self.assertFalse(os.path.exists(os.path.join(
                self.studydir, "s2.db" + sfx)), sfx)
        self.must(self.owner, "init", "--title", "second", study="s2")
        # root lists every study, and removes one nobody has open
        p = subprocess.run([self.bin, "doctor", "--studies"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"llm\.db +%s" % self.owner)
        self.assertRegex(p.stdout, r"s2\.db +%s" % self.owner)
        p = self.run_as(self.owner, ["doctor", "--studies"])
        self.assertEqual(p.returncode, 1)
        tmux = self.open_screen(self.bob)
        p = subprocess.run([self.bin, "doctor", "--remove-study", "llm"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("open in %s's bugcoder" % self.bob, p.stderr)
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        p = subprocess.run([self.bin, "doctor", "--remove-study", "s2"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.studydir,
                                                     "s2.db")))

    def root_sql(self, script):
        p = subprocess.run(["sqlite3", self.study, script],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_zz_root_tampering_caught(self):
        p = self.must(self.owner, "audit", "verify")
        head = p.stdout.splitlines()[0].rsplit(" ", 1)[1]
        self.assertRegex(head, "^[0-9a-f]{64}$")
        self.assertIn("state: as replaying the log gives it", p.stdout)
        kept = os.path.join(self.tmp, "kept.db")
        shutil.copyfile(self.study, kept)
        self.addCleanup(os.unlink, kept)

        # a label changed by root with sqlite3: named, to the owner with
        # its values, to an annotator without
        self.must(self.alice, "label", self.items[0], "symptom=crash")
        shutil.copyfile(self.study, kept)
        self.root_sql("UPDATE labels SET code = 'hang' WHERE dimension = "
                      "'symptom' AND member_id = (SELECT id FROM members "
                      "WHERE name = '%s')" % self.alice)
        p = self.run_as(self.owner, ["audit", "verify"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("state: labels (item %s, member %s, dimension "
                      "symptom, code crash)" % (self.items[0], self.alice),
                      p.stderr)
        p = self.run_as(self.bob, ["audit", "verify"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("state: labels (item %s, dimension symptom)" %
                      self.items[0], p.stderr)
        self.assertNotIn(self.alice, p.stderr)
        p = self.run_as(self.owner, ["doctor"])
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"FAIL +state: labels")
        shutil.copyfile(kept, self.study)
        self.must(self.owner, "audit", "verify")

        # a trigger dropped by root
        self.root_sql("DROP TRIGGER audit_no_delete")
        p = self.run_as(self.owner, ["audit", "verify"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("schema: the trigger audit_no_delete that bugcoder "
                      "makes is missing", p.stderr)
        p = self.run_as(self.owner, ["doctor"])
        self.assertRegex(p.stdout, r"FAIL +schema: the trigger "
                         "audit_no_delete")
        shutil.copyfile(kept, self.study)

        # the study replaced by another that is whole by itself: a copy
        # of it from before, gone on differently (as a rewritten history
        # would); only the head written down catches it
        home = pwd.getpwnam(self.owner).pw_dir
        self.must(self.owner, "backup", "before.db")
        self.must(self.alice, "label", self.items[2], "stage=memory")
        p = self.must(self.owner, "audit", "verify")
        head = p.stdout.splitlines()[0].rsplit(" ", 1)[1]
        for code in ("communication", "computation"):
            self.must(self.owner, "--as", self.alice, "label",
                      self.items[2], "stage=" + code, study="./before.db")
        self.root_sql(".restore '%s'" % os.path.join(home, "before.db"))
        self.must(self.owner, "audit", "verify")
        p = self.run_as(self.owner, ["audit", "verify", "--head", head])
        self.assertEqual(p.returncode, 1)
        self.assertIn("audit log: no row has head " + head, p.stderr)
        shutil.copyfile(kept, self.study)

        p = self.must(self.owner, "audit", "verify")
        p = subprocess.run(["sqlite3", self.study,
                            "DROP TRIGGER audit_no_update; "
                            "UPDATE audit SET new = 'x' WHERE id = 3;"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.run_as(self.owner, ["audit", "verify"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("row 3", p.stderr)
        p = self.run_as(self.owner, ["status"])
        self.assertIn("row 3 does not fit", p.stderr)


if __name__ == "__main__":
    unittest.main()
