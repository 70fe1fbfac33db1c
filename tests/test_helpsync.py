# SPDX-License-Identifier: MIT
"""--help, the man page and the README's command table agree: every
option a command's --help gives is in the man page's entry for that
command and in the README's row for it, and neither documents an option
the command does not take.

Before: the man page's synopses lagged behind --help (fetch, export,
proposals, resolve, items), and `codebook update --map` was documented
three ways, one of which failed."""
import json
import os
import re
import shlex
import subprocess
import unittest

from bchelp import BIN, CODEBOOK, SAMPLE, SAMPLE_LABELS, Study

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-o)\b")
GLOBAL = {"--study", "--as", "--help"}
# Commands whose --help is still being rewritten elsewhere; each leaves
# this set once its --help explains every option with an example.
NOT_YET_EXPLAINED = {"export", "report", "machine-code"}
# Commands whose examples need neither a terminal, the network nor a
# particular order: test_help_examples_run_on_the_sample runs them.
RUNNABLE = ("items", "status", "agree", "disagreements", "resolve",
            "audit", "backup", "doctor")


def commands():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True,
                         check=True).stdout
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) ", out, re.M)]


def help_text(cmd):
    return subprocess.run([BIN, cmd, "--help"], capture_output=True,
                          text=True, check=True).stdout


def examples(cmd):
    """The `e.g.` examples of `cmd --help`, one command line each."""
    text = help_text(cmd).partition("\n  e.g. ")[2]
    return [ln.strip() for ln in text.replace("\\\n", " ").splitlines()
            if ln.strip()]


def help_usage(cmd):
    """The options of the usage line(s) of `cmd --help`."""
    usage = help_text(cmd).split("\n\n", 1)[0]
    return set(OPT.findall(usage)) - GLOBAL


def man_entries():
    """Command name -> the options of its entries' synopsis lines."""
    with open(os.path.join(ROOT, "tui", "bugcoder.1.in")) as f:
        text = f.read()
    sect = text.split(".SH COMMANDS", 1)[1].split("\n.SH ", 1)[0]
    entries = {}
    for m in re.finditer(r"^\.TP\n\.B (.*)$", sect, re.M):
        line = re.sub(r"\\f[A-Z]", "", m.group(1)).replace("\\-", "-")
        name = line.split()[0]
        entries.setdefault(name, set()).update(OPT.findall(line))
    return {k: v - GLOBAL for k, v in entries.items()}


