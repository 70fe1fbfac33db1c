# SPDX-License-Identifier: MIT
"""The blinding table: every reader, for every role and round state.

One study is built once: annotators alice and bob code a round of six
items (agreed, resolved, disagreeing, alice's half-done item, an item
only bob submitted, an untouched one), with memos, flags and proposed
codes made distinctive so that a leak shows up as a substring; carol
adjudicates blind (the default), dave adjudicates in a copy where the
owner turned blinding off.  The study is then copied for each round
state (open, closed) and for each role, and every reader is run:
every command that reads, with each of its formats and kinds, the files
they write, and the screens through key scripts with screen dumps.

What counts as seeing something (the rules of DESIGN.md and issue 10):

- owner, and an adjudicator with blinding off: everything.
- an annotator, while the round is open: nothing of the other
  annotator's work - no memo or proposal of theirs anywhere, none of
  their codes in a record that names the item they coded it on, none of
  their flags on such a record, none of their progress.  Once the round
  is closed, everything.
- a blind adjudicator (open or closed): the codes, memos and flags of
  every coder, but never which annotator is which on an item that is not
  resolved: no record may hold an annotator's name together with a mark
  of that annotator's work on such an item.
- a non-member: nothing of anybody's work (no marks, no counts of
  labels, submissions, resolutions, agreement or progress).

A record is what a reader shows as one unit: a row of a CSV file, a line
of a JSON Lines file, one screen, and for any other output (text
reports, JSON documents) the whole output - an agreement table that
names the annotators in its header and counts their codes in its rows
ties names to codes as surely as a row does.  A record shows a code as
someone's choice when it names the item too, or when it counts the code
(a table line of the code and numbers, a JSON object with the code and a
count, not all zero): the codebook's text and tables that list every
code with zeros show nobody's choice.  The marks are chosen so that
none of them occurs in the items' own text (checked when the study is
built).

The table is checked against the program: every command of `bugcoder
--help`, every subcommand of each usage line, every --format value and
every export kind must have a row (or be declared a writer below), so a
reader added later without a row makes this test fail.
"""
import csv
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from bchelp import BIN, CODEBOOK, ROOT, SAMPLE

NOW = "2024-07-01T12:00:00Z"
REPO = "microsoft/DeepSpeed"
I1, I2, I3, I4, I5, I6 = 3468, 4187, 4422, 4650, 4903, 5012
ROUND_ITEMS = [I1, I2, I3, I4, I5, I6]
UNRESOLVED = {I3, I4, I5}       # I1 agreed, I2 resolved, I6 untouched


def ref(n):
    return "%s#%d" % (REPO, n)


# Each annotator's work, as it is made below.  "text": strings that exist
# only in that annotator's memos and proposals; "codes": codes only that
# annotator chose, and only on that item; "flags": the flag they set.
WORK = {
    "alice": {
        "text": {I3: ["MEMO-A-7f3a"],
                 I4: ["MEMO-A-4c9e", "propa_q7x", "Proposal A q7x",
                      "DEF-A-q7x"]},
        "codes": {I3: ["build_failure", "version_incompatibility",
                       "dependency_management"],
                  I4: ["allocation_strategy"]},
        "flags": {I3: "uncertain"},
        "submitted": {I1, I2, I3},
        "started": {I4},
    },
    "bob": {
        "text": {I3: ["MEMO-B-9d2b"],
                 I5: ["MEMO-B-1e6f", "propb_z9k", "Proposal B z9k",
                      "DEF-B-z9k"]},
        "codes": {I2: ["incorrect_functionality"],
                  I3: ["setup_failure", "configuration_error",
                       "distributed_tuning", "fault_tolerance"],
                  I5: ["cross_device_inconsistency", "numerical_issue"]},
        "flags": {I3: "discuss"},
        "submitted": {I1, I2, I3, I5},
        "started": set(),
    },
    # a machine coder (issue 17) that the round does not declare: its
    # answer on the untouched item, rationale included, is work like
    # any other
    "gpt": {
        "text": {I6: ["RAT-M-8k2w"]},
        "codes": {I6: ["unreported", "exception_handling",
                       "synchronization", "scheduling"]},
        "flags": {},
        "submitted": {I6},
        "started": set(),
    },
}
MACHINES = ("gpt",)
RATIONALE = "RATIONALE-C-5e1d"
ANNOTATORS = ("alice", "bob")
ROLES = ("owner", "alice", "bob", "carol", "dave", "eve")
STATES = ("open", "closed")

