#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A mock of the GitHub REST and GraphQL API for bugcoder's fetch tests.

Python standard library only.  Binds 127.0.0.1 on a free port (or --port),
prints the port on the first line of stdout, and serves until killed.

Repositories are generated deterministically from a seed, with the shapes
of GitHub's official example responses (tests/fixtures/github/rest) and of
timeline events and a rate-limit answer (tests/fixtures/github/shapes); see
tests/fixtures/github/README.md:

  acme/big     several hundred issues and pull requests: bugs and others,
               open and closed, pull requests labelled bug in the issue
               list, fixes by cross-referenced merged pull requests, by
               `closed` events with a commit, by `connected` events, two
               fixes, unmerged and foreign cross-references, direct
               commits, unfixed issues, deleted (null) users, an issue with
               130 comments, a transferred issue (301), a diff too large
               (406, 150 files);
  acme/small   a dozen issues of the same kinds, for fault tests;
  acme/empty   no issues;
  acme/renamed a few dozen issues, also reached under its old name
               acme/oldname: every REST URL there answers 301 to the
               /repositories/ID form, GraphQL resolves the old name;
  other/lib    pull requests only: the first closed bug without a fix of
               each acme repository is closed by a commit of other/lib,
               whose pull request there is the fix.
The big diff's file list holds renamed, copied and binary files (a
renamed or binary file has no patch).

Endpoints: GET /repos/O/R/issues (and the /repositories/ID/issues form its
Link headers use), /repos/O/R/issues/N, .../issues/N/timeline,
.../issues/N/comments, /repos/O/R/pulls/N (JSON, or the diff with Accept:
application/vnd.github.diff), .../pulls/N/files, .../commits/SHA/pulls,
POST /graphql (the subset bugcoder asks: aliased `issue(number:)` fields).
A GraphQL query is answered only when it validates against GitHub's
published schema (tests/fixtures/github/graphql/schema.graphql), checked
with graphql-core 3 when Python has it, else with graphql-js under node
(Debian's node-graphql); otherwise the answer is GitHub's: a 200 whose
body is only {"errors": [...]}, and the query is kept in
/_control/stats "invalid_queries".  The server does not start, and says why on standard error, when a file
of tests/fixtures/github is missing or no validator is installed.
Rate limits are answered per API as
GitHub does: REST with 403 and x-ratelimit-remaining 0, GraphQL with a
200 whose body is a RATE_LIMITED error.
Every answer carries an ETag; If-None-Match on an unchanged answer gives
304, which does not count.  x-ratelimit-* headers are kept per resource.

Control (not counted, not recorded):
  GET  /_control/stats       {"counted", "not_modified", "by_kind", ...}
  GET  /_control/requests    every request's method, path and headers
  POST /_control/reset       zero the counts and the log, drop faults
  POST /_control/config      {"faults": [...], "ratelimit": {...},
                              "page_size": N}
  POST /_control/touch       {"repo", "number"}: add a comment to an issue
  GET  /_control/expected?repo=R&require_fix=0|1&state=S&label=L
                             the items a correct fetch stores
  GET  /_control/pulls?repo=R every pull request, "linked" when an issue
                             names it

A fault is {"path": regex, "method": "GET", "kind": K, "times": 1,
"skip": 0, "arg": ..., "body": regex}, where "body" (optional) must also
match the request's body (a GraphQL query); kinds: status (arg = HTTP status), reset
(connection reset mid-body), truncate (short body, then close), badjson,
slow (arg = seconds before answering), secondary (403 with retry-after:
arg), secondary_noretry (403, secondary message, no retry-after),
ratelimit403 (403 with x-ratelimit-remaining 0, reset arg seconds
ahead), 429 (429 with retry-after: arg; arg "" sends it blank, as
"secondary" does too), gql_ratelimited (GraphQL's 200 with a RATE_LIMITED
error, reset arg seconds ahead), gql_secondary (a GraphQL 200 whose
error is a secondary limit, no retry-after), foreign_link (a Link rel="next" to
another origin), nul (a \u0000 opening the first "body" of a JSON answer,
a NUL byte after the first line of a diff).  "ratelimit": {"resource": "core", "remaining": N, "reset_in": S}
lets N more counted requests through, then refuses with 403 until the
reset.  Faults can also be given on the command line as --fault JSON.
"""
import argparse
import calendar
import copy
import hashlib
import http.server
import io
import json
import os
import random
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
GITHUB = os.path.join(HERE, "fixtures", "github")
EXAMPLES = os.path.join(GITHUB, "rest")
SHAPES_DIR = os.path.join(GITHUB, "shapes")
SCHEMA = os.path.join(GITHUB, "graphql", "schema.graphql")


class MissingFixture(Exception):
    pass


BASE_TIME = 1672531200  # 2023-01-01T00:00:00Z


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_iso(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


# ---- shapes from GitHub's examples and our own ---------------------------

def _load(path):
    """A JSON file of tests/fixtures/github; a missing or broken one is an
    error (the repository holds them all), never a quiet fallback."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise MissingFixture("%s: %s" % (os.path.relpath(path, HERE),
                                          getattr(e, "strerror", None) or e))


class Shapes:
    """Templates: one of each object, copied and filled in."""

    def __init__(self):
        self.issue = _load(os.path.join(EXAMPLES,
                                        "issues-list-for-repo.json"))[0]
        self.user = copy.deepcopy(self.issue["user"])
        self.label = copy.deepcopy(self.issue["labels"][0])
        self.comment = _load(os.path.join(EXAMPLES,
                                          "issues-list-comments.json"))[0]
        self.pull = _load(os.path.join(EXAMPLES, "pulls-get.json"))
        self.file = _load(os.path.join(EXAMPLES, "pulls-list-files.json"))[0]
        ev = _load(os.path.join(SHAPES_DIR, "timeline-events.json"))
        self.xref = ev["cross-referenced"]
        self.closed = ev["closed"]
        self.commented = ev["commented"]
        self.labeled = ev["labeled"]
        self.rate_body = {"message": "API rate limit exceeded for user ID 1.",
                          "documentation_url": "https://docs.github.com/rest/"
                          "overview/resources-in-the-rest-api#rate-limiting"}
        self.secondary_body = _load(os.path.join(SHAPES_DIR,
                                                 "secondary-rate-limit.json"))


SHAPES = None   # loaded by main(), which reports a missing file

WORDS = ("hang crash nan oom deadlock gradient checkpoint zero stage "
         "optimizer fp16 bf16 allreduce tensor shape mismatch loader "
         "pipeline rank cuda kernel offload scheduler tokenizer").split()
FILES = ["runtime/engine.py", "runtime/zero/stage3.py", "ops/adam.py",
         "utils/logging.py", "comm/comm.py", "csrc/kernel.cu",
         "pipe/schedule.py", "launcher/runner.py", "README.md"]
PEOPLE = ["alice", "bob", "carol", "dave", "erin", "frank", "grace",
          "heidi", "ivan", "judy"]


def sha_of(*parts):
    return hashlib.sha1("/".join(str(p) for p in parts).encode()).hexdigest()


