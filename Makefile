# SPDX-License-Identifier: MIT
# bugcoder - a terminal workbench for empirical bug studies
#
# Plain, non-recursive make.  User variables (CC, CPPFLAGS, CFLAGS,
# LDFLAGS, PKG_CONFIG, PREFIX, DESTDIR) are respected; project flags are
# appended.  `make V=1` shows full commands, `make DEVELOPER=1` adds a
# strict warning set and turns warnings into errors, `make SAN=1` builds
# with ASan and UBSan.

VERSION     = 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANPREFIX  ?= $(PREFIX)/share/man
# shell completion, where bash-completion and zsh look for it
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
PKG_CONFIG ?= pkg-config
CC         ?= cc
AR         ?= ar
CPPFLAGS   ?=
CFLAGS     ?= -O2 -g
LDFLAGS    ?=
PYTHON     ?= python3
# server install (`make install-server`, as root): the group the binary is
# setgid to, the directory of the studies, where the codebooks go
GROUP      ?= bugcoder
STUDYDIR   ?= /var/lib/bugcoder
# who besides root may create studies in STUDYDIR (comma-separated
# account names; empty: root only)
CREATORS   ?=
DATADIR    ?= $(PREFIX)/share/bugcoder

PKGS = ncursesw sqlite3 libcjson libcurl libcmark-gfm cairo

# Lazily expanded, so that `make test` can install packages before the
# flags are asked for.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl and cairo are loaded at run time by core/github/curl_lazy.c and
# exports/cairo_lazy.c (only `fetch` needs the one, only the figures the
# other), so they are not linked: their compile flags are enough.
LINK_PKGS  = ncursesw sqlite3 libcjson libcmark-gfm
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null) -lcmark-gfm-extensions -lm -ldl
TEST_LIBS  = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

BC_CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	-DBUGCODER_VERSION='"$(VERSION)"' \
	-Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter \
	-I. $(PKG_CFLAGS)
# DEVELOPER=1: warnings are errors, and a stricter set, as git's
# config.mak.dev has it (`make DEVELOPER=1 syntax-check` checks every
# source under it without building).
DEVELOPER_CFLAGS = -Werror -Wdeclaration-after-statement -Wformat-security \
	-Wold-style-definition -Woverflow -Wpointer-arith -Wunused -Wvla \
	-fno-common -Wmissing-prototypes -Wno-missing-field-initializers
ifdef DEVELOPER
BC_CFLAGS += $(DEVELOPER_CFLAGS)
endif
ifdef SAN
BC_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-DBUGCODER_SAN
BC_LDFLAGS += -fsanitize=address,undefined
endif

# COVERAGE=1: instrumented for gcov (`make coverage` uses it)
ifdef COVERAGE
BC_CFLAGS += --coverage -O0
BC_LDFLAGS += --coverage
endif

# Quiet CC/AR/LINK/GEN lines; V=1 shows the commands, `make -s` nothing.
ifndef V
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
QUIET_CC   = @
QUIET_AR   = @
QUIET_LINK = @
QUIET_GEN  = @
else
QUIET_CC   = @echo '   ' CC $@;
QUIET_AR   = @echo '   ' AR $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_GEN  = @echo '   ' GEN $@;
endif
endif

