"""`agree` on seeded studies against the outputs captured before the
intervals changed (tests/agree_golden.py, tests/fixtures/agree-golden.json):
every point estimate, standard error, test and Wald bound is what it was;
only the bootstrap intervals, and the changes listed in ALLOWED with their
reasons, may differ."""
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
                           if not bootstrap_interval(d[0], variant)]
                    self.assertEqual(bad, [], (name, variant))
                    seen += 1
            finally:
                s.close()
        self.assertEqual(seen, sum(len(v) for v in golden.values()))


if __name__ == "__main__":
    unittest.main()
