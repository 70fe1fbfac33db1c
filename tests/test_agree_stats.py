# SPDX-License-Identifier: MIT
"""`agree` on seeded studies against the outputs captured before the
intervals changed (tests/agree_golden.py, tests/fixtures/agree-golden.json):
every point estimate, standard error, test and Wald bound is what it was;
only the bootstrap intervals, and the changes listed in ALLOWED with their
reasons, may differ.  Fields added since are not compared here."""
import json
import unittest

import agree_golden as ag

# Keys that hold a bootstrap interval or something derived from it: they
# change with the resampling scheme (the same distribution, other draws).
INTERVAL_KEYS = {"ci95", "ci_method", "ci_undefined_reason", "band_range",
                 "bootstrap_samples", "bootstrap_defined", "bootstrap_seed",
                 "ci_clipped", "sentence", "interval"}


def walk(old, new, path, out):
    """Append (path, old, new) for every difference."""
    if isinstance(old, dict) and isinstance(new, dict):
        for k in old:
            if k not in new:
                out.append((path + (k,), old[k], "(missing)"))
            else:
                walk(old[k], new[k], path + (k,), out)
        return
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            out.append((path, "%d entries" % len(old),
                        "%d entries" % len(new)))
            return
        for i, (a, b) in enumerate(zip(old, new)):
            walk(a, b, path + (i,), out)
        return
    if old != new or type(old) is not type(new):
        out.append((path, old, new))


def bootstrap_interval(path, variant):
    """A key of a bootstrap interval, in a variant computed with one."""
    if "wald" in variant:
        return False
    return any(isinstance(p, str) and p in INTERVAL_KEYS for p in path)


def trim(path):
    """The path to the key holding a value (an element of a pair of
    bounds is judged with the pair)."""
    while path and not isinstance(path[-1], str):
        path = path[:-1]
    return path


def at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def enclosing(doc, path, key):
    """The innermost object on `path` that has `key`, or {}."""
    for i in range(len(path) - 1, -1, -1):
        obj = at(doc, path[:i])
        if isinstance(obj, dict) and key in obj:
            return obj
    return {}


def mean_of_codes(level):
    ks = [c["kappa"] for c in level["per_code"] if c["kappa"] is not None]
    return sum(ks) / len(ks) if ks else None


# Changes made on purpose since the capture, each with its reason; a
# function of (path, old, new, the new document) that says whether the
# difference is one of them.
def kappa_one(path, old, new, doc):
    """A kappa of 1 now has the exact one-sided lower bound as its
    interval (it had none: its SE is 0), whatever the method."""
    keys = {"ci95", "ci_method", "ci_clipped", "ci_undefined_reason",
            "band_range"}
    if not (isinstance(path[-1], str) and path[-1] in keys):
        return False
    obj = enclosing(doc, path, "value") if path[-1] != "band_range" else \
        enclosing(doc, path, "kappa")["kappa"]
    return isinstance(obj, dict) and obj.get("value") == 1


def code_constant(path, old, new, doc):
    """A per-code kappa of 0 by construction (one annotator chose the code
    on every item) is undefined, with its reason."""
    if path[-1] not in ("kappa", "undefined_reason") or \
            "per_code" not in path:
        return False
    code = at(doc, path[:path.index("per_code") + 2])
    level = at(doc, path[:path.index("per_code")])
    n = level["items"]
    return code["kappa"] is None and (code.get("count_a") == n or
                                      code.get("count_b") == n)


def multi_mean(path, old, new, doc):
    """The mean per-code kappa leaves out the codes now undefined; with
    no standard error it has no Wald interval (the bootstrap gives
    one); its reasons are worded as the codes'."""
    level = enclosing(doc, path, "coefficient")
    if not str(level.get("coefficient", "")).startswith("mean per-") or \
            "per_code" in path:
        return False
    if path[-1] in ("mean_kappa", "value") and "per_code" in level:
        m = mean_of_codes(level)
        return m is not None and new is not None and abs(new - m) < 1e-12
    return path[-1] in ("ci_undefined_reason", "undefined_reason",
                        "band", "band_range")


