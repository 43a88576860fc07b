# tracefold - traces (TAU, Chrome/PyTorch JSON, OTF2) -> profiles (pprof, ...)
#
#   make            build ./tracefold (release, -O2)
#   make MPI=1      also ./tracefold-mpi: tracefold with --mpi (OpenMPI's mpicc;
#                   docs/distributed.md); make check builds and tests both,
#                   make test builds it where mpicc is found
#   make demo       install missing packages, build, profile samples/, print the top view
#   make check      install test tools, build (release + ASan/UBSan), run every test
#   make bench      generate large inputs and measure speed/memory (docs/performance.md)
#   make bench-compare REF=<commit>   each benchmark against that commit's build, with ratios
#   make bench-gb   the multi-GB 8-rank Kineto set (10 GB of disk; not in make bench)
#   make docs       redraw the README's flame graphs from samples/ (docs/img/)
#   make fuzz       fuzz every input path with libFuzzer (clang) for FUZZ_SECONDS each
#   make record     libtracefold-record, the recording API (docs/record.md)
#   make install    the binaries, man pages, bash and zsh completions and docs,
#                   libtracefold-record with its header and tracefold-record.pc
#                   under PREFIX (/usr/local), inside DESTDIR if given;
#                   make uninstall removes them (docs/install.md)
#   make clean
#
# Sources are found by wildcard: a new reader, writer or command is a new
# file in src/read, src/write or src/cmd plus one table row; no Makefile edit.
#
# Two halves, as zstd's lib/ and programs/: build/*/libtracefold.a is the
# library folders only (LIB_DIRS), compiled without the commands' include
# path; the commands (src/cmd, src/main.c: CLI_INCS) are linked into the
# binaries beside it, and into build/*/cmd.a for the unit tests and fuzz
# targets that test them.  Every object depends on the headers it includes
# (gcc -MMD -MP: build/**/*.d).

