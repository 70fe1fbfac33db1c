#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate the sample study in tests/sample/ (Python 3 standard library only).

    python3 tests/sample/check.py [-q] [ITEMS.jsonl]

Checks items.jsonl (one JSON object per line in the item format of DESIGN.md,
diff hunk counts, additions/deletions/changed_files against the diff, the
share of small fixes, exactly one item without a fix and one with two),
the hostile item, hostile-raw.jsonl and labels.csv.  Prints one line per
problem and a summary; exits 0 when everything holds, 1 otherwise.

The functions check_items(), parse_diff(), check_hostile_raw() and
check_labels() return lists of problems and may be imported by tests.
"""
import csv
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))

REPOS = {
    "microsoft/DeepSpeed": (3000, 6500),
    "hpcaitech/ColossalAI": (2000, 5800),
    "NVIDIA/Megatron-LM": (300, 1200),
}

ITEM_FIELDS = {
    "repo": str, "number": int, "title": str, "body": str, "state": str,
    "state_reason": str, "author": str, "created_at": str, "closed_at": str,
    "labels": list, "url": str, "comments": list, "fixes": list,
}
COMMENT_FIELDS = {"author": str, "created_at": str, "body": str}
FIX_FIELDS = {
    "number": int, "title": str, "body": str, "merged_at": str,
    "additions": int, "deletions": int, "changed_files": int, "diff": str,
}

CODES = {
    "symptom": ["crash", "incorrect_functionality", "build_failure", "hang",
                "performance_degradation", "memory_issue", "setup_failure",
                "cross_device_inconsistency", "unreported", "other"],
    "root_cause": ["api_misuse", "incorrect_implementation", "configuration_error",
                   "precondition_missing", "type_confusion", "tensor_shape_misalignment",
                   "version_incompatibility", "exception_handling", "incorrect_assignment",
                   "numerical_issue", "dependent_module", "allocation_strategy",
                   "distributed_communication", "distributed_tensor", "concurrency", "other"],
    "fix_pattern": ["conditional_logic", "parameter_handling", "version_compatibility",
                    "dependency_management", "distributed_tuning", "algorithm_rewrite", "other"],
    "stage": ["initialization", "communication", "computation", "memory",
              "fault_tolerance", "scheduling", "other"],
    "phase": ["training", "inference", "both", "other"],
}
MULTI = {"fix_pattern"}          # dimensions where an annotator may choose several codes

# What the hostile item must carry, and where (title, body, comment author,
# comment body, diff).
ESC, BEL = "\x1b", "\x07"
HOSTILE_BODY_NEEDS = {
    "ESC[2J": ESC + "[2J",
    "ESC]0;title BEL": ESC + "]0;",
    "OSC 52 clipboard write": ESC + "]52;c;ZXZpbA==" + BEL,
    "ESC[6n": ESC + "[6n",
    "8-bit CSI U+009B": "\u009b",
    "CRLF": "\r\n",
    "backspace": "\b",
    "lone CR overwrite": "progress 10%\rprogress 100%",
    "U+202E": "\u202e",
    "NUL": "\x00",
    "TAB": "\t",
}

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: (.*))?$")
GIT_RE = re.compile(r"^diff --git a/(\S+) b/(\S+)$")
EXT_HEADERS = ("index ", "new file mode ", "deleted file mode ", "old mode ", "new mode ",
               "similarity index ", "rename from ", "rename to ")


def parse_date(s):
    if not isinstance(s, str) or not DATE_RE.match(s):
        return None
    try:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None


def parse_diff(diff):
    """Parse a unified git diff strictly, driven by the hunk counts.

    Returns (stats, problems), stats = {"files", "additions", "deletions",
    "hunks"}.  Content lines may end in CR (files with CRLF endings); header
    lines are compared without a trailing CR."""
    problems = []
    stats = {"files": 0, "additions": 0, "deletions": 0, "hunks": 0}
    if diff == "":
        return stats, ["empty diff"]
    if not diff.endswith("\n"):
        problems.append("diff does not end with a newline")
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i, n = 0, len(lines)
    while i < n:
        head = lines[i].rstrip("\r")
        m = GIT_RE.match(head)
        if not m:
            problems.append("line %d: expected 'diff --git', got %r" % (i + 1, head[:60]))
            return stats, problems
        path = m.group(2)
        if m.group(1) != path:
            problems.append("line %d: a/ and b/ paths differ (renames are not expected)" % (i + 1))
        stats["files"] += 1
        i += 1
        new_file = deleted = False
        while i < n and lines[i].rstrip("\r").startswith(EXT_HEADERS):
            h = lines[i].rstrip("\r")
            new_file |= h.startswith("new file mode ")
            deleted |= h.startswith("deleted file mode ")
            i += 1
        if i + 1 >= n:
            problems.append("%s: missing ---/+++ lines" % path)
            return stats, problems
        minus, plus = lines[i].rstrip("\r"), lines[i + 1].rstrip("\r")
        want_minus = "--- /dev/null" if new_file else "--- a/" + path
        want_plus = "+++ /dev/null" if deleted else "+++ b/" + path
        if minus != want_minus or plus != want_plus:
            problems.append("%s: bad file header %r / %r" % (path, minus, plus))
        i += 2
        prev_old_end = 0
        offset = 0
        hunks = 0
        while i < n and lines[i].startswith("@@"):
            hm = HUNK_RE.match(lines[i].rstrip("\r"))
            if not hm:
                problems.append("%s: line %d: bad hunk header %r" % (path, i + 1, lines[i][:60]))
                return stats, problems
            # a missing count means 1 (git writes "@@ -5 +5,2 @@")
            o_start = int(hm.group(1))
            o_len = int(hm.group(2)) if hm.group(2) is not None else 1
            n_start = int(hm.group(3))
            n_len = int(hm.group(4)) if hm.group(4) is not None else 1
            hunks += 1
            stats["hunks"] += 1
            i += 1
            o = nn = a = d = 0
            while o < o_len or nn < n_len:
                if i >= n:
                    problems.append("%s: hunk %d truncated (old %d/%d, new %d/%d)"
                                    % (path, hunks, o, o_len, nn, n_len))
                    return stats, problems
                line = lines[i]
                c = line[:1]
                if c == " ":
                    o += 1
                    nn += 1
                elif c == "-":
                    o += 1
                    d += 1
                elif c == "+":
                    nn += 1
                    a += 1
                elif c == "\\":
                    pass
                else:
                    problems.append("%s: hunk %d: line %d is not a diff line: %r"
                                    % (path, hunks, i + 1, line[:60]))
                    return stats, problems
                i += 1
            if o != o_len or nn != n_len:
                problems.append("%s: hunk %d: header says -%d +%d, body has -%d +%d"
                                % (path, hunks, o_len, n_len, o, nn))
            while i < n and lines[i].startswith("\\"):
                i += 1
            if new_file:
                if (o_start, o_len, n_start) != (0, 0, 1 if n_len else 0):
                    problems.append("%s: new file hunk must be @@ -0,0 +1,N @@" % path)
            elif deleted:
                if (n_start, n_len) != (0, 0):
                    problems.append("%s: deleted file hunk must end in +0,0" % path)
            else:
                if o_start <= prev_old_end:
                    problems.append("%s: hunk %d starts at %d, overlapping or before the previous hunk"
                                    % (path, hunks, o_start))
                want_new = o_start + offset if o_len else o_start + offset + 1
                if o_len and n_len and n_start != want_new:
                    problems.append("%s: hunk %d: new start %d, expected %d from the earlier hunks"
                                    % (path, hunks, n_start, want_new))
            prev_old_end = o_start + o_len - 1
            offset += a - d
            stats["additions"] += a
            stats["deletions"] += d
        if hunks == 0:
            problems.append("%s: no hunks" % path)
    return stats, problems


def _check_fields(obj, fields, where, problems):
    for key, typ in fields.items():
        if key not in obj:
            problems.append("%s: missing field %r" % (where, key))
        elif not isinstance(obj[key], typ) or (typ is int and isinstance(obj[key], bool)):
            problems.append("%s: field %r should be %s" % (where, key, typ.__name__))


def check_items(path, quiet=True):
    """Validate an items file; returns (items, problems)."""
    problems = []
    items = []
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return [], ["%s: not valid UTF-8 (%s)" % (path, e)]
    if not text.endswith("\n"):
        problems.append("%s: last line has no newline" % path)
    for lineno, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
        where = "%s:%d" % (os.path.basename(path), lineno)
        if "\r" in line:
            problems.append("%s: raw CR in the JSON line (must be escaped)" % where)
        try:
            it = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append("%s: invalid JSON: %s" % (where, e))
            continue
        if not isinstance(it, dict):
            problems.append("%s: not a JSON object" % where)
            continue
        items.append(it)
        _check_fields(it, ITEM_FIELDS, where, problems)
        if problems and problems[-1].startswith(where + ": missing"):
            continue
        name = "%s#%s" % (it.get("repo"), it.get("number"))
        where = "%s (%s)" % (where, name)
        repo, num = it["repo"], it["number"]
        if repo not in REPOS:
            problems.append("%s: unexpected repo" % where)
        else:
            lo, hi = REPOS[repo]
            if not lo <= num <= hi:
                problems.append("%s: issue number outside %d-%d" % (where, lo, hi))
        if it["url"] != "https://github.com/%s/issues/%d" % (repo, num):
            problems.append("%s: url does not match repo and number" % where)
        if it["state"] != "closed":
            problems.append("%s: state is not closed" % where)
        if it["state_reason"] not in ("completed", "not_planned"):
            problems.append("%s: state_reason %r" % (where, it["state_reason"]))
        if not all(isinstance(l, str) for l in it["labels"]):
            problems.append("%s: labels must be strings" % where)
        created, closed = parse_date(it["created_at"]), parse_date(it["closed_at"])
        if created is None or closed is None:
            problems.append("%s: dates must be ISO 8601 UTC with Z" % where)
        elif not created < closed:
            problems.append("%s: closed_at is not after created_at" % where)
        elif not (2023 <= created.year <= 2025 and closed.year <= 2025):
            problems.append("%s: dates outside 2023-2025" % where)
        if len(it["comments"]) > 8:
            problems.append("%s: more than 8 comments" % where)
        for k, c in enumerate(it["comments"]):
            cw = "%s comment %d" % (where, k + 1)
            if not isinstance(c, dict):
                problems.append("%s: not an object" % cw)
                continue
            _check_fields(c, COMMENT_FIELDS, cw, problems)
            cd = parse_date(c.get("created_at"))
            if cd is None:
                problems.append("%s: bad created_at" % cw)
            elif created and cd < created:
                problems.append("%s: comment before the issue was opened" % cw)
        for k, fx in enumerate(it["fixes"]):
            fw = "%s fix %d" % (where, k + 1)
            if not isinstance(fx, dict):
                problems.append("%s: not an object" % fw)
                continue
            _check_fields(fx, FIX_FIELDS, fw, problems)
            if not all(key in fx for key in FIX_FIELDS):
                continue
            fw = "%s fix #%s" % (where, fx["number"])
            if not fx["number"] > num:
                problems.append("%s: PR number not above the issue number" % fw)
            md = parse_date(fx["merged_at"])
            if md is None:
                problems.append("%s: bad merged_at" % fw)
            elif created and md < created:
                problems.append("%s: merged before the issue was opened" % fw)
            stats, diff_problems = parse_diff(fx["diff"])
            problems.extend("%s: %s" % (fw, p) for p in diff_problems)
            for key, stat in (("additions", "additions"), ("deletions", "deletions"),
                              ("changed_files", "files")):
                if fx[key] != stats[stat]:
                    problems.append("%s: %s is %d but the diff has %d"
                                    % (fw, key, fx[key], stats[stat]))

    names = Counter("%s#%s" % (it.get("repo"), it.get("number")) for it in items)
    for nm, c in names.items():
        if c > 1:
            problems.append("%s appears %d times" % (nm, c))
    return items, problems


def check_study_shape(items):
    """The properties the sample was built to have."""
    problems = []
    nofix = [it for it in items if it.get("fixes") == []]
    twofix = [it for it in items if len(it.get("fixes", [])) == 2]
    more = [it for it in items if len(it.get("fixes", [])) > 2]
    if len(nofix) != 1:
        problems.append("expected exactly one item without a fix, found %d" % len(nofix))
    elif nofix[0].get("state_reason") != "not_planned":
        problems.append("the item without a fix should be closed as not_planned")
    if len(twofix) != 1:
        problems.append("expected exactly one item with two fixes, found %d" % len(twofix))
    if more:
        problems.append("items with more than two fixes: %d" % len(more))
    sizes = [f["additions"] + f["deletions"] for it in items for f in it.get("fixes", [])
             if isinstance(f.get("additions"), int) and isinstance(f.get("deletions"), int)]
    if sizes:
        share = sum(1 for s in sizes if s <= 10) / len(sizes)
        if not 0.40 <= share <= 0.60:
            problems.append("%.0f%% of fixes change at most 10 lines; expected about half" % (100 * share))
        if not any(s <= 3 for s in sizes):
            problems.append("no fix of 1-3 lines")
        if not any(s >= 200 for s in sizes):
            problems.append("no fix of a few hundred lines")
    if not any(f.get("changed_files", 0) >= 3 for it in items for f in it.get("fixes", [])):
        problems.append("no multi-file fix (3 or more files)")
    hostile = [it for it in items if ESC in it.get("title", "")]
    if len(hostile) != 1:
        problems.append("expected one hostile item (ESC in the title), found %d" % len(hostile))
    else:
        problems.extend(check_hostile(hostile[0]))
    return problems


def check_hostile(it):
    problems = []
    body = it.get("body", "")
    for what, seq in HOSTILE_BODY_NEEDS.items():
        if seq not in body:
            problems.append("hostile item: body lacks %s" % what)
    comments = it.get("comments", [])
    if not any(ESC in c.get("author", "") for c in comments):
        problems.append("hostile item: no comment author with an escape sequence")
    if not any(ESC in c.get("body", "") for c in comments):
        problems.append("hostile item: no comment with an escape sequence")
    diffs = "".join(f.get("diff", "") for f in it.get("fixes", []))
    if ESC not in diffs:
        problems.append("hostile item: its diff has no escape sequence")
    if "\r\n" not in diffs:
        problems.append("hostile item: its diff has no CRLF line endings")
    return problems


def check_hostile_raw(path, known_names=()):
    """One JSON line holding bytes that are not UTF-8 (FF FE, a truncated
    3-byte sequence); otherwise a well-formed item."""
    problems = []
    with open(path, "rb") as f:
        raw = f.read()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) != 1:
        return ["%s: expected one line, found %d" % (path, len(lines))]
    line = lines[0]
    try:
        line.decode("utf-8")
        problems.append("%s: the line is valid UTF-8, it should not be" % path)
    except UnicodeDecodeError:
        pass
    if b"\xff\xfe" not in line:
        problems.append("%s: no FF FE bytes" % path)
    if not re.search(rb"[\xe0-\xef][\x80-\xbf](?![\x80-\xbf])", line):
        problems.append("%s: no truncated 3-byte sequence" % path)
    try:
        it = json.loads(line.decode("utf-8", "surrogateescape"))
    except json.JSONDecodeError as e:
        return problems + ["%s: not JSON apart from the bad bytes: %s" % (path, e)]
    for key in ("repo", "number", "title"):
        if key not in it:
            problems.append("%s: missing %r" % (path, key))
    name = "%s#%s" % (it.get("repo"), it.get("number"))
    if name in known_names:
        problems.append("%s: %s is also in items.jsonl" % (path, name))
    for fx in it.get("fixes", []):
        stats, diff_problems = parse_diff(fx.get("diff", ""))
        problems.extend("%s: %s" % (path, p) for p in diff_problems)
        if (fx.get("additions"), fx.get("deletions"), fx.get("changed_files")) != \
                (stats["additions"], stats["deletions"], stats["files"]):
            problems.append("%s: fix figures do not match its diff" % path)
    return problems


def kappa(pairs):
    """Cohen's kappa of a list of (a, b) category pairs."""
    n = len(pairs)
    if n == 0:
        return float("nan")
    po = sum(1 for a, b in pairs if a == b) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    return 1.0 if pe == 1 else (po - pe) / (1 - pe)


