# SPDX-License-Identifier: MIT
"""`bugcoder fetch` against the mock GitHub server (tests/mock_github.py).

Each test class starts its own mock on 127.0.0.1 and runs the real
./bugcoder binary on temporary studies, then reads the study with sqlite3
and compares it with what the mock says a correct fetch stores.
"""
import calendar
import copy
import json
import os
import pty
import secrets
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bugcoder")
MOCK = os.path.join(ROOT, "tests", "mock_github.py")

# what the budget tests measured, printed at the end of the module
MEASURED = {}


class Mock:
    def __init__(self, *args):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, MOCK, "--port", "0"] +
                                     list(args), stdout=subprocess.PIPE,
                                     stderr=self.err)
        line = self.proc.stdout.readline()
        if not line.strip():
            self.proc.kill()
            self.proc.wait()
            self.err.seek(0)
            why = self.err.read().decode("utf-8", "replace").strip()
            raise RuntimeError("the mock GitHub server did not start: " +
                               (why or "no reason given"))
        self.port = int(line)
        self.url = "http://127.0.0.1:%d" % self.port

    def ctl(self, path, obj=None):
        data = None if obj is None else json.dumps(obj).encode()
        req = urllib.request.Request(self.url + path, data=data,
                                     method="POST" if data is not None else "GET")
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def reset(self):
        self.ctl("/_control/reset", {})

    def config(self, **kw):
        self.ctl("/_control/config", kw)

    def stats(self):
        return self.ctl("/_control/stats")

    def expected(self, repo, require_fix=False, state="closed", label="bug"):
        q = urllib.parse.urlencode({"repo": repo,
                                    "require_fix": "1" if require_fix else "0",
                                    "state": state, "label": label})
        return self.ctl("/_control/expected?" + q)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.err.close()


def base_env(**extra):
    env = dict(os.environ)
    env.pop("GITHUB_TOKEN", None)
    env.pop("GITHUB_API_URL", None)
    env.update(BUGCODER_FETCH_BACKOFF_MS="20", BUGCODER_FETCH_TIMEOUT="5")
    env.update(extra)
    return env


