#!/bin/sh
# SPDX-License-Identifier: MIT
# What bugcoder needs, checked the way the build and the tests use it
# (pkg-config modules, one header, commands, Python modules), and
# installed only when missing.
#
#   sh tests/deps.sh build   `make deps`: what building (and `make demo`)
#                            needs: a compiler, pkg-config, the libraries
#   sh tests/deps.sh test    `make test-deps`, used by `make test` and
#                            `make bench`: the build's needs and the test
#                            and bench tools
#   sh tests/deps.sh check   what building needs, checked only: one line
#                            per missing thing, exit 1 (plain `make` runs
#                            this before it compiles anything)
#
# Nothing missing: nothing is done and nothing printed.  Something missing
# and apt-get here: the Debian packages for exactly that are installed
# (with sudo unless root).  Something missing and no apt-get, or not root
# and no sudo: what is missing is printed, with the Debian package names
# as a hint, and the exit status is 1.  Environment (from make):
# PKG_CONFIG, CC, PYTHON.
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
mode=${1:-build}

case $mode in
build|test|check) ;;
*) echo "usage: sh tests/deps.sh build|test|check" >&2; exit 2 ;;
esac

what=''		# what is missing, one "NAME (Debian: PKG)" a line
pkgs=''		# the Debian packages for it

need() {
	what="$what
  $1 (Debian: $2)"
	case " $pkgs " in
	*" $2 "*) ;;
	*) pkgs="${pkgs:+$pkgs }$2" ;;
	esac
}

have() {
	command -v "$1" >/dev/null 2>&1
}

# pkg-config modules: NAME:DEBIAN-PACKAGE, the libraries the Makefile asks
# pkg-config for
modules() {
	if have "$PKG_CONFIG"; then
		for m in "$@"; do
			"$PKG_CONFIG" --exists "${m%%:*}" ||
				need "${m%%:*}" "${m#*:}"
		done
	else
		for m in "$@"; do
			need "${m%%:*} (unchecked: no $PKG_CONFIG)" "${m#*:}"
		done
	fi
}

# ---- what building needs --------------------------------------------------

# the compiler: its first word, as CC may carry flags
set -- $CC
have "$1" || need "C compiler $1" gcc
have "$PKG_CONFIG" || need "$PKG_CONFIG" pkg-config

modules ncursesw:libncurses-dev sqlite3:libsqlite3-dev \
	libcjson:libcjson-dev libcurl:libcurl4-openssl-dev \
	libcmark-gfm:libcmark-gfm-dev cairo:libcairo2-dev

# linked as -lcmark-gfm-extensions; it has no module of its own
if ! { have "$1" && printf '#include <cmark-gfm-core-extensions.h>\n' |
    $CC $("$PKG_CONFIG" --cflags libcmark-gfm 2>/dev/null) -E -x c - \
    >/dev/null 2>&1; }; then
	need "header cmark-gfm-core-extensions.h" libcmark-gfm-extensions-dev
fi

# ---- what the tests and the benchmark need --------------------------------

if [ "$mode" = test ]; then
	modules cmocka:libcmocka-dev
	have "$PYTHON" || need "$PYTHON" python3
	have tmux || need tmux tmux
	have zsh || need "zsh (the completion tests)" zsh
	have pgrep || need pgrep procps
	have sqlite3 || need "sqlite3 (the command)" sqlite3
	have less || need less less
	# the figures' tests read PDFs back (pdftotext, pdffonts)
	have pdftotext || need pdftotext poppler-utils
	have Rscript || need Rscript r-base-core
	# the mock GitHub validates GraphQL queries against GitHub's schema
	# with graphql-core 3 or, failing that, Debian's graphql-js under node
	if ! { have "$PYTHON" && "$PYTHON" -c 'import graphql, sys
sys.exit(graphql.version_info[0] < 3)' 2>/dev/null; } &&
	   ! { have node && [ -d /usr/share/nodejs/graphql ]; }; then
		need "graphql-js (the mock GitHub's query check)" node-graphql
	fi
	# tests/test_export.py reads exports with pandas, from this
	# interpreter or Debian's
	if ! { have "$PYTHON" && "$PYTHON" -c 'import pandas' 2>/dev/null; } &&
	   ! { [ -x /usr/bin/python3 ] &&
	       /usr/bin/python3 -c 'import pandas' 2>/dev/null; }; then
		need "Python module pandas" python3-pandas
	fi
	# tests/cffcheck.py reads CITATION.cff with PyYAML, the same way
	if ! { have "$PYTHON" && "$PYTHON" -c 'import yaml' 2>/dev/null; } &&
	   ! { [ -x /usr/bin/python3 ] &&
	       /usr/bin/python3 -c 'import yaml' 2>/dev/null; }; then
		need "Python module yaml" python3-yaml
	fi
	# tests/test_debian.py builds the Debian packages and checks them
	have dpkg-buildpackage || need dpkg-buildpackage dpkg-dev
	have dh || need "dh (debhelper)" debhelper
	have lintian || need lintian lintian
fi

[ -z "$pkgs" ] && exit 0

if [ "$mode" = check ]; then
	printf '%s\n' "$what" | sed -n 's/^  \(.*\)$/missing \1: run make deps/p' >&2
	exit 1
fi
if ! have apt-get; then
	echo "deps: missing:$what" >&2
	echo "deps: this system has no apt-get: install these (or your" \
	     "system's equivalents) and run make again" >&2
	exit 1
fi
if [ "$(id -u)" = 0 ]; then
	sudo=
elif have sudo; then
	sudo=sudo
else
	echo "deps: missing:$what" >&2
	echo "deps: installing needs root, and there is no sudo: run" \
	     "apt-get install $pkgs as root" >&2
	exit 1
fi
echo "deps: missing:$what"
echo "deps: installing: $pkgs"
$sudo apt-get update -qq &&
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $pkgs >/dev/null ||
	exit 1
