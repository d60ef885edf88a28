# SliceScope: the two set-up commands of README.md.
#   make run    installs what is missing, builds, and starts the GUI
#   make test   installs what is missing, builds, and runs every test
# Everything comes from Debian's packages; nothing is downloaded at build or run time.

BUILD_DIR ?= build
PRESET    ?= dev
JOBS      ?= $(shell nproc)

# Debian 12 packages the build and the tests need (CUDA is optional and not a Debian package
# here; slurm-wlm, munge and jq are for the single-node Slurm cluster of tests/slurm).
PACKAGES := cmake ninja-build g++ pkg-config \
            qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev libxkbcommon-dev \
            nlohmann-json3-dev libcli11-dev libexpected-dev googletest libgtest-dev \
            xvfb xauth clang-format universal-ctags \
            slurm-wlm munge jq openssh-server openssh-client strace

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build run test test-asan format-check clean

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:" $$missing; \
	  $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

configure: deps
	@if [ ! -f $(BUILD_DIR)/CMakeCache.txt ]; then cmake --preset $(PRESET); fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/bin/slicescope

test: build
	QT_QPA_PLATFORM=offscreen ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer;
# .ci/run runs it after `make test`. Run-time options (docs/reliability.md, "Sanitizers"): stop
# at the first report, look for leaks, check static initialisation order and stack use after
# return, and exit with 99, so that a report fails even a test that expects a failing exit status.
# Set ASAN_OPTIONS or UBSAN_OPTIONS in the environment to override.
ASAN_OPTIONS  ?= halt_on_error=1:detect_leaks=1:exitcode=99:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1
UBSAN_OPTIONS ?= halt_on_error=1:print_stacktrace=1:exitcode=99

test-asan: deps
	@if [ ! -f build-asan/CMakeCache.txt ]; then cmake --preset asan; fi
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS='$(ASAN_OPTIONS)' UBSAN_OPTIONS='$(UBSAN_OPTIONS)' QT_QPA_PLATFORM=offscreen \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

# Every C++/CUDA source matches .clang-format (Debian 12's clang-format 14); .ci/run runs it.
# `scripts/check-format.sh --fix` rewrites the files that differ.
format-check: deps
	bash scripts/check-format.sh

clean:
	rm -rf $(BUILD_DIR) build-asan build-release build-no-cuda build-fuzz