# ---------------------------------------------------------------------------
# The table.
#
# Commands that only change the study (what they print is about the
# actor's own input), and subcommands likewise: "COMMAND" or
# "COMMAND SUB".  Every other command and subcommand needs rows.
WRITERS = {
    "init": "creates a study",
    "import": "adds items; prints counts of its own input",
    "fetch": "adds items from GitHub; prints counts of its own input",
    "label": "changes the actor's labels; prints what it saved",
    "labels": "imports the actor's labels; prints what it saved",
    "labels import": "imports the actor's labels; prints what it saved",
    "resolve": "saves a resolution; prints what it saved",
    "member add": "changes membership",
    "member remove": "changes membership",
    "codebook check": "checks a file given on the command line",
    "codebook update": "changes the codebook",
    "codebook revert": "changes the codebook (owner only)",
    "round create": "creates a round; prints its own summary",
    "round close": "closes a round",
    "round reopen": "reopens a round (owner only)",
    "backup": "copies the whole study to a file (owner only)",
    "machine-code": "codes as a machine member (owner only); prints its "
                    "own run",
    "proposals accept": "decides a proposal",
    "proposals map": "decides a proposal",
    "proposals add": "proposes a code as the actor",
    "study set": "changes a setting of the study (owner only)",
    "evidence remove": "takes back one of the actor's citations; prints "
                       "its id",
}
# Options of `export` that do not choose what is exported.
EXPORT_NOT_KINDS = {"--format", "--no-formula-guard", "--round", "-o",
                    "--mode"}

# A row: (id, argv or screen script, how its output splits into records).
# "{out}" in argv is a fresh path the row writes; its file(s) are read.
# Screen rows: ("screen", argv, keys) - keys run with :dump-screen
# between them; every dump is one record.
ROWS = [
    ("status", ["status"], "doc"),
    ("items", ["items"], "doc"),
    ("items --status todo", ["items", "--status", "todo"], "doc"),
    ("items --status partial", ["items", "--status", "partial"], "doc"),
    ("items --status submitted", ["items", "--status", "submitted"], "doc"),
    ("items --round", ["items", "--round", "r1"], "doc"),
    ("items --repo", ["items", "--repo", REPO], "doc"),
    ("round list", ["round", "list"], "doc"),
    ("member list", ["member", "list"], "doc"),
    ("study show", ["study", "show"], "doc"),
    ("audit", ["audit"], "doc"),
    ("audit --format text", ["audit", "--format", "text"], "doc"),
    ("audit --format csv", ["audit", "--format", "csv"], "csv"),
    ("audit --format jsonl", ["audit", "--format", "jsonl"], "jsonl"),
    ("audit verify", ["audit", "verify"], "doc"),
    ("doctor", ["doctor"], "doc"),
    ("codebook show", ["codebook", "show"], "doc"),
    ("codebook show --format text", ["codebook", "show", "--format", "text"],
     "doc"),
    ("codebook show --format markdown",
     ["codebook", "show", "--format", "markdown"], "doc"),
    ("codebook show --format latex",
     ["codebook", "show", "--format", "latex"], "doc"),
    ("codebook show --format json",
     ["codebook", "show", "--format", "json"], "doc"),
    ("agree", ["agree"], "doc"),
    ("agree --format text", ["agree", "--format", "text"], "doc"),
    ("agree --format json", ["agree", "--format", "json"], "doc"),
    ("agree --format csv", ["agree", "--format", "csv"], "csv"),
    ("agree --drift", ["agree", "--drift"], "doc"),
    ("agree --drift --format json", ["agree", "--drift", "--format",
                                     "json"], "doc"),
    ("agree --drift --format csv", ["agree", "--drift", "--format", "csv"],
     "csv"),
    ("agree --round", ["agree", "--round", "r1"], "doc"),
    ("agree --round --format json",
     ["agree", "--round", "r1", "--format", "json"], "doc"),
    ("agree --dimension", ["agree", "--round", "r1", "--dimension",
                           "symptom"], "doc"),
    ("report", ["report"], "doc"),
    ("report --format text", ["report", "--format", "text"], "doc"),
    ("report --format markdown", ["report", "--format", "markdown"], "doc"),
    ("report --round", ["report", "--round", "r1"], "doc"),
    ("report --cross", ["report", "--cross", "symptom,root_cause"], "doc"),
    ("report -o", ["report", "-o", "{out}"], "doc"),
    ("report --format json", ["report", "--format", "json"], "doc"),
    ("report --format latex", ["report", "--format", "latex"], "doc"),
    ("report --include-pending --format json",
     ["report", "--include-pending", "--format", "json"], "doc"),
    ("report --by --effort-by",
     ["report", "--by", "phase", "--effort-by", "symptom", "--include-pending"],
     "doc"),
    ("export", ["export"], "csv"),
    ("export --format csv", ["export", "--format", "csv"], "csv"),
    ("export --format jsonl", ["export", "--format", "jsonl"], "jsonl"),
    ("export --include-pending", ["export", "--include-pending"], "csv"),
    ("export --include-pending --format csv",
     ["export", "--include-pending", "--format", "csv"], "csv"),
    ("export --include-pending --format jsonl",
     ["export", "--include-pending", "--format", "jsonl"], "jsonl"),
    ("export --round", ["export", "--round", "r1"], "csv"),
    ("export -o", ["export", "-o", "{out}.csv"], "csv"),
    ("export --raw", ["export", "--raw"], "csv"),
    ("export --raw --format csv", ["export", "--raw", "--format", "csv"],
     "csv"),
    ("export --raw --format jsonl",
     ["export", "--raw", "--format", "jsonl"], "jsonl"),
    ("export --raw --round", ["export", "--raw", "--round", "r1"], "csv"),
    ("export --raw -o", ["export", "--raw", "-o", "{out}.csv"], "csv"),
    ("export --resolutions", ["export", "--resolutions"], "csv"),
    ("export --resolutions --format csv",
     ["export", "--resolutions", "--format", "csv"], "csv"),
    ("export --resolutions --format jsonl",
     ["export", "--resolutions", "--format", "jsonl"], "jsonl"),
    ("export --rounds", ["export", "--rounds"], "csv"),
    ("export --rounds --format csv", ["export", "--rounds", "--format",
                                      "csv"], "csv"),
    ("export --rounds --format jsonl",
     ["export", "--rounds", "--format", "jsonl"], "jsonl"),
    ("export --memos", ["export", "--memos"], "csv"),
    ("export --memos --format csv", ["export", "--memos", "--format", "csv"],
     "csv"),
    ("export --memos --format jsonl",
     ["export", "--memos", "--format", "jsonl"], "jsonl"),
    ("export --memos --round", ["export", "--memos", "--round", "r1"], "csv"),
    ("export --audit", ["export", "--audit"], "csv"),
    ("export --audit --format csv", ["export", "--audit", "--format", "csv"],
     "csv"),
    ("export --audit --format jsonl",
     ["export", "--audit", "--format", "jsonl"], "jsonl"),
    ("export --package", ["export", "--package", "{out}"], "doc"),
    ("proposals", ["proposals"], "doc"),
    ("proposals list", ["proposals", "list"], "doc"),
    ("proposals list --all", ["proposals", "list", "--all"], "doc"),
    # one's own citations, with their ids
    ("evidence list", ["evidence", "list"], "doc"),
    ("evidence list ITEM", ["evidence", "list", "%s#%d" % (REPO, I3)],
     "doc"),
    ("evidence list --format text",
     ["evidence", "list", "--format", "text"], "doc"),
    ("evidence list --format csv", ["evidence", "list", "--format", "csv"],
     "csv"),
    ("evidence list --format json",
     ["evidence", "list", "--format", "json"], "doc"),
    # issue 10, point 7
    ("disagreements", ["disagreements"], "doc"),
    ("disagreements --format text", ["disagreements", "--format", "text"],
     "doc"),
    ("disagreements --format csv", ["disagreements", "--format", "csv"],
     "csv"),
    ("disagreements --format json", ["disagreements", "--format", "json"],
     "doc"),
    ("disagreements --round", ["disagreements", "--round", "r1"], "doc"),
    # the screens
    ("screen: code", ("screen", ["code", ref(I1)],
                      [">", ">", ">", ">", ">", "A", "q", "C"]), "screen"),
    ("screen: code (queue)", ("screen", ["code"], []), "screen"),
    ("screen: adjudicate", ("screen", ["adjudicate", ref(I3)],
                            ["M", "q", "P", "a", "q", "A", "q", ">",
                             "<", "<", "<"]), "screen"),
    ("screen: adjudicate (queue)", ("screen", ["adjudicate"], []),
     "screen"),
    ("screen: adjudicate I4", ("screen", ["adjudicate", ref(I4)], ["M"]),
     "screen"),
    ("screen: adjudicate I5", ("screen", ["adjudicate", ref(I5)], ["M"]),
     "screen"),
    ("screen: agree --screen", ("screen", ["agree", "--screen"],
                                ["j", "j", "j", "j", "<Tab>", "<Tab>"]),
     "screen"),
    ("screen: agree --screen --round",
     ("screen", ["agree", "--screen", "--round", "r1"], ["j"]), "screen"),
    ("screen: default", ("screen", [], []), "screen"),
]