def wording(path, old, new, doc):
    """Sentences now name the interval's method, resamples and degenerate
    draws, dropped items and left-out codes; the weighted note covers
    AC2."""
    return path[-1] in ("sentence", "kappa_note")


ALLOWED = [kappa_one, code_constant, multi_mean, wording]


class Golden(unittest.TestCase):
    """Point estimates and Wald intervals as they were."""

    def test_studies(self):
        with open(ag.GOLDEN) as f:
            golden = json.load(f)
        seen = 0
        for name, builder in ag.studies():
            s, rounds = builder()
            try:
                for variant, args in ag.variants(rounds):
                    new = json.loads(s.ok("agree", *args))
                    diffs = []
                    walk(golden[name][variant], new, (), diffs)
                    bad = [d for d in diffs
                           if not bootstrap_interval(d[0], variant) and
                           not any(f(trim(d[0]), d[1], d[2], new)
                                   for f in ALLOWED)]
                    self.assertEqual(bad, [], (name, variant))
                    seen += 1
            finally:
                s.close()
        self.assertEqual(seen, sum(len(v) for v in golden.values()))


if __name__ == "__main__":
    unittest.main()


class DriftReadmeFlow(unittest.TestCase):
    """The README's flow: a forced close and `--items unfinished:pilot`
    move items alice had submitted into round1, where she codes nothing;
    her labels stay the pilot's, and no drift is found in round1."""

    def test_labels_stay_in_the_round_they_were_made_in(self):
        from bchelp import SAMPLE_LABELS, Study
        s = Study(members=[("alice", "annotator"), ("bob", "annotator"),
                           ("carol", "adjudicator")])
        try:
            s.ok("round", "create", "pilot", "--sample", "40%", "--seed",
                 "7", "--stratify", "repo", "--annotators", "alice,bob")
            s.ok("labels", "import", s.round_labels("pilot", SAMPLE_LABELS),
                 "--submit")
            s.ok("round", "close", "pilot", "--force")
            s.ok("round", "create", "round1", "--items", "unfinished:pilot",
                 "--annotators", "alice,bob")
            moved = s.query("SELECT count(*) FROM assignments a JOIN rounds "
                            "r ON r.id = a.round_id WHERE r.name = "
                            "'round1'")[0][0]
            self.assertGreater(moved, 0)
            d = json.loads(s.ok("agree", "--drift", "--format", "json"))
            for c in d["codes"]:
                rounds = [r["round"] for r in c["rounds"]]
                self.assertEqual(rounds, ["pilot"], (c["annotator"],
                                                     c["dimension"]))
                self.assertIsNone(c["p"])
                self.assertEqual(c["why"], "coded in one round only")
            # the pilot's counts are its record's: every label alice
            # submitted on the pilot's items, moved ones included
            n = s.query("SELECT count(*) FROM round_labels rl JOIN members "
                        "m ON m.id = rl.member_id JOIN rounds r ON r.id = "
                        "rl.round_id WHERE m.name = 'alice' AND r.name = "
                        "'pilot' AND rl.dimension = 'symptom'")[0][0]
            alice = [c for c in d["codes"] if c["annotator"] == "alice" and
                     c["dimension"] == "symptom"][0]
            self.assertEqual(sum(alice["rounds"][0]["counts"].values()), n)
            text = s.ok("agree", "--drift")
            self.assertNotIn("round1", text.split("Codes chosen")[1])
        finally:
            s.close()


