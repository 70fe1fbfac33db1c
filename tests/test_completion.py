# SPDX-License-Identifier: MIT
"""Shell completion: `bugcoder __complete`, and the bash and zsh scripts
in completion/ that call it.

The bash script is sourced in a bash that is given the command line as
readline would (COMP_LINE, COMP_POINT, COMP_WORDS split at '=' and ':'),
and what _bugcoder leaves in COMPREPLY is checked: commands, options of
the current command from its table, and values read from a small study
(items, dimensions, codes, members, rounds).  The zsh script runs with
compadd and _files stood in for, since a completion widget needs a
terminal; a word with shell syntax in it is passed on, never run."""
import os
import re
import shutil
import subprocess
import unittest

from bchelp import BIN, Study

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASH_SCRIPT = os.path.join(ROOT, "completion", "bugcoder.bash")
ZSH_SCRIPT = os.path.join(ROOT, "completion", "_bugcoder")
BINDIR = os.path.dirname(BIN)


def env_for(study):
    e = dict(os.environ)
    e["PATH"] = BINDIR + os.pathsep + e.get("PATH", "")
    e.pop("BUGCODER_STUDY", None)
    if study:
        e["BUGCODER_STUDY"] = study.path
    return e


def bash_split(line):
    """COMP_WORDS as bash makes them: blanks part words, and '=' and
    ':' (in COMP_WORDBREAKS) are words of their own."""
    words, cur = [], ""
    for ch in line:
        if ch == " ":
            if cur:
                words.append(cur)
            cur = ""
        elif ch in "=:":
            if cur:
                words.append(cur)
            words.append(ch)
            cur = ""
        else:
            cur += ch
    words.append(cur)
    # "a=" then blank: the empty word after '=' is where the cursor is
    return words


def bash_complete(line, study=None, cwd=None):
    words = bash_split(line)
    if words[-1] == "" and len(words) > 1 and words[-2] in "=:":
        words.pop()
    script = (
        f"source {BASH_SCRIPT}\n"
        "COMP_WORDS=(\"$@\")\n"
        "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
        f"COMP_LINE={line!r}\n"
        "COMP_POINT=${#COMP_LINE}\n"
        "_bugcoder\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script,
                        "bash"] + words, capture_output=True, text=True,
                       env=env_for(study), timeout=60, cwd=cwd)
    if p.returncode != 0:
        raise AssertionError(f"{line!r}: {p.stderr}")
    return [ln for ln in p.stdout.splitlines() if ln]


