#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Line and branch coverage per folder, from the .gcda files a COVERAGE=1
build left behind (`make coverage` runs the suite first).

Prints one row per folder (each room of core/ and core/ as a whole,
exports, tui, cli) and the whole program, and
with --files the files of each folder, least covered first.  Exit 0; the
figures are for reading, the target (85% of lines per folder) is stated
beside them.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOMS = ("core/base", "core/stats", "core/store", "core/study",
         "core/github")
FOLDERS = ROOMS + ("core", "exports", "tui", "cli")
TARGET = 85.0


def merge_accounts():
    """Add the counts of runs as other accounts (the server install's
    tests keep them in tests/tmp/gcov-accounts/USER, a tree shaped like
    this one) to the tree's, with gcov-tool: what the setgid program did
    as a member counts like the rest."""
    kept = os.path.join(ROOT, "tests", "tmp", "gcov-accounts")
    if not os.path.isdir(kept):
        return
    tool = shutil.which("gcov-tool")
    if not tool:
        print("coverage: no gcov-tool: the runs as other accounts are "
              "not counted", file=sys.stderr)
        return
    for user in sorted(os.listdir(kept)):
        with tempfile.TemporaryDirectory() as tmp:
            mine = os.path.join(tmp, "tree")
            for folder in ("core", "exports", "tui", "cli"):
                for d, _, files in os.walk(os.path.join(ROOT, folder)):
                    for f in files:
                        if f.endswith(".gcda"):
                            rel = os.path.relpath(os.path.join(d, f), ROOT)
                            os.makedirs(os.path.dirname(
                                os.path.join(mine, rel)), exist_ok=True)
                            shutil.copy(os.path.join(ROOT, rel),
                                        os.path.join(mine, rel))
            out = os.path.join(tmp, "out")
            p = subprocess.run([tool, "merge", "-o", out,
                                os.path.join(kept, user), mine],
                               capture_output=True, text=True)
            if p.returncode:
                print("coverage: gcov-tool could not merge %s's counts: %s"
                      % (user, p.stderr.strip()), file=sys.stderr)
                continue
            for d, _, files in os.walk(out):
                for f in files:
                    rel = os.path.relpath(os.path.join(d, f), out)
                    if rel.split(os.sep)[0] in ("core", "exports", "tui",
                                                "cli"):
                        shutil.copy(os.path.join(d, f),
                                    os.path.join(ROOT, rel))
    shutil.rmtree(kept)


def summary():
    p = subprocess.run(["gcovr", "--root", ROOT, "--json-summary",
                        "--filter", r"(core|exports|tui|cli)/.*\.c$"],
                       cwd=ROOT, capture_output=True, text=True)
    if p.returncode:
        sys.exit("coverage: gcovr failed:\n" + p.stderr)
    return json.loads(p.stdout)


def pct(covered, total):
    return 100.0 * covered / total if total else 100.0


def main():
    merge_accounts()
    data = summary()
    per = {f: [0, 0, 0, 0, []] for f in FOLDERS}
    for f in data["files"]:
        parts = f["filename"].split("/")
        # a file counts in its folder, a core/ file in its room too
        for folder in {parts[0], "/".join(parts[:2])} & set(per):
            row = per[folder]
            row[0] += f["line_covered"]
            row[1] += f["line_total"]
            row[2] += f["branch_covered"]
            row[3] += f["branch_total"]
            row[4].append(f)
    print("%-12s %8s %8s %8s  %s" % ("FOLDER", "LINES", "BRANCHES",
                                     "FILES", "(target: %.0f%% of lines)"
                                     % TARGET))
    tot = [0, 0, 0, 0]
    for folder in FOLDERS:
        lc, lt, bc, bt, files = per[folder]
        if folder not in ROOMS:
            for i, v in enumerate((lc, lt, bc, bt)):
                tot[i] += v
        print("%-12s %7.1f%% %7.1f%% %8d  %s" % (
            folder + "/", pct(lc, lt), pct(bc, bt), len(files),
            "met" if pct(lc, lt) >= TARGET else "below"))
    print("%-12s %7.1f%% %7.1f%%" % ("all", pct(tot[0], tot[1]),
                                     pct(tot[2], tot[3])))
    if "--files" in sys.argv:
        for folder in FOLDERS:
            if folder == "core":
                continue
            print("\n" + folder + "/")
            for f in sorted(per[folder][4],
                            key=lambda f: pct(f["line_covered"],
                                              f["line_total"])):
                print("  %-36s %6.1f%% of %5d lines" % (
                    f["filename"], pct(f["line_covered"], f["line_total"]),
                    f["line_total"]))


if __name__ == "__main__":
    main()
