# Two entry points on a fresh Debian 12 machine, as root:
#   make run   installs what is missing, builds, serves records/ at http://127.0.0.1:8080
#   make test  installs what is missing (and Chromium for the browser test), builds, runs ctest
BUILD ?= build
JOBS ?= 2
TYPE ?= RelWithDebInfo
KB := $(BUILD)/kb/cli/kb

.PHONY: all deps test-deps build run test lint clean

all: build

deps:
	bash scripts/deps.sh

test-deps:
	bash scripts/deps.sh --test

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(TYPE)
	cmake --build $(BUILD) -j$(JOBS)

run: build
	-$(KB) lint --records records
	$(KB) serve --records records --host 127.0.0.1 --port 8080

test: test-deps build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

lint: build
	$(KB) lint --records records

clean:
	rm -rf $(BUILD)