CC       ?= gcc
PKGS     := libprotobuf-c zlib otf2 libzstd sqlite3
# ISA-L's inflate (Debian libisal-dev) where it is installed, zlib's
# otherwise; ISAL=0 builds with zlib alone (tracefold --version says which)
ISAL     ?= $(shell pkg-config --exists libisal 2>/dev/null && echo 1)
ifeq ($(ISAL),1)
PKGS     += libisal
ISAL_DEF := -DTF_HAVE_ISAL -DTF_ISAL_VERSION='"$(shell pkg-config --modversion libisal)"'
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(ISAL_DEF)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN     := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CSTD     := -std=gnu11
INCS     := -Iinclude -Isrc/base -Isrc/core -Isrc/parquet -Ibuild/gen
CLI_INCS := -Isrc/cmd
OPT      ?= -O2 -g
DEPFLAGS := -MMD -MP
CFLAGS_ALL = $(CSTD) $(OPT) -pthread $(WARN) $(INCS) $(PKG_CFLAGS) $(CFLAGS)
CFLAGS_CLI = $(CSTD) $(OPT) -pthread $(WARN) $(INCS) $(CLI_INCS) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm -pthread $(LDLIBS)

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_DIRS := base core io parquet read write pipeline parallel
LIB_SRC  := $(sort $(wildcard $(patsubst %,src/%/*.c,$(LIB_DIRS))))
CMD_SRC  := $(sort $(wildcard src/cmd/*.c))
PROTOS   := profile perfetto_trace xplane
GEN_C    := $(patsubst %,build/gen/%.pb-c.c,$(PROTOS))
GEN_H    := $(patsubst %,build/gen/%.pb-c.h,$(PROTOS))

REL_OBJ  := $(patsubst src/%.c,build/rel/%.o,$(LIB_SRC)) $(patsubst %,build/rel/gen/%.pb-c.o,$(PROTOS))
SAN_OBJ  := $(patsubst src/%.c,build/san/%.o,$(LIB_SRC)) $(patsubst %,build/san/gen/%.pb-c.o,$(PROTOS))
CMD_REL  := $(patsubst src/%.c,build/rel/%.o,$(CMD_SRC))
CMD_SAN  := $(patsubst src/%.c,build/san/%.o,$(CMD_SRC))

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_REL := $(patsubst tests/unit/%.c,build/rel/tests/%,$(UNIT_SRC))
UNIT_SAN := $(patsubst tests/unit/%.c,build/san/tests/%,$(UNIT_SRC))

# Fuzz targets (tests/fuzz/fuzz_*.c, docs/testing.md): with regress.c as main
# they replay a corpus (built with the unit tests, run by make check); with
# libFuzzer (clang) they fuzz (make fuzz).
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REL := $(patsubst tests/fuzz/%.c,build/rel/fuzz/%,$(FUZZ_SRC))
FUZZ_SAN := $(patsubst tests/fuzz/%.c,build/san/fuzz/%,$(FUZZ_SRC))
FUZZ_LF  := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
FUZZ_CC  ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(CSTD) -O1 -g $(filter-out -Werror,$(WARN)) $(INCS) $(PKG_CFLAGS) $(FUZZ_SAN_FLAGS)
FUZZ_OBJ := $(patsubst src/%.c,build/fuzz/obj/%.o,$(LIB_SRC)) $(patsubst %,build/fuzz/obj/gen/%.pb-c.o,$(PROTOS))
FUZZ_CMD := $(patsubst src/%.c,build/fuzz/obj/%.o,$(CMD_SRC))
# the targets' own objects: each fuzz_*.c, with common.c and (replay) regress.c
FUZZ_TOBJ := $(foreach v,rel san,$(patsubst tests/fuzz/%.c,build/$(v)/fuzz/%.o,$(FUZZ_SRC) tests/fuzz/common.c tests/fuzz/regress.c)) \
	$(patsubst tests/fuzz/%.c,build/fuzz/tobj/%.o,$(FUZZ_SRC) tests/fuzz/common.c)

# tracefold-mpi is built (and tested by make test) only where mpicc is found
MPICC    ?= mpicc
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
MPI_BINS := $(if $(HAVE_MPICC),tracefold-mpi build/san/tracefold-mpi)

.PHONY: all demo docs check test test-fast bench bench-compare bench-gb clean deps deps-test unit san golden-update fuzz fuzz-build \
	install uninstall record
all: tracefold

.SECONDARY: $(GEN_C) $(GEN_H)
build/gen/%.pb-c.c build/gen/%.pb-c.h: proto/%.proto
	@mkdir -p build/gen
	protoc-c --proto_path=proto --c_out=build/gen $<

# the library's objects: no -Isrc/cmd; the generated headers come first
build/rel/%.o: src/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -c $< -o $@
build/rel/gen/%.o: build/gen/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) $(INCS) $(PKG_CFLAGS) -c $< -o $@
build/san/%.o: src/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) $(DEPFLAGS) -c $< -o $@
build/san/gen/%.o: build/gen/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) $(INCS) $(PKG_CFLAGS) $(SAN) -c $< -o $@
# the commands' objects (src/cmd, src/main.c): these alone see src/cmd
build/rel/cmd/%.o: src/cmd/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) $(DEPFLAGS) -c $< -o $@
build/san/cmd/%.o: src/cmd/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) $(SAN) $(DEPFLAGS) -c $< -o $@
build/rel/main.o: src/main.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) $(DEPFLAGS) -c $< -o $@
build/san/main.o: src/main.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) $(SAN) $(DEPFLAGS) -c $< -o $@

build/rel/libtracefold.a: $(REL_OBJ)
	@rm -f $@; ar rcs $@ $^
build/san/libtracefold.a: $(SAN_OBJ)
	@rm -f $@; ar rcs $@ $^
# the command objects as an archive, for the tests of what they hold (report.c)
build/rel/cmd.a: $(CMD_REL)
	@rm -f $@; ar rcs $@ $^
build/san/cmd.a: $(CMD_SAN)
	@rm -f $@; ar rcs $@ $^

tracefold: build/rel/main.o $(CMD_REL) build/rel/libtracefold.a
	$(CC) $(CFLAGS_CLI) $^ $(LDLIBS_ALL) -o $@
build/san/tracefold: build/san/main.o $(CMD_SAN) build/san/libtracefold.a
	$(CC) $(CFLAGS_CLI) $(SAN) $^ $(LDLIBS_ALL) -o $@

# tracefold-mpi: the same objects, but src/cmd/mpi.c built again with MPI
# (-DTF_MPI) in place of its MPI-less object.
MPI_SRC  := src/cmd/mpi.c
build/rel/mpi/mpi.o: $(MPI_SRC) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_CLI) -DTF_MPI $(DEPFLAGS) -c $< -o $@
build/san/mpi/mpi.o: $(MPI_SRC) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_CLI) $(SAN) -DTF_MPI $(DEPFLAGS) -c $< -o $@
tracefold-mpi: build/rel/main.o build/rel/mpi/mpi.o $(filter-out build/rel/cmd/mpi.o,$(CMD_REL)) build/rel/libtracefold.a
	$(MPICC) $(CFLAGS_CLI) $^ $(LDLIBS_ALL) -o $@
build/san/tracefold-mpi: build/san/main.o build/san/mpi/mpi.o $(filter-out build/san/cmd/mpi.o,$(CMD_SAN)) build/san/libtracefold.a
	$(MPICC) $(CFLAGS_CLI) $(SAN) $^ $(LDLIBS_ALL) -o $@
ifeq ($(MPI),1)
all: tracefold-mpi
endif

# libtracefold-record (include/tracefold/record.h, docs/record.md): the
# recording API, a library of its own that needs libc and pthreads only (no
# header of the rest, checked by tests/e2e/layers.sh); position-independent,
# as a static and a shared library (its public calls alone exported).
REC_SRC  := $(sort $(wildcard src/record/*.c))
REC_REL  := $(patsubst src/%.c,build/rel/%.o,$(REC_SRC))
REC_SAN  := $(patsubst src/%.c,build/san/%.o,$(REC_SRC))
REC_SOVER := 1
REC_CFLAGS = $(CSTD) $(OPT) -pthread $(WARN) -Iinclude -fPIC -fvisibility=hidden $(CFLAGS)
build/rel/record/%.o: src/record/%.c
	@mkdir -p $(dir $@)
	$(CC) $(REC_CFLAGS) $(DEPFLAGS) -c $< -o $@
build/san/record/%.o: src/record/%.c
	@mkdir -p $(dir $@)
	$(CC) $(REC_CFLAGS) $(SAN) $(DEPFLAGS) -c $< -o $@
build/rel/libtracefold-record.a: $(REC_REL)
	@rm -f $@; ar rcs $@ $^
build/san/libtracefold-record.a: $(REC_SAN)
	@rm -f $@; ar rcs $@ $^
build/rel/libtracefold-record.so.$(REC_SOVER): $(REC_REL)
	$(CC) -shared -Wl,-soname,libtracefold-record.so.$(REC_SOVER) -Wl,--no-undefined $^ -pthread -o $@
build/rel/libtracefold-record.so: build/rel/libtracefold-record.so.$(REC_SOVER)
	ln -sf libtracefold-record.so.$(REC_SOVER) $@
record: build/rel/libtracefold-record.a build/rel/libtracefold-record.so
all: record

# the recording's overhead benchmark (bench/record_bench.c, make bench,
# docs/performance.md): libtracefold-record linked in statically, libc and
# pthreads dynamically, so that the binary runs on another machine as is
build/rel/bench/record_bench: bench/record_bench.c build/rel/libtracefold-record.a
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) -pthread $(WARN) -Iinclude $(DEPFLAGS) -MF $@.d -MT $@ $< build/rel/libtracefold-record.a -o $@

# the recording's unit test: against libtracefold-record alone
build/rel/tests/test_record: tests/unit/test_record.c build/rel/libtracefold-record.a
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) -pthread $(WARN) -Iinclude -Itests/unit $(DEPFLAGS) -MF $@.d -MT $@ $< build/rel/libtracefold-record.a -lcmocka -o $@
build/san/tests/test_record: tests/unit/test_record.c build/san/libtracefold-record.a
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) -pthread $(WARN) $(SAN) -Iinclude -Itests/unit $(DEPFLAGS) -MF $@.d -MT $@ $< build/san/libtracefold-record.a -lcmocka -o $@

# unit tests: programs like the commands (they may test src/cmd's report.c)
build/rel/tests/%: tests/unit/%.c build/rel/cmd.a build/rel/libtracefold.a | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) -Itests/unit $(DEPFLAGS) -MF $@.d -MT $@ $< build/rel/cmd.a build/rel/libtracefold.a $(LDLIBS_ALL) -lcmocka -o $@
build/san/tests/%: tests/unit/%.c build/san/cmd.a build/san/libtracefold.a | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) $(SAN) -Itests/unit $(DEPFLAGS) -MF $@.d -MT $@ $< build/san/cmd.a build/san/libtracefold.a $(LDLIBS_ALL) -lcmocka -o $@

# fuzz targets replaying their corpus (with regress.c as main)
build/rel/fuzz/%.o: tests/fuzz/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) -Itests/fuzz $(DEPFLAGS) -c $< -o $@
build/san/fuzz/%.o: tests/fuzz/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CLI) $(SAN) -Itests/fuzz $(DEPFLAGS) -c $< -o $@
build/rel/fuzz/%: build/rel/fuzz/%.o build/rel/fuzz/common.o build/rel/fuzz/regress.o build/rel/cmd.a build/rel/libtracefold.a
	$(CC) $(CFLAGS_CLI) $^ $(LDLIBS_ALL) -o $@
build/san/fuzz/%: build/san/fuzz/%.o build/san/fuzz/common.o build/san/fuzz/regress.o build/san/cmd.a build/san/libtracefold.a
	$(CC) $(CFLAGS_CLI) $(SAN) $^ $(LDLIBS_ALL) -o $@

# libFuzzer builds: the library with coverage, ASan and UBSan (clang)
build/fuzz/obj/%.o: src/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@
build/fuzz/obj/cmd/%.o: src/cmd/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(CLI_INCS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@
build/fuzz/obj/gen/%.o: build/gen/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) -O1 -g $(INCS) $(PKG_CFLAGS) $(FUZZ_SAN_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
build/fuzz/libtracefold.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^
build/fuzz/cmd.a: $(FUZZ_CMD)
	@rm -f $@; ar rcs $@ $^
build/fuzz/tobj/%.o: tests/fuzz/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(CLI_INCS) -Itests/fuzz -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@
build/fuzz/%: build/fuzz/tobj/%.o build/fuzz/tobj/common.o build/fuzz/cmd.a build/fuzz/libtracefold.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ $(LDLIBS_ALL) -o $@

.SECONDARY: $(FUZZ_TOBJ)
-include $(wildcard build/*/*.d build/*/*/*.d build/*/*/*/*.d)

unit: record $(UNIT_REL) $(FUZZ_REL)
san: build/san/tracefold build/san/libtracefold-record.a $(UNIT_SAN) $(FUZZ_SAN)

# Installs build dependencies that are missing (Debian, as root or with sudo).
deps:
	@sh tests/deps.sh build

deps-test:
	@sh tests/deps.sh test

demo: deps
	$(MAKE) tracefold
	sh samples/demo.sh

# The README's pictures and diff report (docs/img/), from the bundled sample;
# tests/e2e/flame.sh checks that the committed ones are what this draws.
# ci-comment.sh: the pull-request comment of the CI step, rendered and
# screenshot (needs chromium and python3-markdown: tests/deps.sh test).
docs: tracefold
	sh samples/docs.sh
	sh samples/ci-comment.sh

# Every test, release build and ASan+UBSan build; ends with "N passed, N failed".
check: deps-test
	$(MAKE) tracefold tracefold-mpi unit
	$(MAKE) san build/san/tracefold-mpi
	sh tests/run.sh

# Tests without installing anything (for a quick edit-test loop); with
# tracefold-mpi where mpicc is found (tests/e2e/mpi.sh skips without it).
test: tracefold unit san $(MPI_BINS)
	sh tests/run.sh

# Not part of check: fuzzes each target for FUZZ_SECONDS (default 60) if
# clang with libFuzzer is there; new inputs go to build/fuzz/corpus/, crashes
# to build/fuzz/artifacts/ (docs/testing.md says how to keep them).
fuzz-build: $(FUZZ_LF)
fuzz:
	@sh tests/deps.sh fuzz || echo "make fuzz: cannot install clang; trying anyway"
	@FUZZ_CC='$(FUZZ_CC)' FUZZ_SECONDS='$(FUZZ_SECONDS)' MAKE='$(MAKE)' sh tests/fuzz/run.sh $(FUZZ_TARGETS)

# Each benchmark against a reference commit, pair by pair, with the ratios
# (bench/compare.sh; docs/performance.md "Against a reference"):
#   make bench-compare REF=<commit> [ROUNDS=5] [MB=200] [TRACES="a.json b.json"]
bench-compare: tracefold
	REF='$(REF)' ROUNDS='$(ROUNDS)' MB='$(MB)' TRACES='$(TRACES)' sh bench/compare.sh

# Multi-GB Kineto traces (issue 33): an 8-rank set of 1.25 GB files made
# from a real trace, profile/overview/events under /usr/bin/time -v, peak
# RSS per command; not in bench (tens of minutes, 12 GB of disk):
#   make bench-gb [SETS="35 140"] [DIR=/tmp/tracefold-gb] [KEEP=1]
bench-gb: tracefold
	SETS='$(SETS)' DIR='$(DIR)' KEEP='$(KEEP)' sh bench/bench-gb.sh

bench: deps tracefold tracefold-mpi build/rel/bench/record_bench
	sh tests/deps.sh bench
	sh bench/run.sh

# Rewrites tests/golden/expected/ (one text file a case of
# tests/golden/cases.txt) from ./tracefold: only for an intended change of
# the outputs (tests/e2e/golden.sh checks them; git diff shows the change).
golden-update: tracefold
	sh tests/golden/run.sh --update

# Where make install puts things (GNU's names; DESTDIR: a staging root for
# packages, prepended to each).  The man pages and completions are made by
# the binary being installed from its own --help (tracefold manpage,
# tracefold completion); tracefold-mpi goes too when it has been built.
PREFIX     ?= /usr/local
bindir     ?= $(PREFIX)/bin
mandir     ?= $(PREFIX)/share/man
man1dir    ?= $(mandir)/man1
docdir     ?= $(PREFIX)/share/doc/tracefold
bashcompdir ?= $(PREFIX)/share/bash-completion/completions
zshcompdir ?= $(PREFIX)/share/zsh/site-functions
libdir     ?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
pkgconfigdir ?= $(libdir)/pkgconfig
TF_VERSION := $(shell sed -n 's/^\#define TRACEFOLD_VERSION "\(.*\)"/\1/p' include/tracefold/version.h)

# the documentation installed (and uninstalled by name)
DOC_MD   := $(notdir $(wildcard docs/*.md))
DOC_IMG  := $(notdir $(wildcard docs/img/*))

# tracefold-mpi is installed when it has been built, brought up to date first;
# libtracefold-record (static and shared), its header and its pkg-config file
# tracefold-record.pc (docs/record.md)
install: tracefold $(wildcard tracefold-mpi) record
	install -d "$(DESTDIR)$(bindir)" "$(DESTDIR)$(man1dir)" "$(DESTDIR)$(bashcompdir)" \
		"$(DESTDIR)$(zshcompdir)" "$(DESTDIR)$(docdir)/docs/img" \
		"$(DESTDIR)$(libdir)" "$(DESTDIR)$(includedir)/tracefold" "$(DESTDIR)$(pkgconfigdir)"
	install -m 644 build/rel/libtracefold-record.a "$(DESTDIR)$(libdir)/"
	install -m 755 build/rel/libtracefold-record.so.$(REC_SOVER) "$(DESTDIR)$(libdir)/"
	ln -sf libtracefold-record.so.$(REC_SOVER) "$(DESTDIR)$(libdir)/libtracefold-record.so"
	install -m 644 include/tracefold/record.h "$(DESTDIR)$(includedir)/tracefold/record.h"
	umask 022 && printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(libdir)' 'includedir=$(includedir)' '' \
		'Name: tracefold-record' \
		'Description: record Perfetto traces from C and C++ (tracefold recording API)' \
		'Version: $(TF_VERSION)' 'Libs: -L$${libdir} -ltracefold-record' 'Libs.private: -pthread' \
		'Cflags: -I$${includedir}' > "$(DESTDIR)$(pkgconfigdir)/tracefold-record.pc"
	install -m 755 tracefold "$(DESTDIR)$(bindir)/tracefold"
	if [ -x tracefold-mpi ]; then install -m 755 tracefold-mpi "$(DESTDIR)$(bindir)/tracefold-mpi"; fi
	umask 022 && ./tracefold manpage -o "$(DESTDIR)$(man1dir)" --docdir "$(docdir)/docs"
	umask 022 && ./tracefold completion bash > "$(DESTDIR)$(bashcompdir)/.tracefold.tmp" && \
		mv -f "$(DESTDIR)$(bashcompdir)/.tracefold.tmp" "$(DESTDIR)$(bashcompdir)/tracefold" || \
		{ rm -f "$(DESTDIR)$(bashcompdir)/.tracefold.tmp"; exit 1; }
	umask 022 && ./tracefold completion zsh > "$(DESTDIR)$(zshcompdir)/._tracefold.tmp" && \
		mv -f "$(DESTDIR)$(zshcompdir)/._tracefold.tmp" "$(DESTDIR)$(zshcompdir)/_tracefold" || \
		{ rm -f "$(DESTDIR)$(zshcompdir)/._tracefold.tmp"; exit 1; }
	install -m 644 README.md "$(DESTDIR)$(docdir)/"
	install -m 644 docs/*.md "$(DESTDIR)$(docdir)/docs/"
	install -m 644 docs/img/* "$(DESTDIR)$(docdir)/docs/img/"

# removes what install put there, by name, and the doc folders if empty
uninstall:
	rm -f "$(DESTDIR)$(bindir)/tracefold" "$(DESTDIR)$(bindir)/tracefold-mpi" \
		"$(DESTDIR)$(man1dir)/tracefold.1" "$(DESTDIR)$(man1dir)"/tracefold-*.1 \
		"$(DESTDIR)$(bashcompdir)/tracefold" "$(DESTDIR)$(zshcompdir)/_tracefold" \
		"$(DESTDIR)$(docdir)/README.md" $(foreach f,$(DOC_MD),"$(DESTDIR)$(docdir)/docs/$(f)") \
		$(foreach f,$(DOC_IMG),"$(DESTDIR)$(docdir)/docs/img/$(f)") \
		"$(DESTDIR)$(libdir)/libtracefold-record.a" "$(DESTDIR)$(libdir)/libtracefold-record.so" \
		"$(DESTDIR)$(libdir)/libtracefold-record.so.$(REC_SOVER)" "$(DESTDIR)$(includedir)/tracefold/record.h" \
		"$(DESTDIR)$(pkgconfigdir)/tracefold-record.pc"
	rmdir "$(DESTDIR)$(docdir)/docs/img" "$(DESTDIR)$(docdir)/docs" "$(DESTDIR)$(docdir)" 2>/dev/null || true
	rmdir "$(DESTDIR)$(includedir)/tracefold" 2>/dev/null || true

clean:
	rm -rf build tracefold tracefold-mpi
