# Saltbox: the two commands of the README's quick start, and a few helpers.
#   make run   - install the missing Debian packages running needs (only
#                those: scripts/bootstrap.sh run), build the `saltbox`
#                command, start the REST server
#   make test  - install what the tests need as well (bootstrap.sh test:
#                clang, chromium, nginx, wrk, node, ...), build everything,
#                then again with ASan+UBSan, and run every test
DATA ?= ./saltbox-data
JOBS ?= $(shell nproc)

.PHONY: all bootstrap build run test bench soak clean

all: build

# What bootstrap installs: `run` for running, `test` for the tests and
# benchmarks too (a target-specific value, as WERROR below).
MODE ?= run
test bench: MODE = test

bootstrap:
	@scripts/bootstrap.sh $(MODE)

# Warnings are errors for the tests (and CI), not for `make run`.
WERROR ?= OFF
test: WERROR = ON

build: bootstrap
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(if $(filter ON,$(WERROR)),-DSBX_WERROR=ON) >/dev/null
	cmake --build build -j $(JOBS) $(if $(filter run,$(MODE)),--target saltbox-cli)

run: build
	./build/saltbox serve --data $(DATA)

# The suite runs twice: under ASan+UBSan, and on the optimized build (the
# one `make run` uses), whose code paths and gcc -O2 warnings differ.
test: build
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSBX_SANITIZE=ON -DSBX_WERROR=ON >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)
	cd build && ctest --output-on-failure -j $(JOBS)

bench: build
	./build/bench/bench_engine

# The crash test at length: hundreds of rounds of the library and of
# `saltbox serve` SIGKILLed under writers (CI runs 12 + 4; tests/test_crash.c).
SOAK_ROUNDS ?= 300
SOAK_SERVER_ROUNDS ?= 100
soak: MODE = test
soak: build
	mkdir -p build/tests/tmp
	cd build/tests && SBX_CRASH_ROUNDS=$(SOAK_ROUNDS) \
	  SBX_CRASH_SERVER_ROUNDS=$(SOAK_SERVER_ROUNDS) SBX_SALTBOX=../saltbox \
	  SBX_TEST_TMP=tmp ./test_crash

clean:
	rm -rf build build-asan