class PerfectPilotGate(unittest.TestCase):
    """A pilot at kappa 1.00 on 20 bugs has the exact one-sided lower
    bound, and `--gate lower` uses it: with every code half the items,
    (0.05^(1/20) - 1/2) / (1/2) = 0.722."""

    def test_gate_lower_passes_on_the_bound(self):
        from bchelp import Study
        s = Study(items=None, members=[("alice", "annotator"),
                                       ("bob", "annotator")])
        try:
            path, items = ag.items_file(s.dir, 30)
            s.ok("import", path)
            s.ok("round", "create", "pilot", "--items", ",".join(items[:20]),
                 "--annotators", "alice,bob")
            rows = []
            for i, it in enumerate(items[:20]):
                for who in ("alice", "bob"):
                    rows += [(it, who, "symptom", ["crash", "hang"][i % 2]),
                             (it, who, "root_cause",
                              ["api_misuse", "concurrency"][i % 2]),
                             (it, who, "fix_pattern",
                              ["conditional_logic", "api_correction"][i % 2]),
                             (it, who, "phase",
                              ["training", "inference"][i % 2]),
                             (it, who, "stage", "memory")]
            s.ok("labels", "import", ag.write_labels(s, rows), "--submit")
            s.ok("round", "close", "pilot")
            bound = (0.05 ** (1 / 20) - 0.5) / 0.5
            d = s.agree_json("--round", "pilot")
            for dim in d["dimensions"]:
                k = dim["kappa"]
                if dim["key"] == "stage":
                    self.assertIsNone(k["value"])
                    continue
                self.assertEqual(k["value"], 1, dim["key"])
                self.assertEqual(k["ci_method"],
                                 "exact lower bound (kappa = 1)")
                self.assertAlmostEqual(k["ci95"][0], bound, places=12)
                self.assertEqual(k["ci95"][1], 1)
            text = s.ok("agree", "--round", "pilot", "--dimension", "phase")
            self.assertIn("one-sided 95% lower bound 0.722", text)
            self.assertNotIn("0.00\u20130.00", text)
            p = s.run("round", "create", "main", "--items", "all",
                      "--annotators", "alice,bob", "--after", "pilot",
                      "--min-kappa", "0.75", "--gate", "lower")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("lower bound 0.72 < 0.75", p.stderr)
            s.ok("round", "create", "main", "--items", "all",
                 "--annotators", "alice,bob", "--after", "pilot",
                 "--min-kappa", "0.7", "--gate", "lower")
        finally:
            s.close()


class DroppedItemsAndAC2(unittest.TestCase):
    """Items a coder left empty are counted in JSON and the sentence;
    Gwet's AC2 comes with an ordinal or interval scale."""

    def test_dropped_and_ac2(self):
        s, _ = ag.scales_study(12, 70, ["ann", "ben"])
        try:
            d = {x["key"]: x for x in s.agree_json()["dimensions"]}
            sev = d["severity"]
            self.assertGreater(sev["items_dropped"], 0)
            self.assertEqual(sev["items"] + sev["items_dropped"], 70)
            self.assertIn("(%d more left out: a coder left the dimension "
                          "empty)" % sev["items_dropped"], sev["sentence"])
            # AC2 by hand from the confusion table: linear weights over
            # 4 ordered codes
            t = sev["confusion"]["counts"]
            k, n = len(t), sum(map(sum, t))
            w = [[1 - abs(i - j) / (k - 1) for j in range(k)]
                 for i in range(k)]
            po = sum(w[i][j] * t[i][j] for i in range(k)
                     for j in range(k)) / n
            pi = [(sum(t[i]) + sum(r[i] for r in t)) / (2 * n)
                  for i in range(k)]
            pe = sum(map(sum, w)) / (k * (k - 1)) * sum(
                p * (1 - p) for p in pi)
            ac2 = sev["weighted"]["gwet_ac2"]["linear"]
            self.assertAlmostEqual(ac2, (po - pe) / (1 - pe), places=12)
            self.assertIsNotNone(d["effort"]["weighted"]["gwet_ac2"]
                                 ["quadratic"])
            self.assertIsNone(d["kind"]["weighted"])
            text = s.ok("agree", "--dimension", "severity")
            self.assertRegex(text, r"Gwet's AC2 +linear 0\.\d{3}, "
                                   r"quadratic 0\.\d{3}")
        finally:
            s.close()