class Complete(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Study(members=(("alice", "annotator"), ("bob", "annotator")))
        cls.s.ok("round", "create", "pilot", "--items",
                 "microsoft/DeepSpeed#4187,microsoft/DeepSpeed#4422",
                 "--annotators", "alice,bob")

    def complete(self, *words, study=True):
        p = subprocess.run([BIN, "__complete"] + list(words),
                           capture_output=True, text=True,
                           env=env_for(self.s if study else None),
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        return p.stdout.splitlines()

    # ---- bugcoder __complete ----------------------------------------------

    def test_commands_and_a_misspelt_start(self):
        out = self.complete("")
        self.assertIn("label", out)
        self.assertIn("round", out)
        self.assertNotIn("__complete", out)
        self.assertEqual(self.complete("lab"), ["label", "labels"])

    def test_options_of_the_command_from_its_table(self):
        out = self.complete("label", "--")
        for o in ("--submit", "--evidence", "--from", "--study", "--as",
                  "--help"):
            self.assertIn(o, out)
        self.assertEqual(self.complete("label", "--su"), ["--submit"])
        self.assertEqual(self.complete("--st"), ["--study"])

    def test_subcommands(self):
        self.assertEqual(self.complete("labels", ""), ["import"])

    def test_study_values(self):
        items = self.complete("label", "")
        self.assertIn("microsoft/DeepSpeed#4187", items)
        self.assertEqual(self.complete("label", "microsoft/DeepSpeed#418"),
                         ["microsoft/DeepSpeed#4187"])
        dims = self.complete("label", "microsoft/DeepSpeed#4187", "")
        self.assertIn("symptom=", dims)
        self.assertIn("root_cause=", dims)
        self.assertEqual(
            self.complete("label", "x", "symptom=ha"), ["symptom=hang"])
        # a DIM=CODE,CODE list goes on after its last comma
        self.assertIn("symptom=hang,crash",
                      self.complete("label", "x", "symptom=hang,c"))
        self.assertEqual(self.complete("labels", "import", "f.csv",
                                       "--round", ""), ["pilot"])
        self.assertEqual(self.complete("labels", "import", "f.csv",
                                       "--round=p"), ["--round=pilot"])
        members = self.complete("labels", "import", "f", "--annotator", "")
        self.assertIn("alice", members)
        self.assertIn("bob", members)

    def test_the_study_of_study_option(self):
        # --study on the command line names the study to read
        out = self.complete("--study", self.s.path, "labels", "import",
                            "f", "--round", "", study=False)
        self.assertEqual(out, ["pilot"])

    def test_no_study_gives_no_values_and_creates_nothing(self):
        d = self.s.dir
        before = sorted(os.listdir(d))
        missing = os.path.join(d, "nothing-here.db")
        out = self.complete("--study", missing, "label", "", study=False)
        self.assertEqual(out, [])
        self.assertEqual(sorted(os.listdir(d)), before)
        # the command's options are still offered
        self.assertIn("--submit", self.complete("--study", missing,
                                                "label", "--",
                                                study=False))

    def test_every_command_offers_the_options_its_help_explains(self):
        # the same table makes both: each long option --help gives an
        # entry of its own is offered, and nothing else but the globals
        cmds = self.complete("")
        self.assertGreater(len(cmds), 20)
        for cmd in cmds:
            help_ = subprocess.run([BIN, cmd, "--help"], capture_output=True,
                                   text=True, check=True).stdout
            body = help_.split("\n\n", 1)[1].split("\n  e.g. ", 1)[0]
            entries = set(re.findall(r"^  (?:-[a-z], )?(--[a-z][a-z-]*)",
                                     body, re.M))
            offered = set(self.complete(cmd, "--"))
            self.assertEqual(offered - {"--study", "--as", "--help"},
                             entries - {"--as"}, cmd)

    def test_unknown_command_offers_nothing(self):
        self.assertEqual(self.complete("lable", "--"), [])

    # ---- bash -----------------------------------------------------------

    def test_bash_registers_the_function(self):
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            f"source {BASH_SCRIPT}; complete -p bugcoder"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("-F _bugcoder", p.stdout)
        self.assertTrue(p.stdout.strip().endswith(" bugcoder"))

    def test_bash_runs_no_word(self):
        line = "bugcoder label $(touch pwned) sym"
        self.assertEqual(bash_complete(line, self.s, cwd=self.s.dir),
                         ["symptom="])
        self.assertFalse(os.path.exists(os.path.join(self.s.dir, "pwned")))

    def test_bash_commands_options_and_values(self):
        s = self.s
        self.assertEqual(bash_complete("bugcoder lab", s),
                         ["label", "labels"])
        self.assertEqual(bash_complete("bugcoder label --ev", s),
                         ["--evidence"])
        self.assertIn("microsoft/DeepSpeed#4422",
                      bash_complete("bugcoder label ", s))
        # readline replaces what follows '=': the candidates say only that
        self.assertIn("symptom=", bash_complete("bugcoder label x sym", s))
        self.assertEqual(bash_complete("bugcoder label x symptom=ha", s),
                         ["hang"])
        self.assertIn("hang", bash_complete("bugcoder label x symptom=", s))
        self.assertEqual(
            bash_complete("bugcoder labels import f.csv --round=pi", s),
            ["pilot"])
        self.assertEqual(
            bash_complete("bugcoder labels import f.csv --round ", s),
            ["pilot"])

    # ---- zsh ------------------------------------------------------------

    def zsh_complete(self, words):
        if not shutil.which("zsh"):
            self.skipTest("zsh is not installed (make test-deps "
                          "installs it)")
        script = (
            "compadd() { local nospace=; "
            "while [[ $1 == -* && $1 != -- ]]; do "
            "[[ $1 == -S ]] && { nospace=1; shift; }; shift; done; "
            "[[ $1 == -- ]] && shift; "
            "local w; for w in \"$@\"; do print -r -- \"$w${nospace:+ (no space)}\"; done; }\n"
            "_files() { print -r -- '(files)'; }\n"
            "words=(\"$@\"); CURRENT=$#; PREFIX=${words[CURRENT]}\n"
            f"source {ZSH_SCRIPT}\n")
        p = subprocess.run(["zsh", "-f", "-c", script, "zsh"] + words,
                           capture_output=True, text=True, cwd=self.s.dir,
                           env=env_for(self.s), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.splitlines()

    def test_zsh(self):
        self.assertEqual(self.zsh_complete(["bugcoder", "lab"]),
                         ["label", "labels"])
        self.assertEqual(self.zsh_complete(["bugcoder", "label", "--fr"]),
                         ["--from"])
        out = self.zsh_complete(["bugcoder", "label", "x", "sym"])
        self.assertIn("symptom= (no space)", out)
        self.assertEqual(self.zsh_complete(["bugcoder", "label", "x",
                                            "symptom=ha"]),
                         ["symptom=hang"])
        self.assertEqual(self.zsh_complete(["bugcoder", "labels", "import",
                                            "f", "--round", ""]),
                         ["pilot"])
        # a word is passed to bugcoder as it is, never evaluated
        self.assertEqual(self.zsh_complete(["bugcoder", "label",
                                            "$(touch pwned)", "sym"]),
                         ["symptom= (no space)"])
        self.assertFalse(os.path.exists(os.path.join(self.s.dir, "pwned")))
        # a file argument: zsh offers files
        self.assertEqual(self.zsh_complete(["bugcoder", "labels", "import",
                                            ""]), ["(files)"])


if __name__ == "__main__":
    unittest.main()