# Formats each command must have rows for even when its --help does not
# list them yet (issue 10 adds `disagreements`).
REQUIRED_FORMATS = {"disagreements": {"text", "csv", "json"}}


def argv_of(row):
    return row[1][1] if row[2] == "screen" else row[1]


# ---------------------------------------------------------------------------
# Running the program

def env_for(extra=None):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("BUGCODER_"):
            del e[k]
    e.update(BUGCODER_NOW=NOW, TZ="UTC", LC_ALL="C.UTF-8")
    if extra:
        e.update(extra)
    return e


def run(db, args, as_=None, env=None, cwd=None):
    cmd = [BIN, "--study", db] + (["--as", as_] if as_ else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, env=env_for(env),
                       cwd=cwd, timeout=60)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def ok(db, *args, as_=None, env=None):
    rc, out, err = run(db, args, as_=as_, env=env)
    if rc:
        raise AssertionError("%s failed (%d): %s%s" % (args, rc, err, out))
    return out


def copy_db(src, dst):
    """A consistent copy of a study (WAL included), by SQLite's backup."""
    s = sqlite3.connect(src)
    d = sqlite3.connect(dst)
    with d:
        s.backup(d)
    s.close()
    d.close()
    os.chmod(dst, 0o660)


def screen(db, argv, keys, as_, dump_dir):
    """Run a screen on a copy of `db` (a key may change the study) with
    a dump after every key; return (exit, stderr, [dump texts])."""
    work = tempfile.mkdtemp(dir=dump_dir)
    copy = os.path.join(work, "study.db")
    copy_db(db, copy)
    lines = [":dump-screen d00"]
    for i, k in enumerate(keys, 1):
        lines += [k, ":dump-screen d%02d" % i]
    lines.append("q")
    lines.append("q")
    script = os.path.join(work, "keys")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out, err = run(copy, argv, as_=as_, cwd=work, env={
        "BUGCODER_KEYS": script, "BUGCODER_NO_DISPLAY": "1",
        "BUGCODER_DUMP_DIR": work, "TERM": "xterm", "LINES": "40",
        "COLUMNS": "150"})
    dumps = []
    for name in sorted(os.listdir(work)):
        if re.fullmatch(r"d\d\d", name):
            with open(os.path.join(work, name), encoding="utf-8",
                      errors="replace") as f:
                dumps.append(f.read())
    return rc, out + err, dumps


