#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench: bugcoder against the tools a user would otherwise use.

    python3 tests/bench/bench.py [--items N] [--seed S] [--runs R]
                                 [--only 1,4,6] [--verbose]

Generates (or reuses) a synthetic study with tests/bench/gen under
tests/tmp/bench, runs every measure on bugcoder and on its peer in the same
run, interleaved, and prints one table: measure | bugcoder | peer | ratio |
target | met?, with notes under it.  Timings are medians (5 runs for fast
measures, 3 for slow ones, after a warm-up run); "±N%" after a figure is
its spread, (max - min) / 2 / median, as the machine's noise.

It is a benchmark, not a test: it reports figures and always exits 0
unless it cannot run at all.
"""
import argparse
import csv
import fcntl
import io
import json
import os
import re
import select
import shutil
import signal
import sqlite3
import statistics
import struct
import subprocess
import sys
import termios
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BC = os.path.join(ROOT, "bugcoder")
GEN = os.path.join(HERE, "gen")
WORK = os.path.join(ROOT, "tests", "tmp", "bench")
CODEBOOK = os.path.join(ROOT, "codebooks", "llm-framework-bugs.json")
GEN_FORMAT = 2          # must match GEN_FORMAT in gen.c
IMPORT_ITEMS = 10000
HUGE_LINES = 200000
SMALL_AGREE_ITEMS = 5000   # measure 6a's study
ROWS, COLS = 50, 200    # the pseudo-terminal of measures 1, 2, 7 and 17
# the words of the write measures' label: the LLM codebook's 4 required
# dimensions
LABEL_WORDS = (("symptom", "crash"), ("root_cause", "api_misuse"),
               ("fix_pattern", "conditional_logic"), ("phase", "training"))

VERBOSE = False


def log(msg):
    if VERBOSE:
        print("  .. " + msg, file=sys.stderr, flush=True)


def progress(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


# ---- environment ------------------------------------------------------------

def clean_env(**extra):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("BUGCODER_") or k in (
                "GITHUB_TOKEN", "GITHUB_API_URL", "NO_COLOR", "EDITOR",
                "VISUAL", "LESS", "LESSOPEN", "LESSCLOSE", "LESSKEY",
                "LINES", "COLUMNS", "ESCDELAY", "XDG_CONFIG_HOME"):
            del env[k]
    home = os.path.join(WORK, "home")
    os.makedirs(home, exist_ok=True)
    env.update(TZ="UTC", LC_ALL="C.UTF-8", HOME=home,
               TERM="xterm-256color", LESSHISTFILE="-")
    env.update(extra)
    return env


def have(tool):
    return shutil.which(tool) is not None


# ---- statistics and formatting ----------------------------------------------

class Figure:
    """Several measurements of one thing."""

    def __init__(self, values, unit, digits=None):
        self.values = list(values)
        self.unit = unit
        self.digits = digits

    @property
    def median(self):
        return statistics.median(self.values)

    def spread(self):
        if len(self.values) < 2 or not self.median:
            return None
        return (max(self.values) - min(self.values)) / 2 / self.median

    def text(self):
        v = self.median
        if self.unit == "s":
            s = "%.3f s" % v if v < 10 else "%.1f s" % v
            if v < 0.1:
                s = "%.1f ms" % (v * 1000)
        elif self.unit == "B":
            s = human_bytes(v)
        elif self.unit == "MiB":
            s = "%.1f MiB" % v
        elif self.unit == "ms":
            s = "%.2f ms" % v
        else:
            s = ("%%.%df" % (self.digits or 0)) % v + (
                " " + self.unit if self.unit else "")
        sp = self.spread()
        if sp is not None and sp >= 0.0005:
            s += " ±%.0f%%" % (sp * 100) if sp >= 0.01 else " ±<1%"
        return s


def human_bytes(n):
    if n >= 10 * 1024 * 1024:
        return "%.1f MiB" % (n / 1048576)
    if n >= 10 * 1024:
        return "%.1f KiB" % (n / 1024)
    return "%d B" % n


class Row:
    def __init__(self, name, bc="n/a", peer="n/a", ratio=None, target="",
                 met="", note=None):
        self.name, self.bc, self.peer = name, bc, peer
        self.ratio, self.target, self.met = ratio, target, met
        self.notes = [note] if note else []


def ratio_row(name, bcf, peerf, limit, target, note=None):
    """A row whose target is `ratio <= limit`."""
    r = bcf.median / peerf.median if peerf.median else float("inf")
    met = "yes" if r <= limit else "NO (%.1fx over)" % (r / limit)
    return Row(name, bcf.text(), peerf.text(), "%.2f" % r, target, met, note)


def print_table(rows, header_note):
    head = ["measure", "bugcoder", "peer", "ratio", "target", "met?"]
    body = [[r.name, r.bc, r.peer, r.ratio or "-", r.target or "-",
             r.met or "-"] for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(6)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in
                                 zip(cells, widths)) + " |"
    print(header_note)
    print()
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for b in body:
        print(line(b))
    notes = [(r.name.split(".")[0], n) for r in rows for n in r.notes]
    if notes:
        print()
        for num, n in notes:
            print("%s. %s" % (num, n))
    sys.stdout.flush()


# ---- running things ---------------------------------------------------------

def timed(argv, env, stdin=None, stdout=subprocess.DEVNULL, cwd=ROOT):
    """Run argv; return (seconds, completed process)."""
    log(" ".join(argv))
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, cwd=cwd, stdin=stdin, stdout=stdout,
                       stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    return t, p


def interleave(fns, runs, warmup=1):
    """Call each function of `fns` (returning seconds) `warmup` times, then
    `runs` times in turn; return one list of times per function."""
    for _ in range(warmup):
        for f in fns:
            f()
    out = [[] for _ in fns]
    for _ in range(runs):
        for i, f in enumerate(fns):
            out[i].append(f())
    return out


class Failed(Exception):
    pass


def check(p, what):
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Failed("%s: exit %d%s" % (what, p.returncode,
                                        (": " + msg[-1]) if msg else ""))


# ---- pseudo-terminals -------------------------------------------------------

class Pty:
    """A program on a pseudo-terminal of ROWS x COLS.  Counts the bytes it
    writes; reports its wall time and its rusage when it exits."""

    def __init__(self, argv, env, rows=ROWS, cols=COLS):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, cols, 0, 0))
        self.t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(master)
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                if slave > 2:
                    os.close(slave)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        os.close(slave)
        self.pid, self.fd = pid, master
        self.out = bytearray()
        self.status = self.rusage = None
        self.t_exit = None

    def send(self, data):
        os.write(self.fd, data)

    def _read(self, timeout):
        """Read what is there within `timeout`; return the bytes read, b""
        when nothing came, or None at end of output."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return b""
        try:
            d = os.read(self.fd, 1 << 16)
        except OSError:
            return None
        if not d:
            return None
        self.out += d
        return d

    def settle(self, quiet, first_timeout):
        """Wait for output, then for `quiet` seconds without any.  Return
        (bytes read, time of the last byte or None)."""
        n, last = 0, None
        deadline = time.perf_counter() + first_timeout
        while True:
            wait = quiet if n else max(0.0, deadline - time.perf_counter())
            d = self._read(wait)
            if d is None:
                return n, last
            if not d:
                if n or time.perf_counter() >= deadline:
                    return n, last
                continue
            n += len(d)
            last = time.perf_counter()

    def wait(self, timeout=60):
        """Drain the output until the program exits; return its wall time
        since the start."""
        deadline = time.perf_counter() + timeout
        while self.status is None:
            pid, st, ru = os.wait4(self.pid, os.WNOHANG)
            if pid:
                self.t_exit = time.perf_counter()
                self.status, self.rusage = st, ru
                break
            if time.perf_counter() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.wait4(self.pid, 0)
                os.close(self.fd)
                raise Failed("%s did not exit within %ds" % (
                    "the program", timeout))
            self._read(0.01)
        while self._read(0) not in (None, b""):
            pass
        os.close(self.fd)
        return self.t_exit - self.t0

    def exit_code(self):
        return os.waitstatus_to_exitcode(self.status)


# ---- the key bindings, from tui/keymap.c ------------------------------------

DEFAULT_KEYS = {"SWITCH_PANE": "\t", "BOTTOM": "G", "TOP": "g", "QUIT": "q",
                "LINE_DOWN": "j", "LINE_UP": "k", "PAGE_DOWN": " ",
                "PAGE_UP": "b", "NEXT_HUNK": "]", "PREV_HUNK": "[",
                "NEXT_FILE": "}", "PREV_FILE": "{", "PICK_DIM": "1",
                "SUBMIT": "s"}