def check_labels(path, known_names):
    """Returns (agreement {dimension: (agree, total, kappa)}, problems)."""
    problems = []
    chosen = defaultdict(lambda: defaultdict(set))   # (item, annotator) -> dim -> codes
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != ["item", "annotator", "dimension", "code"]:
            return {}, ["%s: bad header %r" % (path, header)]
        for lineno, row in enumerate(reader, 2):
            if len(row) != 4:
                problems.append("%s:%d: expected 4 fields" % (path, lineno))
                continue
            item, annotator, dim, code = row
            if item not in known_names:
                problems.append("%s:%d: unknown item %s" % (path, lineno, item))
            if annotator not in ("alice", "bob"):
                problems.append("%s:%d: unknown annotator %s" % (path, lineno, annotator))
            if dim not in CODES:
                problems.append("%s:%d: unknown dimension %s" % (path, lineno, dim))
            elif code not in CODES[dim]:
                problems.append("%s:%d: unknown code %s for %s" % (path, lineno, code, dim))
            if code in chosen[(item, annotator)][dim]:
                problems.append("%s:%d: duplicate row" % (path, lineno))
            chosen[(item, annotator)][dim].add(code)
    items = sorted({item for item, _ in chosen})
    agreement = {}
    for dim in CODES:
        pairs = []
        for item in items:
            a, b = chosen[(item, "alice")].get(dim), chosen[(item, "bob")].get(dim)
            for who, codes in (("alice", a), ("bob", b)):
                if not codes:
                    problems.append("%s: %s has no %s label for %s" % (path, who, dim, item))
                elif dim not in MULTI and len(codes) > 1:
                    problems.append("%s: %s chose several %s codes for %s" % (path, who, dim, item))
            if a and b:
                pairs.append(("+".join(sorted(a)), "+".join(sorted(b))))
        agree = sum(1 for x, y in pairs if x == y)
        agreement[dim] = (agree, len(pairs), kappa(pairs))
    return agreement, problems


