#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hunk and file jumps on the fix pane, counted: does a jump hide the start
of a changed line?

    python3 tests/bench/hunk_jumps.py [--bin BUGCODER] ITEMS.jsonl...

For every item of the files, at 200x50, 120x35 and 80x24, the annotator's
screen is run on a virtual terminal (BUGCODER_KEYS, BUGCODER_NO_DISPLAY)
with one `]` (next hunk) per hunk and one `}` (next file) per file of its
first fix, the screen dumped after each key.  In each dump, every row of
the fix pane below the first file or hunk header that shows a changed line
(`+` or `-` in the sigil column) is read back:

  - shown:  its text is the start of a changed line of the diff (a line
            cut at the right edge, marked there, counts as shown);
  - marked: it says that it is scrolled (the column after the sigil is
            a left mark, `<<` in ASCII);
  - bare:   the sigil alone, where the line has text;
  - cut:    text that is not the start of any changed line: its start is
            hidden, and nothing says so.

A jump hides a start when one of its rows is bare or cut.  The counts are
printed per size; the exit status is 1 when any jump hides a start (what
tests/test_reading_real.py checks), 0 otherwise.  With --bin an older
binary is measured the same way (its figures "before").
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CODEBOOK = os.path.join(ROOT, "codebooks", "llm-framework-bugs.json")
SIZES = ((50, 200), (35, 120), (24, 80))
LEFT_MARKS = ("\u00ab", "<")
EDGE_MARKS = (">", "\u00bb")
SEP = "\u2502"


def sanitized(s):
    """s as the screen shows it (core/base/text.c): a control character as its
    picture (U+2400 + code), DEL as U+2421, a C1 control as U+FFFD."""
    out = []
    for c in s:
        o = ord(c)
        if o < 0x20 and c != "\t":
            out.append(chr(0x2400 + o))
        elif o == 0x7f:
            out.append("\u2421")
        elif 0x80 <= o < 0xa0:
            out.append("\ufffd")
        else:
            out.append(c)
    return "".join(out)


def diff_lines(diff):
    """The diff's lines as the screen shows them (tabs expanded, a CR at
    the end of a changed line made visible), with its hunk and file
    counts."""
    lines, hunks, files = [], 0, 0
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            files += 1
        elif line.startswith("@@"):
            hunks += 1
        lines.append(line.expandtabs(8))
    if lines and lines[-1] == "":
        lines.pop()
    return lines, hunks, max(files, 1)


def right_of(row, col):
    """What a dumped row shows right of display column `col` (the
    separator's): characters counted by their width, not their bytes."""
    at = 0
    for i, c in enumerate(row):
        if at > col:
            return row[i:]
        at += 2 if unicodedata.east_asian_width(c) in "WF" else \
            0 if unicodedata.combining(c) else 1
    return ""


def pane_rows(dump, split, cols=200):
    """The fix pane's text rows of a dumped screen (from row 2 to the
    coding bar, whose first cell is the bundled codebook's first
    dimension); side by side, what is right of the separator's column
    (the issue pane may hold the same character, in a table)."""
    rows = dump.split("\n")[2:]
    out = []
    for r in rows:
        if r.startswith(" 1 symptom:") or r.startswith(' 1"symptom:'):
            break
        if split:
            sep = (cols - 1) // 2
            if len(r) <= sep:
                out.append("")
                continue
            r = right_of(r, sep)
        out.append(r)
    return out


