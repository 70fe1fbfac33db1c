# SPDX-License-Identifier: MIT
"""The report's tables recomputed in plain Python from the exports.

`expected_tables(...)` returns {table id: (columns, rows)} as
`bugcoder report --format json` should print them, from the agreed export
(`export` or `export --include-pending`), the codebook JSON and the raw
labels (`export --raw`); the tests compare the two cell by cell.
"""
import csv
import io
import math

EXTRA = ["(none)", "(not in codebook)", "(pending)"]


def read_csv(text):
    return list(csv.DictReader(io.StringIO(text)))


def pct(n, of):
    return None if of <= 0 else 100.0 * n / of


def quantile(v, p):
    """R's type 7."""
    if not v:
        return None
    v = sorted(v)
    h = (len(v) - 1) * p
    lo = math.floor(h)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


def slots(dim, row, pending):
    """The code slots of one row's dimension."""
    key = dim["key"]
    codes = [c["key"] for c in dim["codes"]]
    if row[key + "_status"] == "pending":
        return ["(pending)"] if pending else None
    val = row[key]
    if not val:
        return ["(none)"]
    return [c if c in codes else "(not in codebook)"
            for c in val.split(";")]


def slot_order(dim):
    return [c["key"] for c in dim["codes"]] + EXTRA


def expected_tables(cb, rows, raw=None, rounds=None, small=10, hard=(30, 10),
                    effort_by=None, cross=None, by=None, pending=False):
    dims = cb["dimensions"]
    dk = {d["key"]: d for d in dims}
    use = [r for r in rows if pending or all(
        r[d["key"] + "_status"] != "pending" for d in dims)]
    for r in use:
        r["_s"] = {d["key"]: slots(d, r, True) for d in dims}
    out = {}
    n = len(use)
    repos = sorted({r["repo"] for r in use})
    # shares
    for d in dims:
        k = d["key"]
        cnt = {s: sum(s in r["_s"][k] for r in use) for s in slot_order(d)}
        body = [[s, cnt[s], pct(cnt[s], n)] for s in slot_order(d)
                if s not in EXTRA or cnt[s] > 0]
        body.append(["total", n, None])
        out["shares." + k] = (["code", "items", "share"], body)
    if len(repos) > 1:
        groups = [("all", use)] + [(p, [r for r in use if r["repo"] == p])
                                   for p in repos]
        for d in dims:
            k = d["key"]
            cols = [k]
            for name, _ in groups:
                cols += [name, name + " %"]
            body = []
            for s in slot_order(d):
                if s in EXTRA and not any(s in r["_s"][k] for r in use):
                    continue
                line = [s]
                for name, g in groups:
                    c = sum(s in r["_s"][k] for r in g)
                    line += [c, pct(c, len(g))]
                body.append(line)
            out["repo." + k] = (cols, body)
    # distributed
    dist = {d["key"]: {c["key"] for c in d["codes"] if c.get("distributed")}
            for d in dims}
    ddims = [d["key"] for d in dims if dist[d["key"]]]

    def is_dist(r, k):
        return any(s in dist[k] for s in r["_s"][k])
    out["distributed"] = (["dimension", "items", "distributed", "share"],
                          [[k, n, sum(is_dist(r, k) for r in use),
                            pct(sum(is_dist(r, k) for r in use), n)]
                           for k in ddims])
    if "stage" in dk:
        cols = ["stage", "items"]
        for k in ddims:
            cols += [k + " distributed", k + " share"]
        body = []
        for s in slot_order(dk["stage"]):
            g = [r for r in use if s in r["_s"]["stage"]]
            if not g:
                continue
            line = [s, len(g)]
            for k in ddims:
                c = sum(is_dist(r, k) for r in g)
                line += [c, pct(c, len(g))]
            body.append(line)
        out["distributed.stage"] = (cols, body)
    # cross tables
    cx, cy = cross or (dims[0]["key"], dims[1]["key"])
    if by:
        parts = [(s, [r for r in use if s in r["_s"][by]])
                 for s in slot_order(dk[by])]
    else:
        parts = [(None, use)]
    for s, g in parts:
        m = {}
        for r in g:
            for a in r["_s"][cx]:
                for b in r["_s"][cy]:
                    m[a, b] = m.get((a, b), 0) + 1
        if by and not m:
            continue
        xs = [a for a in slot_order(dk[cx])
              if sum(v for (p, _), v in m.items() if p == a)]
        ys = [b for b in slot_order(dk[cy])
              if sum(v for (_, q), v in m.items() if q == b)]
        rt = {a: sum(m.get((a, b), 0) for b in ys) for a in xs}
        ct = {b: sum(m.get((a, b), 0) for a in xs) for b in ys}
        tot = sum(m.values())
        prefix = "cross" + ("." + s if by else "")
        head = ["%s \\ %s" % (cx, cy)] + ys + ["total"]
        for kind in ("counts", "row_share", "col_share"):
            body = []
            for a in xs:
                if kind == "counts":
                    body.append([a] + [m.get((a, b), 0) for b in ys] +
                                [rt[a]])
                elif kind == "row_share":
                    body.append([a] + [pct(m.get((a, b), 0), rt[a])
                                       for b in ys] + [pct(rt[a], rt[a])])
                else:
                    body.append([a] + [pct(m.get((a, b), 0), ct[b])
                                       for b in ys] + [pct(rt[a], tot)])
            if kind == "counts":
                body.append(["total"] + [ct[b] for b in ys] + [tot])
            elif kind == "row_share":
                body.append(["total"] + [pct(ct[b], tot) for b in ys] +
                            [pct(tot, tot)])
            else:
                body.append(["total"] + [pct(ct[b], ct[b]) for b in ys] +
                            [pct(tot, tot)])
            out[prefix + "." + kind] = (head, body)
    # effort
    groups = [("all", use)]
    if len(repos) > 1:
        groups += [(p, [r for r in use if r["repo"] == p]) for p in repos]
    if effort_by:
        for s in slot_order(dk[effort_by]):
            g = [r for r in use if s in r["_s"][effort_by]]
            if g:
                groups.append(("%s=%s" % (effort_by, s), g))
    size_rows, q_rows = [], []
    for name, g in groups:
        lines = [int(r["lines_changed"]) for r in g if r["lines_changed"]]
        days = [float(r["days_open"]) for r in g if r["days_open"]]
        comm = [int(r["comments"]) for r in g]
        sm = sum(x <= small for x in lines)
        hd = sum(1 for r in g if r["days_open"] and
                 float(r["days_open"]) > hard[0] and
                 int(r["comments"]) >= hard[1])
        size_rows.append([name, len(g), sm, len(lines), pct(sm, len(lines)),
                          hd, len(days), pct(hd, len(days))])
        q_rows.append([name, len(g)] + [quantile(v, p) for v in
                                         (days, comm, lines)
                                         for p in (0.25, 0.5, 0.75)])
    out["effort.size"] = (["group", "items", "fixes <= %d lines" % small,
                           "fixes of known size", "share", "hard",
                           "items of known days open", "hard share"],
                          size_rows)
    out["effort.quartiles"] = (["group", "items"] + [
        "%s %s" % (w, q) for w in ("days open", "comments", "lines changed")
        for q in ("q1", "median", "q3")], q_rows)
    return out


