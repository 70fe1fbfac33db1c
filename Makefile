# bugcoder - a terminal workbench for empirical bug studies
#
# Plain, non-recursive make.  User variables are respected; project flags
# are appended.  `make V=1` shows full commands, `make DEVELOPER=1` turns
# warnings into errors, `make SAN=1` builds with ASan and UBSan.

VERSION     = 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANPREFIX  ?= $(PREFIX)/share/man
PKG_CONFIG ?= pkg-config
CC         ?= cc
AR         ?= ar
CFLAGS     ?= -O2 -g
LDFLAGS    ?=
PYTHON     ?= python3

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
ifdef DEVELOPER
BC_CFLAGS += -Werror
endif
ifdef SAN
BC_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
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

all: bugcoder

# Rebuild everything when the flags change (SAN=1 and back, say).
BUILD-FLAGS: FORCE
	@echo '$(CC) $(BC_CFLAGS) $(CFLAGS) $(BC_LDFLAGS) $(LDFLAGS)' > $@+; \
	if cmp -s $@ $@+; then rm -f $@+; else mv $@+ $@; fi

%.o: %.c BUILD-FLAGS
	$(QUIET_CC)$(CC) $(BC_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

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

DEB_PKGS = libncurses-dev libsqlite3-dev libcjson-dev libcurl4-openssl-dev \
	libcmark-gfm-dev libcmark-gfm-extensions-dev libcmocka-dev tmux python3 \
	pkg-config sqlite3 less python3-pandas r-base-core node-graphql

deps:
	@missing=''; \
	if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
		for p in $(DEB_PKGS); do \
			dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
		done; \
		if [ -n "$$missing" ]; then \
			echo "installing:$$missing"; \
			if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
			$$sudo apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null || exit 1; \
		fi; \
	else \
		echo "bugcoder needs these packages (Debian names): $(DEB_PKGS)" >&2; \
		echo "this system has no apt-get: install their equivalents by hand" >&2; \
		exit 1; \
	fi

# ---- tests ----------------------------------------------------------------

test: deps
	@$(MAKE) --no-print-directory test-build
	@$(PYTHON) tests/run.py $(TEST_BIN)

check: test

test-build: check-layering bugcoder $(TEST_BIN)

check-layering:
	@if grep -lE '#include *[<"](n?curses|ncursesw/|panel|menu|form)[a-z]*\.h' core/*.[ch] exports/*.[ch] 2>/dev/null; then \
		echo 'core/ and exports/ must not include curses' >&2; exit 1; fi

demo: bugcoder
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
	$(QUIET_LINK)clang $(FUZZ_CFLAGS) -o $@ $< $(CORE_SRC) $(PKG_LIBS)

# ---- install --------------------------------------------------------------

install: bugcoder tui/bugcoder.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1
	install -m 755 bugcoder $(DESTDIR)$(BINDIR)/bugcoder
	install -m 644 tui/bugcoder.1 $(DESTDIR)$(MANPREFIX)/man1/bugcoder.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bugcoder $(DESTDIR)$(MANPREFIX)/man1/bugcoder.1

clean:
	rm -f bugcoder BUILD-FLAGS tui/bugcoder.1 $(TOOL_BIN) $(TEST_BIN) $(FUZZ_BIN)
	rm -f */*.o */*.d */*/*.o */*/*.d */*.a
	rm -rf tests/tmp

.PHONY: all deps test check test-build check-layering demo bench fuzz install uninstall clean FORCE
.SECONDARY:

-include $(wildcard */*.d */*/*.d)
