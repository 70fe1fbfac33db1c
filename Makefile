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

PKGS = ncursesw sqlite3 libcjson libcurl libcmark-gfm

# Lazily expanded, so that `make test` can install packages before the
# flags are asked for.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl is loaded at run time by core/curl_lazy.c (only `fetch` needs
# it), so it is not linked: its compile flags are enough.
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

ifndef V
QUIET_CC   = @echo '   ' CC $@;
QUIET_AR   = @echo '   ' AR $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_GEN  = @echo '   ' GEN $@;
endif

CORE_SRC    = $(sort $(wildcard core/*.c))
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

# Rebuild everything when the flags change (SAN=1 and back, say).
BUILD-FLAGS: FORCE
	@echo '$(CC) $(BC_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(BC_LDFLAGS) $(LDFLAGS)' > $@+; \
	if cmp -s $@ $@+; then rm -f $@+; else mv $@+ $@; fi

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

tui/bugcoder.1: tui/bugcoder.1.in Makefile
	$(QUIET_GEN)sed -e 's/@VERSION@/$(VERSION)/g' $< > $@

# ---- set-up ---------------------------------------------------------------

# Installs only what is missing (pkg-config modules, a header, the test
# tools), and nothing when all is here; without apt-get it says what is
# missing and fails only then.  See tests/deps.sh.
deps:
	@PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' PYTHON='$(PYTHON)' sh tests/deps.sh

# ---- tests ----------------------------------------------------------------

test: deps
	@$(MAKE) --no-print-directory test-build
	@$(PYTHON) tests/run.py $(TEST_BIN)

check: test

test-build: check-layering hdr-check bugcoder $(TEST_BIN)

# Every header compiles on its own (includes what it uses).
HDRS ?= $(sort $(wildcard core/*.h exports/*.h tui/*.h cli/*.h tests/lib/*.h))
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
	@if grep -lE '#include *[<"](n?curses|ncursesw/|panel|menu|form)[a-z]*\.h' core/*.[ch] exports/*.[ch] 2>/dev/null; then \
		echo 'core/ and exports/ must not include curses' >&2; exit 1; fi
	@if grep -nE 'sqlite3_|store_(prepare|exec)' cli/*.[ch] tui/*.[ch] 2>/dev/null; then \
		echo 'cli/ and tui/ hold no SQL: read and write the study through core/' >&2; exit 1; fi

demo: deps
	@$(MAKE) --no-print-directory bugcoder
	@sh tests/demo.sh

bench: deps
	@$(MAKE) --no-print-directory bugcoder $(TOOL_BIN)
	@$(PYTHON) tests/bench/bench.py $(if $(N),--items $(N))

# libFuzzer targets (clang); not part of `make test`:
#   make fuzz && tests/fuzz/fuzz_text -max_total_time=60
FUZZ_BIN = tests/fuzz/fuzz_text tests/fuzz/fuzz_codebook tests/fuzz/fuzz_diff
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. \
	-g -O1 -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS)
fuzz: $(FUZZ_BIN)
tests/fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(wildcard core/*.h)
	$(QUIET_LINK)clang $(FUZZ_CFLAGS) $(CPPFLAGS) -o $@ $< $(CORE_SRC) $(PKG_LIBS)

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
	rm -f $(addprefix $(DESTDIR)$(SHAREDIR)/codebooks/,$(notdir $(CODEBOOKS)))
	rm -f $(addprefix $(DESTDIR)$(SHAREDIR)/sample/,$(notdir $(SAMPLE_FILES)))
	-rmdir $(DESTDIR)$(SHAREDIR)/codebooks $(DESTDIR)$(SHAREDIR)/sample \
		$(DESTDIR)$(SHAREDIR) 2>/dev/null

clean:
	rm -f bugcoder BUILD-FLAGS tui/bugcoder.1 exports/analysis_r.inc $(TOOL_BIN) $(TEST_BIN) $(FUZZ_BIN)
	rm -f */*.o */*.d */*/*.o */*/*.d */*.a
	rm -rf tests/tmp

.PHONY: all deps test check test-build check-layering hdr-check syntax-check demo bench fuzz install install-server uninstall clean FORCE
.SECONDARY:

-include $(wildcard */*.d */*/*.d)
