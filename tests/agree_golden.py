# SPDX-License-Identifier: MIT
"""Seeded studies whose `agree` output is kept in
tests/fixtures/agree-golden.json, so that a change to how intervals are
computed can be shown to leave every point estimate and every Wald
interval as it was.

    python3 tests/agree_golden.py --write    (re)capture the outputs

The studies are built through the CLI from fixed seeds: the bundled
sample with its two rounds, two-annotator studies on the LLM codebook and
on a codebook with ordinal, interval, grouped and select-many dimensions
(optional dimensions left empty now and then), a three-annotator study,
a small study full of degenerate tables, and one of 6,000 items.
tests/test_agree_stats.py rebuilds them and compares.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bchelp import CODEBOOK, SAMPLE, SAMPLE_LABELS, Study  # noqa: E402

GOLDEN = os.path.join(HERE, "fixtures", "agree-golden.json")

SCALES = {
    "name": "golden-scales", "version": "1", "dimensions": [
        {"key": "severity", "name": "Severity", "scale": "ordinal",
         "required": False,
         "codes": [{"key": k, "name": k.title(), "definition": "d"}
                   for k in ("low", "medium", "high", "critical")]},
        {"key": "effort", "name": "Effort", "scale": "interval",
         "codes": [{"key": k, "name": k.upper(), "definition": "d",
                    "value": v}
                   for k, v in (("xs", 1), ("s", 2), ("m", 5), ("l", 10))]},
        {"key": "kind", "name": "Kind",
         "codes": [{"key": "k%d" % i, "name": "K%d" % i, "definition": "d",
                    "group": "g%d" % (i % 3)} for i in range(6)]},
        {"key": "tags", "name": "Tags", "select": "many", "required": False,
         "codes": [{"key": "t%d" % i, "name": "T%d" % i, "definition": "d",
                    "group": "h%d" % (i % 2)} for i in range(5)]},
    ]}


def items_file(d, n, repo="golden/repo"):
    path = os.path.join(d, "items-%d.jsonl" % n)
    with open(path, "w") as f:
        for i in range(1, n + 1):
            f.write(json.dumps({"repo": repo, "number": i,
                                "title": "bug %d" % i}) + "\n")
    return path, ["%s#%d" % (repo, i) for i in range(1, n + 1)]


def write_labels(s, rows, name="labels.csv"):
    path = os.path.join(s.dir, name)
    with open(path, "w") as f:
        f.write("item,annotator,dimension,code\n")
        for r in rows:
            f.write(",".join(r) + "\n")
    return path


def pick(rng, codes, weights):
    return rng.choices(codes, weights=weights)[0]


def coded(rng, dims, items, coders, agree=0.7, empty=0.0):
    """Labels of `coders` on `items`: each coder copies a shared "true"
    code with probability `agree`, else draws its own; an optional
    dimension is left empty with probability `empty`."""
    rows = []
    for it in items:
        for d in dims:
            codes = [c["key"] for c in d["codes"]]
            w = [1.0 / (i + 1) for i in range(len(codes))]
            many = d.get("select") == "many"
            truth = ({c for c in codes if rng.random() < 0.3} if many else
                     pick(rng, codes, w))
            for who in coders:
                if not d.get("required", True) and rng.random() < empty:
                    continue
                if rng.random() < agree:
                    v = truth
                elif many:
                    v = {c for c in codes if rng.random() < 0.3}
                else:
                    v = pick(rng, codes, w)
                if many and not v and d.get("required", True):
                    v = {pick(rng, codes, w)}
                for c in (sorted(v) if many else [v]):
                    rows.append((it, who, d["key"], c))
    return rows


def codebook_file(d, cb):
    path = os.path.join(d, "cb.json")
    with open(path, "w") as f:
        json.dump(cb, f)
    return path


def sample_study():
    s = Study(members=[("alice", "annotator"), ("bob", "annotator"),
                       ("carol", "adjudicator")])
    items = []
    with open(SAMPLE_LABELS) as f:
        next(f)
        for line in f:
            it = line.split(",")[0]
            if it not in items:
                items.append(it)
    s.ok("round", "create", "pilot", "--items", ",".join(items[:8]),
         "--annotators", "alice,bob")
    s.ok("round", "create", "r1", "--items", ",".join(items[8:]),
         "--annotators", "alice,bob")
    s.ok("labels", "import", SAMPLE_LABELS, "--submit")
    s.ok("round", "close", "pilot")
    s.ok("round", "close", "r1")
    return s, ["pilot", "r1"]


def llm_two(seed, n, agree):
    rng = random.Random(seed)
    s = Study(items=None, members=[("alice", "annotator"),
                                   ("bob", "annotator")])
    path, items = items_file(s.dir, n)
    s.ok("import", path)
    with open(CODEBOOK) as f:
        dims = json.load(f)["dimensions"]
    s.ok("labels", "import", write_labels(s, coded(rng, dims, items,
                                                   ["alice", "bob"], agree)),
         "--submit")
    return s, []


def scales_study(seed, n, coders):
    rng = random.Random(seed)
    s = Study(items=None, members=[])
    cbp = codebook_file(s.dir, SCALES)
    s.ok("codebook", "update", cbp)
    for c in coders:
        s.ok("member", "add", c, "--role", "annotator")
    path, items = items_file(s.dir, n)
    s.ok("import", path)
    half = n // 2
    s.ok("round", "create", "a", "--items", ",".join(items[:half]),
         "--annotators", ",".join(coders))
    s.ok("round", "create", "b", "--items", ",".join(items[half:]),
         "--annotators", ",".join(coders))
    s.ok("labels", "import", write_labels(s, coded(
        rng, SCALES["dimensions"], items, coders, 0.65, 0.08)), "--submit")
    s.ok("round", "close", "a")
    return s, ["a", "b"]


def degenerate_study():
    """Twelve items where one coder uses a single code (symptom), the two
    share no code (stage), agree perfectly (phase), and one coder picks a
    code on every item (fix_pattern)."""
    s = Study(items=None, members=[("alice", "annotator"),
                                   ("bob", "annotator")])
    path, items = items_file(s.dir, 12)
    s.ok("import", path)
    rows = []
    for i, it in enumerate(items):
        rows += [(it, "alice", "symptom", "crash"),
                 (it, "bob", "symptom", ["crash", "hang"][i % 2]),
                 (it, "alice", "root_cause", ["api_misuse", "concurrency",
                                              "other"][i % 3]),
                 (it, "bob", "root_cause", ["api_misuse", "concurrency",
                                            "other"][(i // 2) % 3]),
                 (it, "alice", "stage", ["memory", "computation"][i % 2]),
                 (it, "bob", "stage", ["communication", "other"][i % 2]),
                 (it, "alice", "phase", ["training", "inference"][i % 2]),
                 (it, "bob", "phase", ["training", "inference"][i % 2]),
                 (it, "alice", "fix_pattern", "conditional_logic"),
                 (it, "bob", "fix_pattern", "conditional_logic")]
        if i % 3 == 0:
            rows.append((it, "bob", "fix_pattern", "synchronization"))
        if i % 4 == 0:
            rows.append((it, "alice", "fix_pattern", "synchronization"))
    s.ok("labels", "import", write_labels(s, rows), "--submit")
    return s, []


def studies():
    """(name, builder) of every golden study."""
    return [
        ("sample", sample_study),
        ("llm-two", lambda: llm_two(11, 80, 0.7)),
        ("scales-two", lambda: scales_study(12, 70, ["ann", "ben"])),
        ("scales-three", lambda: scales_study(13, 50,
                                              ["ann", "ben", "cat"])),
        ("degenerate", degenerate_study),
        ("llm-6000", lambda: llm_two(14, 6000, 0.8)),
    ]


def variants(rounds):
    """(name, agree arguments) captured for a study with `rounds`."""
    out = [("default", ["--format", "json"]),
           ("wald", ["--ci", "wald", "--format", "json"]),
           ("by-round-wald", ["--by-round", "--ci", "wald", "--format",
                              "json"])]
    for r in rounds:
        out.append(("round-%s-wald" % r, ["--round", r, "--ci", "wald",
                                          "--format", "json"]))
        out.append(("round-%s" % r, ["--round", r, "--format", "json"]))
    return out


def capture(builder):
    s, rounds = builder()
    try:
        return {name: json.loads(s.ok("agree", *args))
                for name, args in variants(rounds)}
    finally:
        s.close()


def main():
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    out = {name: capture(b) for name, b in studies()}
    with open(GOLDEN, "w") as f:
        json.dump(out, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s (%d studies)" % (GOLDEN, len(out)))


if __name__ == "__main__":
    main()