def check_screening(base, names):
    """screening.csv answers every item twice (alice, bob) on inclusion;
    coding.csv is labels.csv without the items both screened out."""
    problems = []
    scr = os.path.join(base, "screening.csv")
    cod = os.path.join(base, "coding.csv")
    lab = os.path.join(base, "labels.csv")
    if not (os.path.exists(scr) and os.path.exists(cod)):
        return ["missing screening.csv or coding.csv"]
    with open(scr, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    answers = {}
    for r in rows:
        if r["dimension"] != "inclusion" or r["item"] not in names:
            problems.append("screening.csv: bad row %r" % r)
        answers.setdefault(r["item"], {})[r["annotator"]] = r["code"]
    if set(answers) != names or any(set(a) != {"alice", "bob"}
                                    for a in answers.values()):
        problems.append("screening.csv: not every item answered by alice "
                        "and bob")
    out = {i for i, a in answers.items()
           if len(set(a.values())) == 1 and "include" not in a.values()}
    with open(lab, encoding="utf-8") as f:
        want = [ln for ln in f.read().splitlines(keepends=True)
                if ln.split(",", 1)[0] not in out]
    with open(cod, encoding="utf-8") as f:
        if f.read() != "".join(want):
            problems.append("coding.csv: not labels.csv without the "
                            "items screened out")
    return problems


def main(argv):
    quiet = "-q" in argv
    args = [a for a in argv if a != "-q"]
    items_path = args[0] if args else os.path.join(HERE, "items.jsonl")
    base = os.path.dirname(os.path.abspath(items_path))
    items, problems = check_items(items_path)
    problems += check_study_shape(items)
    names = {"%s#%s" % (it.get("repo"), it.get("number")) for it in items}

    raw_path = os.path.join(base, "hostile-raw.jsonl")
    if os.path.exists(raw_path):
        problems += check_hostile_raw(raw_path, names)
    else:
        problems.append("missing %s" % raw_path)

    labels_path = os.path.join(base, "labels.csv")
    agreement = {}
    if os.path.exists(labels_path):
        agreement, p = check_labels(labels_path, names)
        problems += p
    else:
        problems.append("missing %s" % labels_path)

    problems += check_screening(base, names)

    for p in problems:
        print(p)
    if not quiet:
        per_repo = Counter(it.get("repo") for it in items)
        fixes = [f for it in items for f in it.get("fixes", [])]
        sizes = sorted(f["additions"] + f["deletions"] for f in fixes)
        print("items: %d (%s)" % (len(items), ", ".join("%s %d" % kv for kv in sorted(per_repo.items()))))
        if sizes:
            print("fixes: %d; changed lines: %d at most 10 (%.0f%%), median %d, largest %d"
                  % (len(sizes), sum(1 for s in sizes if s <= 10),
                     100.0 * sum(1 for s in sizes if s <= 10) / len(sizes),
                     sizes[len(sizes) // 2], sizes[-1]))
        for dim, (agree, total, k) in agreement.items():
            print("agreement %-11s %2d/%d = %3.0f%%  kappa %.2f"
                  % (dim, agree, total, 100.0 * agree / total if total else math.nan, k))
        print("OK" if not problems else "%d problem(s)" % len(problems))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