def screen_keys():
    """Action -> the first key bound to it in the coding screen (its own
    table, then the generic one), as the character a terminal sends."""
    keys = {}
    try:
        with open(os.path.join(ROOT, "tui", "keymap.c"),
                  encoding="utf-8") as f:
            src = f.read()
    except OSError:
        return dict(DEFAULT_KEYS)
    named = {"TK_TAB": "\t", "TK_ENTER": "\r", "TK_ESC": "\x1b"}
    for table in ("main_keys", "generic_keys"):
        m = re.search(r"%s\[\]\s*=\s*\{(.*?)\n\};" % table, src, re.S)
        if not m:
            continue
        for k, act in re.findall(
                r"\{\s*('(?:\\.|[^'])'|TK_\w+(?:\('.'\))?|TK_FN\(\w+\))"
                r"\s*,\s*ACT_(\w+)\s*\}", m.group(1)):
            if k.startswith("'"):
                ch = k[1:-1].encode().decode("unicode_escape")
            elif k in named:
                ch = named[k]
            elif k.startswith("TK_CTRL("):
                ch = chr(ord(k[9]) & 0x1f)
            else:
                continue
            keys.setdefault(act, ch)
    for a, ch in DEFAULT_KEYS.items():
        keys.setdefault(a, ch)
    return keys


def script_name(ch):
    """A key as key scripts write it."""
    return {"\t": "<Tab>", "\r": "<Enter>", "\x1b": "<Esc>", " ": "<Space>",
            "<": "<lt>"}.get(ch, ch)


def count_script_keys(text):
    """Keys in a key script (tui/ui.c's format): '#' comments, blank lines
    and ':' commands count nothing; "<Name>" is one key, any other
    character one key."""
    n = 0
    for line in text.splitlines():
        line = line.rstrip("\r")
        if not line or line.startswith("#") or line.startswith(":"):
            continue
        n += len(re.findall(r"<[^<>\s]+>|.", line))
    return n


# ---- the data ---------------------------------------------------------------

def ensure_data(items, seed):
    meta_path = os.path.join(WORK, "meta.json")
    want = {"format": GEN_FORMAT, "items": items, "seed": seed,
            "import_items": IMPORT_ITEMS, "huge_lines": HUGE_LINES}
    try:
        with open(meta_path) as f:
            meta = json.load(f)
        if all(meta.get(k) == v for k, v in want.items()) and \
                os.path.exists(os.path.join(WORK, "study.db")) and \
                os.path.getmtime(GEN) <= os.path.getmtime(meta_path):
            progress("reusing the study in %s (%d items, seed %d)" % (
                os.path.relpath(WORK, ROOT), items, seed))
            return meta
    except (OSError, ValueError):
        pass
    progress("generating a study of %d items (seed %d) in %s ..." % (
        items, seed, os.path.relpath(WORK, ROOT)))
    os.makedirs(WORK, exist_ok=True)
    p = subprocess.run([GEN, "--dir", WORK, "--items", str(items),
                        "--seed", str(seed), "--import-items",
                        str(IMPORT_ITEMS), "--huge-lines", str(HUGE_LINES),
                        "--codebook", CODEBOOK], cwd=ROOT,
                       env=clean_env())
    if p.returncode != 0:
        sys.exit("bench: the generator failed")
    with open(meta_path) as f:
        meta = json.load(f)
    progress("generated in %.0f s: %s study file" % (
        meta["seconds"], human_bytes(meta["study_bytes"])))
    return meta


def ensure_small(items, seed):
    """A study of `items` items for measure 6a, beside the main one
    (no import file, a small diff); reused while its generator is."""
    d = os.path.join(WORK, "agree-%d" % items)
    meta_path = os.path.join(d, "meta.json")
    try:
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("format") == GEN_FORMAT and meta.get("items") == items \
                and meta.get("seed") == seed and \
                os.path.getmtime(GEN) <= os.path.getmtime(meta_path):
            return os.path.join(d, "study.db")
    except (OSError, ValueError):
        pass
    progress("generating a study of %d items for measure 6a ..." % items)
    os.makedirs(d, exist_ok=True)
    p = subprocess.run([GEN, "--dir", d, "--items", str(items), "--seed",
                        str(seed), "--import-items", "0", "--huge-lines",
                        "200", "--codebook", CODEBOOK], cwd=ROOT,
                       env=clean_env())
    if p.returncode != 0:
        raise Failed("the generator failed for %d items" % items)
    return os.path.join(d, "study.db")


def fresh_study(path, env):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    p = subprocess.run([BC, "--study", path, "init", "--codebook", CODEBOOK],
                       env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    check(p, "bugcoder init")


def db_rows(db, sql):
    """Every row of `sql` on a study, read as db_scalar() reads."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def db_scalar(db, sql):
    """One value from a study, read with Python's own sqlite3 module (so
    that checks work without the sqlite3 shell)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def db_schema(db, tables):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return "".join(con.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND "
            "name = ?", (t,)).fetchone()[0] + ";\n" for t in tables)
    finally:
        con.close()


def last_line_fragment(path):
    """A piece of the diff's last line that any screen showing it draws
    in one run of characters."""
    with open(path, "rb") as f:
        f.seek(-400, os.SEEK_END)
        last = f.read().rstrip(b"\n").split(b"\n")[-1]
    words = re.findall(rb"[A-Za-z_][A-Za-z0-9_.]{5,}", last)
    return max(words, key=len) if words else last.strip()


# ---- measures ---------------------------------------------------------------

