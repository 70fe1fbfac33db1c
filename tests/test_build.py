# SPDX-License-Identifier: MIT
"""The build on systems other than ours: `make deps` installs only what
building needs and `make test-deps` what the tests need too, only what
is missing and nothing when all is here; both work without apt-get;
plain `make` names a missing library before it compiles; CPPFLAGS reach
the compiler; every header compiles on its own.

Before: `deps` ran apt-get (with sudo) whenever dpkg did not list a
package, failed outright on a system without apt-get even with
everything installed (so `make test` did too), and CPPFLAGS were
dropped."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIDDEN = ("apt-get", "apt", "sudo", "dpkg", "dpkg-query")


def fake_path(bindir, hide=HIDDEN):
    """A directory with every command of $PATH but `hide`, for PATH."""
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            src = os.path.join(d, name)
            dst = os.path.join(bindir, name)
            if name in hide or os.path.lexists(dst):
                continue
            if os.path.isfile(src) and os.access(src, os.X_OK):
                os.symlink(src, dst)


def make_env(**extra):
    """The environment for a make run from a test: the variables the
    outer make was given (SAN=1, say, so nothing is rebuilt differently)
    are kept, its jobserver is not (its descriptors are not ours)."""
    e = dict(os.environ)
    e["MAKEFLAGS"] = " ".join(t for t in e.get("MAKEFLAGS", "").split()
                              if not t.startswith(("--jobserver", "-j")))
    e.pop("MFLAGS", None)
    e.pop("MAKELEVEL", None)
    e.update(extra)
    return e


def script(path, text):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class Deps(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bugcoder-build-")
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        fake_path(self.bin)
        self.log = os.path.join(self.dir, "apt.log")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def make(self, *targets, env=None):
        e = make_env(PATH=self.bin, **(env or {}))
        return subprocess.run(["make", "--no-print-directory", *targets],
                              cwd=ROOT, env=e, capture_output=True,
                              text=True, timeout=600)

    def fake_apt(self):
        """apt-get (and sudo) that only write down what they are asked."""
        script(os.path.join(self.bin, "apt-get"),
               f'echo "$@" >> {self.log}\n')
        script(os.path.join(self.bin, "sudo"), 'exec "$@"\n')

    def lacking(self, module):
        """A pkg-config that says `module` is not installed."""
        real = shutil.which("pkg-config")
        wrapper = os.path.join(self.dir, "pkg-config")
        script(wrapper, f'for a in "$@"; do [ "$a" = {module} ] && '
               f'exit 1; done\nexec {real} "$@"\n')
        return {"PKG_CONFIG": wrapper}

    def not_root(self):
        """`id -u` says 1000, as for a user without root."""
        real = shutil.which("id")
        os.unlink(os.path.join(self.bin, "id"))
        script(os.path.join(self.bin, "id"),
               f'[ "$1" = -u ] && {{ echo 1000; exit 0; }}\nexec {real} "$@"\n')

    def test_nothing_missing_and_no_apt_get(self):
        self.assertIsNone(shutil.which("apt-get", path=self.bin))
        for target in ("deps", "test-deps"):
            p = self.make(target)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout + p.stderr, "")
        # what `make test` needs before it runs the tests
        p = self.make("test-build")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_nothing_missing_calls_no_apt_get(self):
        self.fake_apt()
        for target in ("deps", "test-deps"):
            p = self.make(target)
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(self.log))

    def test_missing_without_apt_get_says_what(self):
        p = self.make("test-deps", env=self.lacking("cmocka"))
        self.assertEqual(p.returncode, 2, p.stdout)	# make's "failed"
        self.assertIn("cmocka (Debian: libcmocka-dev)", p.stderr)
        self.assertIn("no apt-get", p.stderr)
        self.assertNotIn("ncursesw", p.stderr)

    def test_missing_with_apt_get_installs_only_that(self):
        self.fake_apt()
        p = self.make("deps", env=self.lacking("libcjson"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.log) as f:
            calls = f.read().splitlines()
        self.assertEqual(calls[0], "update -qq")
        self.assertEqual(calls[1], "install -y -qq libcjson-dev")
        self.assertEqual(len(calls), 2)

    def test_test_tools_are_for_test_deps_only(self):
        """cmocka is linked by the tests alone: `make deps` does not ask
        for it, `make test-deps` does."""
        self.fake_apt()
        p = self.make("deps", env=self.lacking("cmocka"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout + p.stderr, "")
        self.assertFalse(os.path.exists(self.log))
        p = self.make("test-deps", env=self.lacking("cmocka"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.log) as f:
            self.assertEqual(f.read().splitlines()[1:],
                             ["install -y -qq libcmocka-dev"])

    def test_demo_without_root_or_test_tools(self):
        """A user without root, without sudo and without any test tool:
        `make deps` is content and `make demo` opens (summarises, off a
        terminal) the sample; only `make test-deps` asks for root."""
        shutil.rmtree(self.bin)
        os.mkdir(self.bin)
        fake_path(self.bin, HIDDEN + ("tmux", "Rscript", "lintian", "dh",
                                      "dpkg-buildpackage", "node", "less"))
        self.fake_apt()
        os.unlink(os.path.join(self.bin, "sudo"))
        self.not_root()
        env = self.lacking("cmocka")
        p = self.make("deps", env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout + p.stderr, "")
        e = make_env(PATH=self.bin, **env)
        p = subprocess.run(["make", "--no-print-directory", "demo"], cwd=ROOT,
                           env=e, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("Try: ./bugcoder --study", p.stdout)
        p = self.make("test-deps", env=env)
        self.assertEqual(p.returncode, 2, p.stdout)
        for what in ("cmocka (Debian: libcmocka-dev)", "tmux (Debian: tmux)",
                     "Rscript (Debian: r-base-core)",
                     "lintian (Debian: lintian)",
                     "installing needs root, and there is no sudo"):
            self.assertIn(what, p.stderr)
        self.assertFalse(os.path.exists(self.log))

    def test_plain_make_names_a_missing_library_first(self):
        """Plain `make` with a library missing says which, its Debian
        package and `make deps`, before it compiles anything (it used to
        stop at the compiler's "cJSON.h: No such file")."""
        src = os.path.join(self.dir, "src")
        os.mkdir(src)
        keep = shutil.ignore_patterns("*.o", "*.a", "*.d", "*.inc")
        for d in ("core", "exports", "tui", "cli"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(src, d),
                            ignore=keep)
        os.mkdir(os.path.join(src, "tests"))
        shutil.copy(os.path.join(ROOT, "Makefile"), src)
        shutil.copy(os.path.join(ROOT, "tests", "deps.sh"),
                    os.path.join(src, "tests"))
        e = make_env(PATH=self.bin, **self.lacking("libcjson"))
        p = subprocess.run(["make", "--no-print-directory"], cwd=src, env=e,
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertEqual(p.stderr.splitlines()[0],
                         "missing libcjson (Debian: libcjson-dev): "
                         "run make deps")
        self.assertNotIn("CC", p.stdout)
        self.assertNotIn("cJSON.h", p.stderr)
        objs = [f for _, _, fs in os.walk(src) for f in fs
                if f.endswith(".o")]
        self.assertEqual(objs, [])


class Flags(unittest.TestCase):
    def run_make(self, *args):
        return subprocess.run(["make", "--no-print-directory", *args],
                              cwd=ROOT, env=make_env(), capture_output=True,
                              text=True, timeout=600)

    def test_cppflags_reach_the_compiler(self):
        p = self.run_make("-n", "-B", "V=1", "CPPFLAGS=-D_FORTIFY_SOURCE=2",
                          "core/base/buf.o", "tests/t_buf.o")
        self.assertEqual(p.returncode, 0, p.stderr)
        compiles = [ln for ln in p.stdout.splitlines() if " -c " in ln]
        self.assertEqual(len(compiles), 2, p.stdout)
        for ln in compiles:
            self.assertIn("-D_FORTIFY_SOURCE=2", ln)

    def test_developer_flags(self):
        """DEVELOPER=1 was -Werror alone; now a strict set, as git's
        config.mak.dev, under which every source compiles."""
        p = self.run_make("-n", "-B", "V=1", "DEVELOPER=1", "core/base/buf.o")
        self.assertEqual(p.returncode, 0, p.stderr)
        line = [ln for ln in p.stdout.splitlines() if " -c " in ln][0]
        for flag in ("-Werror", "-Wdeclaration-after-statement",
                     "-Wmissing-prototypes", "-Wold-style-definition",
                     "-Wvla", "-Wpointer-arith", "-Wformat-security"):
            self.assertIn(flag, line)
        p = self.run_make("DEVELOPER=1", "syntax-check")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")

    def test_quiet_lines_and_make_s(self):
        """One CC line an object, and none under `make -s`."""
        p = self.run_make("-B", "core/base/buf.o")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "    CC core/base/buf.o\n")
        p = self.run_make("-s", "-B", "core/base/buf.o")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout + p.stderr, "")

    def test_hdr_check(self):
        p = self.run_make("hdr-check")
        self.assertEqual(p.returncode, 0, p.stderr)
        d = tempfile.mkdtemp(prefix="bugcoder-hdr-")
        try:
            bad = os.path.join(d, "bad.h")
            with open(bad, "w") as f:
                f.write("struct x { size_t n; };\n")  # no <stddef.h>
            p = self.run_make("hdr-check", "HDRS=" + bad)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("bad.h does not compile on its own", p.stderr)
        finally:
            shutil.rmtree(d)