CORE_SRC    = $(sort $(wildcard core/*/*.c))
EXPORTS_SRC = $(sort $(wildcard exports/*.c))
TUI_SRC     = $(sort $(wildcard tui/*.c))
CLI_SRC     = $(sort $(wildcard cli/*.c))
TEST_SRC    = $(sort $(wildcard tests/t_*.c))
TESTLIB_SRC = $(sort $(wildcard tests/lib/*.c))

CORE_OBJ    = $(CORE_SRC:.c=.o)
EXPORTS_OBJ = $(EXPORTS_SRC:.c=.o)
TUI_OBJ     = $(TUI_SRC:.c=.o)
CLI_OBJ     = $(CLI_SRC:.c=.o)
TEST_OBJ    = $(TEST_SRC:.c=.o) $(TESTLIB_SRC:.c=.o)
TEST_BIN    = $(TEST_SRC:.c=)
TOOL_BIN    = tests/bench/gen

LIBS_A = tui/libtui.a exports/libexports.a core/libbugcoder.a

all: bugcoder tui/bugcoder.1

# Before anything is compiled, the libraries the build needs are checked
# (one line per missing one, naming its Debian package and `make deps`);
# then everything is rebuilt when the flags change (SAN=1 and back, say).
BUILD-FLAGS: FORCE
	@PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' sh tests/deps.sh check
	@echo '$(CC) $(BC_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(BC_LDFLAGS) $(LDFLAGS)' > $@+; \
	if cmp -s $@ $@+; then rm -f $@+; else mv $@+ $@; fi

# The commit the build is made from, for `bugcoder --version` (see
# core/base/version.h): git's HEAD when this tree is a clone's top ("-dirty"
# when tracked files have changes), else what `git archive` wrote into
# core/base/version.commit (a tarball), else "unknown".  Rewritten only when
# it changes, so only core/base/version.o follows a commit.
BUILD-VERSION: FORCE
	@c=; top=$$(git rev-parse --show-toplevel 2>/dev/null); \
	if [ -n "$$top" ] && [ "$$(cd "$$top" && pwd -P)" = "$$(pwd -P)" ]; then \
		c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && \
		{ git diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; }; \
	fi; \
	[ -n "$$c" ] || c=$$(sed -n 's/^\([0-9a-f]\{12\}\)[0-9a-f]*$$/\1/p' core/base/version.commit 2>/dev/null); \
	echo "#define BUGCODER_COMMIT \"$${c:-unknown}\"" > $@+; \
	if cmp -s $@ $@+; then rm -f $@+; else mv $@+ $@; fi

core/base/version.o: BUILD-VERSION

%.o: %.c BUILD-FLAGS
	$(QUIET_CC)$(CC) $(BC_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# analysis.R goes into the package as a C string
exports/analysis_r.inc: exports/analysis.R
	$(QUIET_GEN)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@+ && mv $@+ $@

exports/analysis_r.o: exports/analysis_r.inc

core/libbugcoder.a: $(CORE_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^
exports/libexports.a: $(EXPORTS_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^
tui/libtui.a: $(TUI_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^

bugcoder: $(CLI_OBJ) $(LIBS_A)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BC_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBS_A) $(PKG_LIBS)

tests/t_%: tests/t_%.o $(TESTLIB_SRC:.c=.o) $(LIBS_A)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BC_LDFLAGS) $(LDFLAGS) -o $@ $< $(TESTLIB_SRC:.c=.o) $(LIBS_A) $(PKG_LIBS) $(TEST_LIBS)

tests/bench/gen: tests/bench/gen.o $(LIBS_A)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BC_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIBS_A) $(PKG_LIBS)

# The man page: tui/bugcoder.1.in with the version put in, and at each
# of its lines `.\" @SYNOPSIS NAME@` and `.\" @OPTIONS NAME@` the block
# `bugcoder __man` prints under that line (cli/docgen.c): a command's
# synopsis and its options come from the tables --help is made from.  A
# marker without a block, or a command's block without its marker, is an
# error.
tui/bugcoder.1: tui/bugcoder.1.in bugcoder Makefile
	$(QUIET_GEN)./bugcoder __man > $@.gen && \
	sed -e 's/@VERSION@/$(VERSION)/g' $< | awk ' \
	FNR == NR { if ($$0 ~ /^[.].["] @[A-Z]+ [a-z-]+@$$/) { k = $$0; g[k] = "" } \
		else if (k != "") g[k] = g[k] $$0 "\n"; next }; \
	$$0 ~ /^[.].["] @[A-Z]+ [a-z-]+@$$/ { \
		if (!($$0 in g)) { print "$<:" FNR ": no such block: " $$0 > "/dev/stderr"; bad = 1; exit 1 } \
		printf "%s", g[$$0]; used[$$0] = 1; next }; \
	{ print }; \
	END { if (bad) exit 1; \
		for (k in g) if (!(k in used)) { print "$<: no place for " k > "/dev/stderr"; bad = 1 } \
		exit bad }' $@.gen - > $@+ && \
	rm -f $@.gen && mv $@+ $@

# README.md's command table is what `bugcoder __readme` prints, from the
# same tables: `make readme` writes it between the README's markers
# (tests/test_helpsync.py fails while they differ).
readme: bugcoder
	$(QUIET_GEN)./bugcoder __readme > README.md.gen && \
	awk ' \
	FNR == NR { t = t $$0 "\n"; next }; \
	index($$0, "<!-- commands:") == 1 { print; printf "%s", t; skip = 1; n++; next }; \
	index($$0, "<!-- end of commands") == 1 { skip = 0; e++ }; \
	!skip { print }; \
	END { if (n != 1 || e != 1 || skip) { print "README.md: expected one <!-- commands: ... --> and one <!-- end of commands --> line" > "/dev/stderr"; exit 1 } }' \
	README.md.gen README.md > README.md+ && \
	rm -f README.md.gen && mv README.md+ README.md

# ---- set-up ---------------------------------------------------------------

# Install only what is missing, and nothing when all is here; without
# apt-get (or, not as root, without sudo) say what is missing and fail
# only then.  `deps` is what building and `make demo` need (a compiler,
# pkg-config, the libraries); `test-deps` adds the tools `make test` and
# `make bench` use.  See tests/deps.sh.
deps:
	@PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' PYTHON='$(PYTHON)' sh tests/deps.sh build

test-deps:
	@PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' PYTHON='$(PYTHON)' sh tests/deps.sh test

# ---- tests ----------------------------------------------------------------

test: test-deps
	@$(MAKE) --no-print-directory test-build
	@$(PYTHON) tests/run.py $(TEST_BIN)

check: test

test-build: check-layering hdr-check bugcoder $(TEST_BIN)

# Every header compiles on its own (includes what it uses).
HDRS ?= $(sort $(wildcard core/*/*.h exports/*.h tui/*.h cli/*.h tests/lib/*.h))
hdr-check:
	@ok=1; for h in $(HDRS); do \
		$(CC) $(BC_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fsyntax-only -x c $$h || \
			{ echo "hdr-check: $$h does not compile on its own" >&2; ok=0; }; \
	done; [ $$ok = 1 ]

# Every source compiles under the current flags (DEVELOPER=1 for the
# strict set), without building anything.
SYNTAX_SRC = $(CORE_SRC) $(EXPORTS_SRC) $(TUI_SRC) $(CLI_SRC) $(TEST_SRC) \
	$(TESTLIB_SRC) tests/bench/gen.c
syntax-check:
	@ok=1; for f in $(SYNTAX_SRC); do \
		$(CC) $(BC_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fsyntax-only $$f || ok=0; \
	done; [ $$ok = 1 ]

check-layering:
	@sh tests/rooms.sh
	@if grep -lE '#include *[<"](n?curses|ncursesw/|panel|menu|form)[a-z]*\.h' core/*/*.[ch] exports/*.[ch] 2>/dev/null; then \
		echo 'core/ and exports/ must not include curses' >&2; exit 1; fi
	@if grep -nE 'sqlite3_|store_(prepare|exec)' cli/*.[ch] tui/*.[ch] 2>/dev/null; then \
		echo 'cli/ and tui/ hold no SQL: read and write the study through core/' >&2; exit 1; fi
	@if grep -nE 'sqlite3|store_(prepare|exec|step|cached)' exports/*.[ch] 2>/dev/null; then \
		echo 'exports/ only writes: it reads the study through core/ (rawlabels, records, agreed, ...)' >&2; exit 1; fi
	@if grep -nE '\bsqlite3_step *\(' core/*/*.[ch] exports/*.[ch] cli/*.[ch] tui/*.[ch] 2>/dev/null | \
		grep -v '^core/store/store\.c:'; then \
		echo 'a statement is stepped through store_step() (or store_step_done()), which reports a database error as an error, never as "no row": sqlite3_step() belongs to core/store/store.c' >&2; exit 1; fi
	@if grep -nE '\bstore_step_rc *\(' core/*/*.[ch] exports/*.[ch] cli/*.[ch] tui/*.[ch] 2>/dev/null | \
		grep -v '^core/store/'; then \
		echo 'store_step_rc() is the store'"'"'s own (core/store/store_int.h): step a statement through store_step() (or store_step_done())' >&2; exit 1; fi
	@if grep -nE '\b(store_(begin|commit|rollback)|audit_write(_detail|_row)?) *\(' cli/*.[ch] tui/*.[ch] 2>/dev/null; then \
		echo 'cli/ and tui/ neither open, commit nor roll back a transaction nor write the audit log: a core/ call does the whole action' >&2; exit 1; fi
	@if grep -nE 'getenv *\( *("BUGCODER_|[^") ])' core/*/*.c cli/*.c tui/*.c exports/*.c 2>/dev/null | \
		grep -vE '^core/base/priv\.c:|getenv *\( *"BUGCODER_STUDY"'; then \
		echo 'test hooks (BUGCODER_*) are read through priv_hook_env() only, which ignores them in a privileged program' >&2; exit 1; fi

# Line and branch coverage of the whole suite (C and Python layers), per
# folder: an instrumented build, the suite, then tests/coverage.py (gcovr).
# Leaves the tree instrumented: `make` rebuilds it plainly.  The suite
# runs with COVERAGE=1 in its environment, so a test that runs make
# itself (tests/test_build.py, the server install) keeps the build
# instrumented rather than rebuilding it plainly under the tests that
# follow.  (A run as another account, in the server install's tests,
# cannot write its counts into this tree: those tests send them to the
# account's home and keep them in tests/tmp/gcov-accounts/, which
# tests/coverage.py adds to the tree's with gcov-tool.)
coverage:
	@command -v gcovr >/dev/null || { echo 'coverage needs gcovr (Debian: gcovr)' >&2; exit 1; }
	@find . -name '*.gcda' -delete && rm -rf tests/tmp/gcov-accounts
	@$(MAKE) --no-print-directory COVERAGE=1 test-build
	-@COVERAGE=1 $(PYTHON) tests/run.py $(TEST_BIN)
	@$(PYTHON) tests/coverage.py

demo: deps
	@$(MAKE) --no-print-directory bugcoder
	@sh tests/demo.sh

bench: test-deps
	@$(MAKE) --no-print-directory bugcoder $(TOOL_BIN)
	@$(PYTHON) tests/bench/bench.py $(if $(N),--items $(N))

# libFuzzer targets (clang); not part of `make test`:
#   make fuzz && tests/fuzz/fuzz_text -max_total_time=60
# One harness a parser of user input (tests/fuzz/fuzz_NAME.c), each with
# its seeds in tests/fuzz/seeds/NAME/.  The library code is built once,
# instrumented, into tests/fuzz/obj/ and an archive the harnesses link.
# `make fuzz-smoke` runs every harness FUZZ_TIME seconds from its seeds
# (new inputs go to tests/tmp/fuzz/, never into the seeds) and fails on
# a crash, a leak, a timeout (FUZZ_TIMEOUT seconds for one input) or
# running out of memory; what failed is kept as tests/tmp/fuzz/NAME-*.
FUZZ_NAMES = text codebook diff evidence keys csv labels sheet urls \
	machine html label_line
FUZZ_BIN = $(addprefix tests/fuzz/fuzz_,$(FUZZ_NAMES))
FUZZ_CC ?= clang
FUZZ_TIME ?= 20
FUZZ_TIMEOUT ?= 10
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. \
	-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined $(PKG_CFLAGS)
FUZZ_OBJ = $(patsubst %.c,tests/fuzz/obj/%.o,$(CORE_SRC) $(TUI_SRC))
fuzz: $(FUZZ_BIN)
tests/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) $(CPPFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
tests/fuzz/obj/libfuzz.a: $(FUZZ_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^
tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/obj/libfuzz.a $(wildcard tests/fuzz/*.h)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) $(CPPFLAGS) -fsanitize=fuzzer -o $@ $< tests/fuzz/obj/libfuzz.a $(PKG_LIBS)
fuzz-smoke: $(FUZZ_BIN)
	@rm -rf tests/tmp/fuzz && mkdir -p tests/tmp/fuzz && ok=1; \
	for n in $(FUZZ_NAMES); do \
		mkdir -p tests/tmp/fuzz/$$n; \
		if tests/fuzz/fuzz_$$n -max_total_time=$(FUZZ_TIME) \
			-timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048 \
			-artifact_prefix=tests/tmp/fuzz/$$n- -print_final_stats=1 \
			tests/tmp/fuzz/$$n tests/fuzz/seeds/$$n \
			>tests/tmp/fuzz/$$n.log 2>&1; then \
			echo "fuzz $$n: ok, $$(sed -n 's/^stat::number_of_executed_units: *//p' tests/tmp/fuzz/$$n.log) runs"; \
		else \
			echo "fuzz $$n: FAILED (tests/tmp/fuzz/$$n.log)" >&2; \
			grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' tests/tmp/fuzz/$$n.log | head -5 >&2; \
			ok=0; \
		fi; \
	done; [ $$ok = 1 ]
-include $(wildcard tests/fuzz/obj/*/*.d)

# ---- install --------------------------------------------------------------

# The bundled codebooks and the sample go to $(PREFIX)/share/bugcoder,
# where bugcoder looks for them next to its own bin/ (so `--codebook
# llm-framework-bugs` works wherever the install went, DESTDIR staging
# included).
SHAREDIR = $(DATADIR)
CODEBOOKS = $(sort $(wildcard codebooks/*.json))
SAMPLE_FILES = tests/sample/items.jsonl tests/sample/labels.csv \
	       tests/sample/screening.csv tests/sample/coding.csv

install: bugcoder tui/bugcoder.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1 \
		$(DESTDIR)$(SHAREDIR)/codebooks $(DESTDIR)$(SHAREDIR)/sample
	install -m 755 bugcoder $(DESTDIR)$(BINDIR)/bugcoder
	install -m 644 tui/bugcoder.1 $(DESTDIR)$(MANPREFIX)/man1/bugcoder.1
	install -m 644 $(CODEBOOKS) $(DESTDIR)$(SHAREDIR)/codebooks
	install -m 644 $(SAMPLE_FILES) $(DESTDIR)$(SHAREDIR)/sample
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 completion/bugcoder.bash $(DESTDIR)$(BASHCOMPDIR)/bugcoder
	install -m 644 completion/_bugcoder $(DESTDIR)$(ZSHCOMPDIR)/_bugcoder

# A server install: only bugcoder can open a study.  The binary is setgid
# to $(GROUP), which owns $(STUDYDIR) (mode 2770: members, who are not in
# the group, cannot list or open it).  The binary finds STUDYDIR in
# $(DATADIR)/server.conf, read as ../share/bugcoder/server.conf from the
# binary's own directory, so BINDIR stays $(PREFIX)/bin here.  Studies
# already in STUDYDIR are left alone.
install-server: bugcoder tui/bugcoder.1
	@if [ "$$(id -u)" != 0 ]; then \
		echo 'install-server must run as root (it creates a group and a setgid binary)' >&2; \
		exit 1; fi
	@if [ "$(BINDIR)" != "$(PREFIX)/bin" ] || [ "$(DATADIR)" != "$(PREFIX)/share/bugcoder" ]; then \
		echo 'install-server: BINDIR must be $$(PREFIX)/bin and DATADIR $$(PREFIX)/share/bugcoder' >&2; \
		exit 1; fi
	@case "$(STUDYDIR)" in /*) ;; *) echo 'install-server: STUDYDIR must be an absolute path' >&2; exit 1;; esac
	getent group $(GROUP) >/dev/null || groupadd --system $(GROUP)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1 \
		$(DESTDIR)$(DATADIR)/codebooks
	install -o root -g $(GROUP) -m 2755 bugcoder $(DESTDIR)$(BINDIR)/bugcoder
	install -m 644 tui/bugcoder.1 $(DESTDIR)$(MANPREFIX)/man1/bugcoder.1
	install -m 644 codebooks/*.json $(DESTDIR)$(DATADIR)/codebooks/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 completion/bugcoder.bash $(DESTDIR)$(BASHCOMPDIR)/bugcoder
	install -m 644 completion/_bugcoder $(DESTDIR)$(ZSHCOMPDIR)/_bugcoder
	@case "$(CREATORS)" in *[!A-Za-z0-9._,-]*) \
		echo 'install-server: CREATORS is account names separated by commas' >&2; exit 1;; esac
	printf '# written by make install-server\nstudydir = %s\ngroup = %s\n' \
		'$(STUDYDIR)' '$(GROUP)' > $(DESTDIR)$(DATADIR)/server.conf+
	if [ -n '$(CREATORS)' ]; then \
		printf '# who besides root may create studies in studydir\ncreators = %s\n' \
			'$(CREATORS)' >> $(DESTDIR)$(DATADIR)/server.conf+; fi
	chown root:root $(DESTDIR)$(DATADIR)/server.conf+
	chmod 644 $(DESTDIR)$(DATADIR)/server.conf+
	mv -f $(DESTDIR)$(DATADIR)/server.conf+ $(DESTDIR)$(DATADIR)/server.conf
	install -d -o root -g $(GROUP) -m 2770 $(DESTDIR)$(STUDYDIR)
	chown root:$(GROUP) $(DESTDIR)$(STUDYDIR)
	chmod 2770 $(DESTDIR)$(STUDYDIR)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bugcoder $(DESTDIR)$(MANPREFIX)/man1/bugcoder.1
	rm -f $(DESTDIR)$(DATADIR)/server.conf
	rm -f $(DESTDIR)$(BASHCOMPDIR)/bugcoder $(DESTDIR)$(ZSHCOMPDIR)/_bugcoder
	rm -f $(addprefix $(DESTDIR)$(SHAREDIR)/codebooks/,$(notdir $(CODEBOOKS)))
	rm -f $(addprefix $(DESTDIR)$(SHAREDIR)/sample/,$(notdir $(SAMPLE_FILES)))
	-rmdir $(DESTDIR)$(SHAREDIR)/codebooks $(DESTDIR)$(SHAREDIR)/sample \
		$(DESTDIR)$(SHAREDIR) 2>/dev/null

clean:
	rm -f bugcoder BUILD-FLAGS BUILD-VERSION tui/bugcoder.1 tui/bugcoder.1.gen tui/bugcoder.1+ README.md.gen README.md+ exports/analysis_r.inc $(TOOL_BIN) $(TEST_BIN) $(FUZZ_BIN)
	rm -f */*.o */*.d */*/*.o */*/*.d */*.a
	rm -f */*.gcda */*.gcno */*/*.gcda */*/*.gcno
	rm -rf tests/tmp tests/fuzz/obj

.PHONY: all deps test-deps test check test-build coverage readme check-layering hdr-check syntax-check demo bench fuzz fuzz-smoke install install-server uninstall clean FORCE
.SECONDARY:

-include $(wildcard */*.d */*/*.d)