class Repo:
    def __init__(self, full, rid, nissues, seed, special=(), other=None):
        self.full = full
        self.other = other   # the Repo that holds foreign closing commits
        self.owner, self.name = full.split("/")
        self.id = rid
        self.issues = {}     # number -> model dict
        self.prs = {}        # number -> model dict
        self.commits = {}    # sha -> [pr numbers]
        self.rng = random.Random(seed ^ zlib.crc32(full.encode()))
        self._next = 1
        self._generate(nissues, list(special))

    # -- generation ---------------------------------------------------------
    def _num(self):
        n = self._next
        self._next += 1
        return n

    def _who(self, p_null=0.05):
        if self.rng.random() < p_null:
            return None
        return self.rng.choice(PEOPLE)

    def _words(self, n):
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def _patch(self, path, big=False):
        rng = self.rng
        start = rng.randint(1, 400)
        ctx = ["    x = %d" % rng.randint(0, 99), "    return x"]
        dels = ["    y = %s" % rng.choice(WORDS)
                for _ in range(rng.randint(0, 3))]
        adds = ["    y = %s(%d)" % (rng.choice(WORDS), i)
                for i in range(rng.randint(1, 4))]
        lines = [" " + ctx[0]] + ["-" + d.lstrip("-") for d in dels] + \
                ["+" + a for a in adds] + [" " + ctx[1]]
        head = "@@ -%d,%d +%d,%d @@ def %s():" % (
            start, len(dels) + 2, start, len(adds) + 2, rng.choice(WORDS))
        return head + "\n" + "\n".join(lines), len(adds), len(dels)

    def _pr(self, issue, merged, keyword, at, nfiles=None, foreign=False):
        n = self._num()
        rng = self.rng
        files = []
        nfiles = nfiles or rng.randint(1, 3)
        paths = rng.sample(FILES, min(nfiles, len(FILES))) if nfiles <= len(FILES) \
            else ["src/mod%03d.py" % i for i in range(nfiles)]
        for i, path in enumerate(paths):
            patch, a, d = self._patch(path)
            status = "modified"
            if i == 1 and rng.random() < 0.2:
                status = "added"
            files.append({"filename": path, "status": status,
                          "additions": a, "deletions": d, "patch": patch})
        body = ("Fixes #%d.\n\n" % issue if keyword else "") + \
            "This changes %s.\r\nTested with %s." % (self._words(4), self._words(2))
        pr = {"number": n, "title": "Fix %s" % self._words(3), "body": body,
              "user": self._who(), "created_at": iso(at - 3600 * 5),
              "merged_at": iso(at) if merged else None,
              "closed_at": iso(at), "merged": merged,
              "merge_commit_sha": sha_of(self.full, "merge", n),
              "files": files, "labels": ["bug"] if rng.random() < 0.3 else [],
              "too_large": False, "foreign": foreign}
        pr["additions"] = sum(f["additions"] for f in files)
        pr["deletions"] = sum(f["deletions"] for f in files)
        pr["changed_files"] = len(files)
        if not foreign:
            self.prs[n] = pr
            self.commits[pr["merge_commit_sha"]] = [n] if merged else []
        return pr

    def _generate(self, nissues, special):
        rng = self.rng
        t = BASE_TIME
        kinds = (["xref"] * 42 + ["commit"] * 8 + ["connected"] * 8 +
                 ["two"] * 5 + ["xref_unmerged"] * 5 + ["direct"] * 5 +
                 ["other_repo"] * 4 + ["none"] * 23)
        for i in range(nissues):
            t += rng.randint(3600, 86400 * 2)
            # a standalone pull request now and then
            if rng.random() < 0.15:
                pr = self._pr(0, rng.random() < 0.7, False, t)
                pr["created_at"] = iso(t)
                t += 600
            n = self._num()
            spec = special.pop(0) if special and rng.random() < 0.5 else None
            bug = rng.random() < 0.65 or spec is not None
            closed = rng.random() < 0.8 or spec is not None
            kind = rng.choice(kinds) if closed else "none"
            if spec in ("transferred", "big_diff", "many_comments"):
                kind = "xref"
            labels = (["bug"] if bug else [rng.choice(
                ["enhancement", "question", "documentation"])])
            if rng.random() < 0.3:
                labels.append(rng.choice(["training", "inference", "p1"]))
            created = t
            closed_at = created + rng.randint(600, 86400 * 40) if closed else None
            ncom = 0 if rng.random() < 0.3 else rng.randint(1, 5)
            if spec == "many_comments":
                ncom = 130
            comments = []
            ct = created
            for k in range(ncom):
                ct += rng.randint(60, 3600)
                comments.append({"user": self._who(0.08), "created_at": iso(ct),
                                 "body": "Comment %d: %s\r\n```\n%s\n```" % (
                                     k, self._words(5), self._words(3)),
                                 "id": int(sha_of(self.full, n, k)[:8], 16)})
            issue = {"number": n, "title": "%s when %s" % (
                         self._words(2).capitalize(), self._words(3)),
                     "body": "## Describe the bug\n%s\n\n```\nTraceback: %s\n```" % (
                         self._words(12), self._words(4)) if rng.random() < 0.95 else None,
                     "user": self._who(), "labels": labels,
                     "state": "closed" if closed else "open",
                     "state_reason": (("not_planned" if kind == "none" and
                                       rng.random() < 0.5 else "completed")
                                      if closed else None),
                     "created_at": iso(created),
                     "closed_at": iso(closed_at) if closed_at else None,
                     "comments": comments, "kind": kind, "fixes": [],
                     "xrefs": [], "closing_commit": None, "connected": None,
                     "transferred": spec == "transferred", "extra": 0}
            self.issues[n] = issue
            if spec in ("transferred", "big_diff", "many_comments"):
                pass
            fix_at = (closed_at or created) - 120
            if kind in ("xref", "two"):
                pr = self._pr(n, True, True, fix_at,
                              nfiles=150 if spec == "big_diff" else None)
                if spec == "big_diff":
                    pr["too_large"] = True
                    # what the file list says of renames, copies and
                    # binary files
                    fs = pr["files"]
                    fs[3].update(status="renamed",
                                 previous_filename="src/old003.py")
                    fs[4].update(status="copied",
                                 previous_filename="src/mod000.py")
                    fs[5].update(status="added", filename="docs/logo.png",
                                 additions=0, deletions=0, patch=None)
                    fs[6].update(status="renamed", additions=0, deletions=0,
                                 previous_filename="src/moved006.py",
                                 patch=None)
                    pr["additions"] = sum(f["additions"] for f in fs)
                    pr["deletions"] = sum(f["deletions"] for f in fs)
                issue["xrefs"].append(pr["number"])
                issue["fixes"].append(pr["number"])
                issue["closing_commit"] = pr["merge_commit_sha"]
                issue["closed_by_pr"] = pr["number"]
                if kind == "two":
                    pr2 = self._pr(n, True, False, fix_at - 7200)
                    issue["xrefs"].append(pr2["number"])
                    issue["fixes"].append(pr2["number"])
            elif kind == "commit":
                pr = self._pr(n, True, False, fix_at)
                issue["fixes"].append(pr["number"])
                issue["closing_commit"] = pr["merge_commit_sha"]
                issue["closer_commit_pr"] = pr["number"]
            elif kind == "connected":
                pr = self._pr(n, True, False, fix_at)
                issue["fixes"].append(pr["number"])
                issue["connected"] = pr["number"]
                issue["closing_commit"] = pr["merge_commit_sha"]
                issue["closed_by_pr"] = pr["number"]
            elif kind == "xref_unmerged":
                pr = self._pr(n, False, True, fix_at)
                issue["xrefs"].append(pr["number"])
            elif kind == "direct":
                sha = sha_of(self.full, "direct", n)
                self.commits[sha] = []
                issue["closing_commit"] = sha
            elif kind == "other_repo":
                pr = self._pr(n, True, False, fix_at, foreign=True)
                issue["foreign"] = pr
            t = max(t, (closed_at or created))
        if self.other:
            # the first closed bug without a fix is closed by a commit of
            # another repository instead, whose pull request there is
            # the fix (done after the rest, so the rest stays as it was)
            for n in sorted(self.issues):
                m = self.issues[n]
                if m["kind"] == "none" and m["state"] == "closed" and \
                        "bug" in m["labels"]:
                    fix_at = parse_iso(m["closed_at"]) - 120
                    pr = self.other._pr(0, True, False, fix_at)
                    m.update(kind="foreign_commit", foreign_fix=pr["number"],
                             closing_commit=pr["merge_commit_sha"],
                             state_reason="completed")
                    break
        # the first issue fixed by one cross-referenced pull request also
        # gets its backport to a release branch: the same change again
        for n in sorted(self.issues):
            m = self.issues[n]
            if m["kind"] == "xref" and len(m["fixes"]) == 1 and \
                    "bug" in m["labels"] and not m["transferred"] and \
                    not self.prs[m["fixes"][0]]["too_large"]:
                orig = self.prs[m["fixes"][0]]
                pr = self._pr(n, True, False,
                              parse_iso(orig["merged_at"]) + 3600)
                pr["title"] = "[backport] " + orig["title"]
                pr["files"] = copy.deepcopy(orig["files"])
                for f in pr["files"]:   # elsewhere in the file there
                    f["patch"] = re.sub(r"^@@ -(\d+),(\d+) \+(\d+),",
                                        lambda g: "@@ -%d,%s +%d," % (
                                            int(g.group(1)) + 40, g.group(2),
                                            int(g.group(3)) + 40),
                                        f["patch"])
                pr["additions"] = orig["additions"]
                pr["deletions"] = orig["deletions"]
                pr["changed_files"] = orig["changed_files"]
                pr["backport_of"] = orig["number"]
                m["xrefs"].append(pr["number"])
                m["fixes"].append(pr["number"])
                m["kind"] = "backport"
                break
        for n, issue in self.issues.items():
            self._finish_times(issue)

    def _finish_times(self, issue):
        last = issue["closed_at"] or issue["created_at"]
        for c in issue["comments"]:
            last = max(last, c["created_at"])
        issue["updated_at"] = iso(parse_iso(last) + 30)

    # -- API objects ----------------------------------------------------------
    def api(self, base):
        return base + "/repos/" + self.full

    def user_obj(self, login, base):
        if login is None:
            return None
        u = copy.deepcopy(SHAPES.user)
        u["login"] = login
        u["id"] = zlib.crc32(login.encode())
        for k in list(u):
            if k.endswith("_url") and isinstance(u[k], str):
                u[k] = base + "/users/" + login
        u["html_url"] = "https://github.com/" + login
        return u

    def label_obj(self, name, base):
        lab = copy.deepcopy(SHAPES.label)
        lab["name"] = name
        lab["id"] = zlib.crc32(name.encode())
        lab["url"] = self.api(base) + "/labels/" + name
        return lab

    def issue_obj(self, n, base):
        if n in self.issues:
            m = self.issues[n]
            pr = None
        else:
            pr = self.prs[n]
            m = {"number": n, "title": pr["title"], "body": pr["body"],
                 "user": pr["user"], "labels": pr["labels"],
                 "state": "closed" if pr["closed_at"] else "open",
                 "state_reason": None, "created_at": pr["created_at"],
                 "closed_at": pr["closed_at"], "comments": [],
                 "updated_at": pr["closed_at"] or pr["created_at"],
                 "extra": 0}
        o = copy.deepcopy(SHAPES.issue)
        api = self.api(base)
        o.update({
            "id": 1000000 + n, "node_id": "I_%d" % n,
            "url": "%s/issues/%d" % (api, n),
            "repository_url": api,
            "labels_url": "%s/issues/%d/labels{/name}" % (api, n),
            "comments_url": "%s/issues/%d/comments" % (api, n),
            "events_url": "%s/issues/%d/events" % (api, n),
            "timeline_url": "%s/issues/%d/timeline" % (api, n),
            "html_url": "https://github.com/%s/%s/%d" % (
                self.full, "pull" if pr else "issues", n),
            "number": n, "title": m["title"], "body": m["body"],
            "user": self.user_obj(m["user"], base),
            "labels": [self.label_obj(x, base) for x in m["labels"]],
            "state": m["state"], "state_reason": m["state_reason"],
            "comments": len(m["comments"]) + m.get("extra", 0),
            "created_at": m["created_at"], "updated_at": m["updated_at"],
            "closed_at": m["closed_at"], "assignee": None, "assignees": [],
            "milestone": None, "locked": False, "active_lock_reason": None,
            "closed_by": None,
        })
        if pr:
            o["pull_request"] = {
                "url": "%s/pulls/%d" % (api, n),
                "html_url": "https://github.com/%s/pull/%d" % (self.full, n),
                "diff_url": "https://github.com/%s/pull/%d.diff" % (self.full, n),
                "patch_url": "https://github.com/%s/pull/%d.patch" % (self.full, n),
                "merged_at": pr["merged_at"]}
        else:
            o.pop("pull_request", None)
        return o

    def pr_issue_obj(self, pr, base, full=None):
        """A pull request as the source of a cross-reference."""
        full = full or self.full
        api = base + "/repos/" + full
        n = pr["number"]
        return {
            "url": "%s/issues/%d" % (api, n), "repository_url": api,
            "html_url": "https://github.com/%s/pull/%d" % (full, n),
            "id": 2000000 + n, "number": n, "title": pr["title"],
            "user": self.user_obj(pr["user"], base), "labels": [],
            "state": "closed" if pr["closed_at"] else "open",
            "locked": False, "comments": 0, "created_at": pr["created_at"],
            "updated_at": pr["closed_at"], "closed_at": pr["closed_at"],
            "author_association": "CONTRIBUTOR", "body": pr["body"],
            "repository": {"id": self.id if full == self.full else 999,
                           "name": full.split("/")[1], "full_name": full,
                           "private": False, "url": api,
                           "html_url": "https://github.com/" + full},
            "pull_request": {"url": "%s/pulls/%d" % (api, n),
                             "html_url": "https://github.com/%s/pull/%d" % (full, n),
                             "merged_at": pr["merged_at"]},
            "performed_via_github_app": None, "state_reason": None}

    def timeline(self, n, base):
        m = self.issues[n]
        ev = []
        t0 = m["created_at"]
        lab = copy.deepcopy(SHAPES.labeled)
        lab.update({"id": 3000000 + n, "created_at": t0,
                    "actor": self.user_obj("alice", base),
                    "label": {"name": m["labels"][0], "color": "f29513"}})
        lab["url"] = self.api(base) + "/issues/events/%d" % lab["id"]
        ev.append(lab)
        for c in m["comments"]:
            e = copy.deepcopy(SHAPES.commented)
            e.update({"id": c["id"], "body": c["body"],
                      "user": self.user_obj(c["user"], base),
                      "actor": self.user_obj(c["user"], base),
                      "created_at": c["created_at"],
                      "updated_at": c["created_at"],
                      "url": self.api(base) + "/issues/comments/%d" % c["id"],
                      "html_url": "https://github.com/%s/issues/%d#issuecomment-%d"
                      % (self.full, n, c["id"])})
            ev.append(e)
        for p in m["xrefs"]:
            pr = self.prs[p]
            e = copy.deepcopy(SHAPES.xref)
            e.update({"actor": self.user_obj(pr["user"], base),
                      "created_at": pr["created_at"],
                      "updated_at": pr["created_at"],
                      "source": {"type": "issue",
                                 "issue": self.pr_issue_obj(pr, base)}})
            if pr.get("backport_of"):
                # a cross-reference without the merged_at key at all
                del e["source"]["issue"]["pull_request"]["merged_at"]
            ev.append(e)
        if m.get("foreign"):
            pr = m["foreign"]
            e = copy.deepcopy(SHAPES.xref)
            e.update({"actor": self.user_obj(pr["user"], base),
                      "created_at": pr["created_at"],
                      "updated_at": pr["created_at"],
                      "source": {"type": "issue", "issue": self.pr_issue_obj(
                          pr, base, "other/lib")}})
            ev.append(e)
        if m["connected"]:
            e = copy.deepcopy(SHAPES.closed)
            e.update({"id": 4000000 + n, "event": "connected",
                      "commit_id": None, "commit_url": None,
                      "created_at": self.prs[m["connected"]]["created_at"],
                      "actor": self.user_obj("bob", base)})
            e.pop("state_reason", None)
            ev.append(e)
        if m["closed_at"]:
            e = copy.deepcopy(SHAPES.closed)
            sha = m["closing_commit"]
            holder = self.other if m.get("foreign_fix") else self
            e.update({"id": 5000000 + n, "event": "closed",
                      "commit_id": sha,
                      "commit_url": (holder.api(base) + "/commits/" + sha)
                      if sha else None,
                      "created_at": m["closed_at"],
                      "state_reason": m["state_reason"],
                      "actor": self.user_obj("carol", base)})
            e["url"] = self.api(base) + "/issues/events/%d" % e["id"]
            ev.append(e)
        ev.sort(key=lambda x: x.get("created_at") or "")
        return ev

    def pull_obj(self, n, base):
        pr = self.prs[n]
        o = copy.deepcopy(SHAPES.pull)
        api = self.api(base)
        o.update({"url": "%s/pulls/%d" % (api, n), "id": 2000000 + n,
                  "html_url": "https://github.com/%s/pull/%d" % (self.full, n),
                  "number": n, "state": "closed" if pr["closed_at"] else "open",
                  "title": pr["title"], "body": pr["body"],
                  "user": self.user_obj(pr["user"], base),
                  "created_at": pr["created_at"], "updated_at": pr["closed_at"],
                  "closed_at": pr["closed_at"], "merged_at": pr["merged_at"],
                  "merge_commit_sha": pr["merge_commit_sha"],
                  "merged": pr["merged"], "additions": pr["additions"],
                  "deletions": pr["deletions"],
                  "changed_files": pr["changed_files"], "labels": []})
        return o

    def diff(self, n):
        pr = self.prs[n]
        out = []
        for f in pr["files"]:
            name = f["filename"]
            out.append("diff --git a/%s b/%s\n" % (name, name))
            if f["status"] == "added":
                out.append("new file mode 100644\nindex 0000000..%s\n--- /dev/null\n"
                           % sha_of(name)[:7])
            else:
                out.append("index %s..%s 100644\n--- a/%s\n" % (
                    sha_of(name, 1)[:7], sha_of(name, 2)[:7], name))
            out.append("+++ b/%s\n" % name)
            out.append(f["patch"] + "\n")
        return "".join(out)

    def file_objs(self, n, base):
        out = []
        for f in self.prs[n]["files"]:
            o = copy.deepcopy(SHAPES.file)
            o.update({"sha": sha_of(f["filename"], 2), "filename": f["filename"],
                      "status": f["status"], "additions": f["additions"],
                      "deletions": f["deletions"],
                      "changes": f["additions"] + f["deletions"],
                      "patch": f["patch"],
                      "blob_url": "https://github.com/%s/blob/x/%s" % (
                          self.full, f["filename"]),
                      "raw_url": "https://github.com/%s/raw/x/%s" % (
                          self.full, f["filename"]),
                      "contents_url": "%s/contents/%s" % (self.api(base),
                                                          f["filename"])})
            o.pop("previous_filename", None)
            if f.get("previous_filename"):
                o["previous_filename"] = f["previous_filename"]
            if f["patch"] is None:
                o.pop("patch", None)   # binary, or a change without lines
            out.append(o)
        return out

    # -- GraphQL --------------------------------------------------------------
    def gql_pr(self, pr, full=None):
        full = full or self.full
        return {"number": pr["number"], "title": pr["title"],
                "body": pr["body"],
                "url": "https://github.com/%s/pull/%d" % (full, pr["number"]),
                "merged": pr["merged"], "mergedAt": pr["merged_at"],
                "additions": pr["additions"], "deletions": pr["deletions"],
                "changedFiles": pr["changed_files"],
                "repository": {"nameWithOwner": full}}

    def gql_issue(self, n):
        m = self.issues[n]
        nodes = []
        closed_by = []
        for p in m["xrefs"]:
            pr = self.prs[p]
            nodes.append({"__typename": "CrossReferencedEvent",
                          "source": dict(self.gql_pr(pr),
                                         __typename="PullRequest")})
            if "Fixes #" in pr["body"]:
                closed_by.append(self.gql_pr(pr))
        if m.get("foreign"):
            nodes.append({"__typename": "CrossReferencedEvent",
                          "source": dict(self.gql_pr(m["foreign"], "other/lib"),
                                         __typename="PullRequest")})
        if m["connected"]:
            pr = self.prs[m["connected"]]
            nodes.append({"__typename": "ConnectedEvent",
                          "subject": dict(self.gql_pr(pr),
                                          __typename="PullRequest")})
            closed_by.append(self.gql_pr(pr))
        if m["closed_at"]:
            closer = None
            if m.get("closed_by_pr"):
                closer = dict(self.gql_pr(self.prs[m["closed_by_pr"]]),
                              __typename="PullRequest")
            elif m["closing_commit"]:
                holder = self.other if m.get("foreign_fix") else self
                prs = holder.commits.get(m["closing_commit"], [])
                closer = {"__typename": "Commit", "oid": m["closing_commit"],
                          "repository": {"nameWithOwner": holder.full},
                          "associatedPullRequests": {
                              "pageInfo": {"hasNextPage": False},
                              "nodes": [holder.gql_pr(holder.prs[p])
                                        for p in prs]}}
            nodes.append({"__typename": "ClosedEvent", "closer": closer})
        comments = [{"author": {"login": c["user"]} if c["user"] else None,
                     "createdAt": c["created_at"], "body": c["body"]}
                    for c in m["comments"]]
        return {"number": n,
                "comments": {"totalCount": len(comments), "nodes": comments[:100]},
                "closedByPullRequestsReferences": {
                    "pageInfo": {"hasNextPage": False}, "nodes": closed_by},
                "timelineItems": {"pageInfo": {"hasNextPage": False},
                                  "nodes": nodes}}

    # -- what a correct fetch stores -----------------------------------------
    def expected(self, require_fix, state="closed", label="bug"):
        out = []
        for n in sorted(self.issues):
            m = self.issues[n]
            if state != "all" and m["state"] != state:
                continue
            if label and label not in m["labels"]:
                continue
            refs = [(self, p) for p in sorted(m["fixes"])]
            if m.get("foreign_fix"):
                refs.append((self.other, m["foreign_fix"]))
            if require_fix and not refs:
                continue
            fixes = []
            for holder, p in refs:
                pr = holder.prs[p]
                rep = None
                if pr.get("backport_of"):
                    rep = [r[1] for r in refs].index(pr["backport_of"])
                fixes.append({"number": p, "title": pr["title"],
                              "body": pr["body"],
                              "repo": holder.full,
                              "url": "https://github.com/%s/pull/%d" % (holder.full, p),
                              "merged_at": pr["merged_at"],
                              "additions": pr["additions"],
                              "deletions": pr["deletions"],
                              "changed_files": pr["changed_files"],
                              "diff": None if pr["too_large"] else holder.diff(p),
                              "patches": [f["patch"] for f in pr["files"]
                                          if f["patch"] is not None],
                              "files": [dict(f) for f in pr["files"]],
                              "repeats": rep,
                              "diff_partial": 1 if pr["too_large"] else 0})
            out.append({"number": n, "title": m["title"], "body": m["body"],
                        "author": m["user"], "labels": m["labels"],
                        "state": m["state"], "state_reason": m["state_reason"],
                        "created_at": m["created_at"],
                        "closed_at": m["closed_at"],
                        "url": "https://github.com/%s/issues/%d" % (self.full, n),
                        "comment_count": len(m["comments"]),
                        "comments": [{"author": c["user"],
                                      "created_at": c["created_at"],
                                      "body": c["body"]} for c in m["comments"]],
                        "fixes": fixes, "kind": m["kind"],
                        "closing_commit": m["closing_commit"],
                        "transferred": m["transferred"]})
        return out


