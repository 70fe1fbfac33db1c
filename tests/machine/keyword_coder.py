#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A deterministic fake model for the tests: codes an item by keywords in
its title and body.  Reads bugcoder's machine-code document on stdin and
writes one answer on stdout.  MODE (argv[1]) makes it misbehave."""
import json
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "good"
doc = json.load(sys.stdin)
item = doc["item"]
text = ((item.get("title") or "") + " " + (item.get("body") or "")).lower()


def pick(rules, default):
    for word, code in rules:
        if word in text:
            return code
    return default


labels = {
    "symptom": pick([("crash", "crash"), ("hang", "hang"), ("slow", "performance_degradation"),
                     ("memory", "memory_issue"), ("oom", "memory_issue")], "incorrect_functionality"),
    "root_cause": pick([("version", "version_incompatibility"), ("shape", "tensor_shape_misalignment"),
                        ("config", "configuration_error")], "incorrect_implementation"),
    "fix_pattern": ["conditional_logic"] if "if " in text else ["api_correction"],
    "phase": pick([("train", "training"), ("inference", "inference")], "both"),
}
answer = {"labels": labels, "rationale": "keywords in the title and body",
          "evidence": [item["name"]], "model": "keyword-coder 1.0"}

if mode == "badjson":
    sys.stdout.write("{not json")
elif mode == "unknown-code":
    labels["symptom"] = "explodes"
    json.dump(answer, sys.stdout)
elif mode == "unknown-dim":
    labels["mood"] = "grumpy"
    json.dump(answer, sys.stdout)
elif mode == "exit":
    sys.stderr.write("model \x1b[31mservice unavailable\n")
    sys.exit(3)
elif mode == "sleep":
    # a child of the shell that outlives it unless the group is killed
    with open(sys.argv[2], "w") as f:
        f.write(str(__import__("os").getpid()))
    time.sleep(30)
elif mode == "trailing":
    # an answer, then more text: a second document, or a stray word
    json.dump(answer, sys.stdout)
    sys.stdout.write(sys.argv[2] if len(sys.argv) > 2 else "\nDone.")
elif mode == "background":
    # a whole answer, then a background child that keeps stdout open
    # (and would print more much later) while the command itself exits
    import os
    json.dump(answer, sys.stdout)
    sys.stdout.flush()
    if os.fork() == 0:
        with open(sys.argv[2], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(30)
        sys.stdout.write("too late")
        os._exit(0)
    sys.exit(0)
elif mode == "constant":
    # the same symptom for every item
    labels["symptom"] = "crash"
    json.dump(answer, sys.stdout)
elif mode == "slow":
    time.sleep(0.4)
    json.dump(answer, sys.stdout)
elif mode == "huge":
    sys.stdout.write("{\"labels\": {}, \"rationale\": \"" + "x" * (3 * 1024 * 1024) + "\"}")
elif mode == "escapes":
    answer["rationale"] = "\x1b]0;owned\x07\x1b[2J" + "crash"
    answer["model"] = "esc\x1b[31mred"
    json.dump(answer, sys.stdout)
elif mode == "flaky":
    # fails on items whose number is odd, the first time only (a file in
    # the directory given as argv[2] remembers)
    import os
    mark = os.path.join(sys.argv[2], str(item["id"]))
    if item["number"] % 2 and not os.path.exists(mark):
        open(mark, "w").close()
        sys.exit(1)
    json.dump(answer, sys.stdout)
elif mode == "save":
    # keep the document read and report where the command ran
    import os
    with open(os.path.join(sys.argv[2], "%d.json" % item["id"]), "w") as f:
        json.dump(doc, f)
    answer["rationale"] = "cwd=%s var=%s" % (os.getcwd(), os.environ.get("MC_TEST_VAR"))
    json.dump(answer, sys.stdout)
else:
    json.dump(answer, sys.stdout)
