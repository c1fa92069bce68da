# Thin wrapper over CMake. The two commands that matter: `make demo` and `make check`.
BUILD       ?= build
CHECK_BUILD ?= build-check
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
SAMPLE      ?= tests/data/eztrace-pingring/eztrace_log.otf2

.PHONY: all deps demo check bench fuzz fuzz-run clean

all: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

deps:
	sh scripts/install-deps.sh

# The main job on the sample that ships with the project: the build is quiet
# (its log in $(BUILD)/build.log, shown when it fails), the tool's output is not.
demo: deps
	@mkdir -p $(BUILD)
	@echo "building tracesync (log: $(BUILD)/build.log) ..."
	@{ cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release && \
	   cmake --build $(BUILD) -j $(JOBS); } >$(BUILD)/build.log 2>&1 || \
	 { tail -30 $(BUILD)/build.log; echo "build failed: see $(BUILD)/build.log"; exit 2; }
	@sh scripts/demo.sh $(BUILD)/tracesync $(SAMPLE)

# Every test, built with AddressSanitizer and UndefinedBehaviorSanitizer; the
# optimized build is compiled too, since -O2 finds warnings that -O0 does not.
check: all
	cmake -S . -B $(CHECK_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTSYNC_SANITIZE=ON >/dev/null
	cmake --build $(CHECK_BUILD) -j $(JOBS)
	cd $(CHECK_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

bench: all
	sh bench/run.sh $(BUILD)

fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DTSYNC_FUZZ=ON -DTSYNC_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS)

# Every fuzz target for FUZZ_SECONDS each, one after the other on one core, from its
# corpus and earlier findings; new inputs go to build-fuzz/corpus/<target>, crashes
# to build-fuzz/findings/<target>/ (copy each into tests/data/fuzz-regressions/).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= otf2 csv maps domains pcap
fuzz-run: fuzz
	sh fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(CHECK_BUILD) build-fuzz
