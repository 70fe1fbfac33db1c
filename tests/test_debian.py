# SPDX-License-Identifier: MIT
"""The Debian packages, as an administrator meets them.

`dpkg-buildpackage -us -uc -b` builds `bugcoder` and `bugcoder-server`
from a copy of the tree (the build cleans the tree it runs in); lintian
finds no error in them; their contents are what `make install` and `make
install-server` put in place; and, as root, both are installed with dpkg
into a throw-away root: a chroot that holds only this system's copies of
what the maintainer scripts and the program run (a shell, groupadd,
dpkg-statoverride, the libraries).  There the server package's postinst
sets up the group, the setgid binary and the study directory, an owner
creates a study by name, a member's `bugcoder doctor` finds a server
install that holds, and purging undoes the set-up but keeps the studies.

Skipped, with the reason, without dpkg-buildpackage and debhelper (`make
test-deps` installs them); the install part is skipped when not root."""
import glob
import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_BUILD = shutil.which("dpkg-buildpackage") and shutil.which("dh")

# what the maintainer scripts and dpkg run inside the root, and the
# program itself
CHROOT_TOOLS = ("sh", "getent", "groupadd", "groupdel", "dpkg-statoverride",
                "chown", "chmod", "rmdir", "ldconfig", "start-stop-daemon",
                "cat")


def source_files():
    """The tree's files (tracked and new, not ignored), or every file
    when this is no git clone."""
    p = subprocess.run(["git", "ls-files", "-z", "-c", "-o",
                        "--exclude-standard"], cwd=ROOT, capture_output=True)
    if p.returncode == 0 and p.stdout:
        return [f for f in p.stdout.decode().split("\0")
                if f and os.path.isfile(os.path.join(ROOT, f))]
    out = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in (".git", "tmp", "__pycache__")]
        out += [os.path.relpath(os.path.join(d, f), ROOT) for f in files
                if not f.endswith((".o", ".d", ".a"))]
    return out


def clean_head():
    """HEAD's full hash when the working tree is exactly HEAD, else None."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT,
                            capture_output=True, text=True)
    if head.returncode or status.returncode or status.stdout.strip():
        return None
    return head.stdout.strip()


def deb_files(deb):
    """{path: (mode, owner/group, size)} of a .deb's data."""
    p = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True,
                       capture_output=True)
    out = {}
    with tarfile.open(fileobj=__import__("io").BytesIO(p.stdout)) as t:
        for m in t.getmembers():
            name = m.name[1:] if m.name.startswith("./") else m.name
            out[name.rstrip("/") or "/"] = (m.mode, m.uname + "/" + m.gname,
                                            m.size, m.type)
    return out


def deb_field(deb, field):
    return subprocess.run(["dpkg-deb", "-f", deb, field], check=True,
                          capture_output=True, text=True).stdout.strip()


@unittest.skipUnless(HAVE_BUILD, "dpkg-buildpackage or debhelper is not "
                     "installed (Debian: dpkg-dev, debhelper; make test-deps "
                     "installs them)")