def cohen_kappa(pairs):
    """Cohen's kappa of a list of (code of coder 1, code of coder 2)."""
    n = len(pairs)
    if not n:
        return None
    # the agreement module's rule: undefined when one coder used a
    # single code on every item (kappa says nothing then)
    if len({a for a, _ in pairs}) < 2 or len({b for _, b in pairs}) < 2:
        return None
    po = sum(a == b for a, b in pairs) / n
    cats = {a for a, _ in pairs} | {b for _, b in pairs}
    pe = sum((sum(a == c for a, _ in pairs) / n) *
             (sum(b == c for _, b in pairs) / n) for c in cats)
    if pe >= 1:
        return None
    return (po - pe) / (1 - pe)


def round_kappas(cb, raw_rows, round_items):
    """{(dimension, round): kappa} for select-one dimensions from the raw
    labels: items whose two coders both submitted."""
    out = {}
    for d in cb["dimensions"]:
        if d.get("select", "one") != "one":
            continue
        for rnd, items in round_items.items():
            pairs = []
            for it in items:
                codes = {}
                for r in raw_rows:
                    if r["item"] == it and r["dimension"] == d["key"] and \
                            r["submitted_at"]:
                        codes[r["annotator"]] = r["code"]
                if len(codes) == 2:
                    pairs.append(tuple(codes[k] for k in sorted(codes)))
            out[d["key"], rnd] = cohen_kappa(pairs)
    return out


def same(a, b, tol=1e-6):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return a == b
