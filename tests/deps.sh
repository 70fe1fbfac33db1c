#!/bin/sh
# make deps: make sure what bugcoder needs to build, test and bench is
# here, and install only what is not.
#
# Each need is checked the way the build or the tests use it: pkg-config
# modules, one header, commands, a Python module.  Nothing missing:
# nothing is done and nothing printed.  Something missing and apt-get
# here: the Debian packages for exactly that are installed (with sudo
# unless root).  Something missing and no apt-get: what is missing is
# printed, with the Debian package names as a hint, and the exit status
# is 1.  Environment (from make): PKG_CONFIG, CC, PYTHON.
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}

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

# the compiler: its first word, as CC may carry flags
set -- $CC
have "$1" || need "C compiler $1" gcc

# libraries, as the Makefile asks for them
modules='ncursesw:libncurses-dev sqlite3:libsqlite3-dev libcjson:libcjson-dev
libcurl:libcurl4-openssl-dev libcmark-gfm:libcmark-gfm-dev cmocka:libcmocka-dev
cairo:libcairo2-dev'
if have "$PKG_CONFIG"; then
	for m in $modules; do
		"$PKG_CONFIG" --exists "${m%%:*}" ||
			need "pkg-config module ${m%%:*}" "${m#*:}"
	done
	# linked as -lcmark-gfm-extensions; it has no module of its own
	if have "$1" && ! printf '#include <cmark-gfm-core-extensions.h>\n' |
	    $CC $("$PKG_CONFIG" --cflags libcmark-gfm 2>/dev/null) -E -x c - \
	    >/dev/null 2>&1; then
		need "header cmark-gfm-core-extensions.h" \
			libcmark-gfm-extensions-dev
	fi
else
	need "$PKG_CONFIG" pkg-config
	for m in $modules; do
		need "pkg-config module ${m%%:*} (unchecked)" "${m#*:}"
	done
	need "header cmark-gfm-core-extensions.h (unchecked)" \
		libcmark-gfm-extensions-dev
fi

# the test and bench tools
have "$PYTHON" || need "$PYTHON" python3
have tmux || need tmux tmux
have sqlite3 || need "sqlite3 (the command)" sqlite3
have less || need less less
have Rscript || need Rscript r-base-core
# the figure tests read PDFs back (text, fonts)
have pdftotext || need "pdftotext (the command)" poppler-utils
# the mock GitHub validates GraphQL queries against GitHub's schema with
# graphql-core 3 or, failing that, Debian's graphql-js under node
if ! { have "$PYTHON" && "$PYTHON" -c 'import graphql, sys
sys.exit(graphql.version_info[0] < 3)' 2>/dev/null; } &&
   ! { have node && [ -d /usr/share/nodejs/graphql ]; }; then
	need "graphql-js (the mock GitHub's query check)" node-graphql
fi
# tests/test_export.py reads exports with pandas, from this interpreter
# or Debian's
if ! { have "$PYTHON" && "$PYTHON" -c 'import pandas' 2>/dev/null; } &&
   ! { [ -x /usr/bin/python3 ] &&
       /usr/bin/python3 -c 'import pandas' 2>/dev/null; }; then
	need "Python module pandas" python3-pandas
fi

[ -z "$pkgs" ] && exit 0

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