def build_repos(seed):
    repos = {}
    other = Repo("other/lib", 2001, 0, seed)
    big = Repo("acme/big", 1001, 420, seed,
               special=["many_comments", "transferred", "big_diff"],
               other=other)
    small = Repo("acme/small", 1002, 14, seed + 1,
                 special=["transferred", "big_diff"], other=other)
    empty = Repo("acme/empty", 1003, 0, seed)
    renamed = Repo("acme/renamed", 1004, 30, seed + 2, other=other)
    for r in (big, small, empty, renamed, other):
        repos[r.full.lower()] = r
    return repos


# old names of renamed repositories: every URL under them answers 301 to
# the /repositories/ID form, as GitHub does
RENAMED = {"acme/oldname": "acme/renamed"}

GQL_RATE_LIMITED = {"errors": [{
    "type": "RATE_LIMITED", "code": "graphql_rate_limit",
    "message": "API rate limit already exceeded for user ID 1."}]}


# ---- GraphQL validation -------------------------------------------------------

NODE_VALIDATOR = r'''
const path = require("path");
let g;
for (const p of ["graphql", "/usr/share/nodejs/graphql",
                 "/usr/lib/nodejs/graphql", "/usr/local/lib/node_modules/graphql"]) {
  try { g = require(p); break; } catch (e) {}
}
if (!g) { process.stdout.write("NO-GRAPHQL\n"); process.exit(1); }
const schema = g.buildSchema(require("fs").readFileSync(process.argv[1], "utf8"),
                             {assumeValidSDL: true});
process.stdout.write("READY\n");
require("readline").createInterface({input: process.stdin}).on("line", (l) => {
  let errs;
  try {
    errs = g.validate(schema, g.parse(JSON.parse(l)));
  } catch (e) { errs = [e]; }
  process.stdout.write(JSON.stringify(errs.map((e) => ({
    message: e.message, locations: e.locations || []}))) + "\n");
});
'''


