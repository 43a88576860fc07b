# tracefold - traces (TAU, Chrome/PyTorch JSON, OTF2) -> profiles (pprof, ...)
#
#   make            build ./tracefold (release, -O2)
#   make MPI=1      also ./tracefold-mpi: tracefold with --mpi (OpenMPI's mpicc;
#                   docs/distributed.md); make check builds and tests both
#   make demo       install missing packages, build, profile samples/, print the top view
#   make check      install test tools, build (release + ASan/UBSan), run every test
#   make bench      generate large inputs and measure speed/memory (docs/performance.md)
#   make docs       redraw the README's flame graphs from samples/ (docs/img/)
#   make fuzz       fuzz every input path with libFuzzer (clang) for FUZZ_SECONDS each
#   make clean
#
# Sources are found by wildcard: a new reader, writer or command is a new
# file in src/read, src/write or src/cmd plus one table row; no Makefile edit.

CC       ?= gcc
PKGS     := libprotobuf-c zlib otf2 libzstd
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
INCS     := -Iinclude -Isrc/base -Isrc/core -Isrc/cmd -Ibuild/gen
OPT      ?= -O2 -g
CFLAGS_ALL = $(CSTD) $(OPT) -pthread $(WARN) $(INCS) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm -pthread $(LDLIBS)

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRC  := $(sort $(wildcard src/base/*.c src/core/*.c src/io/*.c src/read/*.c src/write/*.c src/pipeline/*.c src/dist/*.c src/cmd/*.c))
MAIN_SRC := src/main.c
PROTOS   := profile perfetto_trace
GEN_C    := $(patsubst %,build/gen/%.pb-c.c,$(PROTOS))
GEN_H    := $(patsubst %,build/gen/%.pb-c.h,$(PROTOS))

REL_OBJ  := $(patsubst src/%.c,build/rel/%.o,$(LIB_SRC)) $(patsubst %,build/rel/gen/%.pb-c.o,$(PROTOS))
SAN_OBJ  := $(patsubst src/%.c,build/san/%.o,$(LIB_SRC)) $(patsubst %,build/san/gen/%.pb-c.o,$(PROTOS))

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_REL := $(patsubst tests/unit/%.c,build/rel/tests/%,$(UNIT_SRC))
UNIT_SAN := $(patsubst tests/unit/%.c,build/san/tests/%,$(UNIT_SRC))
HDRS     := $(wildcard include/tracefold/*.h src/*/*.h) include/tracefold/diag.def

# Fuzz targets (tests/fuzz/fuzz_*.c, docs/testing.md): with regress.c as main
# they replay a corpus (built with the unit tests, run by make check); with
# libFuzzer (clang) they fuzz (make fuzz).
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_DEP := tests/fuzz/fuzz.h tests/fuzz/common.c tests/fuzz/regress.c
FUZZ_REL := $(patsubst tests/fuzz/%.c,build/rel/fuzz/%,$(FUZZ_SRC))
FUZZ_SAN := $(patsubst tests/fuzz/%.c,build/san/fuzz/%,$(FUZZ_SRC))
FUZZ_LF  := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
FUZZ_CC  ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(CSTD) -O1 -g $(filter-out -Werror,$(WARN)) $(INCS) $(PKG_CFLAGS) $(FUZZ_SAN_FLAGS)
FUZZ_OBJ := $(patsubst src/%.c,build/fuzz/obj/%.o,$(LIB_SRC)) $(patsubst %,build/fuzz/obj/gen/%.pb-c.o,$(PROTOS))

.PHONY: all demo docs check test test-fast bench clean deps deps-test unit san golden-update fuzz fuzz-build
all: tracefold

.SECONDARY: $(GEN_C) $(GEN_H)
build/gen/%.pb-c.c build/gen/%.pb-c.h: proto/%.proto
	@mkdir -p build/gen
	protoc-c --proto_path=proto --c_out=build/gen $<

build/rel/%.o: src/%.c $(HDRS) $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
build/rel/gen/%.o: build/gen/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) $(INCS) $(PKG_CFLAGS) -c $< -o $@
build/san/%.o: src/%.c $(HDRS) $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -c $< -o $@
build/san/gen/%.o: build/gen/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) $(INCS) $(PKG_CFLAGS) $(SAN) -c $< -o $@

build/rel/libtracefold.a: $(REL_OBJ)
	@rm -f $@; ar rcs $@ $^
build/san/libtracefold.a: $(SAN_OBJ)
	@rm -f $@; ar rcs $@ $^