class Version(unittest.TestCase):
    """`bugcoder --version` names the commit of the build: git's in a
    clone, the one `git archive` wrote into core/base/version.commit in a
    tarball, else "unknown"."""

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                              timeout=60)

    def build_version(self, tree):
        p = subprocess.run(["make", "--no-print-directory", "BUILD-VERSION"],
                           cwd=tree, env=make_env(), capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(tree, "BUILD-VERSION")) as f:
            return f.read()

    def test_commit_of_a_clone_and_of_a_tarball(self):
        head = self.git("rev-parse", "HEAD")
        if head.returncode != 0:
            self.skipTest("not a git clone: the tarball case is all there is")
        if self.git("cat-file", "-e", "HEAD:core/base/version.commit").returncode:
            self.skipTest("HEAD has no core/base/version.commit yet")
        head = head.stdout.decode().strip()
        d = tempfile.mkdtemp(prefix="bugcoder-version-")
        try:
            tar = self.git("archive", "--format=tar", "HEAD", "Makefile",
                           "core/base/version.commit", "core/base/.gitattributes",
                           "tests/deps.sh")
            self.assertEqual(tar.returncode, 0, tar.stderr)
            subprocess.run(["tar", "-x", "-C", d], input=tar.stdout,
                           check=True)
            self.assertEqual(self.build_version(d),
                             '#define BUGCODER_COMMIT "%s"\n' % head[:12])
            # a copy that is neither a clone nor an archive
            commit = os.path.join(d, "core", "base", "version.commit")
            with open(commit, "w") as f:
                f.write("$" + "Format:%H$\n")
            self.assertEqual(self.build_version(d),
                             '#define BUGCODER_COMMIT "unknown"\n')
        finally:
            shutil.rmtree(d)
        # the clone itself: HEAD, "-dirty" with uncommitted changes
        self.assertRegex(self.build_version(ROOT),
                         '^#define BUGCODER_COMMIT "%s(-dirty)?"\n$'
                         % head[:12])


if __name__ == "__main__":
    unittest.main()
