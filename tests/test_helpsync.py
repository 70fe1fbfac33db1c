# SPDX-License-Identifier: MIT
"""--help, the man page and the README's command table are made from one
place, the commands' option tables: each command's synopsis and option
list in the man page come from `bugcoder __man`, spliced by make into
tui/bugcoder.1.in at its marker lines, and README.md's command table is
what `bugcoder __readme` prints (`make readme` writes it).  These tests
check that the generation is what ships, that nothing hand-written of an
option list is left to drift, and that what is still written by hand
(the man page's descriptions) names only options its command takes.

Before: the man page's synopses were hand-written and lagged behind
--help (fetch, export, proposals, resolve, items), and `codebook update
--map` was documented three ways, one of which failed."""
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
    return [m.group(1) for m in re.finditer(r"^  ([a-z-]+) ", out, re.M)]


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


MARK = re.compile(r'^\.\\" @([A-Z]+) ([a-z-]+)@$', re.M)
REQUESTS = (".SS ", ".TP", ".PP", ".br", '.\\" ')


def man_in():
    with open(os.path.join(ROOT, "tui", "bugcoder.1.in")) as f:
        return f.read()


def man_blocks():
    """What `bugcoder __man` prints, by marker line."""
    out = subprocess.run([BIN, "__man"], capture_output=True, text=True,
                         check=True).stdout
    blocks, key = {}, None
    for line in out.splitlines(keepends=True):
        if MARK.match(line.rstrip("\n")):
            key = line.rstrip("\n")
            blocks[key] = ""
        else:
            blocks[key] += line
    return out, blocks


def splice(template, blocks):
    """The man page as the Makefile makes it (before the version)."""
    return "".join(blocks[ln.rstrip("\n")]
                   if MARK.match(ln.rstrip("\n")) else ln
                   for ln in template.splitlines(keepends=True))


def plain(roff):
    return re.sub(r"\\f[A-Z]", "", roff).replace("\\-", "-")\
             .replace("\\e", "\\").replace("\\&", "")


def man_sections(page):
    """Command name -> its .SS section of the COMMANDS section, plain."""
    sect = page.split(".SH COMMANDS", 1)[1].split("\n.SH ", 1)[0]
    parts = re.split(r"^\.SS (\S+)\n", sect, flags=re.M)
    return {plain(parts[i]): plain(parts[i + 1])
            for i in range(1, len(parts), 2)}


def readme_block():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^<!-- commands:.*-->\n(.*?)^<!-- end of commands -->",
                  text, re.M | re.S)
    return m and m.group(1)


def readme_rows():
    """Command name -> the options of the first cell of its table row."""
    rows = {}
    for line in (readme_block() or "").splitlines():
        if not line.startswith("| `"):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        m = re.match(r"\s*`([a-z-]+)", first)
        if m:
            rows.setdefault(m.group(1), set()).update(OPT.findall(first))
    return {k: v - GLOBAL for k, v in rows.items()}