def classify(rows, lines, width):
    """Counts of the changed-line rows: shown from their start, marked as
    scrolled, bare, cut.  The top row is the header jumped to; the rows
    below it are the diff's next lines (a wrapped line's further rows,
    which start with its mark, are passed over)."""
    counts = {"shown": 0, "marked": 0, "bare": 0, "cut": 0}
    top = rows[0].rstrip() if rows else ""
    start = None
    for i, l in enumerate(lines):
        if l.startswith(("@@", "diff --git")) and (
                l.startswith(top.rstrip(">\u00bb")) or top.startswith(l)):
            start = i
            break
    if start is None:
        return counts
    i = start
    for r in rows:
        # a wrapped line's further rows (the screens run in UTF-8: the
        # mark is never "\\", which starts "\\ No newline at end of file")
        if r.startswith("\u21aa") or i >= len(lines):
            continue
        line = lines[i]
        i += 1
        if line[:1] not in ("+", "-") or line.startswith(("+++", "---")):
            continue
        text = line[1:]
        body = r[1:]
        if body.startswith(LEFT_MARKS):
            counts["marked"] += 1
            continue
        if len(r) >= width - 1 and body.endswith(EDGE_MARKS):
            body = body[:-1]
        # a CR ending a line of the file shows as its picture (older
        # screens dropped it)
        shown = [sanitized(text), sanitized(text.rstrip("\r"))]
        if not text.strip("\r "):
            counts["shown"] += 1
        elif body and any(t.startswith(body) or
                          (body.strip() and t.startswith(body.rstrip(" ")))
                          for t in shown):
            # blanks cut at the edge are the line's own start too
            counts["shown"] += 1
        elif not body.strip():
            counts["bare"] += 1
        else:
            counts["cut"] += 1
    return counts


def measure(binary, items_path, keep=None):
    """{(rows, cols): {"jumps", "hiding", "shown", "marked", "bare",
    "cut", "scrolled"}} over every item of the file."""
    with open(items_path) as f:
        items = [json.loads(line) for line in f if line.strip()]
    tmp = keep or tempfile.mkdtemp(prefix="bugcoder-jumps-")
    try:
        return measure_in(binary, items_path, items, tmp)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def measure_in(binary, items_path, items, tmp):
    """measure() in directory `tmp`."""
    db = os.path.join(tmp, "study.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
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
        tot = {"jumps": 0, "hiding": 0, "scrolled": 0, "shown": 0,
               "marked": 0, "bare": 0, "cut": 0}
        for it in items:
            if not it.get("fixes") or not it["fixes"][0].get("diff"):
                continue
            lines, hunks, files = diff_lines(it["fixes"][0]["diff"])
            keys = []
            for k in range(hunks):
                keys += ["]", ":dump-screen h%d" % k]
            keys += ["g"]
            for k in range(files):
                keys += ["}", ":dump-screen f%d" % k]
            script = os.path.join(tmp, "keys")
            with open(script, "w") as f:
                f.write("\n".join(keys) + "\n")
            denv = dict(env, BUGCODER_KEYS=script, BUGCODER_NO_DISPLAY="1",
                        BUGCODER_DUMP_DIR=tmp, TERM="dumb",
                        LINES=str(rows), COLUMNS=str(cols))
            name = "%s#%d" % (it["repo"], it["number"])
            subprocess.run([binary, "--study", db, "--as", "alice", "code",
                            name], env=denv, check=True)
            split = cols >= 100
            width = cols - (cols - 1) // 2 - 1 if split else cols
            for dump in ["h%d" % k for k in range(hunks)] + \
                    ["f%d" % k for k in range(files)]:
                with open(os.path.join(tmp, dump), encoding="utf-8") as f:
                    text = f.read()
                title = text.split("\n")[1]
                if split:
                    title = title.split(SEP, 1)[-1]
                c = classify(pane_rows(text, split, cols), lines, width)
                tot["jumps"] += 1
                tot["scrolled"] += bool(re.search(
                    "(%s)\\+\\d+" % "|".join(LEFT_MARKS), title)) or \
                    c["marked"] > 0 or c["cut"] > 0
                tot["hiding"] += c["bare"] + c["cut"] > 0
                for k in ("shown", "marked", "bare", "cut"):
                    tot[k] += c[k]
        result[(rows, cols)] = tot
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bugcoder"))
    ap.add_argument("--keep", help="work in this directory and keep it")
    ap.add_argument("items", nargs="+")
    args = ap.parse_args()
    bad = 0
    for path in args.items:
        res = measure(args.bin, path, args.keep)
        for (rows, cols), t in res.items():
            print("%s %dx%d: %d jumps, %d scrolled sideways, %d hide the "
                  "start of a changed line (changed-line rows: %d shown "
                  "from their start, %d marked as scrolled, %d bare, %d "
                  "cut)" % (os.path.basename(path), cols, rows, t["jumps"],
                            t["scrolled"], t["hiding"], t["shown"],
                            t["marked"], t["bare"], t["cut"]))
            bad += t["hiding"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
