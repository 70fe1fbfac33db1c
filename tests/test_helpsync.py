"""--help, the man page and the README's command table agree: every
option a command's --help gives is in the man page's entry for that
command and in the README's row for it, and neither documents an option
the command does not take.

Before: the man page's synopses lagged behind --help (fetch, export,
proposals, resolve, items), and `codebook update --map` was documented
three ways, one of which failed."""
import os
import re
import subprocess
import unittest

from bchelp import BIN

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-o)\b")
GLOBAL = {"--study", "--as", "--help"}


def commands():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True,
                         check=True).stdout
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) ", out, re.M)]


def help_usage(cmd):
    """The options of the usage line(s) of `cmd --help`."""
    out = subprocess.run([BIN, cmd, "--help"], capture_output=True,
                         text=True, check=True).stdout
    usage = out.split("\n\n", 1)[0]
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
        # the commands whose --help was one usage line
        for cmd in ("init", "member", "codebook", "import", "round",
                    "label", "labels"):
            out = subprocess.run([BIN, cmd, "--help"], capture_output=True,
                                 text=True, check=True).stdout
            body = out.split("\n\n", 1)[1] if "\n\n" in out else ""
            for o in help_usage(cmd) - {"--as"}:
                self.assertIn(o, body, f"{cmd} --help does not explain {o}")
            self.assertIn("e.g. bugcoder " + cmd, out, cmd)

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