tracefold: $(MAIN_SRC) build/rel/libtracefold.a $(HDRS)
	$(CC) $(CFLAGS_ALL) $(MAIN_SRC) build/rel/libtracefold.a $(LDLIBS_ALL) -o $@
build/san/tracefold: $(MAIN_SRC) build/san/libtracefold.a $(HDRS)
	$(CC) $(CFLAGS_ALL) $(SAN) $(MAIN_SRC) build/san/libtracefold.a $(LDLIBS_ALL) -o $@

# tracefold-mpi: the same library; only src/cmd/mpi.c is built again with
# MPI (-DTF_MPI), and its object comes before the library's MPI-less one.
MPICC    ?= mpicc
MPI_SRC  := src/cmd/mpi.c
tracefold-mpi: $(MAIN_SRC) $(MPI_SRC) build/rel/libtracefold.a $(HDRS)
	$(MPICC) $(CFLAGS_ALL) -DTF_MPI $(MAIN_SRC) $(MPI_SRC) build/rel/libtracefold.a $(LDLIBS_ALL) -o $@
build/san/tracefold-mpi: $(MAIN_SRC) $(MPI_SRC) build/san/libtracefold.a $(HDRS)
	$(MPICC) $(CFLAGS_ALL) $(SAN) -DTF_MPI $(MAIN_SRC) $(MPI_SRC) build/san/libtracefold.a $(LDLIBS_ALL) -o $@
ifeq ($(MPI),1)
all: tracefold-mpi
endif

build/rel/tests/%: tests/unit/%.c build/rel/libtracefold.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $< build/rel/libtracefold.a $(LDLIBS_ALL) -lcmocka -o $@
build/san/tests/%: tests/unit/%.c build/san/libtracefold.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -Itests/unit $< build/san/libtracefold.a $(LDLIBS_ALL) -lcmocka -o $@

build/rel/fuzz/%: tests/fuzz/%.c $(FUZZ_DEP) build/rel/libtracefold.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/fuzz $< tests/fuzz/common.c tests/fuzz/regress.c build/rel/libtracefold.a $(LDLIBS_ALL) -o $@
build/san/fuzz/%: tests/fuzz/%.c $(FUZZ_DEP) build/san/libtracefold.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -Itests/fuzz $< tests/fuzz/common.c tests/fuzz/regress.c build/san/libtracefold.a $(LDLIBS_ALL) -o $@

# libFuzzer builds: the library with coverage, ASan and UBSan (clang)
build/fuzz/obj/%.o: src/%.c $(HDRS) $(GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
build/fuzz/obj/gen/%.o: build/gen/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) -O1 -g $(INCS) $(PKG_CFLAGS) $(FUZZ_SAN_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
build/fuzz/libtracefold.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^
build/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h tests/fuzz/common.c build/fuzz/libtracefold.a $(HDRS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz $< tests/fuzz/common.c build/fuzz/libtracefold.a $(LDLIBS_ALL) -o $@

unit: $(UNIT_REL) $(FUZZ_REL)
san: build/san/tracefold $(UNIT_SAN) $(FUZZ_SAN)

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
docs: tracefold
	sh samples/docs.sh

# Every test, release build and ASan+UBSan build; ends with "N passed, N failed".
check: deps-test
	$(MAKE) tracefold tracefold-mpi unit
	$(MAKE) san build/san/tracefold-mpi
	sh tests/run.sh

# Tests without installing anything (for a quick edit-test loop).
test: tracefold tracefold-mpi unit san build/san/tracefold-mpi
	sh tests/run.sh

# Not part of check: fuzzes each target for FUZZ_SECONDS (default 60) if
# clang with libFuzzer is there; new inputs go to build/fuzz/corpus/, crashes
# to build/fuzz/artifacts/ (docs/testing.md says how to keep them).
fuzz-build: $(FUZZ_LF)
fuzz:
	@sh tests/deps.sh fuzz || echo "make fuzz: cannot install clang; trying anyway"
	@FUZZ_CC='$(FUZZ_CC)' FUZZ_SECONDS='$(FUZZ_SECONDS)' MAKE='$(MAKE)' sh tests/fuzz/run.sh $(FUZZ_TARGETS)

bench: deps tracefold tracefold-mpi
	sh tests/deps.sh bench
	sh bench/run.sh

# Rewrites tests/golden/expected/ (one text file a case of
# tests/golden/cases.txt) from ./tracefold: only for an intended change of
# the outputs (tests/e2e/golden.sh checks them; git diff shows the change).
golden-update: tracefold
	sh tests/golden/run.sh --update

clean:
	rm -rf build tracefold tracefold-mpi