NODE_PROBE = r'''
for (const p of ["graphql", "/usr/share/nodejs/graphql",
                 "/usr/lib/nodejs/graphql", "/usr/local/lib/node_modules/graphql"]) {
  try { require(p); process.exit(0); } catch (e) {}
}
process.exit(1);
'''


def validator_missing():
    """None when a GraphQL validator is here, else what to install."""
    try:
        import graphql
        if hasattr(graphql, "build_schema"):
            return None
    except ImportError:
        pass
    import subprocess
    try:
        if subprocess.run(["node", "-e", NODE_PROBE],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return None
    except OSError:
        pass
    return ("no GraphQL validator: neither graphql-core 3 for this Python "
            "nor graphql-js under node (Debian: node-graphql): run "
            "make test-deps")


class Validator:
    """Checks a GraphQL document against GitHub's published schema, with
    graphql-core 3 when Python has it, else graphql-js under node (Debian's
    node-graphql).  The schema takes a second or two to load, so loading
    starts at once, in the background."""

    def __init__(self, path):
        self.path = path
        self.ready = threading.Event()
        self.lock = threading.Lock()
        self.schema = self.node = None
        self.failure = None
        threading.Thread(target=self._load, daemon=True).start()

    def _load(self):
        try:
            try:
                import graphql
                if not hasattr(graphql, "build_schema"):
                    raise ImportError("graphql-core 3 or later is needed")
                with open(self.path, encoding="utf-8") as f:
                    self.schema = graphql.build_schema(f.read(),
                                                       assume_valid_sdl=True)
                self.gql = graphql
            except ImportError:
                import subprocess
                self.node = subprocess.Popen(
                    ["node", "-e", NODE_VALIDATOR, self.path],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL, text=True)
                line = self.node.stdout.readline().strip()
                if line != "READY":
                    raise RuntimeError("node has no graphql module")
        except Exception as e:   # reported on every query
            self.failure = "no GraphQL validator: %s" % e
            sys.stderr.write("mock_github: %s\n" % self.failure)
            sys.stderr.flush()
        self.ready.set()

    def errors(self, query):
        """GitHub's error objects for `query`; [] when it is valid."""
        self.ready.wait(60)
        if self.failure:
            raise RuntimeError(self.failure)
        if self.schema is not None:
            try:
                doc = self.gql.parse(query)
            except self.gql.GraphQLError as e:
                return [self._err(e.message, e.locations)]
            return [self._err(e.message, e.locations)
                    for e in self.gql.validate(self.schema, doc)]
        with self.lock:
            self.node.stdin.write(json.dumps(query) + "\n")
            self.node.stdin.flush()
            out = json.loads(self.node.stdout.readline())
        return [self._err(e["message"], e["locations"]) for e in out]

    @staticmethod
    def _err(message, locations):
        locs = []
        for l in locations or []:
            if isinstance(l, dict):
                locs.append({"line": l["line"], "column": l["column"]})
            else:
                locs.append({"line": l.line, "column": l.column})
        return {"message": message, "locations": locs,
                "extensions": {"code": "graphqlValidation"}}


# ---- the server -------------------------------------------------------------

class State:
    def __init__(self, seed):
        self.lock = threading.Lock()
        # requests being answered (not control ones), for reset
        self.idle = threading.Condition()
        self.inflight = 0
        self.repos = build_repos(seed)
        self.by_id = {r.id: r for r in self.repos.values()}
        self.reset()

    def reset(self):
        self.counted = 0
        self.not_modified = 0
        self.by_kind = {}
        self.log = []
        self.faults = []
        self.invalid_queries = []
        self.page_size = None
        now = int(time.time())
        self.rates = {r: {"limit": 5000, "remaining": 5000, "reset": now + 3600}
                      for r in ("core", "graphql")}


def etag_of(body):
    return 'W/"%s"' % hashlib.sha256(body).hexdigest()[:40]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GitHub.com"
    sys_version = ""

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        # headers and body go out in separate writes: without this, Nagle
        # and delayed ACKs add 40 ms to every exchange
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    @property
    def st(self):
        return self.server.state

    # -- plumbing -------------------------------------------------------------
    def base(self):
        host = self.headers.get("Host") or "127.0.0.1:%d" % self.server.server_port
        return "http://" + host

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send(self, status, body=b"", ctype="application/json; charset=utf-8",
             headers=None, kind=None, resource="core", counted=True):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        st = self.st
        with st.lock:
            rate = st.rates[resource]
            now = int(time.time())
            if now >= rate["reset"]:
                rate["remaining"] = rate["limit"]
                rate["reset"] = now + 3600
            if counted:
                st.counted += 1
                if kind:
                    st.by_kind[kind] = st.by_kind.get(kind, 0) + 1
                if status < 400 and rate["remaining"] > 0:
                    rate["remaining"] -= 1
            else:
                st.not_modified += 1
            rl = dict(rate)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-RateLimit-Limit", str(rl["limit"]))
        self.send_header("X-RateLimit-Remaining", str(rl["remaining"]))
        self.send_header("X-RateLimit-Reset", str(rl["reset"]))
        self.send_header("X-RateLimit-Used", str(rl["limit"] - rl["remaining"]))
        self.send_header("X-RateLimit-Resource", resource)
        self.send_header("X-GitHub-Api-Version-Selected", "2022-11-28")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if status != 304 and self.command != "HEAD":
            self.wfile.write(body)

    def send_cached(self, body, ctype, headers=None, kind=None,
                    resource="core"):
        """200 with an ETag, or 304 when the client has it."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        tag = etag_of(body + ctype.encode())
        if self.headers.get("If-None-Match") == tag:
            h = {"ETag": tag, "Cache-Control": "private, max-age=60, s-maxage=60"}
            self.send(304, b"", ctype, h, kind, resource, counted=False)
            return
        h = {"ETag": tag, "Cache-Control": "private, max-age=60, s-maxage=60",
             "Vary": "Accept, Authorization, Cookie, X-GitHub-OTP"}
        h.update(headers or {})
        fault = self.fault
        if fault and fault["kind"] in ("reset", "truncate", "badjson"):
            self.broken(fault["kind"], body, ctype, h, kind, resource)
            return
        if fault and fault["kind"] == "nul":
            # a \u0000 at the start of the first "body" string (JSON), or
            # a NUL byte after the first line (a diff)
            if ctype.startswith("application/json"):
                body = body.replace(b'"body": "', b'"body": "\\u0000', 1)
            else:
                body = body.replace(b"\n", b"\n\0", 1)
        self.send(200, body, ctype, h, kind, resource)

    def broken(self, how, body, ctype, h, kind, resource):
        with self.st.lock:
            self.st.counted += 1
            self.st.by_kind[kind] = self.st.by_kind.get(kind, 0) + 1
        if how == "badjson":
            bad = body[:max(1, len(body) // 2)] + b"<html>oops"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(bad)))
            self.end_headers()
            self.wfile.write(bad)
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in h.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body[:len(body) // 2])
        self.wfile.flush()
        if how == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
        else:
            try:
                self.connection.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        self.connection.close()
        self.wfile = io.BytesIO()
        self.close_connection = True

    def not_found(self, kind="other"):
        self.send(404, {"message": "Not Found",
                        "documentation_url": "https://docs.github.com/rest"},
                  kind=kind)

    def take_fault(self, path, body=b""):
        st = self.st
        with st.lock:
            for f in st.faults:
                if f.get("times", 1) <= 0:
                    continue
                if f.get("method") and f["method"] != self.command:
                    continue
                if not re.search(f["path"], path):
                    continue
                if f.get("body") and not re.search(
                        f["body"], body.decode("utf-8", "replace")):
                    continue
                if f.get("skip", 0) > 0:
                    f["skip"] -= 1
                    continue
                f["times"] = f.get("times", 1) - 1
                return dict(f)
        return None

    # -- dispatch -------------------------------------------------------------
    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        if path.startswith("/_control/"):
            return self.control(path, query)
        # a request still being answered when a test resets the counts
        # (a client that gave up on a slow answer and asked again) must
        # not count in the next test's figures: reset waits for it
        with self.st.idle:
            self.st.inflight += 1
        try:
            return self.handle_counted(url, path, query)
        finally:
            with self.st.idle:
                self.st.inflight -= 1
                self.st.idle.notify_all()

    def handle_counted(self, url, path, query):
        body = self.read_body() if self.command == "POST" else b""
        with self.st.lock:
            self.st.log.append({"method": self.command, "path": self.path,
                                "headers": dict(self.headers.items())})
        self.fault = self.take_fault(self.path, body)
        f = self.fault
        resource = "graphql" if path == "/graphql" else "core"
        if f and f["kind"] == "slow":
            time.sleep(float(f.get("arg", 1)))
            self.fault = None
        elif f and f["kind"] == "status":
            return self.send(int(f.get("arg", 500)),
                             {"message": "Server Error"}, kind="fault",
                             resource=resource)
        elif f and f["kind"] in ("secondary", "429"):
            # arg "" sends a blank Retry-After, as some proxies do
            return self.send(403 if f["kind"] == "secondary" else 429,
                             SHAPES.secondary_body, kind="fault",
                             headers={"Retry-After": str(f.get("arg", 1))},
                             resource=resource)
        elif f and f["kind"] == "gql_secondary":
            # a secondary limit told in a GraphQL 200
            return self.send(200, {"errors": [{
                "type": "RATE_LIMITED", "message": "You have exceeded a "
                "secondary rate limit. Please wait a few minutes before "
                "you try again."}]}, kind="fault", resource=resource)
        elif f and f["kind"] == "gql_ratelimited":
            # GraphQL's primary limit: a 200 whose body is the error
            reset = int(time.time()) + int(f.get("arg", 2))
            with self.st.lock:
                self.st.rates[resource]["remaining"] = 0
                self.st.rates[resource]["reset"] = reset
            return self.send(200, GQL_RATE_LIMITED, kind="fault",
                             resource=resource)
        elif f and f["kind"] == "secondary_noretry":
            return self.send(403, {"message": "You have exceeded a secondary "
                                   "rate limit. Please wait a few minutes "
                                   "before you try again."}, kind="fault",
                             resource=resource)
        elif f and f["kind"] == "ratelimit403":
            reset = int(time.time()) + int(f.get("arg", 2))
            with self.st.lock:
                self.st.rates[resource]["remaining"] = 0
                self.st.rates[resource]["reset"] = reset
            return self.send(403, SHAPES.rate_body, kind="fault",
                             resource=resource)
        with self.st.lock:
            rate = self.st.rates[resource]
            limited = rate["remaining"] <= 0 and time.time() < rate["reset"]
        if limited and resource == "graphql":
            return self.send(200, GQL_RATE_LIMITED, kind="limited",
                             resource=resource)
        if limited:
            return self.send(403, SHAPES.rate_body, kind="limited",
                             resource=resource)
        if path == "/graphql" and self.command == "POST":
            return self.graphql(body)
        if self.command != "GET":
            return self.send(404, {"message": "Not Found"}, kind="other")
        return self.rest(path, query)

    def repo_for(self, m):
        if m.group("full"):
            return self.st.repos.get(m.group("full").lower())
        return self.st.by_id.get(int(m.group("id")))

    REPO = r"^/(?:repos/(?P<full>[^/]+/[^/]+)|repositories/(?P<id>\d+))"

    def rest(self, path, query):
        base = self.base()
        m = re.match(self.REPO + r"(?P<rest>/.*)?$", path)
        if not m:
            return self.not_found()
        old = (m.group("full") or "").lower()
        if old in RENAMED:
            repo = self.st.repos[RENAMED[old]]
            loc = "%s/repositories/%d%s" % (base, repo.id, self.path[m.end("full"):])
            return self.send(301, {"message": "Moved Permanently", "url": loc,
                                   "documentation_url": "https://docs.github.com/"
                                   "rest/guides/best-practices-for-using-the-rest-api"
                                   "#follow-redirects"},
                             headers={"Location": loc}, kind="redirect")
        repo = self.repo_for(m)
        rest = m.group("rest") or ""
        if not repo:
            return self.not_found()
        if rest == "/issues":
            return self.list_issues(repo, query)
        mm = re.match(r"^/issues/(\d+)(/timeline|/comments)?$", rest)
        if mm:
            n = int(mm.group(1))
            what = mm.group(2)
            if what == "/timeline":
                if n not in repo.issues:
                    return self.not_found("timeline")
                if repo.issues[n]["transferred"] and m.group("full"):
                    loc = "%s/repositories/%d/issues/%d/timeline" % (
                        base, repo.id, n)
                    if self.path.find("?") >= 0:
                        loc += self.path[self.path.find("?"):]
                    return self.send(301, {"message": "Moved Permanently",
                                           "url": loc},
                                     headers={"Location": loc}, kind="redirect")
                return self.paged(repo.timeline(n, base), query, "timeline")
            if what == "/comments":
                if n not in repo.issues:
                    return self.not_found("comments")
                objs = []
                for c in repo.issues[n]["comments"]:
                    o = copy.deepcopy(SHAPES.comment)
                    o.update({"id": c["id"], "body": c["body"],
                              "user": repo.user_obj(c["user"], base),
                              "created_at": c["created_at"],
                              "updated_at": c["created_at"]})
                    objs.append(o)
                return self.paged(objs, query, "comments")
            if n in repo.issues or n in repo.prs:
                return self.send_cached(repo.issue_obj(n, base),
                                        "application/json; charset=utf-8",
                                        kind="issue")
            return self.not_found("issue")
        mm = re.match(r"^/pulls/(\d+)(/files)?$", rest)
        if mm:
            n = int(mm.group(1))
            if n not in repo.prs:
                return self.not_found("pull")
            if mm.group(2):
                return self.paged(repo.file_objs(n, base), query, "files")
            accept = self.headers.get("Accept", "")
            if "diff" in accept:
                if repo.prs[n]["too_large"]:
                    return self.send(406, {
                        "message": "Sorry, the diff exceeded the maximum "
                        "number of files (100). Consider using 'List pull "
                        "requests files' API or locally cloning the "
                        "repository instead.",
                        "errors": [{"resource": "PullRequest",
                                    "field": "diff", "code": "too_large"}],
                        "documentation_url": "https://docs.github.com/rest/"
                        "pulls/pulls#list-pull-requests-files"}, kind="diff")
                return self.send_cached(repo.diff(n),
                                        "text/plain; charset=utf-8",
                                        kind="diff")
            return self.send_cached(repo.pull_obj(n, base),
                                    "application/json; charset=utf-8",
                                    kind="pull")
        mm = re.match(r"^/commits/([0-9a-f]+)/pulls$", rest)
        if mm:
            sha = mm.group(1)
            prs = [repo.pull_obj(p, base) for p in repo.commits.get(sha, [])]
            return self.send_cached(prs, "application/json; charset=utf-8",
                                    kind="commit")
        return self.not_found()

    def page_params(self, query):
        per = int((query.get("per_page") or ["30"])[0] or 30)
        per = max(1, min(per, 100))
        if self.st.page_size:
            per = self.st.page_size
        page = max(1, int((query.get("page") or ["1"])[0] or 1))
        return per, page

    def link(self, path_base, query, page, last):
        def url(p):
            q = dict((k, v[0]) for k, v in query.items())
            q["page"] = str(p)
            return "%s?%s" % (path_base, urllib.parse.urlencode(q))
        parts = []
        if page > 1:
            parts.append('<%s>; rel="prev"' % url(page - 1))
        if page < last:
            parts.append('<%s>; rel="next"' % url(page + 1))
            parts.append('<%s>; rel="last"' % url(last))
        if page > 1:
            parts.append('<%s>; rel="first"' % url(1))
        return ", ".join(parts)

    def paged(self, objs, query, kind):
        per, page = self.page_params(query)
        last = max(1, (len(objs) + per - 1) // per)
        chunk = objs[(page - 1) * per: page * per]
        m = re.match(self.REPO + r"(?P<rest>/.*)?$",
                     urllib.parse.urlsplit(self.path).path)
        repo = self.repo_for(m)
        # next links use the /repositories/ID form, as GitHub's do
        path_base = "%s/repositories/%d%s" % (self.base(), repo.id,
                                              m.group("rest") or "")
        if self.fault and self.fault["kind"] == "foreign_link":
            # a next link to another origin (port 1: nothing listens)
            path_base = "http://127.0.0.1:1/repositories/%d%s" % (
                repo.id, m.group("rest") or "")
        h = {}
        lk = self.link(path_base, query, page, last)
        if lk:
            h["Link"] = lk
        return self.send_cached(chunk, "application/json; charset=utf-8", h,
                                kind=kind)

    def list_issues(self, repo, query):
        base = self.base()
        state = (query.get("state") or ["open"])[0]
        labels = [x for x in (query.get("labels") or [""])[0].split(",") if x]
        since = (query.get("since") or [None])[0]
        direction = (query.get("direction") or ["desc"])[0]
        nums = sorted(set(repo.issues) | set(repo.prs))
        objs = []
        for n in nums:
            o = repo.issue_obj(n, base)
            if state != "all" and o["state"] != state:
                continue
            names = [x["name"] for x in o["labels"]]
            if any(x not in names for x in labels):
                continue
            if since and o["updated_at"] < since:
                continue
            objs.append(o)
        objs.sort(key=lambda o: (o["created_at"], o["number"]),
                  reverse=direction != "asc")
        return self.paged(objs, query, "list")

    # -- GraphQL ----------------------------------------------------------------
    def graphql(self, body):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") and not auth.startswith("token "):
            return self.send(401, {"message": "This endpoint requires you to "
                                   "be authenticated."}, kind="graphql",
                             resource="graphql")
        try:
            req = json.loads(body)
            q = req["query"]
            var = req.get("variables") or {}
        except (ValueError, KeyError, TypeError):
            return self.send(400, {"message": "Problems parsing JSON"},
                             kind="graphql", resource="graphql")
        try:
            errs = self.server.validator.errors(q)
        except RuntimeError as e:
            return self.send(500, {"message": str(e)}, kind="graphql",
                             resource="graphql")
        # what GitHub does with a query that does not validate: errors
        # only, no data
        declared = re.findall(r"\$(\w+)\s*:\s*[\w\[\]]+!", q.split("{")[0])
        for v in declared:
            if var.get(v) is None:
                errs.append({"message": "Variable $%s of type String! was "
                             "provided invalid value" % v, "locations": [],
                             "extensions": {"code": "variableMismatch"}})
        if errs:
            with self.st.lock:
                self.st.invalid_queries.append({"query": q, "errors": errs})
            return self.send(200, {"errors": errs}, kind="graphql",
                             resource="graphql")
        full = ("%s/%s" % (var.get("owner"), var.get("name"))).lower()
        repo = self.st.repos.get(RENAMED.get(full, full))
        if not repo:
            return self.send(200, {"data": {"repository": None}, "errors": [{
                "type": "NOT_FOUND", "path": ["repository"],
                "message": "Could not resolve to a Repository."}]},
                kind="graphql", resource="graphql")
        data = {}
        errors = []
        for alias, num in re.findall(r"(\w+)\s*:\s*issue\s*\(\s*number\s*:\s*(\d+)\s*\)", q):
            n = int(num)
            if n not in repo.issues or repo.issues[n]["transferred"]:
                data[alias] = None
                errors.append({"type": "NOT_FOUND", "path": ["repository", alias],
                               "message": "Could not resolve to an Issue with "
                               "the number of %d." % n})
                continue
            data[alias] = repo.gql_issue(n)
        # GitHub's price: the requests every connection needs, over 100
        n = len(data)
        tl = re.search(r"timelineItems\s*\(\s*first\s*:\s*(\d+)", q)
        nested = int(tl.group(1)) if tl and "associatedPullRequests" in q else 0
        cost = max(1, round((1 + n * 3 + n * nested) / 100))
        out = {"data": {"rateLimit": {"cost": cost, "remaining": 4999,
                                      "resetAt": iso(time.time() + 3600)},
                        "repository": data}}
        if errors:
            out["errors"] = errors
        f = self.fault
        if f and f["kind"] in ("reset", "truncate", "badjson"):
            return self.broken(f["kind"], json.dumps(out).encode(),
                               "application/json", {}, "graphql", "graphql")
        return self.send(200, out, kind="graphql", resource="graphql")

    # -- control --------------------------------------------------------------
    def control(self, path, query):
        st = self.st
        body = self.read_body() if self.command == "POST" else b""
        if path == "/_control/stats":
            with st.lock:
                out = {"counted": st.counted, "not_modified": st.not_modified,
                       "by_kind": dict(st.by_kind), "requests": len(st.log),
                       "invalid_queries": list(st.invalid_queries),
                       "rates": st.rates}
            return self._ctl(out)
        if path == "/_control/requests":
            with st.lock:
                return self._ctl(list(st.log))
        if path == "/_control/reset":
            with st.idle:
                st.idle.wait_for(lambda: st.inflight == 0, timeout=60)
            with st.lock:
                st.reset()
            return self._ctl({"ok": True})
        if path == "/_control/config":
            cfg = json.loads(body or b"{}")
            with st.lock:
                if "faults" in cfg:
                    st.faults = cfg["faults"]
                if "page_size" in cfg:
                    st.page_size = cfg["page_size"]
                rl = cfg.get("ratelimit")
                if rl:
                    r = st.rates[rl.get("resource", "core")]
                    r["remaining"] = int(rl["remaining"])
                    r["reset"] = int(time.time()) + int(rl.get("reset_in", 2))
            return self._ctl({"ok": True})
        if path == "/_control/touch":
            cfg = json.loads(body or b"{}")
            with st.lock:
                repo = st.repos[cfg["repo"].lower()]
                m = repo.issues[int(cfg["number"])]
                last = max([m["updated_at"]] + [c["created_at"] for c in m["comments"]])
                t = parse_iso(last) + 60
                m["comments"].append({"user": "zed", "created_at": iso(t),
                                      "body": cfg.get("body", "One more thing."),
                                      "id": 9000000 + len(m["comments"])})
                repo._finish_times(m)
            return self._ctl({"ok": True})
        if path == "/_control/pulls":
            # every pull request, and whether an issue links it
            repo = st.repos[query["repo"][0].lower()]
            linked = set()
            for m in repo.issues.values():
                linked.update(m["fixes"])
                linked.update(m["xrefs"])
            return self._ctl([{"number": n, "title": pr["title"],
                               "body": pr["body"], "merged_at": pr["merged_at"],
                               "created_at": pr["created_at"],
                               "closed_at": pr["closed_at"],
                               "linked": n in linked,
                               "diff": None if pr["too_large"] else repo.diff(n),
                               "additions": pr["additions"],
                               "deletions": pr["deletions"]}
                              for n, pr in sorted(repo.prs.items())])
        if path == "/_control/expected":
            repo = st.repos[query["repo"][0].lower()]
            req = (query.get("require_fix") or ["0"])[0] == "1"
            state = (query.get("state") or ["closed"])[0]
            label = (query.get("label") or ["bug"])[0]
            return self._ctl(repo.expected(req, state, label))
        return self._ctl({"message": "no such control"}, 404)

    def _ctl(self, obj, status=200):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--fault", action="append", default=[],
                    help="a fault as JSON (see the module's docstring)")
    ap.add_argument("--page-size", type=int, default=None)
    ap.add_argument("--schema", default=SCHEMA,
                    help="the GraphQL schema queries must validate against")
    args = ap.parse_args()

    # what the server needs is in the repository and `make test-deps`;
    # without it, say so and stop (answering every GraphQL query with an
    # error would only send the client to REST and skew every count)
    def fail(msg):
        sys.stderr.write("mock_github: %s\n" % msg)
        sys.exit(2)
    if not os.path.isfile(args.schema):
        fail("no GraphQL schema at %s (GitHub's schema, which queries "
             "are validated against; see tests/fixtures/github/README.md)"
             % args.schema)
    global SHAPES
    try:
        SHAPES = Shapes()
    except MissingFixture as e:
        fail("missing fixture %s (see tests/fixtures/github/README.md)" % e)
    why = validator_missing()
    if why:
        fail(why)
    srv = Server(("127.0.0.1", args.port), Handler)
    srv.validator = Validator(args.schema)
    srv.state = State(args.seed)
    srv.state.faults = [json.loads(f) for f in args.fault]
    srv.state.page_size = args.page_size
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
