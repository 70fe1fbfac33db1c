# SPDX-License-Identifier: MIT
"""The repository stands alone: a clone with nothing beside it builds and
tests.  No file reaches outside the tree for what it needs (a folder of
reference material next to the clone was once read by the mock GitHub),
what a contributor needs to read is in the tree, and every file from
another project carries its licence beside it."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tracked_files():
    """The repository's files: git's list in a clone, else every file
    under the tree but build products (a tarball)."""
    try:
        p = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT,
                           capture_output=True, timeout=60)
        if p.returncode == 0 and p.stdout:
            return [f for f in p.stdout.decode().split("\0")
                    if f and os.path.isfile(os.path.join(ROOT, f))]
    except OSError:
        pass
    out = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in (".git", "tmp", "__pycache__")]
        for f in files:
            if not f.endswith((".o", ".d", ".a")):
                out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return out


class StandsAlone(unittest.TestCase):
    def test_no_file_reaches_outside_the_tree(self):
        # spelled in pieces, so that this file does not name them itself
        outside = [".." + "/shared", "/work" + "/shared",
                   "github-api" + "/examples"]
        bad = []
        for f in tracked_files():
            with open(os.path.join(ROOT, f), "rb") as fh:
                data = fh.read()
            for word in outside:
                if word.encode() in data:
                    bad.append("%s names %s" % (f, word))
        self.assertEqual(bad, [])

    def test_contributor_notes_are_in_the_tree(self):
        for f in ("docs/DESIGN.md", "docs/STYLE.md"):
            self.assertTrue(os.path.isfile(os.path.join(ROOT, f)), f)
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        hacking = readme[readme.index("## Hacking"):]
        self.assertIn("docs/DESIGN.md", hacking)
        self.assertIn("docs/STYLE.md", hacking)

    def test_vendored_files_carry_their_licence(self):
        gh = os.path.join(ROOT, "tests", "fixtures", "github")
        for d in ("graphql", "rest"):
            with open(os.path.join(gh, d, "LICENSE.md")) as f:
                text = f.read()
            self.assertIn("Permission is hereby granted, free of charge",
                          text)
            self.assertIn("GitHub", text)
        with open(os.path.join(gh, "README.md")) as f:
            notes = f.read()
        for name in os.listdir(os.path.join(gh, "rest")):
            if name.endswith(".json"):
                self.assertIn(name, notes)


def makefile_version():
    with open(os.path.join(ROOT, "Makefile")) as f:
        return re.search(r"^VERSION\s*=\s*(\S+)", f.read(), re.M).group(1)


def yaml_python():
    """A Python with PyYAML: this one, or Debian's (python3-yaml)."""
    for py in (sys.executable, "/usr/bin/python3"):
        if os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import yaml"], capture_output=True).returncode == 0:
            return py
    return None


class LicenceAndCitation(unittest.TestCase):
    def test_licence_is_mit(self):
        with open(os.path.join(ROOT, "LICENSE")) as f:
            text = f.read()
        self.assertTrue(text.startswith("MIT License\n"))
        self.assertIn("Permission is hereby granted, free of charge", text)
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            self.assertIn("## Licence and citation", f.read())

    def cffcheck(self, path, *args):
        py = yaml_python()
        self.assertIsNotNone(py, "PyYAML is missing: run make test-deps")
        return subprocess.run([py, os.path.join(ROOT, "tests", "cffcheck.py"),
                               path, *args], capture_output=True, text=True)

    def test_every_source_file_names_its_licence(self):
        missing = []
        for f in tracked_files():
            base = os.path.basename(f)
            if f.startswith("tests/fixtures/"):
                continue        # data, GitHub's among it (licence beside)
            if not (f.endswith((".c", ".h", ".py", ".sh", ".R",
                                ".postinst", ".postrm")) or
                    base in ("Makefile", "rules") or f == ".ci/run"):
                continue
            with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
                head = "".join(fh.readline() for _ in range(3))
            if "SPDX-License-Identifier: MIT" not in head:
                missing.append(f)
        self.assertEqual(missing, [])

    def test_citation_cff_is_valid_and_current(self):
        cff = os.path.join(ROOT, "CITATION.cff")
        p = self.cffcheck(cff, "--version", makefile_version())
        self.assertEqual((p.returncode, p.stdout), (0, ""))
        with open(cff, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("\nlicense: MIT\n", text)
        # the check is no rubber stamp: a broken copy fails, naming why
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "CITATION.cff")
            with open(bad, "w", encoding="utf-8") as f:
                f.write(text.replace("cff-version: 1.2.0", "cff-version: 1.1.0")
                        .replace("\ntitle:", "\nname:"))
            p = self.cffcheck(bad, "--version", "9.9.9")
            self.assertEqual(p.returncode, 1)
            for what in ("title is missing (required)",
                         "name is not a key of CFF 1.2.0",
                         "cff-version is '1.1.0'", "version is '0.1.0'"):
                self.assertIn(what, p.stdout)


if __name__ == "__main__":
    unittest.main()