def dump(db, repo=None):
    """Everything a fetch stores about items, keyed by number, without the
    row ids and import times."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = {}
    q = "SELECT * FROM items" + (" WHERE repo = ?" if repo else "")
    for row in con.execute(q, (repo,) if repo else ()):
        d = dict(row)
        iid = d.pop("id")
        d.pop("imported_at")
        d["comments"] = [dict(r) for r in con.execute(
            "SELECT position, author, created_at, body FROM comments "
            "WHERE item_id = ? ORDER BY position", (iid,))]
        d["fixes"] = [dict(r) for r in con.execute(
            "SELECT position, number, title, body, url, merged_at, additions, "
            "deletions, changed_files, diff, diff_partial, repeats FROM fixes "
            "WHERE item_id = ? ORDER BY position", (iid,))]
        out[(d["repo"], d["number"])] = d
    con.close()
    return out


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


# one mock for the module: it loads GitHub's GraphQL schema once (a few
# seconds), and every test resets it
SHARED = None


def shared_mock():
    global SHARED
    if SHARED is None:
        SHARED = Mock()
    return SHARED


class TestMockStandsAlone(unittest.TestCase):
    """The mock reads GitHub's schema and its templates from the
    repository (tests/fixtures/github); without its schema it refuses to start and
    says why, where it used to answer every GraphQL query with a 500,
    which sent the client to REST and failed the request budgets with no
    word of the cause."""

    def test_schema_and_templates_are_in_the_repository(self):
        here = os.path.join(ROOT, "tests", "fixtures", "github")
        for f in ("graphql/schema.graphql", "graphql/LICENSE.md",
                  "rest/LICENSE.md", "rest/pulls-get.json",
                  "shapes/timeline-events.json", "README.md"):
            self.assertTrue(os.path.isfile(os.path.join(here, f)), f)

    def test_no_schema_no_start(self):
        with self.assertRaises(RuntimeError) as cm:
            Mock("--schema", os.path.join(ROOT, "tests", "no-such.graphql"))
        self.assertIn("did not start: mock_github: no GraphQL schema at",
                      str(cm.exception))
        self.assertIn("no-such.graphql", str(cm.exception))


class FetchTestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(BIN, os.X_OK):
            raise unittest.SkipTest("./bugcoder is not built")
        cls.mock = shared_mock()
        cls.tmp = tempfile.mkdtemp(prefix="bugcoder-fetch-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.mock.reset()

    def study(self, name=None):
        path = os.path.join(self.tmp, (name or self.id().split(".")[-1]) + ".db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
        p = subprocess.run([BIN, "--study", path, "init", "--title", "fetch"],
                           capture_output=True, text=True, env=base_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        return path

    def cmd(self, db, repo, *args, token=None):
        return [BIN, "--study", db, "fetch", repo, "--api-url", self.mock.url] + list(args)

    def fetch(self, db, repo, *args, token=None, env=None, rc=0):
        e = base_env(**(env or {}))
        if token:
            e["GITHUB_TOKEN"] = token
        p = subprocess.run(self.cmd(db, repo, *args), capture_output=True,
                           text=True, env=e, timeout=120)
        if rc is not None:
            self.assertEqual(p.returncode, rc, "stdout: %s\nstderr: %s" % (
                p.stdout, p.stderr))
        return p

    def assert_study_matches(self, db, repo, require_fix, state="closed",
                             label="bug"):
        want = self.mock.expected(repo, require_fix, state, label)
        got = dump(db, repo)
        self.assertEqual(sorted(n for _, n in got),
                         sorted(x["number"] for x in want))
        for w in want:
            g = got[(repo, w["number"])]
            name = "%s#%d" % (repo, w["number"])
            for k in ("title", "body", "author", "state", "state_reason",
                      "created_at", "closed_at", "url", "comment_count"):
                self.assertEqual(g[k], w[k], "%s: %s" % (name, k))
            self.assertEqual(json.loads(g["labels"]), w["labels"], name)
            self.assertEqual([(c["author"], c["created_at"], c["body"])
                              for c in g["comments"]],
                             [(c["author"], c["created_at"], c["body"])
                              for c in w["comments"]], name)
            self.assertEqual(g["has_fix"], 1 if w["fixes"] else 0, name)
            self.assertEqual(len(g["fixes"]), len(w["fixes"]), name)
            for gf, wf in zip(g["fixes"], w["fixes"]):
                for k in ("number", "title", "body", "url", "merged_at",
                          "additions", "deletions", "changed_files",
                          "diff_partial", "repeats"):
                    self.assertEqual(gf[k], wf[k], "%s fix %s: %s" % (
                        name, wf["number"], k))
                if wf["diff"] is not None:
                    self.assertEqual(gf["diff"], wf["diff"], name)
                else:
                    for patch in wf["patches"]:
                        self.assertIn(patch, gf["diff"], name)
            # effort figures
            t0 = calendar.timegm(time.strptime(w["created_at"], "%Y-%m-%dT%H:%M:%SZ"))
            if w["closed_at"]:
                t1 = calendar.timegm(time.strptime(w["closed_at"], "%Y-%m-%dT%H:%M:%SZ"))
                self.assertAlmostEqual(g["days_open"], (t1 - t0) / 86400, 6)
            else:
                self.assertIsNone(g["days_open"])
            if w["fixes"]:
                # a backport repeats its fix: counted once
                counted = [f for f in w["fixes"] if f["repeats"] is None]
                add = sum(f["additions"] for f in counted)
                dele = sum(f["deletions"] for f in counted)
                self.assertEqual(g["additions"], add, name)
                self.assertEqual(g["deletions"], dele, name)
                self.assertEqual(g["changed_files"],
                                 sum(f["changed_files"] for f in counted))
                self.assertEqual(g["lines_changed"], add + dele, name)
                self.assertEqual(g["small_fix"], 1 if add + dele <= 10 else 0)
                self.assertEqual(g["diff_partial"],
                                 max(f["diff_partial"] for f in w["fixes"]))
            else:
                self.assertIsNone(g["additions"], name)
                self.assertIsNone(g["lines_changed"], name)
        return want


class TestFetchBig(FetchTestCase):
    """acme/big: several hundred issues and pull requests."""

    def test_graphql_first_fetch_budget_and_refetch(self):
        db = self.study()
        p = self.fetch(db, "acme/big", "--require-fix", token="t-graphql")
        want = self.assert_study_matches(db, "acme/big", True)
        st = self.mock.stats()
        kept = len(want)
        self.assertGreater(kept, 100)
        ratio = st["counted"] / kept
        MEASURED["first fetch, token, --require-fix"] = (st["counted"], kept)
        self.assertLessEqual(ratio, 2.0, st)
        self.assertIn("linked by GraphQL", p.stdout)
        self.assertIn("%.2f counted per stored issue" % ratio, p.stdout)
        # every query validated against GitHub's schema
        self.assertGreater(st["by_kind"].get("graphql", 0), 0)
        self.assertEqual(st["invalid_queries"], [])
        # the transferred issue went through the REST timeline's 301
        self.assertGreaterEqual(st["by_kind"].get("redirect", 0), 1)
        self.assertTrue(any(w["transferred"] and w["fixes"] for w in want))
        # null users became ghosts (NULL)
        con = sqlite3.connect(db)
        self.assertGreater(con.execute("SELECT count(*) FROM items WHERE "
                                       "author IS NULL").fetchone()[0], 0)
        self.assertGreater(con.execute("SELECT count(*) FROM comments WHERE "
                                       "author IS NULL").fetchone()[0], 0)
        # a diff too large for GitHub was rebuilt from the file list
        self.assertEqual(con.execute("SELECT count(*) FROM fixes WHERE "
                                     "diff_partial = 1").fetchone()[0], 1)
        con.close()

        # unchanged: nothing counted beyond the first-page checks
        self.mock.reset()
        p = self.fetch(db, "acme/big", "--require-fix", token="t-graphql")
        st = self.mock.stats()
        MEASURED["re-fetch unchanged, token"] = (st["counted"], st["not_modified"])
        self.assertEqual(st["counted"], 0, st)
        self.assertGreater(st["not_modified"], 0)
        self.assertIn("unchanged since the last fetch", p.stdout)
        self.assert_study_matches(db, "acme/big", True)

    def test_every_fault_at_once(self):
        """Several hundred issues through the mock's faults (GraphQL's
        timeouts are in test_graphql_halves_the_batch_on_5xx_and_timeouts,
        a renamed repository in test_renamed_repository_one_identity): the
        fetch completes, one issue failing for good is named and fetched
        by the next run, and the study is then what GitHub holds."""
        want = self.mock.expected("acme/big")
        direct = [w for w in want if w["kind"] == "direct"][:3]
        self.assertEqual(len(direct), 3)
        victim = [w for w in want if w["fixes"] and not w["transferred"]
                  and w["kind"] == "xref"][7]
        vpr = victim["fixes"][0]["number"]
        faults = [
            {"path": r"^/graphql", "kind": "status", "arg": 502, "times": 2},
            {"path": r"^/graphql", "kind": "gql_ratelimited", "arg": 1,
             "times": 1, "skip": 2},
            {"path": r"/issues\?", "kind": "secondary", "arg": "",
             "times": 1},
            {"path": r"/pulls/\d+$", "kind": "429", "arg": "", "times": 1,
             "skip": 3},
            {"path": r"/pulls/\d+$", "kind": "reset", "times": 1, "skip": 9},
            {"path": r"/timeline", "kind": "truncate", "times": 1},
            {"path": r"/pulls/\d+/files", "kind": "badjson", "times": 1},
            {"path": r"/pulls/%d$" % vpr, "kind": "status", "arg": 502,
             "times": 1000},
        ]
        # without a token the closing commits are looked up: GitHub's
        # refusals of three of them
        for w, status in zip(direct, (422, 409, 404)):
            faults.append({"path": "/commits/%s/pulls" % w["closing_commit"],
                           "kind": "status", "arg": status, "times": 1000})
        waits = ("secondary", "429", "gql_ratelimited", "slow")
        for token in ("t", None):
            self.mock.reset()
            # the waits once (with GraphQL), the rest in both runs
            self.mock.config(faults=[copy.deepcopy(f) for f in faults
                                     if token or f["kind"] not in waits])
            db = self.study("every_fault_%s" % bool(token))
            t = time.time()
            p = self.fetch(db, "acme/big", token=token, rc=3,
                           env={"BUGCODER_FETCH_TIMEOUT": "1"})
            took = time.time() - t
            self.assertIn("acme/big#%d failed: GET " % victim["number"],
                          p.stderr)
            self.assertIn("1 issue failed", p.stderr)
            self.assertIn("1 failed", p.stdout)
            got = dump(db)
            self.assertEqual(sorted(n for _, n in got),
                             sorted(w["number"] for w in want
                                    if w is not victim))
            st = self.mock.stats()
            self.assertEqual(st["invalid_queries"], [])
            MEASURED["every fault, %s (took %.0fs)" % (
                "token" if token else "no token", took)] = (
                st["counted"], len(got))
            if token:
                self.assertLessEqual(st["counted"], 2 * len(got), st)
                self.assertIn("linked by GraphQL", p.stdout)
            # the next run: the failed issue alone
            self.mock.reset()
            p = self.fetch(db, "acme/big", token=token)
            self.assertIn("1 stored", p.stdout)
            self.assert_study_matches(db, "acme/big", False)

    def test_graphql_all_closed_bugs_budget(self):
        db = self.study()
        self.fetch(db, "acme/big", token="t-graphql")
        want = self.assert_study_matches(db, "acme/big", False)
        st = self.mock.stats()
        MEASURED["first fetch, token, all closed bugs"] = (st["counted"], len(want))
        self.assertLessEqual(st["counted"] / len(want), 2.0)
        self.assertTrue(any(not w["fixes"] for w in want))

    def test_rest_first_fetch_budget_and_refetch(self):
        db = self.study()
        p = self.fetch(db, "acme/big")
        want = self.assert_study_matches(db, "acme/big", False)
        st = self.mock.stats()
        MEASURED["first fetch, no token (REST), all closed bugs"] = (
            st["counted"], len(want))
        self.assertLessEqual(st["counted"] / len(want), 2.0, st)
        self.assertIn("linked by REST timelines", p.stdout)
        self.assertEqual(st["by_kind"].get("graphql", 0), 0)
        self.mock.reset()
        self.fetch(db, "acme/big")
        st = self.mock.stats()
        MEASURED["re-fetch unchanged, no token"] = (st["counted"], st["not_modified"])
        self.assertEqual(st["counted"], 0, st)

    def test_rest_require_fix(self):
        db = self.study()
        self.fetch(db, "acme/big", "--require-fix")
        want = self.assert_study_matches(db, "acme/big", True)
        st = self.mock.stats()
        MEASURED["first fetch, no token (REST), --require-fix"] = (
            st["counted"], len(want))

    def test_changed_issue_refetched_alone(self):
        db = self.study()
        self.fetch(db, "acme/big", "--require-fix", token="t")
        want = self.mock.expected("acme/big", True)
        target = want[len(want) // 2]["number"]
        self.mock.ctl("/_control/touch", {"repo": "acme/big", "number": target,
                                          "body": "Still broken on 0.9"})
        self.mock.reset()
        p = self.fetch(db, "acme/big", "--require-fix", token="t")
        st = self.mock.stats()
        # the one changed list page, one GraphQL request; the diffs are 304
        self.assertLessEqual(st["counted"], 2, st)
        self.assertEqual(st["by_kind"].get("diff", 0), 0, st)
        self.assert_study_matches(db, "acme/big", True)
        self.assertIn("1 stored", p.stdout)
        con = sqlite3.connect(db)
        self.assertEqual(con.execute(
            "SELECT count(*) FROM comments JOIN items ON items.id = item_id "
            "WHERE number = ? AND comments.body = 'Still broken on 0.9'",
            (target,)).fetchone()[0], 1)
        con.close()

    def test_limit_then_continue(self):
        db = self.study()
        want = [w["number"] for w in self.mock.expected("acme/big", True)]
        self.fetch(db, "acme/big", "--require-fix", "--limit", "10", token="t")
        self.assertEqual(sorted(n for _, n in dump(db)), want[:10])
        self.fetch(db, "acme/big", "--require-fix", "--limit", "15", token="t")
        self.assertEqual(sorted(n for _, n in dump(db)), want[:25])

    def test_since_until(self):
        db = self.study()
        want = self.mock.expected("acme/big", False)
        since = want[20]["created_at"][:10]
        until = want[60]["created_at"][:10]
        self.fetch(db, "acme/big", "--since", since, "--until", until, token="t")
        exp = [w["number"] for w in want
               if since <= w["created_at"][:10] <= until]
        self.assertTrue(exp)
        self.assertEqual(sorted(n for _, n in dump(db)), exp)

    def run_until(self, db, args, env, min_items, sig):
        """Start a fetch, wait until it stored `min_items`, send `sig`."""
        proc = subprocess.Popen(self.cmd(db, "acme/big", *args), env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        deadline = time.time() + 60
        n = 0
        while time.time() < deadline and proc.poll() is None:
            try:
                con = sqlite3.connect(db, timeout=5)
                n = con.execute("SELECT count(*) FROM items").fetchone()[0]
                con.close()
            except sqlite3.OperationalError:
                pass
            if n >= min_items:
                break
            time.sleep(0.05)
        self.assertIsNone(proc.poll(), "the fetch ended before the signal")
        self.assertGreaterEqual(n, min_items)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, out, err

    def assert_no_half_items(self, db):
        """Every stored item is whole: fixes with diffs, comments as
        counted, and recorded as done."""
        want = {w["number"]: w for w in self.mock.expected("acme/big", False)}
        con = sqlite3.connect(db)
        q = lambda sql: con.execute(sql).fetchone()[0]
        self.assertEqual(q("SELECT count(*) FROM items WHERE has_fix = 1 AND "
                           "id NOT IN (SELECT item_id FROM fixes)"), 0)
        self.assertEqual(q("SELECT count(*) FROM fixes WHERE diff IS NULL"), 0)
        self.assertEqual(q("SELECT count(*) FROM items WHERE number NOT IN "
                           "(SELECT number FROM fetch_issues)"), 0)
        for num, nfix, ncom in con.execute(
                "SELECT number, (SELECT count(*) FROM fixes WHERE item_id = "
                "items.id), (SELECT count(*) FROM comments WHERE item_id = "
                "items.id) FROM items"):
            self.assertEqual(nfix, len(want[num]["fixes"]), num)
            self.assertEqual(ncom, len(want[num]["comments"]), num)
        con.close()

    def slow_diffs(self):
        self.mock.config(faults=[{"path": r"/pulls/\d+$", "kind": "slow",
                                  "arg": 0.03, "times": 100000}])

    def test_resume_after_kill9(self):
        ref = self.study("resume_ref")
        self.fetch(ref, "acme/big", "--require-fix", token="t")
        full = self.mock.stats()["counted"]

        db = self.study()
        self.mock.reset()
        self.slow_diffs()
        env = base_env(GITHUB_TOKEN="t")
        rc, _, _ = self.run_until(db, ["--require-fix"], env, 40, signal.SIGKILL)
        self.assertEqual(rc, -signal.SIGKILL)
        self.assert_no_half_items(db)
        self.mock.reset()
        p = self.fetch(db, "acme/big", "--require-fix", token="t")
        resumed = self.mock.stats()["counted"]
        self.assertLess(resumed, full - 30, "the second run started over")
        self.assertEqual(dump(db), dump(ref))
        self.assertIn("unchanged since the last fetch", p.stdout)

    def test_resume_rest_after_kill9(self):
        ref = self.study("resume_rest_ref")
        self.fetch(ref, "acme/big")
        db = self.study()
        self.mock.reset()
        self.slow_diffs()
        rc, _, _ = self.run_until(db, [], base_env(), 60, signal.SIGKILL)
        self.assertEqual(rc, -signal.SIGKILL)
        self.assert_no_half_items(db)
        self.mock.reset()
        self.fetch(db, "acme/big")
        self.assertEqual(dump(db), dump(ref))

    def test_sigint_stops_cleanly(self):
        ref = self.study("sigint_ref")
        self.fetch(ref, "acme/big", "--require-fix", token="t")
        db = self.study()
        self.mock.reset()
        self.slow_diffs()
        env = base_env(GITHUB_TOKEN="t")
        t = time.time()
        rc, out, err = self.run_until(db, ["--require-fix"], env, 20,
                                      signal.SIGINT)
        self.assertEqual(rc, 3, err)
        self.assertIn("interrupted", err)
        self.assertIn("run the same command again", err)
        self.assertLess(time.time() - t, 30)
        self.mock.reset()
        self.fetch(db, "acme/big", "--require-fix", token="t")
        self.assertEqual(dump(db), dump(ref))

    def test_token_never_leaks(self):
        token = "ghp_" + secrets.token_hex(18)
        db = self.study()
        self.slow_diffs()
        env = base_env(GITHUB_TOKEN=token)
        proc = subprocess.Popen(self.cmd(db, "acme/big", "--limit", "30"),
                                env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        seen_cmdline = b""
        while proc.poll() is None:
            try:
                with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
                    seen_cmdline += f.read()
            except OSError:
                pass
            time.sleep(0.05)
        out, err = proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        self.assertTrue(seen_cmdline)
        self.assertNotIn(token.encode(), seen_cmdline)
        self.assertNotIn(token, out + err)

        # a token file, and a failure whose message must not carry it
        tf = os.path.join(self.tmp, "token")
        with open(tf, "w") as f:
            f.write(token + "\n")
        os.chmod(tf, 0o600)
        self.mock.config(faults=[{"path": r"/pulls/\d+$", "kind": "status",
                                  "arg": 502, "times": 5}])
        p = self.fetch(db, "acme/big", "--token-file", tf, rc=3)
        self.assertNotIn(token, p.stdout + p.stderr)
        self.assertRegex(p.stderr, r"GET http://127\.0\.0\.1:\d+/repos/acme/big/"
                         r"pulls/\d+: HTTP 502")

        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                with open(db + suffix, "rb") as f:
                    self.assertNotIn(token.encode(), f.read())
        reqs = self.mock.ctl("/_control/requests")
        self.assertTrue(reqs)
        for r in reqs:
            h = {k.lower(): v for k, v in r["headers"].items()}
            self.assertEqual(h.get("authorization"), "Bearer " + token, r["path"])
            self.assertRegex(h.get("user-agent", ""), r"^bugcoder/\d")
            self.assertEqual(h.get("x-github-api-version"), "2022-11-28")
            self.assertNotIn(token, r["path"])

    def test_progress_line_on_a_terminal_only(self):
        db = self.study()
        p = self.fetch(db, "acme/big", "--limit", "5", token="t")
        self.assertEqual(p.stderr, "")
        self.assertIn("5 stored", p.stdout)

        db = self.study("progress_tty")
        master, slave = pty.openpty()
        proc = subprocess.Popen(self.cmd(db, "acme/big", "--limit", "20"),
                                env=base_env(GITHUB_TOKEN="t"),
                                stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        seen = b""
        while True:
            r, _, _ = select.select([master], [], [], 10)
            if not r:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        proc.stdout.read()
        proc.stdout.close()
        proc.wait(30)
        os.close(master)
        self.assertEqual(proc.returncode, 0)
        text = seen.decode("utf-8", "replace")
        self.assertRegex(text, r"acme/big: \d+ seen, \d+ kept, \d+ fixes, "
                         r"\d+ requests")
        self.assertIn("\r", text)


class TestFetchList(FetchTestCase):
    """`fetch --issues`: a list of known bugs, as studies start."""

    def pulls(self, repo):
        return self.mock.ctl("/_control/pulls?repo=" + repo)

    def fetch(self, db, *args, token=None, rc=0):
        e = base_env()
        if token:
            e["GITHUB_TOKEN"] = token
        p = subprocess.run([BIN, "--study", db, "fetch", "--api-url",
                            self.mock.url] + list(args), capture_output=True,
                           text=True, env=e, timeout=120)
        self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
        return p

    def test_mixed_list_stores_every_item_once(self):
        bugs = self.mock.expected("acme/big")[:30]
        alone = [p for p in self.pulls("acme/big") if not p["linked"]][:8]
        ren = self.mock.expected("acme/renamed")[:6]
        ren_alone = [p for p in self.pulls("acme/renamed")
                     if not p["linked"]][:2]
        self.assertEqual((len(alone), len(ren_alone)), (8, 2))
        forms = ("https://github.com/acme/big/issues/%d", "acme/big#%d",
                 "https://github.com/acme/big/issues/%d#issuecomment-1")
        entries = [forms[k % 3] % w["number"] for k, w in enumerate(bugs)]
        entries += ["https://github.com/acme/big/pull/%d/files" % p["number"]
                    for p in alone]
        entries += [("acme/oldname#%d" if k % 2 else
                     "https://github.com/acme/renamed/issues/%d") % w["number"]
                    for k, w in enumerate(ren)]
        entries += ["https://github.com/acme/oldname/pull/%d" % p["number"]
                    for p in ren_alone]
        # the same bugs again, by other names
        entries += ["acme/big#%d" % bugs[0]["number"],
                    "https://github.com/acme/big/pull/%d" % alone[0]["number"],
                    "acme/renamed#%d" % ren[1]["number"],
                    "https://github.com/acme/oldname/issues/%d" % ren[0]["number"]]
        self.assertEqual(len(entries), 50)
        path = os.path.join(self.tmp, "bugs.txt")
        with open(path, "w", newline="") as f:   # as a spreadsheet saves
            f.write("\ufeff# bugs we know\r\n" + "\r\n".join(entries) + "\r\n")
        db = self.study()
        p = subprocess.run([BIN, "--study", db, "fetch", "--issues", path,
                            "--api-url", self.mock.url], capture_output=True,
                           text=True, env=base_env(GITHUB_TOKEN="t"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("10 pull requests given alone", p.stdout)
        got = dump(db)
        want = {("acme/big", w["number"]): w for w in bugs}
        want.update({("acme/renamed", w["number"]): w for w in ren})
        prs = {("acme/big", x["number"]): x for x in alone}
        prs.update({("acme/renamed", x["number"]): x for x in ren_alone})
        self.assertEqual(sorted(got), sorted(list(want) + list(prs)))
        for key, w in want.items():
            g = got[key]
            self.assertEqual(g["kind"], "issue", key)
            self.assertEqual(g["title"], w["title"], key)
            self.assertEqual([f["number"] for f in g["fixes"]],
                             [f["number"] for f in w["fixes"]], key)
            self.assertEqual(len(g["comments"]), len(w["comments"]), key)
        for key, x in prs.items():
            g = got[key]
            self.assertEqual(g["kind"], "pull", key)
            self.assertEqual(g["title"], x["title"], key)
            self.assertEqual(g["body"], x["body"], key)
            self.assertEqual(len(g["fixes"]), 1, key)
            fx = g["fixes"][0]
            self.assertEqual((fx["number"], fx["diff"], fx["merged_at"]),
                             (x["number"], x["diff"], x["merged_at"]), key)
            self.assertEqual((g["additions"], g["deletions"]),
                             (x["additions"], x["deletions"]), key)
        st = self.mock.stats()
        MEASURED["fetch --issues, 50 entries, token"] = (st["counted"],
                                                          len(got))
        # one request per entry (the issue endpoint), one per fix (its
        # diff), a GraphQL request per 50 issues; a transferred issue's
        # REST timeline and a 301 for the renamed repository on top
        self.assertLessEqual(st["counted"], 2.1 * len(got), st)
        self.assertEqual(st["invalid_queries"], [])
        # again: nothing counted
        self.mock.reset()
        p = subprocess.run([BIN, "--study", db, "fetch", "--issues", path,
                            "--api-url", self.mock.url], capture_output=True,
                           text=True, env=base_env(GITHUB_TOKEN="t"))
        self.assertEqual(p.returncode, 0, p.stderr)
        st = self.mock.stats()
        MEASURED["re-fetch --issues unchanged"] = (st["counted"],
                                                   st["not_modified"])
        self.assertEqual(st["counted"], 0, st)
        self.assertEqual(dump(db), got)

    def test_list_from_stdin_commas_and_a_url(self):
        w = self.mock.expected("acme/big")[:3]
        db = self.study()
        p = subprocess.run([BIN, "--study", db, "fetch", "--issues", "-",
                            "--api-url", self.mock.url],
                           input="acme/big#%d\n" % w[0]["number"],
                           capture_output=True, text=True, env=base_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.fetch(db, "--issues", "acme/big#%d,acme/big#%d" % (
            w[1]["number"], w[0]["number"]))
        self.fetch(db, "https://github.com/acme/big/issues/%d"
                   % w[2]["number"])
        self.assertEqual(sorted(n for _, n in dump(db)),
                         sorted(x["number"] for x in w))
        # a repository's URL fetches the repository
        p = self.fetch(db, "https://github.com/acme/empty/", token="t")
        self.assertIn("acme/empty: 0 issues seen", p.stdout)

    def test_bad_lists_store_nothing(self):
        db = self.study()
        path = os.path.join(self.tmp, "bad.txt")
        for text, msg in (
                ("acme/big#1\nhttps://github.com/acme/big\n",
                 "bad.txt:2: https://github.com/acme/big: a repository, "
                 "not an issue"),
                ("acme/big#1\n\nacme/big#1e300\n",
                 "bad.txt:3: acme/big#1e300: not a GitHub issue or pull "
                 "request"),
                ("acme/big#1, https://gitlab.com/a/b/-/issues/3\n",
                 "bad.txt:1: https://gitlab.com/a/b/-/issues/3: gitlab.com is "
                 "not GitHub"),
                ("acme/big#1, https://github.com/a/b/-/issues/3\n",
                 "bad.txt:1: https://github.com/a/b/-/issues/3: not a "
                 "GitHub issue"),
                ("acme/big#1\nacme/big#2\x00\n", "bad.txt:2: a NUL byte")):
            with open(path, "w") as f:
                f.write(text)
            p = self.fetch(db, "--issues", path, rc=1)
            self.assertIn(msg, p.stderr)
            self.assertEqual(self.mock.stats()["requests"], 0)
        self.assertEqual(dump(db), {})
        # entries of repositories GitHub does not know: each reported
        p = self.fetch(db, "--issues", "nobody/nothing#1,nobody/else#2",
                       rc=3)
        self.assertIn("nobody/nothing#1 failed: GET", p.stderr)
        self.assertIn("nobody/else#2 failed: GET", p.stderr)
        self.assertIn("2 issues failed", p.stderr)


class TestImportKnownBugs(FetchTestCase):
    """import of a spreadsheet or a list of URLs, then fetch --missing."""

    def run_bc(self, db, *args, rc=0, token=None):
        e = base_env()
        if token:
            e["GITHUB_TOKEN"] = token
        p = subprocess.run([BIN, "--study", db] + list(args),
                           capture_output=True, text=True, env=e, timeout=120)
        self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
        return p

    def write(self, name, text, encoding="utf-8"):
        path = os.path.join(self.tmp, name)
        with open(path, "w", newline="", encoding=encoding) as f:
            f.write(text)
        return path

    def test_spreadsheet_then_fetch_missing(self):
        bugs = [w for w in self.mock.expected("acme/big")
                if w["fixes"]][:6]
        pulls = self.mock.ctl("/_control/pulls?repo=acme/big")
        alone, named = [p for p in pulls if not p["linked"]][:2]
        # a bug GitHub links to no fix, whose fix the team knows
        unlinked = [w for w in self.mock.expected("acme/big")
                    if not w["fixes"]][0]
        # as a spreadsheet program in a ';' locale saves it
        rows = [" Repo ; Number;Title;PR URL;Labels "]
        for w in bugs:
            rows.append('acme/big;%d;"Ours; %s";%s;"crash;p1"' % (
                w["number"], w["title"], w["fixes"][0]["url"]))
        # the same bug again with its fix, and a pull request alone
        rows.append('acme/big;%d;;%s;' % (bugs[0]["number"],
                                          bugs[0]["fixes"][0]["url"]))
        rows.append(';;;https://github.com/acme/big/pull/%d;' % alone["number"])
        rows.append('acme/big;%d;;#%d;' % (unlinked["number"], named["number"]))
        path = self.write("bugs.csv", "\ufeff" + "\r\n".join(rows) + "\r\n")
        db = self.study()
        p = self.run_bc(db, "import", path)
        self.assertIn("8 added", p.stdout)
        self.assertIn("8 to fetch", p.stdout)
        self.assertIn("bugcoder fetch --missing", p.stdout)
        con = sqlite3.connect(db)
        self.assertEqual(con.execute(
            "SELECT title, labels FROM items WHERE number = ?",
            (bugs[1]["number"],)).fetchone(),
            ("Ours; " + bugs[1]["title"], '["crash","p1"]'))
        con.close()
        p = self.run_bc(db, "items", "--missing")
        self.assertEqual(len(p.stdout.splitlines()), 8)
        self.assertIn("acme/big#%d\tpull request" % alone["number"], p.stdout)
        p = self.run_bc(db, "fetch", "--missing", "--api-url", self.mock.url,
                        token="t")
        self.assertIn("8 stored", p.stdout)
        self.assertEqual(self.run_bc(db, "items", "--missing").stdout, "")
        got = dump(db)
        self.assertEqual(len(got), 8)
        # the fix the sheet named is kept, with its diff
        fx = got[("acme/big", unlinked["number"])]["fixes"]
        self.assertEqual([(f["number"], f["diff"]) for f in fx],
                         [(named["number"], named["diff"])])
        for w in bugs:
            g = got[("acme/big", w["number"])]
            self.assertEqual(g["title"], w["title"])
            self.assertEqual([f["number"] for f in g["fixes"]],
                             [f["number"] for f in w["fixes"]])
            self.assertEqual(g["missing"], 0)
        self.assertEqual(got[("acme/big", alone["number"])]["kind"], "pull")
        # importing the sheet again leaves the fetched items alone
        p = self.run_bc(db, "import", path)
        self.assertIn("8 already in the study", p.stdout)
        self.assertEqual(dump(db), got)

    def test_tsv_and_url_list(self):
        w = self.mock.expected("acme/big")[:3]
        tsv = self.write("bugs.tsv", "URL\tNotes\n" + "".join(
            "https://github.com/acme/big/issues/%d\tseen in prod\n"
            % x["number"] for x in w))
        urls = self.write("urls.txt", "# from the tracker\n" + "".join(
            "https://github.com/acme/big/issues/%d\n" % x["number"]
            for x in w[1:]) + "acme/renamed#%d\n" %
            self.mock.expected("acme/renamed")[0]["number"])
        db = self.study()
        self.assertIn("3 added", self.run_bc(db, "import", tsv).stdout)
        p = self.run_bc(db, "import", urls)
        self.assertIn("1 added, 2 updated", p.stdout)
        self.run_bc(db, "fetch", "--missing", "--api-url", self.mock.url)
        self.assertEqual(len(dump(db)), 4)
        self.assertEqual(self.run_bc(db, "items", "--missing").stdout, "")

    def test_bad_spreadsheets_store_nothing(self):
        db = self.study()
        cases = [
            ("Ticket,Where\n1,here\n",
             'bad.csv:1: no column names the bugs: the header has '
             '"Ticket", "Where"; expected url, issue or pr', []),
            ("issue,title\n1,no repository for it\n",
             'bad.csv:2: issue: "1": not a GitHub issue or pull request', []),
            ("Link to it,Where\nacme/big#1,here\n",
             'no column names the bugs', []),
            ("repo,number\nacme/big,1e300\n",
             'bad.csv:2: number: "1e300": not an issue number', []),
            ("repo,number\nacme/big,99999999999999999999\n",
             'bad.csv:2: number: "99999999999999999999": not an issue', []),
            ("url,title\nhttps://github.com/acme/big/issues/1,ok\n"
             "https://example.com/x,bad\n",
             'bad.csv:3: url: "https://example.com/x": example.com is not '
             'GitHub (github.com, or the host of $GITHUB_API_URL)',
             []),
            ("url,title\nacme/big#1,a\x00b\n",
             "bad.csv:2: field 2: a NUL byte", []),
            ("url,created_at\nacme/big#1,yesterday\n",
             'bad.csv:2: created_at: "yesterday": not a date', []),
            ("Link to it,Where\nacme/big#1,here\n",
             '--column url=Nope: no header "Nope"; the header has '
             '"Link to it", "Where"', ["--column", "url=Nope"]),
        ]
        for text, msg, extra in cases:
            path = self.write("bad.csv", text)
            p = self.run_bc(db, "import", path, *extra, rc=1)
            self.assertIn(msg, p.stderr)
            self.assertEqual(dump(db), {})
        # and named with --column it goes in
        path = self.write("bad.csv", "Link to it,Where\nacme/big#1,here\n")
        self.run_bc(db, "import", path, "--column", "url=link to it")
        self.assertEqual(list(dump(db)), [("acme/big", 1)])
        self.run_bc(db, "import", path, "--column", "nope=Where", rc=2)


class TestFetchFaults(FetchTestCase):
    """acme/small under injected faults."""

    def ok(self, *args, token=None, env=None, require_fix=False):
        db = self.study()
        if require_fix:
            args = args + ("--require-fix",)
        p = self.fetch(db, "acme/small", *args, token=token, env=env)
        self.assert_study_matches(db, "acme/small", require_fix)
        return db, p

    def test_paging_follows_link_exactly(self):
        self.mock.config(page_size=3)
        db, p = self.ok(token="t")
        reqs = [r["path"] for r in self.mock.ctl("/_control/requests")]
        lists = [r for r in reqs if r.split("?")[0].endswith("/issues")]
        self.assertGreaterEqual(len(lists), 3)
        self.assertTrue(lists[0].startswith("/repos/acme/small/issues?"))
        self.assertIn("per_page=100", lists[0])
        for r in lists[1:]:
            self.assertTrue(r.startswith("/repositories/1002/issues?"), r)
            self.assertIn("per_page=100", r)
        # the same with REST timelines paged by three
        self.mock.reset()
        self.mock.config(page_size=3)
        self.ok()

    def test_server_errors_retried(self):
        self.mock.config(faults=[
            {"path": r"/issues\?", "kind": "status", "arg": 502, "times": 2},
            {"path": r"/pulls/\d+$", "kind": "status", "arg": 500, "times": 1},
            {"path": r"^/graphql", "kind": "status", "arg": 503, "times": 1},
        ])
        db, p = self.ok(token="t")
        self.assertIn("linked by GraphQL", p.stdout)
        self.assertRegex(p.stdout, r"[1-9]\d* retried")

    def test_resets_truncation_invalid_json(self):
        self.mock.config(faults=[
            {"path": r"/issues\?", "kind": "reset", "times": 1},
            {"path": r"/timeline", "kind": "truncate", "times": 1},
            {"path": r"/timeline", "kind": "badjson", "times": 1, "skip": 2},
            {"path": r"/pulls/\d+$", "kind": "reset", "times": 1, "skip": 1},
            {"path": r"/pulls/\d+/files", "kind": "badjson", "times": 1},
        ])
        self.ok()
        self.mock.reset()
        self.mock.config(faults=[
            {"path": r"^/graphql", "kind": "reset", "times": 1},
            {"path": r"^/graphql", "kind": "badjson", "times": 1},
            {"path": r"/pulls/\d+$", "kind": "truncate", "times": 1},
        ])
        db, p = self.ok(token="t")
        self.assertIn("linked by GraphQL", p.stdout)

    def test_slow_and_timed_out_answers(self):
        self.mock.config(faults=[
            {"path": r"/issues\?", "kind": "slow", "arg": 3, "times": 1},
            {"path": r"/pulls/", "kind": "slow", "arg": 0.3, "times": 3},
        ])
        t = time.time()
        db, p = self.ok(token="t", env={"BUGCODER_FETCH_TIMEOUT": "1"})
        self.assertLess(time.time() - t, 20)
        self.assertRegex(p.stdout, r"[1-9]\d* retried")

    def test_secondary_limits(self):
        self.mock.config(faults=[
            {"path": r"/pulls/\d+$", "kind": "secondary", "arg": 1, "times": 2},
            {"path": r"/issues\?", "kind": "secondary_noretry", "times": 1},
        ])
        t = time.time()
        db, p = self.ok(token="t")
        # retry-after: 1 (twice, the second with back-off added), and the
        # minute-based back-off scaled down by BUGCODER_FETCH_BACKOFF_MS
        self.assertGreaterEqual(time.time() - t, 2.0)
        self.assertIn("waited", p.stdout)

    def test_primary_limit_waits_for_reset(self):
        self.mock.config(ratelimit={"resource": "core", "remaining": 3,
                                    "reset_in": 2})
        t = time.time()
        db, p = self.ok()
        self.assertGreaterEqual(time.time() - t, 1.0)
        self.assertIn("waited", p.stdout)
        self.assertEqual(self.mock.stats()["by_kind"].get("limited", 0), 0,
                         "the client should wait, not hit the limit")
        # and a 403 with remaining 0 that came without warning
        self.mock.reset()
        self.mock.config(faults=[{"path": r"/timeline", "kind": "ratelimit403",
                                  "arg": 2, "times": 1}])
        t = time.time()
        self.ok()
        self.assertGreaterEqual(time.time() - t, 1.0)

    def test_transferred_issue_and_partial_diff(self):
        db, p = self.ok()
        want = self.mock.expected("acme/small")
        moved = [w["number"] for w in want if w["transferred"]]
        self.assertEqual(len(moved), 1)
        st = self.mock.stats()
        self.assertEqual(st["by_kind"].get("redirect"), 1)
        con = sqlite3.connect(db)
        self.assertEqual(con.execute("SELECT has_fix FROM items WHERE number = ?",
                                     (moved[0],)).fetchone()[0], 1)
        row = con.execute("SELECT diff_partial, changed_files FROM items "
                          "WHERE diff_partial = 1").fetchall()
        self.assertEqual(row, [(1, 150)])
        # renamed, copied and binary files keep git's headers
        diff = con.execute("SELECT diff FROM fixes WHERE diff_partial = 1"
                           ).fetchone()[0]
        for want in ("rename from src/old003.py\nrename to src/mod003.py\n",
                     "copy from src/mod000.py\ncopy to src/mod004.py\n",
                     "Binary files /dev/null and b/docs/logo.png differ\n",
                     "rename from src/moved006.py\nrename to src/mod006.py\n"
                     "diff --git"):
            self.assertIn(want, diff)
        self.assertNotIn("rename from src/mod000.py", diff)
        con.close()
        self.assertIn("1 partial diff\n", p.stdout)

    def test_persistent_failure_stores_nothing_partial(self):
        want = self.mock.expected("acme/small", True)
        victim = want[2]["fixes"][0]["number"]
        self.mock.config(faults=[{"path": r"/pulls/%d$" % victim,
                                  "kind": "status", "arg": 502, "times": 100}])
        db = self.study()
        p = self.fetch(db, "acme/small", "--require-fix", token="t", rc=3)
        owner = want[2]["number"]
        self.assertRegex(p.stderr, r"^bugcoder: acme/small#%d failed: GET "
                         r"http://127\.0\.0\.1:\d+/repos/acme/small/pulls/%d: "
                         r"HTTP 502 \(after 5 attempts\)\n" % (owner, victim))
        self.assertIn("1 issue failed and was not stored", p.stderr)
        self.assertIn("bugcoder --study %s fetch acme/small" % db, p.stderr)
        self.assertIn("1 failed", p.stdout)
        # every other issue is stored; the failed one not, not even in part
        got = dump(db)
        self.assertEqual(sorted(n for _, n in got),
                         [w["number"] for w in want if w["number"] != owner])
        # the next run asks for the failed one alone
        self.mock.reset()
        p = self.fetch(db, "acme/small", "--require-fix", token="t")
        self.assertIn("1 stored", p.stdout)
        self.assert_study_matches(db, "acme/small", True)

    def test_token_file_and_bad_options(self):
        db = self.study()
        tf = os.path.join(self.tmp, "tok")
        with open(tf, "w") as f:
            f.write("  tok-from-file \n")
        self.fetch(db, "acme/small", "--token-file", tf)
        reqs = self.mock.ctl("/_control/requests")
        self.assertTrue(all(r["headers"].get("Authorization") ==
                            "Bearer tok-from-file" for r in reqs))
        self.assertTrue(any(r["path"] == "/graphql" for r in reqs))
        p = self.fetch(db, "acme/small", "--since", "yesterday", rc=2)
        self.assertIn("--since yesterday", p.stderr)
        p = self.fetch(db, "acme", rc=2)
        p = self.fetch(db, "acme/small", "--limit", "0", rc=2)
        p = self.fetch(db, "acme/nope", rc=1)
        self.assertIn("HTTP 404", p.stderr)
        # GITHUB_API_URL stands in for --api-url
        e = base_env(GITHUB_API_URL=self.mock.url)
        p = subprocess.run([BIN, "--study", db, "fetch", "acme/small"],
                           capture_output=True, text=True, env=e)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_any_state_any_label(self):
        db = self.study()
        self.fetch(db, "acme/small", "--state", "all", "--label", "", token="t")
        want = self.assert_study_matches(db, "acme/small", False, "all", "")
        self.assertTrue(any(w["state"] == "open" for w in want))
        self.assertTrue(any("bug" not in w["labels"] for w in want))
        reqs = [r["path"] for r in self.mock.ctl("/_control/requests")]
        self.assertNotIn("labels=", reqs[0])
        self.assertIn("state=all", reqs[0])

    def test_graphql_outage_falls_back_to_rest(self):
        self.mock.config(faults=[{"path": r"^/graphql", "kind": "status",
                                  "arg": 502, "times": 1000}])
        db, p = self.ok(token="t", require_fix=True)
        self.assertIn("linked by REST timelines", p.stdout)
        self.assertGreater(self.mock.stats()["by_kind"].get("timeline", 0), 0)

    def test_graphql_halves_the_batch_on_5xx_and_timeouts(self):
        # a 502, then a timeout: the batch is asked again in halves, and
        # every issue is still linked by GraphQL
        self.mock.config(faults=[
            {"path": r"^/graphql", "kind": "status", "arg": 502, "times": 1},
            {"path": r"^/graphql", "kind": "slow", "arg": 4, "times": 1}])
        db, p = self.ok(token="t", require_fix=True,
                        env={"BUGCODER_FETCH_TIMEOUT": "1"})
        self.assertIn("linked by GraphQL", p.stdout)
        self.assertIn("2 GraphQL batches halved", p.stdout)
        st = self.mock.stats()
        # the transferred issue alone goes through its REST timeline
        self.assertEqual(st["by_kind"].get("timeline", 0), 1, st)
        self.assertEqual(st["invalid_queries"], [])

    def test_graphql_gives_up_only_the_issue_it_cannot_answer(self):
        want = self.mock.expected("acme/small", True)
        hard = [w["number"] for w in want if not w["transferred"]][1]
        self.mock.config(faults=[
            {"path": r"^/graphql", "kind": "status", "arg": 502,
             "times": 1000, "body": r"issue\(number: %d\)" % hard}])
        db, p = self.ok(token="t", require_fix=True)
        self.assertIn("linked by GraphQL", p.stdout)
        self.assertIn("1 issue GraphQL could not answer", p.stdout)
        reqs = [r["path"] for r in self.mock.ctl("/_control/requests")]
        timelines = sorted(set(int(r.split("?")[0].split("/")[-2])
                               for r in reqs if "/timeline" in r))
        moved = [w["number"] for w in want if w["transferred"]]
        self.assertEqual(timelines, sorted([hard] + moved))

    def test_graphql_rate_limited_in_a_200_is_waited_out(self):
        # the primary limit until its reset; a secondary one a minute of
        # back-off (60 x 20 ms here)
        self.mock.config(faults=[{"path": r"^/graphql",
                                  "kind": "gql_ratelimited", "arg": 1,
                                  "times": 1},
                                 {"path": r"^/graphql",
                                  "kind": "gql_secondary", "times": 1}])
        t = time.time()
        db, p = self.ok(token="t", require_fix=True)
        self.assertGreaterEqual(time.time() - t, 2.2)
        self.assertIn("waited", p.stdout)
        self.assertIn("linked by GraphQL", p.stdout)
        self.assertEqual(self.mock.stats()["by_kind"].get("fault"), 2)
        self.assertEqual(self.mock.stats()["by_kind"].get("timeline", 0), 1)

    def test_blank_retry_after_waits_a_minute_of_backoff(self):
        # a blank Retry-After (403 or 429) is no answer: the wait is 60
        # back-off units (a minute by default; 60 x 20 ms here)
        for kind in ("secondary", "429"):
            self.mock.reset()
            self.mock.config(faults=[{"path": r"/issues\?", "kind": kind,
                                      "arg": "", "times": 1}])
            t = time.time()
            db, p = self.ok(token="t")
            self.assertGreaterEqual(time.time() - t, 1.2, kind)
            self.assertIn("waited", p.stdout)

    def test_sigterm_while_waiting_on_the_limit(self):
        self.mock.config(ratelimit={"resource": "core", "remaining": 2,
                                    "reset_in": 30})
        db = self.study()
        proc = subprocess.Popen(self.cmd(db, "acme/small"), env=base_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        # wait for the refusal that sends the fetch to wait for the
        # reset (30 s away), not for a guess at how long it takes
        deadline = time.time() + 60
        while (self.mock.stats()["by_kind"].get("limited", 0) < 1
               and time.time() < deadline and proc.poll() is None):
            time.sleep(0.05)
        self.assertGreaterEqual(self.mock.stats()["by_kind"].get("limited", 0),
                                1)
        self.assertIsNone(proc.poll())
        t = time.time()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
        self.assertLess(time.time() - t, 3)
        self.assertEqual(proc.returncode, 3, err)
        self.assertIn("interrupted", err)

    def test_next_link_to_another_host_refused(self):
        self.mock.config(page_size=3, faults=[
            {"path": r"/issues\?", "kind": "foreign_link", "times": 1}])
        db = self.study()
        p = self.fetch(db, "acme/small", token="t-secret", rc=1)
        self.assertIn("refusing to follow http://127.0.0.1:1/", p.stderr)
        self.assertNotIn("t-secret", p.stderr)

    def test_issue_gone_since_listed_is_skipped(self):
        want = self.mock.expected("acme/small")
        gone = want[1]["number"]
        self.mock.config(faults=[{"path": r"/issues/%d/timeline" % gone,
                                  "kind": "status", "arg": 410, "times": 1}])
        db = self.study()
        p = self.fetch(db, "acme/small")
        self.assertIn("1 gone since listed", p.stdout)
        self.assertEqual(sorted(n for _, n in dump(db)),
                         sorted(w["number"] for w in want if w["number"] != gone))
        self.fetch(db, "acme/small")
        self.assert_study_matches(db, "acme/small", False)

    def test_commit_lookup_refusals_mean_no_pull_request(self):
        # GitHub answers 422 "No commit found for SHA", 409 or 404 for a
        # commit it cannot place: no pull request through it, the issue
        # itself is fine
        want = self.mock.expected("acme/small")
        by_commit = [w["number"] for w in want
                     if w["kind"] in ("commit", "connected", "direct",
                                      "foreign_commit")]
        self.assertTrue(by_commit)
        for status in (422, 409, 404):
            self.mock.reset()
            self.mock.config(faults=[{"path": r"/commits/[0-9a-f]+/pulls",
                                      "kind": "status", "arg": status,
                                      "times": 1000}])
            db = self.study("commit_%d" % status)
            p = self.fetch(db, "acme/small")
            self.assertNotIn("gone", p.stdout)
            self.assertNotIn("failed", p.stdout)
            got = dump(db)
            self.assertEqual(sorted(n for _, n in got),
                             sorted(w["number"] for w in want))
            for n in by_commit:
                self.assertEqual(got[("acme/small", n)]["fixes"], [], n)
            reqs = [r["path"] for r in self.mock.ctl("/_control/requests")]
            self.assertTrue(any("/commits/" in r for r in reqs))

    def gql(self, query, variables=None, token="t"):
        req = urllib.request.Request(
            self.mock.url + "/graphql", method="POST",
            data=json.dumps({"query": query,
                             "variables": variables or {}}).encode(),
            headers={"Authorization": "Bearer " + token,
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())

    def test_mock_answers_only_queries_that_validate(self):
        n = [w for w in self.mock.expected("acme/small")
             if not w["transferred"]][0]["number"]
        good = ('query($owner: String!, $name: String!) { repository(owner: '
                '$owner, name: $name) { i1: issue(number: %d) { number } } }'
                % n)
        st, body = self.gql(good, {"owner": "acme", "name": "small"})
        self.assertEqual(st, 200)
        self.assertEqual(body["data"]["repository"]["i1"]["number"], n)
        # an unknown field, a misspelt argument, a syntax error: GitHub
        # answers errors only, never data
        for bad in (good.replace("{ number }", "{ number nonsense }"),
                    good.replace("issue(number:", "issue(numbr:"),
                    good.replace("{ number }", "{ number ")):
            st, body = self.gql(bad, {"owner": "acme", "name": "small"})
            self.assertEqual(st, 200)
            self.assertNotIn("data", body)
            self.assertTrue(body["errors"][0]["message"])
            self.assertIn("locations", body["errors"][0])
        self.assertEqual(len(self.mock.stats()["invalid_queries"]), 3)
        # a missing variable
        st, body = self.gql(good, {"owner": "acme"})
        self.assertNotIn("data", body)
        # a renamed repository answers under its old name too
        st, body = self.gql(good.replace("number: %d" % n, "number: %d" % (
            n2 := self.mock.expected("acme/renamed")[0]["number"])),
            {"owner": "acme", "name": "oldname"})
        self.assertEqual(body["data"]["repository"]["i1"]["number"], n2)

    def test_mock_rate_limits_as_github_does(self):
        # GraphQL: a 200 whose body is a RATE_LIMITED error
        self.mock.config(ratelimit={"resource": "graphql", "remaining": 0,
                                    "reset_in": 30})
        st, body = self.gql("query { viewer { login } }")
        self.assertEqual(st, 200)
        self.assertEqual(body["errors"][0]["type"], "RATE_LIMITED")
        self.assertNotIn("data", body)
        # REST: a 403 with x-ratelimit-remaining 0
        self.mock.config(ratelimit={"resource": "core", "remaining": 0,
                                    "reset_in": 30})
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(self.mock.url + "/repos/acme/small/issues")
        self.assertEqual(cm.exception.code, 403)
        self.assertEqual(cm.exception.headers["x-ratelimit-remaining"], "0")
        # a renamed repository: 301 to the /repositories/ID form
        self.mock.reset()
        req = urllib.request.Request(self.mock.url +
                                     "/repos/acme/oldname/issues?state=all")
        opener = urllib.request.build_opener(NoRedirect)
        with self.assertRaises(urllib.error.HTTPError) as cm:
            opener.open(req)
        self.assertEqual(cm.exception.code, 301)
        self.assertTrue(cm.exception.headers["Location"].endswith(
            "/repositories/1004/issues?state=all"))

    def test_renamed_repository_one_identity(self):
        want = self.mock.expected("acme/renamed")
        first = want[0]["number"]
        db = self.study()
        # an item stored under the old name before the rename was known
        src = os.path.join(self.tmp, "old.jsonl")
        with open(src, "w") as f:
            f.write(json.dumps({"repo": "acme/oldname", "number": first,
                                "title": "as imported"}) + "\n")
        p = subprocess.run([BIN, "--study", db, "import", src],
                           capture_output=True, text=True, env=base_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.fetch(db, "acme/oldname", token="t")
        self.assertIn("acme/oldname is now called acme/renamed", p.stdout)
        reqs = [r["path"] for r in self.mock.ctl("/_control/requests")]
        # one 301, then the new name for the rest of the fetch
        self.assertEqual(sum("/acme/oldname/" in r for r in reqs), 1, reqs)
        self.assertEqual(self.mock.stats()["by_kind"].get("redirect"), 1)
        self.assert_study_matches(db, "acme/renamed", False)
        self.assertEqual([k for k in dump(db) if k[0] != "acme/renamed"], [])
        # the old name still names the item, as a name or a URL
        for name in ("acme/oldname#%d" % first,
                     "https://github.com/acme/oldname/issues/%d" % first,
                     "https://github.com/acme/renamed/issues/%d#top" % first):
            p = subprocess.run([BIN, "--study", db, "items", "--format",
                                "json"], capture_output=True, text=True,
                               env=base_env())
            p = subprocess.run([BIN, "--study", db, "label", name,
                                "symptom=crash"], capture_output=True,
                               text=True, env=base_env())
            self.assertNotIn("no such item", p.stderr, name)
        # fetching by the old name again: the new name, nothing counted
        self.mock.reset()
        p = self.fetch(db, "acme/oldname", token="t")
        st = self.mock.stats()
        self.assertEqual(st["counted"], 0, st)
        self.assertEqual(st["by_kind"].get("redirect", 0), 0)
        self.assertEqual(len(dump(db)), len(want))

    def test_nul_in_githubs_text_kept_whole(self):
        self.mock.config(faults=[
            {"path": r"/issues\?", "kind": "nul", "times": 1},
            {"path": r"/pulls/\d+$", "kind": "nul", "times": 1}])
        db = self.study()
        p = self.fetch(db, "acme/small")
        self.assertIn("2 NUL characters in GitHub's text stored as U+FFFD",
                      p.stdout)
        con = sqlite3.connect(db)
        bodies = [r[0] for r in con.execute(
            "SELECT body FROM items WHERE body LIKE '\ufffd%'")]
        diffs = [r[0] for r in con.execute(
            "SELECT diff FROM fixes WHERE diff LIKE '%\ufffd%'")]
        con.close()
        self.assertEqual(len(bodies), 1)
        self.assertTrue(bodies[0].startswith("\ufffd## Describe the bug\n"))
        self.assertEqual(len(diffs), 1)
        self.assertIn("\n\ufffd", diffs[0])

    def test_empty_repository(self):
        db = self.study()
        p = self.fetch(db, "acme/empty", token="t")
        self.assertIn("0 issues seen", p.stdout)
        self.assertEqual(dump(db), {})


def tearDownModule():
    if SHARED is not None:
        SHARED.stop()
    if MEASURED:
        print("\nfetch request budget (counted requests / stored issues):")
        for k, (a, b) in sorted(MEASURED.items()):
            if k.startswith("re-fetch"):
                print("  %-48s %d counted, %d not modified" % (k, a, b))
            else:
                print("  %-48s %d / %d = %.2f" % (k, a, b, a / b))


if __name__ == "__main__":
    unittest.main()