class HelpSync(unittest.TestCase):
    def test_man_page_has_a_place_for_every_command(self):
        # one @SYNOPSIS and one @OPTIONS marker per command, in the
        # COMMANDS section, and none for a command that does not exist
        template = man_in()
        sect = template.split(".SH COMMANDS", 1)[1].split("\n.SH ", 1)[0]
        marks = MARK.findall(template)
        self.assertEqual(marks, MARK.findall(sect))
        want = [(kind, cmd) for cmd in commands()
                for kind in ("SYNOPSIS", "OPTIONS")]
        self.assertEqual(sorted(marks), sorted(want))
        _, blocks = man_blocks()
        self.assertEqual(sorted(blocks), sorted(
            f'.\\" @{k} {c}@' for k, c in want))

    def test_man_page_keeps_no_hand_written_option_list(self):
        # what is left of the old entries names a form ("codebook
        # revert"), never its options' placeholders and brackets
        sect = man_in().split(".SH COMMANDS", 1)[1].split("\n.SH ", 1)[0]
        bad = [ln for ln in re.findall(r"^\.TP\n\.B (.*)$", sect, re.M)
               if re.search(r"\\fI|[\[\]|]", ln)]
        self.assertEqual(bad, [])

    def test_built_man_page_is_the_splice(self):
        # make's rule (the existing binary, the page remade) gives what
        # the template with `bugcoder __man`'s blocks is
        p = subprocess.run(["make", "--no-print-directory", "-s",
                            "-o", "bugcoder", "-W", "tui/bugcoder.1.in",
                            "tui/bugcoder.1"], cwd=ROOT,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(ROOT, "tui", "bugcoder.1")) as f:
            built = f.read()
        _, blocks = man_blocks()
        want = re.sub(r"@VERSION@", re.search(r'bugcoder ([0-9][^"]*)"',
                                               built).group(1),
                      splice(man_in(), blocks))
        self.assertEqual(built, want)
        self.assertNotRegex(built, MARK)

    def test_man_page_matches_help(self):
        # every option of a command's --help is in its man section's
        # synopsis and option list, and its section names no option
        # the command does not take (the descriptions are hand-written)
        _, blocks = man_blocks()
        man = man_sections(splice(man_in(), blocks))
        bad = []
        for cmd in commands():
            if cmd not in man:
                bad.append(f"{cmd}: no section in the man page")
                continue
            opts = set(OPT.findall(help_text(cmd))) - GLOBAL
            # "fetch --missing" in another command's text is fetch's
            said = {m.group(2) for m in re.finditer(
                r"((?:[\w/#]+ ){0,3})(?<![\w-])(--[a-z][a-z-]*|-o)\b",
                man[cmd])
                if not set(m.group(1).split()) & (set(commands()) - {cmd})}
            for o in sorted(help_usage(cmd) - said):
                bad.append(f"{cmd}: {o} is in --help, not in the man page")
            for o in sorted(said - opts - GLOBAL - {"--version"}):
                bad.append(f"{cmd}: {o} is in the man page, not in --help")
        self.assertEqual(bad, [])

    def test_man_blocks_are_roff_safe(self):
        # every line the generator writes is text or one of its requests;
        # no text line starts a request by accident, every hyphen is \-
        # and every backslash an escape
        out, _ = man_blocks()
        bad = []
        for ln in out.splitlines():
            if ln.startswith((".", "'")) and not ln.startswith(REQUESTS):
                bad.append(ln)
            if re.search(r"(?<!\\)-", ln) and not ln.startswith('.\\"'):
                bad.append(ln)
            if re.search(r"\\(?![-fe&\"])", ln):
                bad.append(ln)
        self.assertEqual(bad, [])

    def test_man_page_renders_without_warnings(self):
        # groff's warnings, for the lines the generator wrote
        _, blocks = man_blocks()
        page = splice(man_in(), blocks).replace("@VERSION@", "0")
        first = page.split(".SH COMMANDS", 1)[0].count("\n") + 1
        last = first + page.split(".SH COMMANDS", 1)[1]\
            .split("\n.SH ", 1)[0].count("\n")
        p = subprocess.run(["groff", "-man", "-ww", "-z", "-Tutf8"],
                           input=page, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        bad = [ln for ln in p.stderr.splitlines()
               if (m := re.search(r":(\d+):", ln)) and
               first <= int(m.group(1)) <= last]
        self.assertEqual(bad, [])

    def test_readme_table_is_made_from_the_tables(self):
        # README.md's block is what the binary prints: a table changed
        # without `make readme` fails here
        out = subprocess.run([BIN, "__readme"], capture_output=True,
                             text=True, check=True).stdout
        self.assertIsNotNone(readme_block(), "README.md has no markers")
        self.assertEqual(readme_block(), out,
                         "README.md's command table is stale: make readme")

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

    def test_hidden_commands_take_no_arguments(self):
        for cmd in ("__man", "__readme"):
            p = subprocess.run([BIN, cmd, "extra"], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn(cmd, p.stderr)
            self.assertEqual(p.stdout, "")

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
        _, blocks = man_blocks()
        man = plain(splice(man_in(), blocks))
        out = subprocess.run([BIN, "codebook", "--help"],
                             capture_output=True, text=True).stdout
        for text in (readme, man, out):
            self.assertIn("--map DIM:OLD=NEW", text)
            self.assertNotIn("DIM.OLD", text)


if __name__ == "__main__":
    unittest.main()