# ---------------------------------------------------------------------------
# Records

def flatten(x):
    if isinstance(x, dict):
        return " ".join("%s %s" % (k, flatten(v)) for k, v in x.items())
    if isinstance(x, list):
        return " ".join(flatten(v) for v in x)
    return "" if x is None else str(x)


def records_of(text, mode):
    if mode == "csv":
        try:
            return ["\x1f".join(r) for r in
                    csv.reader(io.StringIO(text, newline=""))]
        except csv.Error:
            return [text]
    if mode == "jsonl":
        out = []
        for line in text.splitlines():
            try:
                out.append(flatten(json.loads(line)))
            except ValueError:
                out.append(line)
        return out
    return [text]


def file_records(path):
    """Every file under `path` (a file or a directory), split by type."""
    files = []
    if os.path.isdir(path):
        for d, _, names in os.walk(path):
            files += [os.path.join(d, n) for n in names]
    elif os.path.exists(path):
        files = [path]
    recs = []
    for f in sorted(files):
        with open(f, encoding="utf-8", errors="replace", newline="") as fh:
            text = fh.read()
        mode = ("csv" if f.endswith(".csv") else
                "jsonl" if f.endswith(".jsonl") else "doc")
        where = (os.path.relpath(f, path) if os.path.isdir(path) else
                 "the file written")
        recs += [(where, r) for r in records_of(text, mode)]
    return recs


def names_item(record, n):
    return re.search(r"(?<!\d)%d(?!\d)" % n, record) is not None


def has_word(record, w):
    return re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(w),
                     record) is not None


def objects(x):
    """Every object, and every list of plain values (a table's row, as
    `report --format json` writes them), as a dict."""
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from objects(v)
    elif isinstance(x, list):
        if x and not any(isinstance(v, (dict, list)) for v in x):
            yield dict(enumerate(x))
        for v in x:
            yield from objects(v)


def code_shown(record, code, item):
    """Does `record` show `code` as chosen on `item`?  Yes when it names
    the item; or when the code is counted: a JSON object with the code as
    a field and a count other than zero, or a line of a table that holds
    the code with numbers only (annotator names and bars aside), one of
    them not zero.  A table listing every code of the codebook with
    zeros, or the codebook's text, shows nobody's choice."""
    if not has_word(record, code):
        return False
    if names_item(record, item):
        return True
    try:
        doc = json.loads(record)
    except ValueError:
        doc = None
    if isinstance(doc, (dict, list)):
        for o in objects(doc):
            own = list(o.values())
            if code in own and any(
                    isinstance(v, (int, float)) and not isinstance(v, bool)
                    and v != 0 for v in own):
                return True
        return False
    word = r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])"
    for line in record.splitlines():
        if not has_word(line, code):
            continue
        rest = re.sub(word % re.escape(code), " ", line)
        for name in ANNOTATORS:
            rest = re.sub(word % name, " ", rest)
        if re.search(r"[A-Za-z]{2,}", rest):
            continue
        if re.search(r"(?<![\w.])[1-9]\d*(?!\w)", rest):
            return True
    return False


WORK_FIGURES = re.compile(
    r"\b[1-9]\d*\s+(labels?|submissions?|resolutions?|resolved|agreed|"
    r"done|disagreements?|flagged|open proposals?|proposals?)\b")


