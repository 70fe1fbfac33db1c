#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run every test layer and end with one line: `N passed, N failed`.

Layers:
  1. cmocka unit and screen tests: the tests/t_* binaries given as arguments;
  2. CLI, import, fetch and end-to-end tests: tests/test_*.py (unittest),
     which run the real ./bugcoder binary on temporary studies.

Environment: TZ=UTC, LC_ALL=C.UTF-8, a temporary HOME, no GITHUB_TOKEN.
`python3 tests/run.py -k NAME` runs only the Python modules whose name
contains NAME (and no C tests); `--only-c` skips the Python layer.  With
no programs named, every built tests/t_* program runs.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clean_env(home):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("BUGCODER_") or k in ("GITHUB_TOKEN", "GITHUB_API_URL",
                                              "NO_COLOR", "EDITOR", "VISUAL",
                                              "XDG_CONFIG_HOME"):
            del env[k]
    env.update(TZ="UTC", LC_ALL="C.UTF-8", HOME=home, CMOCKA_MESSAGE_OUTPUT="stdout")
    return env


def run_c(binary, env):
    """Run one cmocka binary; return (passed, failed)."""
    start = time.time()
    try:
        p = subprocess.run([binary], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        out = p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        print(f"{binary}: timed out")
        return 0, 1
    passed = sum(int(m) for m in re.findall(r"^\[  PASSED  \] (\d+) test", out, re.M))
    failed = sum(int(m) for m in re.findall(r"^\[  FAILED  \] (\d+) test", out, re.M))
    errors = sum(int(m) for m in re.findall(r"^\[  ERROR   \] (\d+) test", out, re.M))
    failed += errors
    if p.returncode != 0 and failed == 0:
        failed = 1  # crashed, or a sanitizer report
    if failed or p.returncode != 0:
        print(out)
    print(f"{os.path.basename(binary):24s} {passed:4d} passed {failed:3d} failed"
          f"  ({time.time() - start:.1f}s)")
    return passed, failed


class CountingResult(unittest.TextTestResult):
    pass


def run_python(pattern, env):
    os.environ.clear()
    os.environ.update(env)
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    tests_dir = os.path.join(ROOT, "tests")
    sys.path.insert(0, tests_dir)
    for name in sorted(os.listdir(tests_dir)):
        if not (name.startswith("test_") and name.endswith(".py")):
            continue
        if pattern and pattern not in name:
            continue
        suite.addTests(loader.loadTestsFromName(name[:-3]))
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=1,
                                     resultclass=CountingResult)
    result = runner.run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = max(0, result.testsRun - failed - skipped)
    return passed, failed, skipped


def main():
    args = sys.argv[1:]
    pattern = None
    only_c = False
    if "-k" in args:
        i = args.index("-k")
        pattern = args[i + 1]
        del args[i:i + 2]
    if "--only-c" in args:
        args.remove("--only-c")
        only_c = True
    if not args and not pattern:
        # no programs named: every built unit/screen test program
        tdir = os.path.join(ROOT, "tests")
        args = sorted(os.path.join("tests", n) for n in os.listdir(tdir)
                      if n.startswith("t_") and "." not in n and
                      os.access(os.path.join(tdir, n), os.X_OK))
    home = tempfile.mkdtemp(prefix="bugcoder-home-")
    env = clean_env(home)
    passed = failed = skipped = 0
    if not pattern:
        for binary in args:
            p, f = run_c(os.path.join(ROOT, binary) if not os.path.isabs(binary) else binary, env)
            passed += p
            failed += f
    if not only_c:
        p, f, s = run_python(pattern, env)
        passed += p
        failed += f
        skipped += s
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
