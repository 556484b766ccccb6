# Two entry points on a fresh Debian 12 machine, as root:
#   make run   installs what is missing, builds the kb binary only, serves records/ at http://127.0.0.1:8080
#   make test  installs what is missing (and Chromium, clang-14), builds, runs ctest, then
#              replays the saved fuzz crash inputs and runs every fuzzer FUZZ_SECONDS
#   make fuzz  only the fuzzers, e.g. `make fuzz FUZZ_SECONDS=300` for a longer run
#   make format-check / make format   every product file as the committed .clang-format has it
BUILD ?= build
JOBS ?= 2
TYPE ?= RelWithDebInfo
KB := $(BUILD)/cli/kb
# The fuzzers are built by clang with sanitizers, so in a build folder of their own.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 10
FUZZ_RUN = FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_JOBS=$(JOBS) bash fuzz/run.sh $(FUZZ_SECONDS)

.PHONY: all deps test-deps fuzz-deps configure build kb run test fuzz lint clean format format-check deb install

all: build

deps:
	bash scripts/deps.sh

test-deps:
	bash scripts/deps.sh --test

fuzz-deps:
	bash scripts/deps.sh --fuzz

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(TYPE)

# Everything, tests included.
build: configure
	cmake --build $(BUILD) -j$(JOBS)

# Only the kb binary: `make run` and `make lint` build nothing they do not run.
kb: configure
	cmake --build $(BUILD) -j$(JOBS) --target kb

run: kb
	-$(KB) lint --records records
	$(KB) serve --records records --host 127.0.0.1 --port 8080

test: test-deps format-check build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)
	FUZZ_SEED=1 $(FUZZ_RUN)

fuzz: fuzz-deps
	$(FUZZ_RUN)

# The product's C++ (kb, server, cli, client, fuzz): `make test` fails on a file that
# clang-format would change, so the tree stays formatted.
FORMAT_FILES = $(shell git ls-files 'kb/*' 'server/*' 'cli/*' 'client/*' 'fuzz/*' | grep -E '\.(cpp|h|c)$$')

format-check:
	clang-format-14 --dry-run -Werror $(FORMAT_FILES)

format:
	clang-format-14 -i $(FORMAT_FILES)

lint: kb
	$(KB) lint --records records

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)

# A release build installed under PREFIX (default /usr/local): PREFIX/bin/kb and the
# knowledge base under PREFIX/share/kb, which kb uses when run where there is no ./records.
PREFIX ?= /usr/local
install: deps
	cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DKB_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build build-release -j$(JOBS) --target kb kb_index
	cmake --install build-release --strip

# A Debian package of that install (/usr/bin/kb, /usr/share/kb), in build-deb/.
deb: deps
	cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DKB_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr
	cmake --build build-deb -j$(JOBS) --target kb kb_index
	cd build-deb && cpack -G DEB