class Bench:
    def __init__(self, args, meta):
        self.args = args
        self.meta = meta
        self.db = os.path.join(WORK, "study.db")
        self.huge = os.path.join(WORK, "huge.diff")
        self.jsonl = os.path.join(WORK, "import.jsonl")
        self.item = meta["huge_item"]
        self.env = clean_env()
        self.keys = screen_keys()
        self.pty_latency = None   # measure 2's key round trips
        self.screen_ok = None     # None: not tried; else (ok, why)

    def runs(self, fast):
        if self.args.runs:
            return self.args.runs
        return 5 if fast else 3

    # -- the screen, on a pseudo-terminal --------------------------------------

    def bc_screen_argv(self):
        return [BC, "--study", self.db, "--as", "alice", "code", self.item]

    def check_screen(self):
        """Can `bugcoder code` open the huge item on a terminal?"""
        if self.screen_ok is not None:
            return self.screen_ok
        p = Pty(self.bc_screen_argv(), self.env)
        p.send(self.keys["QUIT"].encode())
        try:
            p.wait(timeout=60)
        except Failed as e:
            self.screen_ok = (False, str(e))
            return self.screen_ok
        text = bytes(p.out).decode("utf-8", "replace")
        if p.exit_code() != 0:
            m = re.search(r"bugcoder: ([^\r\n]*)", text)
            self.screen_ok = (False, "`bugcoder code` exit %d%s" % (
                p.exit_code(), ": " + m.group(1) if m else ""))
        else:
            self.screen_ok = (True, "")
        return self.screen_ok

    def m1_open_huge(self):
        name = "1. open 200k-line diff, G, q"
        target = "<= 1x less"
        if not have("less"):
            return Row(name, note="n/a (less not installed)",
                       target=target)
        ok, why = self.check_screen()
        if not ok:
            return Row(name, target=target, note="n/a: " + why)
        frag = last_line_fragment(self.huge)
        k = self.keys
        bc_keys = (k["SWITCH_PANE"] + k["BOTTOM"] + k["QUIT"]).encode()
        less_keys = b"Gq"
        reached = {"bc": True, "less": True}

        def run(which):
            if which == "bc":
                p = Pty(self.bc_screen_argv(), self.env)
                p.send(bc_keys)
            else:
                p = Pty(["less", self.huge], self.env)
                p.send(less_keys)
            t = p.wait(timeout=120)
            if frag not in p.out:
                reached[which] = False
            return t

        bc_t, less_t = interleave([lambda: run("bc"), lambda: run("less")],
                                  self.runs(fast=True))
        note = ("keys sent at start: %s for bugcoder (focus the fix pane, "
                "end, quit), G q for less; wall time from fork to exit on "
                "a %dx%d pty" % (" ".join(repr(c)[1:-1] for c in
                                          bc_keys.decode()), COLS, ROWS))
        for w, ok_ in reached.items():
            if not ok_:
                note += "; WARNING: %s's output never showed the diff's " \
                        "last line" % ("bugcoder" if w == "bc" else "less")
        return ratio_row(name, Figure(bc_t, "s"), Figure(less_t, "s"), 1.0,
                         target, note)

    def m2_scroll_bytes(self, rows=ROWS, cols=COLS, tag="2a", zoom=False):
        layout = "side by side" if cols >= 100 else "one pane"
        if zoom:
            layout = "zoomed (z: the fix pane alone, full width)"
        name = "%s. bytes, 100 line + 20 page scrolls, %dx%d" % (
            tag, cols, rows)
        target = "<= 1.2x less"
        if not have("less"):
            return Row(name, target=target, note="n/a (less not installed)")
        ok, why = self.check_screen()
        if not ok:
            return Row(name, target=target, note="n/a: " + why)
        k = self.keys
        seq = [k["LINE_DOWN"]] * 100 + [k["PAGE_DOWN"]] * 20
        quiet = 0.03

        def session(argv, prelude, quit_key):
            p = Pty(argv, self.env, rows=rows, cols=cols)
            p.settle(0.3, 30)           # the first screen
            for ch in prelude:
                p.send(ch.encode())
                p.settle(quiet, 2)
            total, lines, lat = 0, 0, []
            for i, ch in enumerate(seq):
                t = time.perf_counter()
                p.send(ch.encode())
                n, last = p.settle(quiet, 2)
                total += n
                if i < 100:
                    lines += n
                if last:
                    lat.append((last - t) * 1000)
            p.send(quit_key)
            p.wait(timeout=60)
            return total, lines, lat

        prelude = [k["SWITCH_PANE"]] + ([k.get("ZOOM", "z")] if zoom else [])
        bc, bc_lines, bc_lat = session(self.bc_screen_argv(), prelude,
                                       k["QUIT"].encode())
        less, less_lines, less_lat = session(["less", self.huge], [], b"q")
        if tag == "2a":
            self.pty_latency = (bc_lat, less_lat)
        note = ("%s layout; one key at a time, each after the previous "
                "frame was complete (no output for %d ms); of which the 100 "
                "line scrolls: bugcoder %s (%.0f B a line), less %s (%.0f B "
                "a line)" % (layout, quiet * 1000, human_bytes(bc_lines),
                             bc_lines / 100.0, human_bytes(less_lines),
                             less_lines / 100.0))
        return ratio_row(name, Figure([bc], "B"), Figure([less], "B"), 1.2,
                         target, note)

    def m2b_scroll_bytes(self):
        return self.m2_scroll_bytes(24, 80, "2b")

    def m2c_scroll_bytes(self):
        return self.m2_scroll_bytes(ROWS, COLS, "2c", zoom=True)

    def m3_latency(self):
        name = "3. keypress latency p50 / p99"
        target = "p99 < 2 ms"
        ok, why = self.check_screen()
        if not ok:
            return Row(name, target=target, note="n/a: " + why)
        k = self.keys
        script = os.path.join(WORK, "latency.keys")
        hook_out = os.path.join(WORK, "latency-hook.tsv")
        shim_out = os.path.join(WORK, "latency-shim.txt")
        keys = [k["SWITCH_PANE"]]
        keys += [k["LINE_DOWN"]] * 400 + [k["LINE_UP"]] * 100
        keys += [k["PAGE_DOWN"]] * 100 + [k["PAGE_UP"]] * 50
        keys += [k["NEXT_HUNK"]] * 40 + [k["PREV_HUNK"]] * 20
        keys += [k["NEXT_FILE"]] * 10 + [k["PREV_FILE"]] * 10
        keys += [k["BOTTOM"], k["TOP"]] * 10
        keys += [k["SWITCH_PANE"], k["LINE_DOWN"], k["PAGE_DOWN"],
                 k["SWITCH_PANE"]] * 20
        with open(script, "w") as f:
            f.write("# keypress latency: the fix pane of the huge item\n")
            for i in range(0, len(keys), 40):
                f.write("".join(script_name(c) for c in keys[i:i + 40])
                        + "\n")
        extra = dict(BUGCODER_KEYS=script, BUGCODER_NO_DISPLAY="1",
                     BUGCODER_BENCH=hook_out, LINES=str(ROWS),
                     COLUMNS=str(COLS))
        shim = build_keytime()
        if shim:
            extra.update(LD_PRELOAD=shim, KEYTIME_OUT=shim_out)
        outside = ""
        if self.pty_latency and self.pty_latency[0]:
            bl, ll = self.pty_latency
            outside = ("; seen from outside through the pty in measure 2a "
                       "(key written -> last byte of its frame read: an "
                       "upper bound): bugcoder p50 %.2f / p99 %.2f ms, less "
                       "p50 %.2f / p99 %.2f ms" % (
                           pct(bl, 50), pct(bl, 99), pct(ll, 50),
                           pct(ll, 99)))
        runs, cpu_runs, how = [], [], None
        for _ in range(self.runs(fast=True)):
            for path in (hook_out, shim_out):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
            p = subprocess.run(self.bc_screen_argv(),
                               env=clean_env(**extra), cwd=ROOT,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            if p.returncode != 0:
                msg = p.stderr.decode("utf-8", "replace").strip()
                msg = msg.splitlines()
                return Row(name, target=target, note="n/a: `bugcoder code` "
                           "with a key script: exit %d%s%s" % (
                               p.returncode, ": " + msg[-1] if msg else "",
                               outside))
            vals = read_numbers(hook_out)
            how = "the screen's BUGCODER_BENCH hook"
            if not vals:
                pairs = read_numbers(shim_out, 2)
                vals = [w for w, _ in pairs]
                cpu_runs.append([c / 1000.0 for _, c in pairs])
                how = ("tests/bench/keytime.c preloaded: the interval "
                       "between successive doupdate() calls (the screen has "
                       "no BUGCODER_BENCH timing hook yet)")
                if vals and len(vals) != len(keys):
                    how += "; WARNING: %d frames for %d keys" % (
                        len(vals), len(keys))
            if not vals:
                return Row(name, target=target,
                           note="n/a (needs the screen's key-timing hook, "
                           "BUGCODER_BENCH, or a C compiler for keytime.c)"
                           + outside)
            runs.append([v / 1000.0 for v in vals])     # us -> ms
        # per key, the best of the replays: a key that another process's
        # time slice delayed in one replay is not delayed in all of them,
        # while a slow key is slow every time
        n = min(len(r) for r in runs)
        best = [min(r[i] for r in runs) for i in range(n)]
        p50, p99 = pct(best, 50), pct(best, 99)
        raw99 = [pct(r, 99) for r in runs]
        met = "yes" if p99 < 2.0 else "NO (%.1fx over)" % (p99 / 2.0)
        cpu_note = ""
        if cpu_runs:
            cpu_note = "; p99 of the CPU time alone %.3f ms" % \
                statistics.median(pct(c, 99) for c in cpu_runs)
        return Row(name, "%.3f / %.3f ms" % (p50, p99), "-", None, target,
                   met, "%d keys (scrolls, hunk, file and end jumps, pane "
                   "switches) in the fix pane of the huge item, replayed %d "
                   "times on a %dx%d virtual screen (BUGCODER_KEYS, "
                   "BUGCODER_NO_DISPLAY), %d-item study; per key the best of "
                   "the replays (a busy machine's preemption hits a key in "
                   "one replay, a slow key in all): each replay's own p99 "
                   "%s ms (max %.2f ms)%s; timed inside the program by "
                   "%s%s" % (
                       len(keys), len(runs), COLS, ROWS, self.meta["items"],
                       " ".join("%.2f" % v for v in raw99),
                       max(max(r) for r in runs), cpu_note, how, outside))

    # -- command line measures -------------------------------------------------

    def m4_export(self):
        name = "4. export %d agreed items" % self.meta["items"]
        target = "<= 1.5x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        out_bc = os.path.join(WORK, "export-bugcoder.csv")
        out_sql = os.path.join(WORK, "export-sqlite3.csv")
        sql = os.path.join(HERE, "peer_export.sql")

        def bc():
            with open(out_bc, "wb") as f:
                t, p = timed([BC, "--study", self.db, "export"], self.env,
                             stdout=f)
            check(p, "bugcoder export")
            return t

        def peer():
            with open(sql, "rb") as i, open(out_sql, "wb") as o:
                t, p = timed(["sqlite3", "-csv", "-header", self.db],
                             self.env, stdin=i, stdout=o)
            check(p, "sqlite3 (export)")
            return t

        try:
            bc()
        except Failed as e:
            return Row(name, target=target, note="n/a: " + str(e))
        bc_t, peer_t = interleave([bc, peer], self.runs(fast=False),
                                  warmup=0)
        same = compare_csv(out_bc, out_sql)
        note = ("`bugcoder export` to stdout vs `sqlite3 -csv -header` "
                "running tests/bench/peer_export.sql, both into a file; "
                "outputs: " + same)
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 1.5,
                         target, note)

    def m5_import(self):
        name = "5. import %d items (JSONL)" % IMPORT_ITEMS
        target = "<= 2x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        bc_db = os.path.join(WORK, "import-bugcoder.db")
        sql_db = os.path.join(WORK, "import-sqlite3.db")
        schema = os.path.join(WORK, "import-schema.sql")
        peer_sql = os.path.join(WORK, "import-peer.sql")
        with open(os.path.join(HERE, "peer_import.sql")) as f, \
                open(peer_sql, "w") as o:
            o.write(".parameter init\n.parameter set @jsonl '%s'\n" %
                    self.jsonl.replace("'", "''"))
            o.write(f.read())
        fresh_study(bc_db, self.env)
        with open(schema, "w") as f:
            f.write(db_schema(bc_db, ("items", "comments", "fixes")))

        def bc():
            fresh_study(bc_db, self.env)
            t, p = timed([BC, "--study", bc_db, "import", self.jsonl],
                         self.env)
            check(p, "bugcoder import")
            return t

        def peer():
            for suffix in ("", "-journal"):
                try:
                    os.unlink(sql_db + suffix)
                except FileNotFoundError:
                    pass
            with open(schema, "rb") as i:
                p = subprocess.run(["sqlite3", sql_db], stdin=i,
                                   stderr=subprocess.PIPE)
            check(p, "sqlite3 (schema)")
            with open(peer_sql, "rb") as i:
                t, p = timed(["sqlite3", sql_db], self.env, stdin=i)
            check(p, "sqlite3 (import)")
            return t

        bc_t, peer_t = interleave([bc, peer], self.runs(fast=False),
                                  warmup=1)
        counts = []
        for db in (bc_db, sql_db):
            counts.append(tuple(db_scalar(db, "SELECT count(*) FROM " + t)
                                for t in ("items", "comments", "fixes")))
        note = ("into a fresh study (made untimed by `bugcoder init`) vs "
                "`sqlite3` on the same tables (tests/bench/peer_import.sql: "
                "readfile + json_each + json_extract, one transaction); "
                "items/comments/fixes stored: bugcoder %d/%d/%d, sqlite3 "
                "%d/%d/%d" % (counts[0] + counts[1]))
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 2.0,
                         target, note)

    def agree_measure(self, name, db):
        """`bugcoder agree` (its default: the percentile bootstrap, 2000
        resamples) on `db` vs the sqlite3 shell's GROUP BY of the same
        count tables."""
        target = "<= 1.5x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        sql = os.path.join(HERE, "peer_agree.sql")

        def bc():
            t, p = timed([BC, "--study", db, "agree"], self.env)
            check(p, "bugcoder agree")
            return t

        def peer():
            with open(sql, "rb") as i:
                t, p = timed(["sqlite3", "-csv", db], self.env, stdin=i)
            check(p, "sqlite3 (agree)")
            return t

        try:
            bc()
        except Failed as e:
            return Row(name, target=target, note="n/a: " + str(e))
        bc_t, peer_t = interleave([bc, peer], self.runs(fast=True),
                                  warmup=1)
        note = ("`bugcoder agree` (text report: kappa and relatives with "
                "their bootstrap intervals, 2000 resamples each, per-code "
                "tables, confusion tables; %s) vs the count tables alone by "
                "GROUP BY (tests/bench/peer_agree.sql); tables: %s" % (
                    self.boot_summary(db), self.compare_agree(sql, db)))
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 1.5,
                         target, note)

    def boot_summary(self, db):
        """How many bootstrap intervals `agree` printed, as a check that
        the measure timed them."""
        p = subprocess.run([BC, "--study", db, "agree", "--format", "json"],
                           env=self.env, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            return "no JSON to count its intervals"
        n = []

        def walk(o):
            if isinstance(o, dict):
                if o.get("ci_method", "").startswith("bootstrap") and \
                        o.get("ci95"):
                    n.append(1)
                for v in o.values():
                    walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)
        walk(rep)
        return "%d bootstrap intervals" % len(n)

    def m6a_agree_small(self):
        items = SMALL_AGREE_ITEMS
        db = self.db if self.meta["items"] == items else \
            ensure_small(items, self.args.seed)
        return self.agree_measure("6a. agree with the bootstrap at %s items"
                                  % "{:,}".format(items), db)

    def m6b_agree(self):
        return self.agree_measure(
            "6b. agree with the bootstrap at %s items x 5 dimensions" %
            "{:,}".format(self.meta["items"]), self.db)

    def compare_agree(self, sql, db):
        """Do bugcoder's confusion tables equal sqlite3's counts?"""
        p = subprocess.run([BC, "--study", db, "agree", "--format",
                            "json"], env=self.env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with open(sql, "rb") as i:
            q = subprocess.run(["sqlite3", "-csv", db], stdin=i,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            return "not compared (no JSON from `agree --format json`)"
        peer = {}
        for r in csv.reader(io.StringIO(q.stdout.decode())):
            if len(r) == 4:
                peer[(r[0], r[1], r[2])] = int(r[3])
        mine, checked = {}, 0
        for d in rep.get("dimensions", []):
            if d.get("select") == "many":
                continue
            conf = d.get("confusion") or {}
            codes = conf.get("codes") or []
            for i, row in enumerate(conf.get("counts") or []):
                for j, n in enumerate(row):
                    if n:
                        mine[(d["key"], codes[i], codes[j])] = n
            checked += 1
        if not checked:
            return "not compared (no confusion tables in the JSON)"
        if mine == peer:
            return "identical (%d cells, %d dimensions)" % (len(mine),
                                                             checked)
        diff = set(mine.items()) ^ set(peer.items())
        return "DIFFERENT (%d cells differ)" % len(diff)

    # -- the study views: status, items, round list -------------------------

    def view_measure(self, name, bc_argv, sql, compare, db=None, fast=True):
        """bugcoder printing a study view vs the sqlite3 shell running
        equivalent SQL on the same file, both into a file."""
        target = "<= 1.5x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        db = db or self.db
        tag = name.split(".")[0]
        out_bc = os.path.join(WORK, "view%s-bugcoder.txt" % tag)
        out_sql = os.path.join(WORK, "view%s-sqlite3.txt" % tag)

        def bc():
            with open(out_bc, "wb") as f:
                t, p = timed([BC, "--study", db] + bc_argv, self.env,
                             stdout=f)
            check(p, "bugcoder " + " ".join(bc_argv))
            return t

        def peer():
            with open(sql, "rb") as i, open(out_sql, "wb") as o:
                t, p = timed(["sqlite3", db], self.env, stdin=i, stdout=o)
            check(p, "sqlite3 (%s)" % os.path.basename(sql))
            return t

        try:
            first = bc()
        except Failed as e:
            return Row(name, target=target, note="n/a: " + str(e))
        # a view that takes long is timed fewer times; the first run
        # warmed the cache
        runs = self.runs(fast=fast and first < 5)
        bc_t, peer_t = interleave([bc, peer], runs, warmup=0 if first >= 5
                                  else 1)
        with open(out_bc, encoding="utf-8", errors="replace") as f:
            mine = f.read()
        with open(out_sql, encoding="utf-8", errors="replace") as f:
            theirs = f.read()
        note = ("`bugcoder %s` vs `sqlite3` running tests/bench/%s on the "
                "same file, both into a file; figures: %s" % (
                    " ".join(bc_argv), os.path.basename(sql),
                    compare(mine, theirs)))
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 1.5,
                         target, note)

    def m10_status(self):
        return self.view_measure(
            "10. status, %d items" % self.meta["items"], ["status"],
            os.path.join(HERE, "peer_status.sql"), compare_status)

    def m11_items(self):
        return self.view_measure(
            "11. items, %d items" % self.meta["items"], ["items"],
            os.path.join(HERE, "peer_items.sql"), compare_items)

    def m12_rounds(self):
        name = "12. round list, %d items in 4 rounds" % self.meta["items"]
        try:
            db = ensure_rounds(self.db, self.env)
        except Failed as e:
            return Row(name, target="<= 1.5x sqlite3", note="n/a: " + str(e))
        return self.view_measure(name, ["round", "list"],
                                 os.path.join(HERE, "peer_rounds.sql"),
                                 compare_rounds, db=db)

    def m7_memory(self):
        name = "7. peak RSS, huge diff open"
        target = "<= 1.5x less"
        if not have("less"):
            return Row(name, target=target, note="n/a (less not installed)")
        ok, why = self.check_screen()
        if not ok:
            return Row(name, target=target, note="n/a: " + why)
        k = self.keys

        def peak(argv, keys):
            p = Pty(argv, self.env)
            p.send(keys)
            p.settle(0.5, 60)
            hwm = vm_hwm(p.pid)
            p.send(b"q")
            p.wait(timeout=60)
            if hwm is None:
                raise Failed("no VmHWM in /proc/%d/status" % p.pid)
            return hwm / 1024.0

        bc_keys = (k["SWITCH_PANE"] + k["BOTTOM"]).encode()
        bc, less = interleave([lambda: peak(self.bc_screen_argv(), bc_keys),
                               lambda: peak(["less", self.huge], b"G")],
                              self.runs(fast=False), warmup=0)
        return ratio_row(name, Figure(bc, "MiB"), Figure(less, "MiB"), 1.5,
                         target, "VmHWM (the peak resident set since exec) "
                         "read from /proc once the end of the diff is on "
                         "the %dx%d pty, before quitting" % (COLS, ROWS))

    # -- fetch -----------------------------------------------------------------

    def m8_fetch(self):
        name = "8. GitHub requests per kept issue"
        mock = os.path.join(ROOT, "tests", "mock_github.py")
        if not os.path.exists(mock):
            return Row(name, note="n/a (tests/mock_github.py missing)")
        srv = subprocess.Popen([sys.executable, mock], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=ROOT)
        try:
            line = srv.stdout.readline()
            if not line.strip():
                # the mock says why it did not start (its schema or its
                # validator missing): a fetch without it would count REST
                # fallbacks, not what a fetch costs
                srv.wait()
                raise Failed("the mock GitHub did not start: " +
                             srv.stderr.read().decode("utf-8", "replace")
                             .strip())
            port = int(line)
            return self._m8(name, "http://127.0.0.1:%d" % port)
        except (ValueError, OSError, Failed) as e:
            return Row(name, note="n/a: %s" % e)
        finally:
            srv.terminate()
            srv.wait()

    def _m8(self, name, url):
        repo = "acme/big"
        db = os.path.join(WORK, "fetch.db")
        env = None

        def ctl(path, body=None):
            req = urllib.request.Request(url + path, data=body,
                                         method="POST" if body is not None
                                         else "GET")
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read())

        def fetch():
            nonlocal env
            ctl("/_control/reset", b"{}")
            t, p = timed([BC, "--study", db, "fetch", repo, "--require-fix",
                          "--api-url", url], env, stdout=subprocess.PIPE)
            check(p, "bugcoder fetch")
            return t, ctl("/_control/stats")

        # without a token, as a first try would be: REST timelines
        fresh_study(db, self.env)
        env = clean_env()
        _, rest = fetch()
        rest_kept = db_scalar(db, "SELECT count(*) FROM items")
        # with one, as a real study runs: GraphQL where it can
        fresh_study(db, self.env)
        env = clean_env(GITHUB_TOKEN="bench-token")
        t1, first = fetch()
        kept = db_scalar(db, "SELECT count(*) FROM items")
        t2, again = fetch()
        if not kept or not rest_kept:
            raise Failed("the fetch kept no issue")

        # the plain crawl: list pages, then per listed issue its comments
        # (pages of 100) and timeline, per fix the pull request and diff
        ctl("/_control/reset", b"{}")
        pages = listed = comment_pages = 0
        nxt = "%s/repos/%s/issues?state=closed&labels=bug&per_page=100" % (
            url, repo)
        while nxt:
            with urllib.request.urlopen(nxt, timeout=30) as r:
                page = json.loads(r.read())
                link = r.headers.get("Link") or ""
            pages += 1
            for it in page:
                if "pull_request" in it:
                    continue
                listed += 1
                comment_pages += max(1, -(-int(it.get("comments", 0)) //
                                          100))
            m = re.search(r'<([^>]+)>;\s*rel="next"', link)
            nxt = m.group(1) if m else None
        exp = ctl("/_control/expected?repo=%s&require_fix=1" % repo)
        fixes = sum(len(x.get("fixes") or []) for x in exp)
        plain = pages + comment_pages + listed + 2 * fixes
        per_first = first["counted"] / kept
        per_again = again["counted"] / kept
        per_plain = plain / kept
        kinds = ", ".join("%s %d" % kv for kv in
                          sorted(first.get("by_kind", {}).items()))
        note = ("mock server, %s with --require-fix and a token: %d issues "
                "listed, %d kept; first fetch %d counted requests (%s) in "
                "%.2f s; unchanged re-fetch %d counted + %d answered 304 "
                "(not counted) in %.2f s; without a token (REST timelines "
                "only) the first fetch takes %d counted requests, %.2f per "
                "kept issue; a plain REST crawl needs %d list pages + %d "
                "comment pages + %d timelines + %d pulls + %d diffs = %d" % (
                    repo, listed, kept, first["counted"], kinds, t1,
                    again["counted"], again.get("not_modified", 0), t2,
                    rest["counted"], rest["counted"] / rest_kept,
                    pages, comment_pages, listed, fixes, fixes, plain))
        return Row(name, "%.2f first, %.2f re-fetch (+%.2f 304s)" % (
                       per_first, per_again,
                       again.get("not_modified", 0) / kept),
                   "%.2f (plain crawl)" % per_plain,
                   "%.2f / %.2f" % (per_first / per_plain,
                                    per_again / per_plain),
                   "(report)", "-", note)

    # -- the write lock during an import ---------------------------------------

    def m13_import_lock(self):
        """How long a 10,000-item import keeps others from writing: a probe
        connection tries BEGIN IMMEDIATE (no busy wait) every 2 ms while
        `bugcoder import` runs; the longest run of refusals is the time the
        import held the write lock."""
        import threading
        name = "13. write lock held by a %d-item import" % IMPORT_ITEMS
        db = os.path.join(WORK, "import-lock.db")

        def once():
            fresh_study(db, self.env)
            stop = threading.Event()
            spans = []

            def probe():
                con = sqlite3.connect(db, timeout=0, isolation_level=None)
                start = None
                while not stop.is_set():
                    try:
                        con.execute("BEGIN IMMEDIATE")
                        con.execute("ROLLBACK")
                        if start is not None:
                            spans.append(time.time() - start)
                            start = None
                    except sqlite3.OperationalError:
                        if start is None:
                            start = time.time()
                    time.sleep(0.002)
                if start is not None:
                    spans.append(time.time() - start)
                con.close()

            th = threading.Thread(target=probe)
            th.start()
            try:
                t, p = timed([BC, "--study", db, "import", self.jsonl],
                             self.env)
            finally:
                stop.set()
                th.join()
            check(p, "bugcoder import")
            return (max(spans) if spans else 0.0), t

        runs = [once() for _ in range(self.runs(fast=False))]
        held = Figure([r[0] for r in runs], "s")
        total = Figure([r[1] for r in runs], "s")
        return Row(name, "%s of %s" % (held.text(), total.text()), "-", None,
                   "(report)", "-",
                   "the longest time another connection could not begin a "
                   "write (probed every 2 ms), of the import's whole run; "
                   "the files are read and checked before the lock is taken")

    # -- the audit log ---------------------------------------------------------

    def m14_audit_verify(self):
        """`audit verify` on the generated study: the chain, the schema and
        the state against the log's replay (every label, submission and
        resolution was written with its audit row)."""
        rows = db_scalar(self.db, "SELECT count(*) FROM audit")
        name = "14. audit verify, %d items (%d audit rows)" % (
            self.meta["items"], rows)
        peaks = []

        def once():
            log("bugcoder audit verify")
            t0 = time.perf_counter()
            p = subprocess.Popen([BC, "--study", self.db, "audit",
                                  "verify"], env=self.env, cwd=ROOT,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            err = p.stderr.read()
            _, status, ru = os.wait4(p.pid, 0)
            t = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            p.stderr = err
            check(p, "bugcoder audit verify")
            peaks.append(ru.ru_maxrss / 1024.0)
            return t

        try:
            first = once()
        except Failed as e:
            return Row(name, target="report", note="n/a: " + str(e))
        (times,) = interleave([once], self.runs(fast=first < 5), warmup=0)
        return Row(name, Figure(times, "s").text(), "-", None, "report", "-",
                   "the whole check, on a snapshot; peak resident set %s "
                   "(temporary tables in SQLite's temporary files; under "
                   "the server install they are kept in memory)" %
                   Figure(peaks, "MiB").text())

    # -- writes: one label, label --from -------------------------------------

    def study_copy(self, name, change, what):
        """A copy of the study named `name` under WORK, changed by the SQL
        `change`, which deletes rows; reused while the study is unchanged
        and `change` finds nothing left to delete."""
        path = os.path.join(WORK, name)
        try:
            if os.path.getmtime(path) >= os.path.getmtime(self.db):
                con = sqlite3.connect(path)
                try:
                    with con:
                        if con.execute(change).rowcount == 0:
                            return path
                finally:
                    con.close()
        except (OSError, sqlite3.Error):
            pass
        progress("copying the study %s ..." % what)
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(path + suffix)
            except FileNotFoundError:
                pass
        src = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        dst = sqlite3.connect(path)
        with dst:
            src.backup(dst)
        src.close()
        with dst:
            dst.execute(change)
        dst.close()
        return path

    def writes_db(self):
        """The study for the write measures: a copy without its
        resolutions (an adjudicated item's labels can no longer change, so
        every item can be labelled there); each run labels as a member of
        its own, added untimed."""
        return self.study_copy("writes.db", "DELETE FROM resolutions",
                               "for the write measures")

    def new_member(self, db, tag):
        """A fresh annotator for one run of a write measure."""
        n = db_scalar(db, "SELECT coalesce(max(id), 0) + 1 FROM members")
        name = "%s%d" % (tag, n)
        p = subprocess.run([BC, "--study", db, "member", "add", name,
                            "--role", "annotator"], env=self.env, cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        check(p, "bugcoder member add")
        return name

    def peer_label_sql(self, items, out):
        """The sqlite3 shell's side of `label ITEM symptom=.. root_cause=..
        fix_pattern=.. phase=.. --submit` for each item: the same rows -
        four labels, the submission, five audit rows, each audit row's
        hash over the previous one's (sha3 here, SHA-256 in bugcoder) -
        the member given by the temp table `me`."""
        at = "2024-07-01T12:00:00Z"
        actor = os.environ.get("USER") or "owner"
        for repo, number in items:
            out.write("UPDATE cur SET id = (SELECT id FROM items WHERE "
                      "repo = '%s' AND number = %d);\n" % (
                          repo.replace("'", "''"), number))
            for dim, code in LABEL_WORDS:
                out.write("INSERT INTO labels VALUES ((SELECT id FROM cur), "
                          "(SELECT id FROM me), '%s', '%s', '1.0', NULL, "
                          "'%s');\n" % (dim, code, at))
            out.write("INSERT INTO submissions VALUES ((SELECT id FROM cur),"
                      " (SELECT id FROM me), '%s');\n" % at)
            for action, dim, new in [("label", d, c) for d, c in
                                     LABEL_WORDS] + [("submit", None, at)]:
                dim_sql = "'%s'" % dim if dim else "NULL"
                out.write(
                    "INSERT INTO audit (at, actor, for_member, action, "
                    "item_id, dimension, old, new, hash) SELECT '%s', '%s', "
                    "me.name, '%s', cur.id, %s, NULL, '%s', lower(hex(sha3("
                    "coalesce((SELECT hash FROM audit ORDER BY id DESC "
                    "LIMIT 1), '') || '%s;%s;' || me.name || ';%s;' || "
                    "cur.id || ';%s;N;%s;', 256))) FROM me, cur;\n" % (
                        at, actor, action, dim_sql, new, at, actor, action,
                        dim or "N", new))

    def peer_label_run(self, db, member, body):
        """Time the sqlite3 shell running `body` (peer_label_sql) as
        `member`, in one transaction."""
        head = os.path.join(WORK, "label-peer-head.sql")
        with open(head, "w") as f:
            f.write(".bail on\nBEGIN IMMEDIATE;\nCREATE TEMP TABLE me AS "
                    "SELECT id, name FROM members WHERE name = '%s';\n"
                    "CREATE TEMP TABLE cur (id INTEGER);\n"
                    "INSERT INTO cur VALUES (0);\n.read %s\nCOMMIT;\n" % (
                        member, body))
        with open(head, "rb") as i:
            t, p = timed(["sqlite3", db], self.env, stdin=i)
        check(p, "sqlite3 (label)")
        return t

    def m15_label_one(self):
        name = "15. one `label` of 4 dimensions --submit, %d items" % \
            self.meta["items"]
        target = "<= 2x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        db = self.writes_db()
        runs = self.runs(fast=True)
        items = db_rows(db, "SELECT repo, number FROM items ORDER BY id "
                        "LIMIT %d" % (2 * (runs + 1)))
        if len(items) < 2 * (runs + 1):
            return Row(name, target=target, note="n/a (too few items)")
        me_bc = self.new_member(db, "one")
        me_sql = self.new_member(db, "onesql")
        words = ["%s=%s" % w for w in LABEL_WORDS]
        bodies = []
        for k in range(runs + 1):
            path = os.path.join(WORK, "label-one-%d.sql" % k)
            with open(path, "w") as f:
                self.peer_label_sql([items[2 * k + 1]], f)
            bodies.append(path)
        left = {"bc": list(items[0::2]), "sql": list(bodies)}

        def bc():
            repo, number = left["bc"].pop(0)
            t, p = timed([BC, "--study", db, "--as", me_bc, "label",
                          "%s#%d" % (repo, number)] + words + ["--submit"],
                         self.env)
            check(p, "bugcoder label")
            return t

        def peer():
            return self.peer_label_run(db, me_sql, left["sql"].pop(0))

        bc_t, peer_t = interleave([bc, peer], runs, warmup=1)
        got = [db_scalar(db, "SELECT count(*) FROM labels l JOIN members m "
                         "ON m.id = l.member_id WHERE m.name = '%s'" % m)
               for m in (me_bc, me_sql)]
        note = ("`bugcoder --as M label ITEM %s --submit` (a new item each "
                "run) vs `sqlite3` making the same rows in one transaction: "
                "4 labels, the submission and 5 audit rows hashed in a chain "
                "(tests/bench/bench.py, peer_label_sql); on a copy of the "
                "study without its resolutions, so that every item can "
                "still be labelled; labels stored: bugcoder %d, sqlite3 %d" %
                (" ".join(words), got[0], got[1]))
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 2.0,
                         target, note)

    def m16_label_from(self):
        import threading
        n = self.meta["items"]
        name = "16. `label --from` of %d lines (4 dimensions --submit)" % n
        target = "<= 2x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        db = self.writes_db()
        items = db_rows(db, "SELECT repo, number FROM items ORDER BY id")
        lines = os.path.join(WORK, "label-from.txt")
        body = os.path.join(WORK, "label-from-peer.sql")
        words = " ".join("%s=%s" % w for w in LABEL_WORDS)
        with open(lines, "w") as f:
            for repo, number in items:
                f.write("%s#%d %s --submit\n" % (repo, number, words))
        with open(body, "w") as f:
            self.peer_label_sql(items, f)
        held = []

        def bc():
            me = self.new_member(db, "from")
            stop = threading.Event()
            spans = []

            def probe():
                con = sqlite3.connect(db, timeout=0, isolation_level=None)
                start = None
                while not stop.is_set():
                    try:
                        con.execute("BEGIN IMMEDIATE")
                        con.execute("ROLLBACK")
                        if start is not None:
                            spans.append(time.time() - start)
                            start = None
                    except sqlite3.OperationalError:
                        if start is None:
                            start = time.time()
                    time.sleep(0.002)
                if start is not None:
                    spans.append(time.time() - start)
                con.close()

            th = threading.Thread(target=probe)
            th.start()
            try:
                t, p = timed([BC, "--study", db, "--as", me, "label",
                              "--from", lines], self.env)
            finally:
                stop.set()
                th.join()
            check(p, "bugcoder label --from")
            held.append(max(spans) if spans else 0.0)
            return t

        def peer():
            return self.peer_label_run(db, self.new_member(db, "fromsql"),
                                       body)

        bc_t, peer_t = interleave([bc, peer], self.runs(fast=False),
                                  warmup=0)
        lock = Figure(held, "s")
        row = ratio_row(
            name, Figure(bc_t, "s"), Figure(peer_t, "s"), 2.0, target,
            "`bugcoder --as M label --from FILE` of one line an item (`ITEM "
            "%s --submit`), a new member each run, vs `sqlite3` making the "
            "same rows (4 labels, the submission, 5 chained audit rows an "
            "item) in one transaction; on the copy of measure 15.  The "
            "write lock (a probe tries BEGIN IMMEDIATE every 2 ms) was held "
            "%s of bugcoder's run: the lines are read and checked first" % (
                words, lock.text()))
        row.bc += " (lock %s)" % lock.text()
        return row

    # -- the adjudicator's screen, export --raw ------------------------------

    def m17_adjudicate_open(self):
        name = "17. open the adjudicator's screen, %d items" % \
            self.meta["items"]
        target = "<= 1.5x disagreements"
        out = os.path.join(WORK, "disagreements.txt")
        quit_key = self.keys["QUIT"].encode()
        # the generated study is adjudicated throughout: half of it is
        # left to do in a copy
        db = self.study_copy("adjudicate.db", "DELETE FROM resolutions "
                             "WHERE item_id % 2 = 0", "half adjudicated")
        argv = [BC, "--study", db, "--as", "carol", "adjudicate"]

        def screen():
            p = Pty(argv, self.env)
            p.send(quit_key)
            t = p.wait(timeout=300)
            if p.exit_code() != 0:
                text = bytes(p.out).decode("utf-8", "replace")
                m = re.search(r"bugcoder: ([^\r\n]*)", text)
                raise Failed("`bugcoder adjudicate` exit %d%s" % (
                    p.exit_code(), ": " + m.group(1) if m else ""))
            return t

        def peer():
            with open(out, "wb") as f:
                t, p = timed([BC, "--study", db, "--as", "carol",
                              "disagreements"], self.env, stdout=f)
            check(p, "bugcoder disagreements")
            return t

        try:
            first = screen()
        except Failed as e:
            return Row(name, target=target, note="n/a: " + str(e))
        runs = self.runs(fast=first < 5)
        bc_t, peer_t = interleave([screen, peer], runs, warmup=0)
        with open(out, encoding="utf-8", errors="replace") as f:
            listed = sum(1 for _ in f)
        note = ("`bugcoder --as carol adjudicate` on a %dx%d pty, %s sent "
                "at start (the queue built, the first item drawn, quit), "
                "wall time from fork to exit, vs `bugcoder --as carol "
                "disagreements` into a file (%d lines): the same question "
                "without the screen; on a copy of the study with the "
                "resolutions of its even-numbered items taken away (the "
                "generated study has none left to adjudicate)" % (
                    COLS, ROWS, repr(quit_key.decode()), listed))
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 1.5,
                         target, note)

    def m18_export_raw(self):
        name = "18. export --raw, every label"
        target = "<= 1.5x sqlite3"
        if not have("sqlite3"):
            return Row(name, target=target,
                       note="n/a (sqlite3 not installed)")
        out_bc = os.path.join(WORK, "export-raw-bugcoder.csv")
        out_sql = os.path.join(WORK, "export-raw-sqlite3.csv")
        sql = os.path.join(HERE, "peer_export_raw.sql")

        def bc():
            with open(out_bc, "wb") as f:
                t, p = timed([BC, "--study", self.db, "export", "--raw"],
                             self.env, stdout=f)
            check(p, "bugcoder export --raw")
            return t

        def peer():
            with open(sql, "rb") as i, open(out_sql, "wb") as o:
                t, p = timed(["sqlite3", "-csv", "-header", self.db],
                             self.env, stdin=i, stdout=o)
            check(p, "sqlite3 (export --raw)")
            return t

        try:
            bc()
        except Failed as e:
            return Row(name, target=target, note="n/a: " + str(e))
        bc_t, peer_t = interleave([bc, peer], self.runs(fast=False),
                                  warmup=0)
        note = ("`bugcoder export --raw` (the owner: every label, names "
                "shown) vs `sqlite3 -csv -header` running "
                "tests/bench/peer_export_raw.sql (labels joined to items, "
                "members, submissions, citations), both into a file; "
                "outputs: " + compare_csv(out_bc, out_sql))
        return ratio_row(name, Figure(bc_t, "s"), Figure(peer_t, "s"), 1.5,
                         target, note)

    # -- keystrokes -----------------------------------------------------------

    def m9_keystrokes(self):
        name = "9. keystrokes to code + submit 1 item"
        script = os.path.join(HERE, "code-one-item.keys")
        try:
            with open(script, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return Row(name, note="n/a (tests/bench/code-one-item.keys "
                       "missing)")
        n = count_script_keys(text)
        verdict = self.verify_script(script)
        return Row(name, "%d keys" % n, "-", None, "(report)", "-",
                   "counted from tests/bench/code-one-item.keys, replayed on "
                   "a fresh one-item study: " + verdict)

    def m9b_cite_keys(self):
        name = "9b. keystrokes to cite a line of the fix"
        script = os.path.join(HERE, "cite-one-line.keys")
        try:
            with open(script, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return Row(name, note="n/a (tests/bench/cite-one-line.keys "
                       "missing)")
        n = count_script_keys(text)
        verdict = self.verify_citation(script)
        return Row(name, "%d keys" % n, "-", None, "<= 3",
                   "yes" if n <= 3 and verdict.startswith("verified")
                   else "no",
                   "counted from tests/bench/cite-one-line.keys (] e e: "
                   "the first hunk's first change, for the dimension "
                   "coded last), replayed after measure 9's coding keys "
                   "on a fresh one-item study: " + verdict)

    def verify_citation(self, script):
        """Replay code-one-item.keys then `script`; is one line of the
        fix cited?"""
        both = os.path.join(WORK, "code-and-cite.keys")
        with open(os.path.join(HERE, "code-one-item.keys")) as a, \
                open(script) as b, open(both, "w") as o:
            o.write(a.read() + "\n" + b.read())
        verdict = self.verify_script(both)
        if not verdict.startswith("verified"):
            return verdict
        db = os.path.join(WORK, "keys.db")
        rows = db_rows(db, "SELECT e.dimension, e.pane, e.quote FROM "
                       "evidence e JOIN members m ON m.id = e.member_id "
                       "WHERE m.name = 'alice'")
        if len(rows) == 1 and rows[0][1] == "diff" and \
                rows[0][2][:1] in ("+", "-"):
            return "verified (%s cited with the changed line %r)" % (
                rows[0][0], rows[0][2].split("\n")[0][:40])
        return "NOT verified (%d citations: %r)" % (len(rows), rows[:3])

    def verify_script(self, script):
        db = os.path.join(WORK, "keys.db")
        one = os.path.join(WORK, "one-item.jsonl")
        try:
            fresh_study(db, self.env)
            with open(self.jsonl, "rb") as f, open(one, "wb") as o:
                o.write(f.readline())
            for argv in (["import", one],
                         ["member", "add", "alice", "--role", "annotator"]):
                p = subprocess.run([BC, "--study", db] + argv, env=self.env,
                                   cwd=ROOT, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
                check(p, "bugcoder " + argv[0])
        except Failed as e:
            return "not verified (%s)" % e
        env = clean_env(BUGCODER_KEYS=script, BUGCODER_NO_DISPLAY="1",
                        LINES=str(ROWS), COLUMNS=str(COLS))
        p = subprocess.run([BC, "--study", db, "--as", "alice", "code"],
                           env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
            return "not verified (`bugcoder code` exit %d%s)" % (
                p.returncode, ": " + msg[-1] if msg else "")
        coded = {r[0] for r in db_rows(db, "SELECT DISTINCT dimension FROM "
                                       "labels l JOIN members m ON m.id = "
                                       "l.member_id WHERE m.name = 'alice'")}
        subs = db_scalar(db, "SELECT count(*) FROM submissions s JOIN "
                         "members m ON m.id = s.member_id WHERE m.name = "
                         "'alice'")
        with open(CODEBOOK) as f:
            dims = json.load(f)["dimensions"]
        required = {d["key"] for d in dims if d.get("required")}
        # coding an item is coding its required dimensions: submitting
        # asks no more
        if required <= coded and subs == 1:
            return ("verified (the %d required dimensions of %d coded, "
                    "%d in all, submitted)" % (len(required), len(dims),
                                                len(coded)))
        return "NOT verified (%d of %d required dimensions coded, %d " \
            "submission)" % (len(required & coded), len(required), subs)


def vm_hwm(pid):
    """Peak resident set size of a running process in KiB, from /proc
    (ru_maxrss would count the Python process it was forked from)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def read_numbers(path, fields=1):
    """The last `fields` numbers of every line of `path` ([] when absent):
    floats, or tuples of them when fields > 1."""
    vals = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    v = [float(x) for x in line.split()[-fields:]]
                except ValueError:
                    continue
                if len(v) == fields:
                    vals.append(v[0] if fields == 1 else tuple(v))
    except OSError:
        pass
    return vals


def build_keytime():
    """Build tests/bench/keytime.c into a shared object; None if no C
    compiler."""
    src = os.path.join(HERE, "keytime.c")
    out = os.path.join(WORK, "keytime.so")
    cc = os.environ.get("CC") or "cc"
    if not shutil.which(cc) or not os.path.exists(src):
        return None
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out
    p = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", out, src,
                        "-ldl"], stderr=subprocess.PIPE)
    return out if p.returncode == 0 else None


def pct(vals, p):
    v = sorted(vals)
    if not v:
        return float("nan")
    k = (len(v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def ensure_rounds(db, env):
    """A copy of the study with its items in four rounds of alice and bob
    (the first closed), made with bugcoder itself; reused while the study
    is unchanged."""
    path = os.path.join(WORK, "rounds.db")
    try:
        if os.path.getmtime(path) >= os.path.getmtime(db) and \
                db_scalar(path, "SELECT count(*) FROM rounds") == 4:
            return path
    except (OSError, sqlite3.Error):
        pass
    progress("putting the study's items into rounds (a copy) ...")
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    src = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    dst = sqlite3.connect(path)
    with dst:
        src.backup(dst)
    src.close()
    dst.close()
    n = db_scalar(path, "SELECT count(*) FROM items")
    e = dict(env, BUGCODER_NOW="2024-07-01T12:00:00Z")
    steps = [["round", "create", "r%d" % k, "--sample", str(n // 4),
              "--seed", str(k), "--annotators", "alice,bob"]
             for k in (1, 2, 3)]
    steps += [["round", "create", "r4", "--items", "all", "--annotators",
               "alice,bob"], ["round", "close", "r1"]]
    for argv in steps:
        p = subprocess.run([BC, "--study", path] + argv, env=e, cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        check(p, "bugcoder " + " ".join(argv))
    return path


def compare_status(mine, theirs):
    """The counts of labels etc. and the agreement line of `status`
    against the peer's two last rows."""
    rows = [r.split("|") for r in theirs.strip().splitlines()]
    if len(rows) < 2:
        return "not compared (no output from sqlite3)"
    counts, agree = rows[-2], rows[-1]
    m1 = re.search(r"(\d+) labels, (\d+) submissions, (\d+) open "
                   r"proposals, (\d+) resolutions", mine)
    m2 = re.search(r"(\d+) items coded by all their annotators: (\d+) "
                   r"agreed, (\d+) resolved, (\d+) with disagreements "
                   r"left; (\d+) flagged", mine)
    if not m1 or not m2:
        return "not compared (status printed no counts)"
    if list(m1.groups()) != counts[2:6] or list(m2.groups()) != agree:
        return "DIFFERENT (bugcoder %s / %s, sqlite3 %s / %s)" % (
            ",".join(m1.groups()), ",".join(m2.groups()),
            ",".join(counts[2:6]), ",".join(agree))
    return ("identical counts (%s labels; %s items coded by both: %s "
            "agreed, %s resolved, %s left)" % (m1.group(1), agree[0],
                                               agree[1], agree[2], agree[3]))


def compare_items(mine, theirs):
    """Item names and submission counts, line by line."""
    a = [(ln.split()[0], ln.split()[-1]) for ln in mine.splitlines()[1:]
         if "#" in ln.split()[0]] if mine.strip() else []
    b = [(r.split("|")[0], r.split("|")[7]) for r in theirs.splitlines()
         if r.count("|") >= 8]
    if not a or not b:
        return "not compared (empty output)"
    if a != b:
        bad = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
        return "DIFFERENT (%d of %d items differ)" % (bad, len(b))
    return "identical items and submission counts (%d items)" % len(a)


def compare_rounds(mine, theirs):
    """Name, state, items and done per round."""
    a = [tuple(re.match(r"(\S+)\s+(\S+)\s+(\d+) items,\s+(\d+) done",
                        ln).groups()) for ln in mine.splitlines()
         if re.match(r"\S+\s+\S+\s+\d+ items,", ln)]
    b = [tuple(r.split("|")[:4]) for r in theirs.splitlines()
         if r.count("|") >= 4]
    if not a or not b:
        return "not compared (empty output)"
    if a != b:
        return "DIFFERENT (bugcoder %s, sqlite3 %s)" % (a, b)
    return "identical (%d rounds)" % len(a)


def compare_csv(a, b):
    """Compare two CSV files cell by cell; describe the result."""
    def rows(path):
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))
    try:
        ra, rb = rows(a), rows(b)
    except (OSError, UnicodeDecodeError) as e:
        return "not compared (%s)" % e
    if not ra or not rb:
        return "not compared (empty output)"
    if ra[0] != rb[0]:
        return "DIFFERENT headers (bugcoder: %s)" % ",".join(ra[0])
    if len(ra) != len(rb):
        return "DIFFERENT (%d rows vs %d)" % (len(ra) - 1, len(rb) - 1)
    bad = rounding = 0
    for x, y in zip(ra, rb):
        if x == y:
            continue
        if len(x) != len(y):
            bad += 1
            continue
        for cx, cy in zip(x, y):
            if cx == cy:
                continue
            try:
                # C's printf and SQLite's round a halfway value apart
                if abs(float(cx) - float(cy)) <= 0.0100001:
                    rounding += 1
                    continue
            except ValueError:
                pass
            bad += 1
            break
    if bad:
        return "DIFFERENT (%d of %d rows differ)" % (bad, len(ra) - 1)
    s = "identical (%d rows x %d columns)" % (len(ra) - 1, len(ra[0]))
    if rounding:
        s = s[:-1] + (", but %d two-decimal cells rounded the other way: "
                      "C's printf and SQLite's printf disagree on halfway "
                      "cases)" % rounding)
    return s


def main():
    global VERBOSE
    global BC, GEN
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=0,
                    help="runs per measure (default 5 fast, 3 slow)")
    ap.add_argument("--only", default="",
                    help="comma-separated measure numbers")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--bugcoder", help=argparse.SUPPRESS)
    ap.add_argument("--gen", help=argparse.SUPPRESS)
    args = ap.parse_args()
    VERBOSE = args.verbose
    BC = os.path.abspath(args.bugcoder) if args.bugcoder else BC
    GEN = os.path.abspath(args.gen) if args.gen else GEN
    for path, what in ((BC, "bugcoder"), (GEN, "tests/bench/gen")):
        if not os.access(path, os.X_OK):
            sys.exit("bench: %s is not built (run `make bench`)" % what)
    only = {int(x) for x in args.only.split(",") if x.strip()}
    t0 = time.time()
    meta = ensure_data(args.items, args.seed)
    b = Bench(args, meta)
    load0 = os.getloadavg()[0]
    measures = [("1", b.m1_open_huge), ("2a", b.m2_scroll_bytes),
                ("2b", b.m2b_scroll_bytes), ("2c", b.m2c_scroll_bytes),
                ("3", b.m3_latency),
                ("4", b.m4_export), ("5", b.m5_import), ("6a", b.m6a_agree_small),
                ("6b", b.m6b_agree),
                ("7", b.m7_memory), ("8", b.m8_fetch),
                ("9", b.m9_keystrokes), ("9b", b.m9b_cite_keys),
                ("10", b.m10_status),
                ("11", b.m11_items), ("12", b.m12_rounds),
                ("13", b.m13_import_lock), ("14", b.m14_audit_verify),
                ("15", b.m15_label_one), ("16", b.m16_label_from),
                ("17", b.m17_adjudicate_open), ("18", b.m18_export_raw)]
    rows = []
    for tag, fn in measures:
        if only and int(re.match(r"\d+", tag).group()) not in only:
            continue
        progress("measure %s ..." % tag)
        try:
            rows.append(fn())
        except Failed as e:
            rows.append(Row("%s. %s" % (tag, fn.__name__.split("_", 1)[1]),
                            note="failed: %s" % e))
    load1 = os.getloadavg()[0]
    head = ("bugcoder bench: %d items (seed %d), huge diff %d lines (%s), "
            "%d CPUs, load %.1f -> %.1f, %.0f s" % (
                meta["items"], meta["seed"], meta["huge_lines"],
                human_bytes(meta["huge_bytes"]), os.cpu_count() or 0,
                load0, load1, time.time() - t0))
    try:
        with open(BC, "rb") as f:
            if b"__asan_init" in f.read():
                head += ("\nWARNING: %s is built with the sanitizers "
                         "(make SAN=1): its figures say little; rebuild "
                         "without SAN" % os.path.relpath(BC, ROOT))
    except OSError:
        pass
    print_table(rows, head)
    print()
    print("Figures are medians; ±N% is (max - min) / 2 / median over the "
          "runs (machine noise).")


if __name__ == "__main__":
    main()
