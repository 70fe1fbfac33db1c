# SPDX-License-Identifier: MIT
"""Shared helpers for the Python test layers: run the real binary on a
temporary study."""
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bugcoder")
CODEBOOK = os.path.join(ROOT, "codebooks", "llm-framework-bugs.json")
SAMPLE = os.path.join(ROOT, "tests", "sample", "items.jsonl")
SAMPLE_LABELS = os.path.join(ROOT, "tests", "sample", "labels.csv")


class Study:
    """A study in a temporary directory, driven through the CLI."""

    def __init__(self, codebook=CODEBOOK, items=SAMPLE, members=()):
        self.dir = tempfile.mkdtemp(prefix="bugcoder-test-")
        self.path = os.path.join(self.dir, "study.db")
        self.ok("init", "--codebook", codebook)
        if items:
            self.ok("import", items)
        for name, role in members:
            self.ok("member", "add", name, "--role", role)

    def run(self, *args, as_=None, input=None, env=None):
        cmd = [BIN, "--study", self.path]
        if as_:
            cmd += ["--as", as_]
        cmd += list(args)
        e = dict(os.environ)
        if env:
            e.update(env)
        return subprocess.run(cmd, cwd=self.dir, input=input,
                              capture_output=True, text=True, env=e,
                              timeout=120)

    def ok(self, *args, as_=None, **kw):
        p = self.run(*args, as_=as_, **kw)
        if p.returncode != 0:
            raise AssertionError(f"{args} failed ({p.returncode}): "
                                 f"{p.stderr}{p.stdout}")
        return p.stdout

    def fail(self, *args, as_=None, code=1, **kw):
        p = self.run(*args, as_=as_, **kw)
        if p.returncode != code:
            raise AssertionError(f"{args}: expected exit {code}, got "
                                 f"{p.returncode}: {p.stderr}{p.stdout}")
        return p.stderr

    def db(self):
        return sqlite3.connect(self.path)

    def round_labels(self, round_, src=None):
        """A copy of the label sheet `src` (the sample's) with the rows of
        round `round_`'s items only, in the study's directory: labels go
        to the items of rounds.  Returns its path."""
        import csv
        src = src or SAMPLE_LABELS
        keep = {"%s#%d" % (r, n) for r, n in self.query(
            "SELECT i.repo, i.number FROM items i JOIN assignments a ON "
            "a.item_id = i.id JOIN rounds r ON r.id = a.round_id WHERE "
            "r.name = ?", round_)}
        path = os.path.join(self.dir, "%s-labels.csv" % round_)
        with open(src, newline="") as f, open(path, "w", newline="") as out:
            rd = csv.DictReader(f)
            w = csv.DictWriter(out, rd.fieldnames)
            w.writeheader()
            for row in rd:
                if row["item"] in keep:
                    w.writerow(row)
        return path

    def query(self, sql, *params):
        with self.db() as c:
            return c.execute(sql, params).fetchall()

    def dump(self):
        """Every table's rows, for before/after comparisons."""
        with self.db() as c:
            tables = [r[0] for r in c.execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
            return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                    for t in tables}

    # How to take a study back from schema version v to v - 1, newest
    # first: tests of a migration make an older study out of a new one.
    UNDO = {
        13: "DROP INDEX items_missing;",
        12: "DROP TABLE recodes;"
            "DROP TABLE screen_decisions;"
            "DROP TABLE screen_labels;"
            "DROP TABLE screen_assignments;"
            "ALTER TABLE rounds DROP COLUMN reasons;"
            "ALTER TABLE rounds DROP COLUMN kind;",
        11: "".join("DROP TABLE replay_base_%s;" % t for t in (
            "meta", "members", "codebooks", "rounds", "round_annotators",
            "assignments", "round_gates", "round_frozen",
            "round_submissions", "round_labels", "proposals", "labels",
            "submissions", "memos", "flags", "resolutions", "settled",
            "evidence", "machine_answers")) +
            "ALTER TABLE audit DROP COLUMN detail;",
        10: "DROP TABLE fix_comments;"
            "CREATE TABLE evidence_v9 ("
            "  id INTEGER PRIMARY KEY,"
            "  item_id INTEGER NOT NULL REFERENCES items(id),"
            "  member_id INTEGER NOT NULL REFERENCES members(id),"
            "  dimension TEXT NOT NULL,"
            "  pane TEXT NOT NULL CHECK (pane IN ('diff','issue')),"
            "  path TEXT,"
            "  old_side INTEGER NOT NULL DEFAULT 0,"
            "  comment INTEGER NOT NULL DEFAULT 0,"
            "  line_from INTEGER NOT NULL,"
            "  line_to INTEGER NOT NULL,"
            "  quote TEXT NOT NULL,"
            "  created_at TEXT NOT NULL);"
            "INSERT INTO evidence_v9 SELECT id, item_id, member_id, dimension,"
            "  pane, path, old_side, comment, line_from, line_to, quote,"
            "  created_at FROM evidence WHERE pane <> 'pr';"
            "DROP TABLE evidence;"
            "ALTER TABLE evidence_v9 RENAME TO evidence;"
            "CREATE INDEX evidence_item ON evidence(item_id, member_id);",
        9: "DROP TABLE machine_answers;"
           "ALTER TABLE members DROP COLUMN machine;",
        8: "DROP TABLE evidence;",
        7: "DROP TABLE coding_times;",
        6: "DROP TABLE round_labels;"
           "DROP TABLE round_submissions;"
           "DROP TABLE round_frozen;",
        5: "DROP TABLE repo_aliases;"
           "ALTER TABLE fixes DROP COLUMN repeats;"
           "ALTER TABLE items DROP COLUMN kind;"
           "ALTER TABLE items DROP COLUMN missing;",
        4: "DROP TRIGGER audit_no_update;"
           "ALTER TABLE audit DROP COLUMN hash;"
           "CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
           "  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only');"
           "  END;",
        3: "DROP TABLE drafts;",
        2: "DROP TABLE round_gates;",
    }

    def downgrade(self, version):
        """Make the study look as a build of schema `version` left it."""
        with self.db() as c:
            (v,) = c.execute("PRAGMA user_version").fetchone()
            for step in range(v, version, -1):
                c.executescript(self.UNDO[step])
            c.execute("PRAGMA user_version = %d" % version)

    def agree_json(self, *args, as_=None):
        return json.loads(self.ok("agree", "--format", "json", *args, as_=as_))

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


SHIM = r'''#!/bin/sh
# bugcoder, then `audit verify` on the study it used: a failure is written
# to the log with the command it followed
real=%(real)s
"$real" "$@"
rc=$?
study=${BUGCODER_STUDY:-bugcoder.db}
prev=
for a in "$@"; do
    case $a in --study=*) study=${a#--study=} ;; esac
    [ "$prev" = --study ] && study=$a
    prev=$a
done
case " $* " in *" audit verify"*) exit $rc ;; esac
if [ -f "$study" ] && ! out=$("$real" --study "$study" audit verify 2>&1)
then
    printf 'after bugcoder %%s:\n%%s\n' "$*" "$out" >> %(log)s
fi
exit $rc
'''


def verifying_shim(directory, real, log):
    """Write DIRECTORY/bugcoder: runs REAL with its arguments, then
    `audit verify` on the same study, appending any failure to LOG (so a
    command that leaves the study unlike its log's replay is named).
    Returns the shim's path."""
    import shlex
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "bugcoder")
    with open(path, "w") as f:
        f.write(SHIM % {"real": shlex.quote(real), "log": shlex.quote(log)})
    os.chmod(path, 0o755)
    return path