def readme_rows():
    """Command name -> the options of the first cell of its table rows."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    text = text.split("\n## Commands", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        m = re.match(r"\s*`([a-z]+)", first)
        if m:
            rows.setdefault(m.group(1), set()).update(OPT.findall(first))
    return {k: v - GLOBAL for k, v in rows.items()}


class HelpSync(unittest.TestCase):
    def test_man_page_matches_help(self):
        man = man_entries()
        bad = []
        for cmd in commands():
            opts = help_usage(cmd)
            if cmd not in man:
                bad.append(f"{cmd}: no entry in the man page")
                continue
            for o in sorted(opts - man[cmd]):
                bad.append(f"{cmd}: {o} is in --help, not in the man page")
            for o in sorted(man[cmd] - opts):
                bad.append(f"{cmd}: {o} is in the man page, not in --help")
        self.assertEqual(bad, [])

    def test_readme_matches_help(self):
        rows = readme_rows()
        bad = []
        for cmd in commands():
            opts = help_usage(cmd)
            if cmd not in rows:
                bad.append(f"{cmd}: no row in the README")
                continue
            for o in sorted(opts - rows[cmd]):
                bad.append(f"{cmd}: {o} is in --help, not in the README")
            for o in sorted(rows[cmd] - opts):
                bad.append(f"{cmd}: {o} is in the README, not in --help")
        self.assertEqual(bad, [])

    def test_help_explains_options_with_an_example(self):
        # Every command's --help: after the usage line(s), each option of
        # the usage on a line of its own explanation (not only inside an
        # example), then `e.g.` examples of the command itself.
        bad = []
        for cmd in sorted(set(commands()) - NOT_YET_EXPLAINED):
            out = help_text(cmd)
            usage, _, body = out.partition("\n\n")
            if not body:
                bad.append(f"{cmd}: --help is only a usage line")
                continue
            text, eg, first = body.partition("\n  e.g. ")
            if not eg:
                bad.append(f"{cmd}: no `e.g.` examples")
                continue
            if not first.startswith("bugcoder " + cmd):
                bad.append(f"{cmd}: the first example is not of {cmd}")
            for o in sorted(help_usage(cmd) - {"--as"}):
                if not re.search(r"(?<![\w-])" + re.escape(o) + r"\b",
                                 text):
                    bad.append(f"{cmd}: --help does not explain {o}")
        self.assertEqual(bad, [])

    def test_help_examples_name_sample_items_and_codes(self):
        # the examples run on the sample study: the items they name are
        # in tests/sample/items.jsonl, the DIM=CODE pairs in its codebook
        items = set()
        with open(SAMPLE) as f:
            for line in f:
                j = json.loads(line)
                items.add((j["repo"], j["number"]))
        with open(CODEBOOK) as f:
            cb = json.load(f)
        codes = {(d["key"], c["key"]) for d in cb["dimensions"]
                 for c in d["codes"]}
        bad = []
        for cmd in commands():
            text = "\n".join(examples(cmd))
            for m in re.finditer(r"(?<![\w/.-])(?:([\w.-]+)/)?([\w.-]+)"
                                 r"#(\d+)\b", text):
                owner, repo, num = m.group(1), m.group(2), int(m.group(3))
                if not any(r.split("/")[1] == repo and n == num and
                           (owner is None or r.split("/")[0] == owner)
                           for r, n in items):
                    bad.append(f"{cmd}: {m.group(0)} is not in the sample")
            for m in re.finditer(r"(?<![\w:-])([a-z_]+)=([a-z_,]+)(?=\s|$)",
                                 text, re.M):
                dim = m.group(1)
                if dim not in {d for d, _ in codes}:
                    continue
                for code in m.group(2).split(","):
                    if (dim, code) not in codes:
                        bad.append(f"{cmd}: {dim}={code} is not in the "
                                   "sample's codebook")
        self.assertEqual(bad, [])

    def test_help_examples_run_on_the_sample(self):
        # the examples of the commands that only read (and of resolve)
        # run as written on the sample study after a pilot round: alice
        # and bob's labels in, the round closed; screens need a terminal
        s = Study(members=[("alice", "annotator"), ("bob", "annotator")])
        try:
            s.ok("round", "create", "pilot", "--items", "all",
                 "--annotators", "alice,bob")
            s.ok("labels", "import", SAMPLE_LABELS, "--submit")
            s.ok("round", "close", "pilot", "--force")
            bad, ran = [], 0
            for cmd in RUNNABLE:
                for line in examples(cmd):
                    argv = shlex.split(line)
                    if "--screen" in argv:
                        continue
                    p = s.run(*argv[1:])
                    ran += 1
                    if argv[:2] != ["bugcoder", cmd] or p.returncode:
                        bad.append(f"{line}: exit {p.returncode}: "
                                   f"{p.stderr.strip()[:100]}")
            self.assertEqual(bad, [])
            self.assertGreaterEqual(ran, 15)
        finally:
            s.close()

    def test_map_is_documented_one_way(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        with open(os.path.join(ROOT, "tui", "bugcoder.1.in")) as f:
            man = f.read().replace("\\fB", "").replace("\\fI", "")\
                          .replace("\\fR", "").replace("\\-", "-")
        out = subprocess.run([BIN, "codebook", "--help"],
                             capture_output=True, text=True).stdout
        for text in (readme, man, out):
            self.assertIn("--map DIM:OLD=NEW", text)
            self.assertNotIn("DIM.OLD", text)


if __name__ == "__main__":
    unittest.main()