def leaks(role, state, record):
    """What `role` must not see in `record`, by the rules: a list of
    (what, mark) pairs, empty when the record is clean."""
    found = []

    def others_work(who):
        w = WORK[who]
        for item, marks in w["text"].items():
            for m in marks:
                if m in record:
                    found.append(("%s's memo or proposal" % who, m))
        for item, codes in w["codes"].items():
            for c in codes:
                if code_shown(record, c, item):
                    found.append(("%s's codes" % who, "#%d %s" % (item, c)))
        for item, flag in w["flags"].items():
            if names_item(record, item) and has_word(record, flag):
                found.append(("%s's flag with the item" % who,
                              "#%d %s" % (item, flag)))

    if role in ANNOTATORS and state == "open":
        others_work("bob" if role == "alice" else "alice")
        for who in MACHINES:
            others_work(who)
    elif role == "eve":
        for who in ANNOTATORS + MACHINES:
            others_work(who)
        if RATIONALE in record:
            found.append(("carol's rationale", RATIONALE))
        for m in WORK_FIGURES.finditer(record):
            found.append(("figures of the study's work", m.group(0)))
    elif role == "carol":
        for who in ANNOTATORS:
            if not has_word(record, who):
                continue
            w = WORK[who]
            what = ("the name %s with %s's work on unresolved items" %
                    (who, who))
            found += [(what, m) for item, ms in w["text"].items()
                      if item in UNRESOLVED for m in ms if m in record]
            # each of these codes was chosen by this annotator alone and
            # on one item alone: with the name, it says who coded it
            found += [(what, c) for item, cs in w["codes"].items()
                      if item in UNRESOLVED for c in cs
                      if code_shown(record, c, item)]
    return found


# ---------------------------------------------------------------------------
# Expectations that are not leaks

def must_exit(row_id, role, kind):
    """The exit status the rules require, or None when either way is
    right (refusing is always safe for blinding)."""
    cmd = row_id.split()[0]
    if row_id.startswith("agree --drift"):
        # times and each annotator's codes: the owner's alone
        return 0 if role == "owner" else 1
    if cmd == "disagreements":
        # for the owner and adjudicators (Coder 1 / Coder 2 when blind)
        return 0 if role in ("owner", "carol", "dave") else 1
    if row_id == "screen: adjudicate" and role in ("owner", "carol", "dave"):
        return 0
    if role in ("owner", "dave"):
        # they see everything: every reader answers them
        if kind == "screen":
            return 0 if row_id.startswith("screen: agree") else None
        return 0
    # a blind adjudicator may be refused what cannot be shown blind
    return None


# the line of #I3's body each annotator cites
CITED = {"alice": 1, "bob": 3}


def must_see(row_id, role, state, recs):
    """Positive checks: what the rules say a role does see."""
    probs = []

    if row_id.startswith("evidence list") and role in ANNOTATORS:
        # one's own citations, never the other's, whatever the round
        mine = "issue:body:%d" % CITED[role]
        other = "issue:body:%d" % CITED["bob" if role == "alice" else
                                        "alice"]
        if not any(mine in r for r in recs):
            probs.append("should list the annotator's own citation")
        if any(other in r for r in recs):
            probs.append("lists the other annotator's citation")

    def any_rec(pred, what):
        if not any(pred(r) for r in recs):
            probs.append("should show " + what)

    if row_id == "export --raw" and role in ("owner", "dave"):
        any_rec(lambda r: has_word(r, "bob") and has_word(r, "fault_tolerance")
                and names_item(r, I3), "bob's codes on #%d by name" % I3)
    if row_id == "export --raw" and role in ANNOTATORS and state == "closed":
        other = "bob" if role == "alice" else "alice"
        code = WORK[other]["codes"][I3][0]
        any_rec(lambda r: has_word(r, code) and names_item(r, I3),
                "%s's codes on #%d once the round is closed" % (other, I3))
    if row_id == "export --raw" and role in ANNOTATORS:
        own = WORK[role]["codes"][I3][0]
        any_rec(lambda r: has_word(r, own) and names_item(r, I3),
                "the annotator's own codes")
    if row_id.startswith("disagreements") and role in ("owner", "carol",
                                                       "dave"):
        any_rec(lambda r: names_item(r, I3), "the disagreement on #%d" % I3)
        if any(names_item(r, I1) for r in recs):
            probs.append("lists #%d, where the coders agree" % I1)
    if row_id in ("disagreements", "disagreements --format text") and \
            role == "carol":
        any_rec(lambda r: "Coder 1" in r and "Coder 2" in r,
                "the coders as Coder 1 and Coder 2")
    if row_id == "screen: code" and role in ANNOTATORS:
        own = WORK[role]["codes"][I3][0]
        any_rec(lambda r: names_item(r, I3) and has_word(r, own),
                "the annotator's own codes on #%d" % I3)
    if row_id == "screen: adjudicate" and role in ("owner", "carol", "dave"):
        any_rec(lambda r: has_word(r, "setup_failure") and
                has_word(r, "build_failure"), "both coders' codes")
        if role == "carol":
            any_rec(lambda r: "Coder 1" in r, "Coder 1")
        if role == "dave":
            any_rec(lambda r: has_word(r, "alice") and has_word(r, "bob"),
                    "the coders' names (blinding is off)")
    return probs


def item_set(text):
    return {int(n) for n in re.findall(r"%s#(\d+)" % re.escape(REPO), text)}


