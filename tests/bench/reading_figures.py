#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a reader of real-looking fixes is shown, counted: does the fix
pane's position mark say "all" or "end" while lines of the diff are below
the pane (wrap on), and how many changed lines are cut at the right edge
(wrap off)?

    python3 tests/bench/reading_figures.py [--bin BUGCODER] ITEMS.jsonl...

For every item with a fix, at 200x50, 120x35 and 80x24, the annotator's
screen is run on a virtual terminal (BUGCODER_KEYS, BUGCODER_NO_DISPLAY)
with the fix pane focused and wrapped (Tab w), its first screen dumped;
the position mark at the right of its title is read, and the diff's last
line is looked for on the screen.  A fix "lies" when the mark is "all" or
"end" and that line is not there.  Cut lines are counted from the diff
itself: a changed line wider than the fix pane (sigil included) is cut
when lines scroll sideways, none is when they wrap.  With --bin an older
binary is measured the same way.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CODEBOOK = os.path.join(ROOT, "codebooks", "llm-framework-bugs.json")
SIZES = ((50, 200), (35, 120), (24, 80))
SEP = "\u2502"


def width(s):
    """Columns of s as the screen shows it (tabs at 8, wide characters
    two)."""
    s = s.expandtabs(8)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.combining(c) else 1 for c in s)


def fix_pane_cols(cols):
    return cols - (cols - 1) // 2 - 1 if cols >= 100 else cols


def diff_lines(diff):
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [l.rstrip("\r") for l in lines]


def measure(binary, items_path):
    with open(items_path) as f:
        items = [json.loads(line) for line in f if line.strip()]
    items = [it for it in items if it.get("fixes") and
             it["fixes"][0].get("diff")]
    tmp = tempfile.mkdtemp(prefix="bugcoder-figures-")
    try:
        return measure_in(binary, items_path, items, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure_in(binary, items_path, items, tmp):
    db = os.path.join(tmp, "study.db")
    env = dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC",
               XDG_CONFIG_HOME=os.path.join(tmp, "config"))
    for k in list(env):
        if k.startswith("BUGCODER_") or k == "NO_COLOR":
            del env[k]
    for args in (["init", "--codebook", CODEBOOK], ["import", items_path],
                 ["member", "add", "alice", "--role", "annotator"]):
        subprocess.run([binary, "--study", db] + args, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    result = {}
    for rows, cols in SIZES:
        t = {"fixes": 0, "lying": 0, "hidden_changed": 0, "changed": 0,
             "cut": 0}
        pcols = fix_pane_cols(cols)
        for it in items:
            lines = diff_lines(it["fixes"][0]["diff"])
            changed = [l for l in lines if l[:1] in "+-" and
                       not l.startswith(("+++", "---"))]
            t["changed"] += len(changed)
            t["cut"] += sum(width(l) > pcols for l in changed)
            script = os.path.join(tmp, "keys")
            with open(script, "w") as f:
                f.write("<Tab>w\n:dump-screen w\n")
            denv = dict(env, BUGCODER_KEYS=script, BUGCODER_NO_DISPLAY="1",
                        BUGCODER_DUMP_DIR=tmp, TERM="dumb",
                        LINES=str(rows), COLUMNS=str(cols))
            # w is kept for the next session by a newer binary: start
            # each from the same (default) setting
            shutil.rmtree(os.path.join(tmp, "config"), ignore_errors=True)
            subprocess.run([binary, "--study", db, "--as", "alice", "code",
                            "%s#%d" % (it["repo"], it["number"])], env=denv,
                           check=True)
            with open(os.path.join(tmp, "w"), encoding="utf-8") as f:
                scr = f.read().split("\n")
            title = scr[1].split(SEP)[-1].rstrip()
            mark = title.split()[-1] if title.split() else ""
            pane = [r.split(SEP)[-1] if cols >= 100 else r
                    for r in scr[2:]]
            last = [l for l in lines if l.strip()][-1]
            probe = last[:min(len(last), pcols - 2)].expandtabs(8)
            seen = any(probe and probe in r for r in pane)
            # changed lines whose start is on no row
            hidden = sum(1 for l in changed
                         if l[:min(len(l), pcols - 2)].expandtabs(8)
                         not in "\n".join(pane))
            t["fixes"] += 1
            if mark in ("all", "end") and not seen:
                t["lying"] += 1
                t["hidden_changed"] += hidden
        result[(rows, cols)] = t
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bugcoder"))
    ap.add_argument("items", nargs="+")
    args = ap.parse_args()
    lying = 0
    for path in args.items:
        for (rows, cols), t in measure(args.bin, path).items():
            print("%s %dx%d: %d fixes, %d say all/end with lines below "
                  "the pane (%d changed lines not on screen); %d of %d "
                  "changed lines (%.1f%%) cut with wrap off, none with "
                  "wrap on" % (os.path.basename(path), cols, rows,
                               t["fixes"], t["lying"], t["hidden_changed"],
                               t["cut"], t["changed"],
                               100.0 * t["cut"] / max(t["changed"], 1)))
            lying += t["lying"]
    sys.exit(1 if lying else 0)


if __name__ == "__main__":
    main()
