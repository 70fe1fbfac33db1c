# SPDX-License-Identifier: MIT
"""The README's set-up and study run as written: `make install
PREFIX=$HOME/.local` makes `bugcoder` callable and brings the bundled
codebooks and the sample along, and every command of the study section
runs, in a directory outside the source tree.

Before: nothing put `bugcoder` on PATH, `--codebook llm-framework-bugs`
(by name) was refused, the study's paths worked only inside the
repository, and its examples named an item the sample does not have."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from bchelp import verifying_shim
from test_build import make_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme_block(after):
    """The first ```sh block after the line containing `after`."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    at = text.index(after)
    m = re.compile(r"```sh\n(.*?)```", re.S).search(text, at)
    return m.group(1)


class Readme(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="bugcoder-readme-")
        self.work = os.path.join(self.home, "work")
        os.mkdir(self.work)
        self.env = make_env(HOME=self.home)
        for k in list(self.env):
            if k.startswith("BUGCODER_"):
                del self.env[k]

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def sh(self, script, cwd):
        return subprocess.run(["sh", "-e", "-x", "-c", script], cwd=cwd,
                              env=self.env, capture_output=True, text=True,
                              timeout=600)

    def test_setup_and_study_run_as_written(self):
        setup = readme_block("To have `bugcoder` on your `PATH`")
        self.assertIn("make install PREFIX=$HOME/.local", setup)
        p = self.sh(setup, ROOT)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        local = os.path.join(self.home, ".local")
        self.assertTrue(os.access(os.path.join(local, "bin", "bugcoder"),
                                  os.X_OK))
        for f in ("share/man/man1/bugcoder.1",
                  "share/bugcoder/codebooks/llm-framework-bugs.json",
                  "share/bugcoder/codebooks/dl-framework-bugs.json",
                  "share/bugcoder/sample/items.jsonl",
                  "share/bugcoder/sample/labels.csv"):
            self.assertTrue(os.path.exists(os.path.join(local, f)), f)
        # the study, outside the source tree, with the PATH the set-up
        # gives (the export line is in the set-up block); every command
        # leaves the study as its audit log's replay gives it
        study = readme_block("## A study, start to finish")
        shims = os.path.join(self.home, "shims")
        log = os.path.join(self.home, "verify.log")
        verifying_shim(shims, os.path.join(local, "bin", "bugcoder"), log)
        # the shim stands where the program is: the study finds the
        # sample beside it as beside the installed program
        os.symlink(os.path.join(local, "share"),
                   os.path.join(self.home, "share"))
        p = self.sh(setup.split("\n", 1)[1] + "export PATH=%s:$PATH\n" %
                    shims + study, self.work)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertFalse(os.path.exists(log) and open(log).read(),
                         os.path.exists(log) and open(log).read())
        self.assertIn("codebook llm-framework-bugs 1.0", p.stdout)
        self.assertIn("created round round1", p.stdout)
        with open(os.path.join(self.work, "agreed.csv")) as f:
            rows = f.read().splitlines()
        self.assertTrue(any(r.startswith("microsoft/DeepSpeed#3468,")
                            for r in rows), rows[:3])
        self.assertTrue(os.listdir(os.path.join(self.work, "replication")))
        self.check_package_rebuilds(os.path.join(self.work, "replication"))
        # the screening: DeepSpeed#6203 out with its reason, in `items`
        env = dict(self.env, BUGCODER_STUDY=os.path.join(self.work,
                                                         "llm.db"))
        items = subprocess.run([os.path.join(local, "bin", "bugcoder"),
                                "items"], cwd=self.work, env=env,
                               capture_output=True, text=True).stdout
        self.assertRegex(items, r"microsoft/DeepSpeed#6203 .* excluded: "
                                r"no_merged_fix \(screening\)")
        # every label went to an item of a round that assigns its coder
        self.assertNotIn("in no round", p.stderr)
        # the installed program found the installed codebook by name
        p = subprocess.run([os.path.join(local, "bin", "bugcoder"),
                            "codebook", "check", "dl-framework-bugs"],
                           cwd=self.work, env=self.env, capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(os.path.join(local, "bin", "..", "share", "bugcoder",
                                   "codebooks", "dl-framework-bugs.json"),
                      p.stdout)
        p = subprocess.run(["make", "--no-print-directory", "uninstall",
                            "PREFIX=" + local], cwd=ROOT, env=self.env,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(local, "share",
                                                     "bugcoder")))

    def test_quick_start_runs_from_any_prefix(self):
        """The quick start at the top, as written, from an install under a
        PREFIX other than the one it names: every command exits 0 and the
        study holds the sample's labels, submitted."""
        block = readme_block("## Quick start")
        first, rest = block.split("\n", 1)
        self.assertTrue(first.startswith("make install PREFIX=$HOME/.local"))
        prefix = os.path.join(self.home, "opt")
        p = subprocess.run(["make", "--no-print-directory", "install",
                            "PREFIX=" + prefix], cwd=ROOT, env=self.env,
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.env["PATH"] = os.path.join(prefix, "bin") + ":" + \
            self.env["PATH"]
        cmds = [ln for ln in rest.splitlines()
                if ln.startswith("bugcoder ")]
        self.assertGreaterEqual(len(cmds), 5)
        p = self.sh(rest, self.work)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # `sh -x` traced every command the block holds
        self.assertEqual(p.stderr.count("+ bugcoder "), len(cmds), p.stderr)
        self.assertIn("codebook llm-framework-bugs 1.0", p.stdout)
        self.assertIn("30 added", p.stdout)
        self.assertIn("Cohen's kappa for symptom was", p.stdout)
        bc = os.path.join(prefix, "bin", "bugcoder")
        p = subprocess.run([bc, "export", "--raw", "-o", "raw.csv"],
                           cwd=self.work, env=self.env, capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        import csv
        with open(os.path.join(self.work, "raw.csv"), newline="") as f:
            got = sorted((r["item"], r["annotator"], r["dimension"], r["code"])
                         for r in csv.DictReader(f) if r["submitted_at"])
        with open(os.path.join(ROOT, "tests", "sample", "labels.csv"),
                  newline="") as f:
            want = sorted((r["item"], r["annotator"], r["dimension"],
                           r["code"]) for r in csv.DictReader(f))
        self.assertEqual(got, want)

    def check_package_rebuilds(self, d):
        """Every agreement figure of the package follows from its round
        files: the whole study's from round-items.csv (every coding
        round) and raw-labels.csv, each round's from its own items; the
        selection flow from selection.csv."""
        import json
        from reportcheck import cohen_kappa, read_csv, same

        def table(name):
            with open(os.path.join(d, name), encoding="utf-8") as f:
                return read_csv(f.read())

        raw = table("raw-labels.csv")
        by_round = {}
        for r in table("round-items.csv"):
            by_round.setdefault(r["round"], []).append(r["item"])
        rounds = {r["name"]: r for r in table("rounds.csv")}
        self.assertEqual({n for n, r in rounds.items()
                          if r["kind"] == "code"}, set(by_round) |
                         {n for n, r in rounds.items() if r["kind"] ==
                          "code" and n not in by_round})

        def figures(items, key):
            pairs = []
            for it in items:
                codes = {}
                for r in raw:
                    if r["item"] == it and r["dimension"] == key and \
                            r["submitted_at"]:
                        codes[r["annotator"]] = r["code"]
                if len(codes) == 2:
                    pairs.append(tuple(codes[k] for k in sorted(codes)))
            return len(pairs), cohen_kappa(pairs)

        with open(os.path.join(d, "agreement.json")) as f:
            whole = json.load(f)
        every = [i for items in by_round.values() for i in items]
        checked = 0
        for dim in whole["dimensions"]:
            if dim["select"] != "one":
                continue
            n, k = figures(every, dim["key"])
            self.assertEqual(dim["items"], n, dim["key"])
            self.assertTrue(same(dim["kappa"]["value"], k), dim["key"])
            checked += 1
        self.assertEqual(whole["dimensions"][0]["items"], 19)
        self.assertIn("the 29 items of the coding rounds",
                      whole["counting"][0])
        with open(os.path.join(d, "agreement-by-round.json")) as f:
            per = json.load(f)
        ns = {}
        for dim in per["dimensions"]:
            for r in dim["rounds"]:
                n, k = figures(by_round.get(r["round"], []), dim["key"])
                ns[r["round"]] = n
                self.assertEqual(r.get("items", 0), n, (dim["key"], r))
                if r.get("coefficient") == "Cohen's kappa":
                    v = r["kappa"]["value"] if r.get("kappa") else None
                    self.assertTrue(v is None and k is None or
                                    same(v, k), (dim["key"], r, k))
                checked += 1
        # the rounds add up to the whole study
        self.assertEqual(ns, {"pilot": 8, "round1": 11, "round2": 0})
        self.assertEqual(sum(ns.values()), 19)
        self.assertGreater(checked, 10)
        # the flow is selection.csv counted
        sel = table("selection.csv")
        with open(os.path.join(d, "report.json")) as f:
            flow = next(t for t in json.load(f)["tables"]
                        if t["id"] == "flow")
        allrow = dict(zip(flow["columns"], flow["rows"][-1]))
        self.assertEqual(allrow["seen"], len(sel))
        self.assertEqual(allrow["included"], sum(r["decision"] == "include"
                                                 for r in sel))
        self.assertEqual(allrow["excluded: no_merged_fix"], 1)
        self.assertEqual(allrow["coded"], 19)
        self.assertEqual(allrow["agreed"] + allrow["adjudicated"] +
                         allrow["open"], 19)

    def test_keys_per_item_is_the_measured_figure(self):
        """The README once said 10 keys an item in one place and six in
        another; the figure is the bench's key script (t_reading's
        test_six_keys replays it), and every mention agrees with it."""
        with open(os.path.join(ROOT, "tests", "bench",
                               "code-one-item.keys")) as f:
            keys = [ln for ln in f.read().splitlines()
                    if ln and not ln.startswith(("#", ":"))]
        seq = " ".join(keys)
        words = {6: "six"}
        self.assertIn(len(seq.replace(" ", "")), words)
        n = words[len(seq.replace(" ", ""))]
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        self.assertGreaterEqual(readme.count("`%s`" % seq), 2)
        said = re.findall(r"takes (\w+) keys", readme)
        self.assertGreaterEqual(len(said), 3)
        self.assertEqual(set(said), {n}, said)
        self.assertIsNone(re.search(r"\b\d+ keys", readme))

    def test_examples_name_items_of_the_sample(self):
        with open(os.path.join(ROOT, "tests", "sample", "items.jsonl")) as f:
            have = {f'{json_repo(l)}' for l in f}
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            text = f.read()
        named = set(re.findall(r"\b(?:[\w.-]+/)?(DeepSpeed|ColossalAI|"
                               r"Megatron-LM)#(\d+)", text))
        self.assertTrue(named)
        for repo, num in named:
            self.assertIn(f"{repo}#{num}", have)

    def test_make_builds_the_man_page_and_demo_installs_deps(self):
        p = subprocess.run(["make", "--no-print-directory", "-n", "-W",
                            "tui/bugcoder.1.in"], cwd=ROOT, env=self.env,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("tui/bugcoder.1", p.stdout)
        p = subprocess.run(["make", "--no-print-directory", "-n", "demo"],
                           cwd=ROOT, env=self.env, capture_output=True,
                           text=True)
        self.assertIn("tests/deps.sh", p.stdout)


def json_repo(line):
    import json
    d = json.loads(line)
    return f"{d['repo'].split('/')[1]}#{d['number']}"


if __name__ == "__main__":
    unittest.main()


class Demo(unittest.TestCase):
    """`make demo` (tests/demo.sh) leaves annotator demo something to
    code: without it the screen opens on nothing and make fails."""

    def test_demo_has_work_for_demo(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        p = subprocess.run(["sh", "tests/demo.sh"], cwd=root,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        db = os.path.join(root, "tests", "tmp", "demo", "study.db")
        out = subprocess.run([os.path.join(root, "bugcoder"), "--study", db,
                              "--as", "demo", "items", "--status", "todo"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("10 items", out.stdout)