def annotator_lists(row_id, role, state, out):
    """An annotator's own lists, while the round is open, follow their own
    work only: nothing in them depends on the other's progress."""
    if role not in ANNOTATORS or state != "open":
        return []
    w = WORK[role]
    got = item_set(out)
    want = None
    if row_id == "items --status submitted":
        want = w["submitted"]
    elif row_id == "items --status todo":
        want = set(ROUND_ITEMS) - w["submitted"]
    elif row_id == "items --status partial":
        if not got <= w["started"]:
            return ["lists %s: items partial only through the other "
                    "annotator's work" % sorted(got - w["started"])]
        return []
    if want is not None and got != want:
        return ["lists %s, should list exactly the actor's own %s" % (
            sorted(got), sorted(want))]
    return []


# ---------------------------------------------------------------------------

class BlindingTable(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="bugcoder-blind-")
        cls.dbs = build_studies(cls.dir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_every_reader_for_every_role_and_round_state(self):
        problems = coverage_problems()
        outdir = tempfile.mkdtemp(dir=self.dir)
        for state in STATES:
            for role in ROLES:
                db = self.dbs[(state, role)]
                as_ = role if role not in ("owner", "eve") else None
                for row in ROWS:
                    for p in self.check_row(row, db, as_, role, state,
                                            outdir):
                        problems.append("[%s | %s | %s] %s" % (
                            row[0], role, state, p))
        if problems:
            self.fail("%d problems:\n  " % len(problems) +
                      "\n  ".join(problems))

    def check_row(self, row, db, as_, role, state, outdir):
        row_id, spec, mode = row
        probs = []
        recs = []
        if mode == "screen":
            _, argv, keys = spec
            rc, text, dumps = screen(db, argv, keys, as_, outdir)
            recs = [("screen %d" % i, d) for i, d in enumerate(dumps)]
            recs.append(("output", text))
            kind = "screen"
        else:
            out_path = tempfile.mktemp(dir=outdir)
            argv = [a.replace("{out}", out_path) for a in spec]
            rc, out, err = run(db, argv, as_=as_)
            recs = [("stdout", r) for r in records_of(out, mode)]
            recs.append(("stderr", err))
            for suffix in ("", ".csv"):
                if os.path.exists(out_path + suffix):
                    recs += file_records(out_path + suffix)
            kind = "cli"
            probs += annotator_lists(row_id, role, state, out)
        want = must_exit(row_id, role, kind)
        if want is not None and rc != want:
            msg = (recs[-1][1].strip().splitlines() or [""])[0]
            probs.append("exit %d, should be %d (%s)" % (rc, want,
                                                        msg[:100]))
        found = {}
        for where, r in recs:
            for what, mark in leaks(role, state, r):
                where = "screen" if where.startswith("screen ") else where
                found.setdefault((where, what), set()).add(mark)
        for (where, what), marks in found.items():
            probs.append("%s shows %s (%s)" % (where, what,
                                              ", ".join(sorted(marks))))
        probs += must_see(row_id, role, state, [r for _, r in recs])
        return probs


def coverage_problems():
    """Every reader the program has must have rows in ROWS."""
    probs = []
    covered = {tuple(argv_of(r)[:2]) for r in ROWS} | \
        {tuple(argv_of(r)[:1]) for r in ROWS}
    rc, out, _ = run(os.devnull, ["--help"])
    commands = re.findall(r"^  ([a-z][a-z-]*)\s{2,}", out, re.M)
    if rc or not commands:
        return ["`bugcoder --help` lists no commands"]
    for cmd in commands:
        _, usage, _ = run(os.devnull, [cmd, "--help"])
        subs = subcommands(cmd, usage)
        if not subs:
            if cmd not in WRITERS and (cmd,) not in covered:
                probs.append("[table] command %s has no row (a reader "
                             "needs rows; a writer goes in WRITERS)" % cmd)
        for sub in subs:
            key = "%s %s" % (cmd, sub)
            if key not in WRITERS and (cmd, sub) not in covered:
                probs.append("[table] %s has no row" % key)
        fmts = set()
        for m in re.finditer(r"--format[ =]([a-z]+(?:\|[a-z]+)*)", usage):
            fmts |= set(m.group(1).split("|"))
        fmts |= REQUIRED_FORMATS.get(cmd, set())
        for f in sorted(fmts):
            if not any(argv_of(r)[:1] == [cmd] and "--format" in argv_of(r)
                       and f in argv_of(r) for r in ROWS if r[2] != "screen"):
                probs.append("[table] %s --format %s has no row" % (cmd, f))
        if cmd == "items":
            for m in re.finditer(r"--status ([a-z|]+)", usage):
                for st in m.group(1).split("|"):
                    if not any(argv_of(r)[:3] == ["items", "--status", st]
                               for r in ROWS):
                        probs.append("[table] items --status %s has no row"
                                     % st)
        if cmd == "agree" and "--screen" in usage and not any(
                argv_of(r)[:2] == ["agree", "--screen"] for r in ROWS
                if r[2] == "screen"):
            probs.append("[table] agree --screen has no screen row")
        if cmd == "export":
            probs += export_coverage(usage)
    for cmd, argv in (("code", ["code"]), ("adjudicate", ["adjudicate"])):
        if cmd in commands and not any(r[2] == "screen" and
                                       argv_of(r)[:1] == argv for r in ROWS):
            probs.append("[table] the %s screen has no row" % cmd)
    for cmd in REQUIRED_FORMATS:
        if cmd not in commands:
            probs.append("[table] `bugcoder --help` does not list %s "
                         "(issue 10)" % cmd)
    return probs


def top_level_alternatives(usage):
    """The |-separated alternatives of a usage line, outside brackets."""
    alts, depth, cur = [], 0, ""
    for i, ch in enumerate(usage):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if usage[i:i + 3] == " | " and depth == 0:
            alts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    alts.append(cur.strip())
    return [a.lstrip("| ") for a in alts]


def subcommands(cmd, usage):
    m = re.search(r"usage: bugcoder %s (.*)" % re.escape(cmd), usage)
    if not m:
        return []
    subs = []
    for alt in top_level_alternatives(m.group(1)):
        w = re.match(r"\[?([a-z][a-z-]*)\b", alt)
        if w:
            subs.append(w.group(1))
    return subs


def export_coverage(usage):
    probs = []
    m = re.search(r"usage: bugcoder export (.*)", usage)
    line = m.group(1) if m else ""
    opts = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", line))
    fmts = set()
    for f in re.finditer(r"--format ([a-z|]+)", line):
        fmts |= set(f.group(1).split("|"))
    kinds = {o for o in opts if o not in EXPORT_NOT_KINDS}
    export_rows = [argv_of(r) for r in ROWS if r[2] != "screen" and
                   argv_of(r)[:1] == ["export"]]
    for k in sorted(kinds):
        if not any(k in a for a in export_rows):
            probs.append("[table] export %s has no row" % k)
    for k in sorted(kinds - {"--package"}) + [None]:
        for f in sorted(fmts):
            if not any(("--format" in a and f in a) and
                       (k in a if k else not (kinds & set(a)))
                       for a in export_rows):
                probs.append("[table] export %s--format %s has no row" % (
                    k + " " if k else "", f))
    return probs


# ---------------------------------------------------------------------------
# The study

def write_keys(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def screen_keys(db, as_, argv, lines, work):
    script = os.path.join(work, "keys-%s" % (as_ or "owner"))
    write_keys(script, lines)
    rc, out, err = run(db, argv, as_=as_, cwd=work, env={
        "BUGCODER_KEYS": script, "BUGCODER_NO_DISPLAY": "1",
        "BUGCODER_DUMP_DIR": work, "TERM": "xterm", "LINES": "40",
        "COLUMNS": "150"})
    if rc:
        raise AssertionError("%s: %s%s" % (argv, out, err))


def build_studies(top):
    """The study in each round state, for each role: {(state, role): db}."""
    items = os.path.join(top, "items.jsonl")
    with open(SAMPLE, encoding="utf-8") as f:
        lines = [ln for ln in f if json.loads(ln)["number"] in ROUND_ITEMS]
    with open(items, "w", encoding="utf-8") as f:
        f.writelines(lines)
    text = "".join(lines)
    for w in ("alice", "bob", "carol", "dave", "olga", "discuss",
              "uncertain", RATIONALE, "Coder"):
        assert not has_word(text, w), w
    for who in WORK.values():
        for ms in who["text"].values():
            assert not any(m in text for m in ms)
        for cs in who["codes"].values():
            assert not any(has_word(text, c) for c in cs)

    db = os.path.join(top, "base.db")
    ok(db, "init", "--codebook", CODEBOOK)
    ok(db, "import", items)
    for name, role in (("alice", "annotator"), ("bob", "annotator"),
                       ("carol", "adjudicator"), ("dave", "adjudicator")):
        ok(db, "member", "add", name, "--role", role)
    ok(db, "round", "create", "r1", "--items", "all", "--annotators",
       "alice,bob")

    def label(who, n, *dims, submit=True):
        ok(db, "label", ref(n), *dims, *(["--submit"] if submit else []),
           as_=who)

    same = ["root_cause=api_misuse", "fix_pattern=conditional_logic",
            "phase=training"]
    label("alice", I1, "symptom=crash", *same)
    label("bob", I1, "symptom=crash", *same)
    label("alice", I2, "symptom=hang", *same)
    label("bob", I2, "symptom=incorrect_functionality", *same)
    label("alice", I3, "symptom=build_failure",
          "root_cause=version_incompatibility",
          "fix_pattern=dependency_management", "stage=initialization",
          "phase=training")
    label("bob", I3, "symptom=setup_failure",
          "root_cause=configuration_error",
          "fix_pattern=distributed_tuning", "stage=fault_tolerance",
          "phase=both")
    # a citation each on the item they disagree on, told apart by their
    # lines (must_see: an annotator's list is theirs alone)
    ok(db, "label", ref(I3), "symptom=build_failure", "--evidence",
       "issue:body:%d" % CITED["alice"], as_="alice")
    ok(db, "label", ref(I3), "symptom=setup_failure", "--evidence",
       "issue:body:%d" % CITED["bob"], as_="bob")
    label("alice", I4, "root_cause=allocation_strategy", submit=False)
    label("bob", I5, "symptom=cross_device_inconsistency",
          "root_cause=numerical_issue", "fix_pattern=algorithm_rewrite",
          "phase=inference")
    ok(db, "proposals", "add", ref(I4), "stage", "propa_q7x", "--name",
       "Proposal A q7x", "--definition", "DEF-A-q7x", as_="alice")
    ok(db, "proposals", "add", ref(I5), "stage", "propb_z9k", "--name",
       "Proposal B z9k", "--definition", "DEF-B-z9k", as_="bob")
    # memos and flags: only the coding screen sets them
    work = tempfile.mkdtemp(dir=top)
    for who, n, memo, flag in (("alice", I3, "MEMO-A-7f3a", "u"),
                               ("alice", I4, "MEMO-A-4c9e", None),
                               ("bob", I3, "MEMO-B-9d2b", "d"),
                               ("bob", I5, "MEMO-B-1e6f", None)):
        keys = ["m" + memo + "<Esc>"] + ([flag] if flag else []) + ["q"]
        screen_keys(db, who, ["code", ref(n)], keys, work)
    ok(db, "resolve", ref(I2), "symptom=hang", "--rationale", RATIONALE,
       as_="carol")
    ok(db, "member", "add", "gpt", "--role", "machine")
    answer = json.dumps({"labels": {
        "symptom": "unreported", "root_cause": "exception_handling",
        "fix_pattern": ["synchronization"], "stage": "scheduling",
        "phase": "both"}, "rationale": "RAT-M-8k2w", "model": "fixed"})
    ok(db, "machine-code", "gpt", "--round", "r1", "--items", ref(I6),
       "--command", "cat >/dev/null; printf '%%s' '%s'" % answer)
    check_work(db)

    dbs = {}
    for state in STATES:
        blind = os.path.join(top, "%s-blind.db" % state)
        copy_db(db, blind)
        if state == "closed":
            ok(blind, "round", "close", "r1", "--force")
        unblind = os.path.join(top, "%s-unblind.db" % state)
        copy_db(blind, unblind)
        # only the owner turns blinding off, on the adjudicator's screen
        screen_keys(unblind, None, ["adjudicate", ref(I3)], ["B", "q"], work)
        with sqlite3.connect(unblind) as c:
            v = c.execute("SELECT value FROM meta WHERE key = "
                          "'blind_adjudication'").fetchone()
        assert v and v[0] == "0", v
        # a non-member: the account running the tests, once another owner
        # has removed it
        outside = os.path.join(top, "%s-nonmember.db" % state)
        copy_db(blind, outside)
        ok(outside, "member", "add", "olga", "--role", "owner")
        me = [r for r in sqlite3.connect(outside).execute(
            "SELECT name FROM members WHERE role = 'owner' AND active AND "
            "name != 'olga'")][0][0]
        ok(outside, "member", "remove", me, as_="olga")
        for role in ROLES:
            dbs[(state, role)] = {"dave": unblind,
                                  "eve": outside}.get(role, blind)
    return dbs


def check_work(db):
    """The marks are what the table takes them for: each code only that
    annotator's, only on that item; memos and flags as made."""
    c = sqlite3.connect(db)
    try:
        for who, w in WORK.items():
            for item, codes in w["codes"].items():
                for code in codes:
                    rows = c.execute(
                        "SELECT m.name, i.number FROM labels l JOIN members "
                        "m ON m.id = l.member_id JOIN items i ON i.id = "
                        "l.item_id WHERE l.code = ?", (code,)).fetchall()
                    assert rows == [(who, item)], (code, rows)
                    assert not c.execute(
                        "SELECT 1 FROM resolutions WHERE code = ?",
                        (code,)).fetchall(), code
            memos = {r for r in c.execute(
                "SELECT i.number, t.text FROM memos t JOIN items i ON "
                "i.id = t.item_id JOIN members m ON m.id = t.member_id "
                "WHERE m.name = ?", (who,))}
            want = {(item, ms[0]) for item, ms in w["text"].items()}
            if who in MACHINES:     # a machine's text is its rationale
                want = set()
                assert {r for r in c.execute(
                    "SELECT i.number, a.rationale FROM machine_answers a "
                    "JOIN items i ON i.id = a.item_id")} == \
                    {(item, ms[0]) for item, ms in w["text"].items()}
            assert memos == want, (who, memos)
            flags = {r for r in c.execute(
                "SELECT i.number, f.flag FROM flags f JOIN items i ON "
                "i.id = f.item_id JOIN members m ON m.id = f.member_id "
                "WHERE m.name = ?", (who,))}
            assert flags == set(w["flags"].items()), (who, flags)
    finally:
        c.close()


if __name__ == "__main__":
    unittest.main()