class DebianPackages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bugcoder-deb-")
        cls.src = os.path.join(cls.tmp, "bugcoder")
        for f in source_files():
            dst = os.path.join(cls.src, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), dst)
        # a copy of a clean clone stands for the release tarball, whose
        # core/base/version.commit git archive fills in
        cls.head = clean_head()
        if cls.head:
            with open(os.path.join(cls.src, "core", "base",
                                   "version.commit"), "w") as f:
                f.write(cls.head + "\n")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("MAKE", "MFLAGS", "DEB_"))}
        env["DEB_BUILD_OPTIONS"] = "parallel=2"
        cls.build = subprocess.run(["dpkg-buildpackage", "-us", "-uc", "-b"],
                                   cwd=cls.src, env=env, capture_output=True,
                                   text=True, timeout=900)
        if cls.build.returncode != 0:
            return
        version = re.search(r"^VERSION\s*=\s*(\S+)",
                            open(os.path.join(ROOT, "Makefile")).read(),
                            re.M).group(1)
        cls.version = version
        cls.deb = os.path.join(cls.tmp, "bugcoder_%s_%s.deb" % (
            version, subprocess.run(["dpkg", "--print-architecture"],
                                    capture_output=True, text=True)
            .stdout.strip()))
        cls.server = os.path.join(cls.tmp, "bugcoder-server_%s_all.deb"
                                  % version)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.build.returncode, 0,
                         self.build.stdout[-3000:] + self.build.stderr[-3000:])

    def test_changelog_names_the_makefile_version(self):
        p = subprocess.run(["dpkg-parsechangelog", "-S", "Version"],
                           cwd=self.src, capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), self.version)

    def test_bugcoder_contents(self):
        files = deb_files(self.deb)
        mode, owner, _, _ = files["/usr/bin/bugcoder"]
        self.assertEqual((mode, owner), (0o755, "root/root"))
        for f in ("/usr/share/man/man1/bugcoder.1.gz",
                  "/usr/share/bugcoder/sample/items.jsonl",
                  "/usr/share/bugcoder/sample/labels.csv",
                  "/usr/share/doc/bugcoder/copyright"):
            self.assertIn(f, files)
        books = sorted(os.path.basename(p) for p in
                       glob.glob(os.path.join(ROOT, "codebooks", "*.json")))
        self.assertEqual(sorted(os.path.basename(p) for p in files
                                if p.startswith("/usr/share/bugcoder/"
                                                "codebooks/")), books)
        # everything `make install` installs is in the package (shell
        # completion included, when the tree has it)
        staged = os.path.join(self.src, "debian", "tmp")
        for d, _, names in os.walk(staged):
            for n in names:
                path = "/" + os.path.relpath(os.path.join(d, n), staged)
                if path.startswith("/usr/share/man/"):
                    path += ".gz"
                self.assertIn(path, files)
        # no server set-up in the program's package
        self.assertNotIn("/usr/share/bugcoder/server.conf", files)
        self.assertIn("libcurl4", deb_field(self.deb, "Recommends"))
        # the program says what it is
        x = os.path.join(self.tmp, "x")
        subprocess.run(["dpkg-deb", "-x", self.deb, x], check=True)
        p = subprocess.run([os.path.join(x, "usr/bin/bugcoder"), "--version"],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout, "bugcoder %s (commit %s)\n" % (
            self.version, self.head[:12] if self.head else "unknown"))

    def test_server_contents(self):
        files = deb_files(self.server)
        self.assertEqual(files["/var/lib/bugcoder"][3], tarfile.DIRTYPE)
        self.assertIn("/usr/share/bugcoder/server.conf", files)
        self.assertEqual(deb_field(self.server, "Architecture"), "all")
        depends = deb_field(self.server, "Depends")
        self.assertIn("bugcoder (>= %s)" % self.version, depends)
        self.assertIn("passwd", depends)
        x = os.path.join(self.tmp, "server")
        subprocess.run(["dpkg-deb", "-x", self.server, x], check=True)
        with open(os.path.join(x, "usr/share/bugcoder/server.conf")) as f:
            conf = f.read()
        self.assertIn("\nstudydir = /var/lib/bugcoder\n", conf)
        self.assertIn("\ngroup = bugcoder\n", conf)
        ctl = os.path.join(self.tmp, "server-control")
        subprocess.run(["dpkg-deb", "-e", self.server, ctl], check=True)
        for script in ("postinst", "postrm"):
            self.assertTrue(os.access(os.path.join(ctl, script), os.X_OK))

    def test_lintian_finds_no_error(self):
        if not shutil.which("lintian"):
            self.skipTest("lintian is not installed (make test-deps "
                          "installs it)")
        changes = glob.glob(os.path.join(self.tmp, "*.changes"))
        p = subprocess.run(["lintian", "--fail-on", "error", *changes],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        errors = [l for l in p.stdout.splitlines() if l.startswith("E:")]
        self.assertEqual(errors, [])

    # ---- installed into a throw-away root ------------------------------

    def copy_in(self, root, path):
        """Copy `path` (a program or library of this system) into the
        root at the same place, a symbolic link as a link to its target,
        with the libraries it loads."""
        real = os.path.realpath(path)
        if not os.path.lexists(root + real):
            os.makedirs(os.path.dirname(root + real), exist_ok=True)
            shutil.copy2(real, root + real)
        if path != real and not os.path.lexists(root + path):
            os.makedirs(os.path.dirname(root + path), exist_ok=True)
            os.symlink(real, root + path)
        ldd = subprocess.run(["ldd", real], capture_output=True, text=True)
        for lib in re.findall(r"(/\S+) \(0x", ldd.stdout):
            if not os.path.lexists(root + lib):
                self.copy_in(root, lib)

    def make_root(self):
        r = os.path.join(self.tmp, "root")
        for d in ("usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "etc",
                  "proc", "tmp", "root", "home/owner", "home/alice",
                  "var/lib/dpkg/info", "var/lib/dpkg/updates",
                  "var/lib/dpkg/triggers"):
            os.makedirs(os.path.join(r, d))
        for link in ("bin", "sbin", "lib", "lib64"):
            os.symlink("usr/" + link, os.path.join(r, link))
        for f in ("status", "available"):
            open(os.path.join(r, "var/lib/dpkg", f), "w").close()
        files = {
            "etc/passwd": "root:x:0:0:root:/root:/bin/sh\n"
                          "owner:x:1001:1001::/home/owner:/bin/sh\n"
                          "alice:x:1000:1000::/home/alice:/bin/sh\n",
            "etc/group": "root:x:0:\nowner:x:1001:\nalice:x:1000:\n",
            "etc/gshadow": "root:*::\nowner:!::\nalice:!::\n",
            "etc/shadow": "root:*:19000:0:99999:7:::\n",
        }
        for name, text in files.items():
            with open(os.path.join(r, name), "w") as f:
                f.write(text)
        os.chmod(os.path.join(r, "tmp"), 0o1777)
        # the devices scripts and the program use
        os.makedirs(os.path.join(r, "dev"))
        for name, minor in (("null", 3), ("zero", 5), ("urandom", 9)):
            os.mknod(os.path.join(r, "dev", name), 0o666 | stat.S_IFCHR,
                     os.makedev(1, minor))
            os.chmod(os.path.join(r, "dev", name), 0o666)
        for uid, home in ((1001, "home/owner"), (1000, "home/alice")):
            os.chown(os.path.join(r, home), uid, uid)
        for tool in CHROOT_TOOLS:
            path = shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin")
            self.assertIsNotNone(path, tool)
            self.copy_in(r, path)
        # the program's libraries, and a terminal description
        x = os.path.join(self.tmp, "x-root")
        subprocess.run(["dpkg-deb", "-x", self.deb, x], check=True)
        ldd = subprocess.run(["ldd", os.path.join(x, "usr/bin/bugcoder")],
                             capture_output=True, text=True, check=True)
        for lib in re.findall(r"(/\S+) \(0x", ldd.stdout):
            self.copy_in(r, lib)
        for ti in ("/lib/terminfo/x/xterm", "/usr/share/terminfo/x/xterm"):
            if os.path.exists(ti):
                self.copy_in(r, ti)
        return r

    def dpkg(self, root, *args):
        p = subprocess.run(["dpkg", "--root=" + root, "--force-depends",
                            *args], capture_output=True, text=True,
                           timeout=300,
                           env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                "LC_ALL": "C"})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p

    def run_in(self, root, user, *args):
        """bugcoder ARGS as `user` in the root: a private mount namespace
        with the root's own /proc (the program finds its server.conf
        through /proc/self/exe), chroot, the user's ids."""
        script = ('mount -t proc proc "$1/proc" && r=$1 && u=$2 && '
                  'shift 2 && exec chroot --userspec="$u" "$r" '
                  '/usr/bin/bugcoder "$@"')
        uid = {"owner": "1001:1001", "alice": "1000:1000"}[user]
        return subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c",
             script, "sh", root, uid, *args], capture_output=True, text=True,
            timeout=120,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                 "HOME": "/home/" + user,
                 "TERM": "xterm", "LC_ALL": "C.UTF-8", "USER": user})

    def group_of(self, root, name):
        with open(os.path.join(root, "etc/group")) as f:
            for line in f:
                fields = line.rstrip("\n").split(":")
                if fields[0] == name:
                    return int(fields[2])
        return None

    def test_install_doctor_purge_in_a_throw_away_root(self):
        if os.geteuid() != 0:
            self.skipTest("installing into a root and chroot need root")
        if not shutil.which("unshare"):
            self.skipTest("unshare (util-linux) is not installed")
        r = self.make_root()
        self.dpkg(r, "-i", self.deb, self.server)
        # what make install-server does: the group, the setgid binary,
        # the study directory, server.conf
        gid = self.group_of(r, "bugcoder")
        self.assertIsNotNone(gid, "no group bugcoder in the root")
        self.assertLess(gid, 1000)                      # a system group
        sb = os.stat(os.path.join(r, "usr/bin/bugcoder"))
        self.assertEqual((stat.S_IMODE(sb.st_mode), sb.st_uid, sb.st_gid),
                         (0o2755, 0, gid))
        sb = os.stat(os.path.join(r, "var/lib/bugcoder"))
        self.assertEqual((stat.S_IMODE(sb.st_mode), sb.st_uid, sb.st_gid),
                         (0o2770, 0, gid))
        with open(os.path.join(r, "var/lib/dpkg/statoverride")) as f:
            overrides = sorted(f.read().splitlines())
        self.assertEqual(overrides, ["root bugcoder 2755 /usr/bin/bugcoder",
                                     "root bugcoder 2770 /var/lib/bugcoder"])
        # the administrator lets the owner create studies (server.conf's
        # creators line), an owner creates one by name, a member checks
        # the install
        with open(os.path.join(r, "usr/share/bugcoder/server.conf"),
                  "a") as f:
            f.write("creators = owner\n")
        p = self.run_in(r, "owner", "--study", "llm", "init", "--codebook",
                        "llm-framework-bugs")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p = self.run_in(r, "owner", "--study", "llm", "member", "add",
                        "alice", "--role", "annotator")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(os.path.exists(os.path.join(r, "var/lib/bugcoder/"
                                                    "llm.db")))
        p = self.run_in(r, "alice", "--study", "llm", "doctor")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for line in ("ok    install: server; study directory "
                     "/var/lib/bugcoder, group bugcoder",
                     "ok    binary /usr/bin/bugcoder",
                     "ok    study directory /var/lib/bugcoder",
                     "ok    you cannot open the study without bugcoder"):
            self.assertIn(line, p.stdout)
        self.assertNotIn("FAIL", p.stdout)
        # purged with a study in the directory: the set-up goes, the
        # study and its group stay
        p = self.dpkg(r, "--purge", "bugcoder-server")
        self.assertIn("/var/lib/bugcoder holds studies: kept", p.stderr)
        sb = os.stat(os.path.join(r, "usr/bin/bugcoder"))
        self.assertEqual((stat.S_IMODE(sb.st_mode), sb.st_uid, sb.st_gid),
                         (0o755, 0, 0))
        self.assertFalse(os.path.exists(os.path.join(
            r, "usr/share/bugcoder/server.conf")))
        with open(os.path.join(r, "var/lib/dpkg/statoverride")) as f:
            self.assertEqual(f.read(), "")
        self.assertTrue(os.path.exists(os.path.join(r, "var/lib/bugcoder/"
                                                    "llm.db")))
        self.assertEqual(self.group_of(r, "bugcoder"), gid)
        p = self.run_in(r, "alice", "--study", "/tmp/own.db", "init")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p = self.run_in(r, "alice", "--study", "/tmp/own.db", "doctor")
        self.assertIn("install: personal", p.stdout)
        # installed again and purged with no study: nothing is left
        self.dpkg(r, "-i", self.server)
        for name in os.listdir(os.path.join(r, "var/lib/bugcoder")):
            os.unlink(os.path.join(r, "var/lib/bugcoder", name))
        self.dpkg(r, "--purge", "bugcoder-server")
        self.assertFalse(os.path.exists(os.path.join(r, "var/lib/bugcoder")))
        self.assertIsNone(self.group_of(r, "bugcoder"))
        self.dpkg(r, "--purge", "bugcoder")
        self.assertFalse(os.path.exists(os.path.join(r, "usr/bin/bugcoder")))


if __name__ == "__main__":
    unittest.main()
