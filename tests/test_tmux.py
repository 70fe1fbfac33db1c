# SPDX-License-Identifier: MIT
"""End-to-end tests of the annotator's screen on the real binary in tmux.

A few smoke tests that prove what the in-process screen tests see
(tests/t_screen.c) is what a person sees in a real terminal: open the
screen, code an item with number keys, submit, quit; resize; and kill the
program mid-way (SIGKILL, and the SIGHUP of a dropped connection) to check
that nothing saved is lost and that the program does not linger.

Each test uses its own tmux server (-L with a unique socket name), so a
user's tmux is never touched.  The screen is polled until it is stable
instead of sleeping, with a deadline generous enough for a loaded
machine; a test's tmux server outlives its sessions, so that a new
session never races the end of the last one.  Skipped when tmux is not
installed.
"""
import os
import re
import select
import shutil
import signal
import subprocess
import time
import unittest

from bchelp import BIN, SAMPLE_LABELS, Study

TMUX = shutil.which("tmux")
HERE = os.path.dirname(os.path.abspath(__file__))
FIRST = "microsoft/DeepSpeed#3468"     # first item of tests/sample/items.jsonl


@unittest.skipUnless(TMUX, "tmux is not installed")
class TmuxScreen(unittest.TestCase):
    width, height = 120, 35

    def setUp(self):
        self.study = Study(members=[("alice", "annotator")])
        self.sock = "bugcoder-test-%d-%s" % (os.getpid(), self._testMethodName)
        self.pid = None

    def tearDown(self):
        subprocess.run([TMUX, "-L", self.sock, "kill-server"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.study.close()

    # -- driving tmux --------------------------------------------------

    def tmux(self, *args, check=True):
        return subprocess.run([TMUX, "-L", self.sock, "-f", os.devnull]
                              + list(args), capture_output=True, text=True,
                              check=check, timeout=30)

    def new_session(self, *args):
        """tmux new-session -d -s t ARGS, on a server that outlives its
        last session: by default killing the only session ends the server
        while the next new-session may already be talking to it ("server
        exited unexpectedly", seen under load)."""
        self.tmux("new-session", "-d", "-s", "t", *args, ";",
                  "set-option", "-s", "exit-empty", "off")

    def start(self, after="echo EXITED $?; sleep 600", env=""):
        """Run the screen as alice; `after` runs in the pane when it ends."""
        cmd = (f"cd {self.study.dir} && {env} {BIN} --study "
               f"{self.study.path} --as alice code; {after}")
        self.tmux("kill-session", "-t", "t", check=False)
        self.new_session("-x", str(self.width),
                         "-y", str(self.height), "-e", "LC_ALL=C.UTF-8",
                         "-e", "TZ=UTC", "-e", self.config(), "sh", "-c", cmd)
        self.screen_has("1 symptom:")
        self.pid = self.program_pid()

    def program_pid(self):
        shell = int(self.tmux("display-message", "-p", "-t", "t",
                              "#{pane_pid}").stdout.strip())
        out = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(shell)],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            pid, comm = line.split(None, 1)
            if comm.strip() == "bugcoder":
                return int(pid)
        self.fail("bugcoder is not running in the pane:\n" + out)

    def capture(self):
        return self.tmux("capture-pane", "-p", "-t", "t", check=False).stdout

    def config(self):
        """The test's own keys and settings directory: what one test
        chose (w) never reaches another.  (tmux refuses to start a pane
        whose XDG_CONFIG_HOME does not exist.)"""
        path = os.path.join(self.study.dir, "config")
        os.makedirs(path, exist_ok=True)
        return "XDG_CONFIG_HOME=" + path

    def screen_has(self, text, timeout=30.0):
        """Wait until `text` is on the screen and the screen is stable;
        the deadline is generous, for a loaded machine, and costs nothing
        when the text comes."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            scr = self.capture()
            if text in scr and scr == last:
                return scr
            last = scr
            time.sleep(0.05)
        self.fail(f"{text!r} not on the screen after {timeout}s:\n{last}")

    def keys(self, *keys):
        for k in keys:
            self.tmux("send-keys", "-t", "t", k)

    def gone(self, pid, timeout=15.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.05)
        return False

    def labels(self):
        return self.study.query(
            "SELECT i.repo || '#' || i.number, l.dimension, l.code FROM "
            "labels l JOIN items i ON i.id = l.item_id JOIN members m ON "
            "m.id = l.member_id WHERE m.name = 'alice' ORDER BY 1, 2, 3")

    # -- tests ---------------------------------------------------------

    def test_code_submit_quit(self):
        self.start()
        scr = self.screen_has(FIRST)
        self.assertIn("0/30 done  alice", scr)
        self.assertIn("issue *", scr)           # split from 100 columns
        self.assertIn("fix #3490", scr)
        # c opens the first dimension, then one key per dimension: the
        # picker moves on by itself (stage is optional)
        self.keys("c", "4")
        self.screen_has("saved: symptom = hang")
        self.keys("2")
        self.screen_has("saved: root_cause = incorrect_implementation")
        self.keys("1")
        self.screen_has("fix_pattern: conditional_logic")
        self.keys("1")
        self.screen_has("saved: phase = training")
        self.keys("s")
        scr = self.screen_has("submitted " + FIRST)
        self.assertIn("1/30 done", scr)
        self.keys("q")
        scr = self.screen_has("EXITED 0")
        # the terminal is back: the screen's rows are gone
        self.assertNotIn("1 symptom:", scr)
        self.assertEqual(self.labels(), [
            (FIRST, "fix_pattern", "conditional_logic"),
            (FIRST, "phase", "training"),
            (FIRST, "root_cause", "incorrect_implementation"),
            (FIRST, "symptom", "hang"),
        ])
        self.assertEqual(self.study.query(
            "SELECT i.repo || '#' || i.number FROM submissions s JOIN "
            "items i ON i.id = s.item_id"), [(FIRST,)])

    def test_kill_keeps_saved_work(self):
        self.start()
        self.keys("1", "4")
        self.screen_has("saved: symptom = hang")
        self.keys("Escape", "u")
        self.screen_has("saved: uncertain on")
        self.keys("m", "half a thought")   # typed, not saved yet
        self.screen_has("half a thought")
        os.kill(self.pid, signal.SIGKILL)
        self.assertTrue(self.gone(self.pid))
        self.screen_has("EXITED 137")
        self.assertEqual(self.labels(), [(FIRST, "symptom", "hang")])
        self.assertEqual(self.study.query("SELECT flag FROM flags"),
                         [("uncertain",)])
        self.assertEqual(self.study.query("SELECT count(*) FROM memos"),
                         [(0,)])
        # the study is intact and opens again where the work stopped
        self.start()
        scr = self.screen_has("1 symptom: hang")
        self.assertIn("[uncertain]", scr)

    def test_hangup_exits_and_keeps_work(self):
        self.start(after="sleep 600")
        self.keys("2", "d")
        self.screen_has("saved: root_cause = distributed_communication")
        # the connection drops: tmux sends SIGHUP to the pane
        self.tmux("kill-session", "-t", "t")
        self.assertTrue(self.gone(self.pid), "bugcoder kept running")
        self.assertEqual(self.labels(),
                         [(FIRST, "root_cause", "distributed_communication")])

    def test_hangup_keeps_the_memo_being_typed(self):
        self.start(after="sleep 600")
        self.keys("m", "typed before the line dropped")
        self.screen_has("typed before the line dropped")
        # Esc would save it; a dropped connection must not lose it
        self.tmux("kill-session", "-t", "t")
        self.assertTrue(self.gone(self.pid), "bugcoder kept running")
        self.assertEqual(self.study.query("SELECT text FROM memos"),
                         [("typed before the line dropped",)])

    def test_crash_restores_terminal(self):
        self.start()
        self.keys("1", "4")
        self.screen_has("saved: symptom = hang")
        # abort() is what running out of memory ends in
        os.kill(self.pid, signal.SIGABRT)
        scr = self.screen_has("EXITED 134")
        self.assertNotIn("1 symptom:", scr)
        self.assertEqual(self.labels(), [(FIRST, "symptom", "hang")])

    def test_sigterm_restores_terminal(self):
        self.start()
        self.keys("5", "2")
        self.screen_has("saved: phase = inference")
        os.kill(self.pid, signal.SIGTERM)
        scr = self.screen_has("EXITED 3")
        self.assertNotIn("1 symptom:", scr)
        self.assertEqual(self.labels(), [(FIRST, "phase", "inference")])

    def paste(self, text):
        """Paste as a terminal does (bracketed when the program asked)."""
        self.tmux("set-buffer", "-b", "p", text)
        self.tmux("paste-buffer", "-p", "-b", "p", "-t", "t")

    def test_bracketed_paste(self):
        self.start(after="echo EXITED $?; exec cat -v")
        # on the main screen the characters would code and submit
        self.paste("14s")
        self.screen_has("paste ignored")
        self.assertEqual(self.labels(), [])
        self.keys("m")
        self.screen_has("Memo on")
        self.paste("pasted one\npasted\ttwo")
        self.screen_has("pasted    two")
        self.keys("Escape")
        self.screen_has("saved: memo (2 lines)")
        self.assertEqual(self.study.query("SELECT text FROM memos"),
                         [("pasted one\npasted    two",)])
        self.keys("q")
        self.screen_has("EXITED 0")
        # the terminal is back to plain pastes
        self.paste("after\n")
        scr = self.screen_has("after")
        self.assertNotIn("200~", scr)

    def test_paste_with_its_end_mark_split(self):
        # over a slow link the end mark can come apart: ESC, then the
        # rest as plain keys after ESCDELAY; it must still end the paste
        self.start()
        self.keys("m")
        self.screen_has("Memo on")
        self.tmux("send-keys", "-t", "t", "-l", "\x1b[200~ab\x1b")
        time.sleep(0.4)
        self.tmux("send-keys", "-t", "t", "-l", "[201~")
        self.screen_has("ab")
        self.keys("Escape")
        self.screen_has("saved: memo")
        self.assertEqual(self.study.query("SELECT text FROM memos"),
                         [("ab",)])
        self.keys("q")
        self.screen_has("EXITED 0")

    def test_paste_after_suspend_and_resume(self):
        # the shell turns bracketed paste off for its prompt while the
        # screen is stopped (Ctrl-Z); after fg it must be on again
        bash = shutil.which("bash") or "/bin/bash"   # Essential in Debian
        self.new_session("-x", str(self.width), "-y", str(self.height),
                         "-e", "LC_ALL=C.UTF-8", "-e", "TZ=UTC", "-e", self.config(),
                         "-e", "PS1=PROMPT$ ", bash, "--norc",
                         "--noprofile", "-i")
        self.screen_has("PROMPT$")
        self.tmux("send-keys", "-t", "t", "-l",
                  f"cd {self.study.dir} && {BIN} --study "
                  f"{self.study.path} --as alice code")
        self.keys("Enter")
        self.screen_has("1 symptom:")
        self.keys("C-z")
        self.screen_has("Stopped")
        self.tmux("send-keys", "-t", "t", "-l", "fg")
        self.keys("Enter")
        self.screen_has("1 symptom:")
        self.paste("14s")
        self.screen_has("paste ignored")
        self.assertEqual(self.labels(), [])
        self.keys("q")
        self.screen_has("PROMPT$")

    def test_resize(self):
        self.start()
        self.tmux("resize-window", "-t", "t", "-x", "90", "-y", "30")
        scr = self.screen_has("[Tab: fix]")
        self.assertNotIn("fix #3490 (", scr.splitlines()[1])
        self.tmux("resize-window", "-t", "t", "-x", "70", "-y", "20")
        self.screen_has("terminal too small: 70x20")
        self.tmux("resize-window", "-t", "t", "-x", "140", "-y", "40")
        scr = self.screen_has("issue *")
        self.assertIn("fix #3490", scr.splitlines()[1])
        self.keys("q")
        self.screen_has("EXITED 0")

    def test_picker_and_help_on_a_real_terminal(self):
        self.start()
        self.keys("2")
        scr = self.screen_has("2/5 root_cause (one code, required)")
        self.assertIn("Definition: Framework code calls a library", scr)
        self.keys("Escape")
        self.screen_has("1-5 code")
        self.keys("?")
        self.screen_has("(pick-dimension)")
        self.keys("q")
        self.keys("q")
        self.screen_has("EXITED 0")
        self.assertEqual(self.labels(), [])


@unittest.skipUnless(TMUX, "tmux is not installed")
class TmuxReading(unittest.TestCase):
    """Long diff lines on a real terminal: the change past the edge is
    marked there, `]` scrolls sideways to it, `w` wraps, and the changed
    words are in reverse video (SGR 7) with and without colours."""
    width, height = 80, 24
    ITEM = "microsoft/DeepSpeed#4321"
    tearDown = TmuxScreen.tearDown
    tmux = TmuxScreen.tmux
    new_session = TmuxScreen.new_session
    program_pid = TmuxScreen.program_pid
    capture = TmuxScreen.capture
    config = TmuxScreen.config
    screen_has = TmuxScreen.screen_has
    keys = TmuxScreen.keys

    def setUp(self):
        self.study = Study(items=os.path.join(HERE, "fixtures",
                                              "reading.jsonl"),
                           members=[("alice", "annotator")])
        self.sock = "bugcoder-test-%d-%s" % (os.getpid(),
                                             self._testMethodName)
        self.pid = None

    def start_item(self, env=""):
        cmd = (f"cd {self.study.dir} && {env} {BIN} --study "
               f"{self.study.path} --as alice code {self.ITEM}; "
               "echo EXITED $?; sleep 600")
        self.tmux("kill-session", "-t", "t", check=False)
        self.new_session("-x", str(self.width),
                         "-y", str(self.height), "-e", "LC_ALL=C.UTF-8",
                         "-e", "TZ=UTC", "-e", self.config(), "-e", "TERM=xterm", "sh", "-c", cmd)
        self.screen_has("1 symptom:")
        self.pid = self.program_pid()

    def capture_attrs(self):
        return self.tmux("capture-pane", "-p", "-e", "-t", "t",
                         check=False).stdout

    def test_change_mark_jump_and_wrap(self):
        self.start_item()
        self.keys("Tab")
        scr = self.screen_has("fix #4330")
        line = [r for r in scr.splitlines() if r.startswith("-  ")][0]
        self.assertTrue(line.endswith("\u00bb"), line)
        self.keys("]")
        scr = self.screen_has("max(0, newvalue)")
        self.assertIn("oldvalue", scr)
        self.keys("w")
        scr = self.screen_has("long lines wrap")
        self.assertIn("\u21aacondary_start_index_in_this_partition_group "
                      "else oldvalue", scr)
        self.keys("q")
        self.screen_has("EXITED 0")

    def test_intraline_reverse_video(self):
        for env in ("", "NO_COLOR=1"):
            self.start_item(env)
            self.keys("Tab", "]")
            self.screen_has("max(0, newvalue)")
            scr = self.capture_attrs()
            row = [r for r in scr.splitlines() if "oldvalue" in r][0]
            # the changed word is drawn in reverse video
            before = row.split("oldvalue")[0]
            self.assertRegex(before, "\x1b\\[[0-9;]*7[0-9;]*m[^\x1b]*$",
                             repr(row))
            self.keys("q")
            self.screen_has("EXITED 0")


@unittest.skipUnless(TMUX, "tmux is not installed")
class TmuxRealBugs(unittest.TestCase):
    """Real-looking DeepSpeed, Megatron-LM and Colossal-AI bugs
    (tests/fixtures/reading-real.jsonl) on a real terminal: a citation in
    three keys, the list of one's citations and a removal from it, the
    pull request's description cited, a position mark that never says
    "all" above hidden lines, a CR->LF change, and without colour a search
    match that does not look like a changed word.  Every step waits for
    what it expects on the screen, never for a fixed time."""
    width, height = 120, 35
    tearDown = TmuxScreen.tearDown
    tmux = TmuxScreen.tmux
    new_session = TmuxScreen.new_session
    program_pid = TmuxScreen.program_pid
    capture = TmuxScreen.capture
    config = TmuxScreen.config
    keys = TmuxScreen.keys

    def setUp(self):
        self.study = Study(items=os.path.join(HERE, "fixtures",
                                              "reading-real.jsonl"),
                           members=[("alice", "annotator")])
        self.sock = "bugcoder-test-%d-%s" % (os.getpid(),
                                             self._testMethodName)
        self.pid = None

    def screen_has(self, text, timeout=30.0):
        # a loaded machine: waited for, never slept
        return TmuxScreen.screen_has(self, text, timeout)

    def start_item(self, item, env="", term="xterm"):
        cmd = (f"cd {self.study.dir} && {env} {BIN} --study "
               f"{self.study.path} --as alice code {item}; "
               "echo EXITED $?; sleep 600")
        self.tmux("kill-session", "-t", "t", check=False)
        self.new_session("-x", str(self.width),
                         "-y", str(self.height), "-e", "LC_ALL=C.UTF-8",
                         "-e", "TZ=UTC", "-e", "TERM=" + term, "-e",
                         self.config(), "sh", "-c", cmd)
        self.screen_has("1 symptom:")
        self.pid = self.program_pid()

    def capture_attrs(self):
        return self.tmux("capture-pane", "-p", "-e", "-t", "t",
                         check=False).stdout

    def evidence(self):
        return self.study.query("SELECT dimension, pane, path, old_side, "
                                "line_from, line_to, pr FROM evidence "
                                "ORDER BY id")

    def quit(self):
        self.keys("q")
        self.screen_has("EXITED 0")

    def test_citation_in_three_keys_list_and_removal(self):
        self.start_item("microsoft/DeepSpeed#5337")
        # root_cause = api_misuse (its first code), the picker closed
        self.keys("2", "1")
        self.screen_has("saved: root_cause = api_misuse")
        self.keys("Escape")
        # three keys from the fix's first change being on screen
        self.keys("]", "e", "e")
        self.screen_has("cited diff:deepspeed/runtime/zero/"
                        "stage_1_and_2.py:old:1093 for root_cause")
        self.assertEqual(self.evidence(), [
            ("root_cause", "diff", "deepspeed/runtime/zero/"
             "stage_1_and_2.py", 1, 1093, 1093, None)])
        # the list, with the quote; x removes the citation
        self.keys("E")
        scr = self.screen_has("Your citations (1)")
        self.assertIn("root_cause = api_misuse", scr)
        self.assertIn("-            if self.is_gradient_accumulation_"
                      "boundary:", scr)
        self.keys("x")
        self.screen_has("Your citations (0)")
        self.keys("q")
        self.screen_has("1 symptom:")
        self.assertEqual(self.evidence(), [])
        self.assertEqual(self.study.query(
            "SELECT dimension, old FROM audit WHERE action = "
            "'evidence.remove'"),
            [("root_cause", "diff:deepspeed/runtime/zero/"
              "stage_1_and_2.py:old:1093")])
        self.quit()

    def test_the_pull_requests_description_cited(self):
        self.start_item("microsoft/DeepSpeed#5337")
        self.keys("2", "1")
        self.screen_has("saved: root_cause = api_misuse")
        self.keys("Escape", "Tab", "/")
        self.tmux("send-keys", "-t", "t", "-l", "were never averaged")
        self.keys("Enter")
        self.screen_has("match 1/1")
        self.keys("e", "e")
        self.screen_has("cited pr:5342:body:3 for root_cause")
        self.assertEqual(self.evidence(),
                         [("root_cause", "pr", None, 0, 3, 3, 5342)])
        self.quit()

    def test_position_says_where_the_last_lines_are(self):
        self.start_item("microsoft/DeepSpeed#5642")
        self.keys("Tab", "w")
        scr = self.screen_has("long lines wrap")
        title = scr.splitlines()[1].split("\u2502")[1].rstrip()
        self.assertNotIn("timers(STEP", scr)
        self.assertRegex(title, r"\d+%$")
        self.keys("G")
        scr = self.screen_has("end")
        self.assertIn("timers(STEP", scr)
        self.assertTrue(scr.splitlines()[1].rstrip().endswith("end"))
        self.quit()

    def test_a_cr_to_lf_change_is_seen(self):
        self.start_item("hpcaitech/ColossalAI#5580")
        self.keys("Tab")
        scr = self.screen_has("-export OMP_NUM_THREADS=8\u240d")
        self.assertIn("\u2502+export OMP_NUM_THREADS=8\n", scr)
        self.assertIn("author and opening date not recorded", scr)
        self.quit()

    def test_jump_marks_lines_scrolled_sideways(self):
        self.start_item("NVIDIA/Megatron-LM#1474")
        self.keys("]")
        scr = self.screen_has("non_blocking=True)")
        # the fix pane: right of the separator's column
        fix = [r[60:] for r in scr.splitlines()[2:30] if len(r) > 60]
        changed = [r for r in fix if r[:1] in "+-"]
        self.assertTrue(changed)
        # every changed line says it goes on to the left; none is bare
        for r in changed:
            self.assertEqual(r[1], "\u00ab", r)
        self.assertIn("\u00ab+", scr.splitlines()[1])
        self.quit()

    def test_no_color_search_match_is_not_a_changed_word(self):
        self.start_item("NVIDIA/Megatron-LM#1474", env="NO_COLOR=1")
        self.keys("Tab", "/")
        self.tmux("send-keys", "-t", "t", "-l", "non_blocking")
        self.keys("Enter")
        self.screen_has("match 1/")
        rows = self.capture_attrs().splitlines()
        row = [r for r in rows if "non_blocking" in r and "False" in r][0]
        # the current match: reverse and underlined; the changed word
        # ("False") reverse, never underlined
        def sgr_before(text):
            head = row.split(text)[0]
            codes = re.findall("\x1b\\[([0-9;]*)m", head)
            on = set()
            for c in codes:
                for p in (c or "0").split(";"):
                    if p in ("0", ""):
                        on = set()
                    else:
                        on.add(p)
            return on
        self.assertIn("4", sgr_before("non_blocking"), repr(row))
        self.assertIn("7", sgr_before("non_blocking"), repr(row))
        self.assertIn("7", sgr_before("False"), repr(row))
        self.assertNotIn("4", sgr_before("False"), repr(row))
        self.quit()


@unittest.skipUnless(TMUX, "tmux is not installed")
class TmuxAdjudicate(unittest.TestCase):
    """The adjudicator's screen on the real binary: 20 sample items coded
    by alice and bob (13 with disagreements), carol adjudicates."""
    width, height = 120, 35
    # the annotator's tests drive tmux the same way
    tearDown = TmuxScreen.tearDown
    tmux = TmuxScreen.tmux
    new_session = TmuxScreen.new_session
    program_pid = TmuxScreen.program_pid
    capture = TmuxScreen.capture
    config = TmuxScreen.config
    screen_has = TmuxScreen.screen_has
    keys = TmuxScreen.keys

    def setUp(self):
        self.study = Study(members=[("alice", "annotator"),
                                    ("bob", "annotator"),
                                    ("carol", "adjudicator")])
        self.study.ok("labels", "import", SAMPLE_LABELS, "--submit")
        self.sock = "bugcoder-test-%d-%s" % (os.getpid(), self._testMethodName)
        self.pid = None

    def start_adj(self, who="carol", after="echo EXITED $?; sleep 600"):
        cmd = (f"cd {self.study.dir} && {BIN} --study {self.study.path} "
               f"--as {who} adjudicate; {after}")
        self.tmux("kill-session", "-t", "t", check=False)
        self.new_session("-x", str(self.width),
                         "-y", str(self.height), "-e", "LC_ALL=C.UTF-8",
                         "-e", "TZ=UTC", "-e", self.config(), "sh", "-c", cmd)

    def test_adjudicate_one_item(self):
        self.start_adj()
        scr = self.screen_has("13 left  carol")
        self.pid = self.program_pid()
        self.assertIn(FIRST, scr.splitlines()[0])
        self.assertIn("1 Coder 1", scr)
        self.assertIn("to resolve", scr)
        # names never appear while adjudication is blind
        self.assertNotIn("alice", scr)
        self.assertNotIn("bob", scr)
        panel = [l for l in scr.splitlines() if "root_cause" in l][0]
        # take Coder 2's code, give a rationale, tag the cause "slip"
        self.keys("2")
        self.screen_has("Rationale (required):")
        self.keys("the traceback shows it", "Tab", "Tab")
        self.screen_has("[slip]")
        self.keys("Enter")
        scr = self.screen_has("12 left")
        self.assertIn("done: " + FIRST, scr)
        self.keys("q")
        self.screen_has("EXITED 0")
        (code, why, cause, c1, c2, c2codes), = self.study.query(
            "SELECT code, rationale, cause, coder1, coder2, coder2_codes "
            "FROM resolutions")
        self.assertEqual((why, cause), ("the traceback shows it", "slip"))
        self.assertEqual(code, c2codes)
        self.assertEqual({c1, c2}, {"alice", "bob"})
        # what the screen showed as Coder 2's code is what was stored
        self.assertIn(code, panel)
        self.assertEqual(self.study.query(
            "SELECT for_member, new FROM audit WHERE action = 'resolve'"),
            [("carol", code)])

    def test_agreement_screen(self):
        cmd = (f"cd {self.study.dir} && {BIN} --study {self.study.path} "
               f"--as carol agree --screen; echo EXITED $?; sleep 600")
        self.new_session("-x", "100", "-y", "30", "-e", "LC_ALL=C.UTF-8",
                         "-e", "TZ=UTC", "-e", self.config(), "sh", "-c", cmd)
        scr = self.screen_has("Cohen's kappa for symptom was 0.81")
        # blind adjudication: the adjudicator's grid names nobody
        self.assertIn("Confusion: rows annotator 1, columns annotator 2",
                      scr)
        self.assertNotIn("alice", scr)
        self.keys("j")
        self.screen_has("Cohen's kappa for root cause was 0.72")
        self.keys("q")
        self.screen_has("EXITED 0")

    def test_annotator_is_refused(self):
        p = self.study.run("adjudicate", as_="alice")
        self.assertEqual(p.returncode, 1)
        self.assertIn("alice is an annotator", p.stderr)
        self.assertEqual(self.study.query("SELECT count(*) FROM resolutions"),
                         [(0,)])


class LostTerminal(unittest.TestCase):
    """A terminal that vanishes without a SIGHUP (a pty whose master side
    is closed while it is not our controlling terminal): reads fail, and
    the program must leave at once instead of spinning on the errors."""

    def test_dead_pty_exits_without_spinning(self):
        import pty
        study = Study(members=[("alice", "annotator")])
        try:
            master, slave = pty.openpty()
            env = dict(os.environ, TERM="xterm", LINES="30", COLUMNS="120")
            p = subprocess.Popen([BIN, "--study", study.path, "--as",
                                  "alice", "code"], stdin=slave, stdout=slave,
                                 stderr=slave, env=env, start_new_session=True)
            os.close(slave)
            seen = b""
            deadline = time.time() + 10
            while b"symptom" not in seen and time.time() < deadline:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            self.assertIn(b"symptom", seen)
            os.write(master, b"14")
            # keep draining the screen's output until the pick is saved
            deadline = time.time() + 10
            while time.time() < deadline and not study.query(
                    "SELECT 1 FROM labels"):
                r, _, _ = select.select([master], [], [], 0.05)
                if r:
                    try:
                        os.read(master, 65536)
                    except OSError:
                        break
            os.close(master)
            try:
                rc = p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                self.fail("bugcoder kept running on a dead terminal")
            self.assertNotEqual(rc, 0)
            # what was saved before the terminal went is kept
            self.assertEqual(study.query("SELECT dimension, code FROM labels"),
                             [("symptom", "hang")])
        finally:
            study.close()


if __name__ == "__main__":
    unittest.main()
