# ShiftScheduler — common tasks. `make help` lists them.
SWIFT ?= swift

.PHONY: help test asan tsan demo build release bench bench-quick clean

help:
	@echo "make demo         build shiftctl and run the guided tour on a fresh store in a temp folder"
	@echo "make test         run the whole test suite (what CI runs)"
	@echo "make asan         the test suite under AddressSanitizer and LeakSanitizer (CI runs it too)"
	@echo "make tsan         the test suite under ThreadSanitizer"
	@echo "make build        debug build of every target"
	@echo "make release      release build"
	@echo "make bench        run every benchmark (release) and print Markdown for BENCHMARKS.md"
	@echo "make bench-quick  a short benchmark run (smaller sizes)"

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

# The PostgreSQL tests need a server: SHIFT_TEST_POSTGRES when it names one, else a throwaway
# cluster (scripts/with-postgres.sh) when Debian's postgresql is installed. Without either they
# are skipped with the reason, except under CI=true, where they fail.
WITH_POSTGRES := $(if $(SHIFT_TEST_POSTGRES),,$(if $(wildcard /usr/lib/postgresql/*/bin/initdb),scripts/with-postgres.sh,))

test:
	$(SWIFT) build --build-tests
	$(WITH_POSTGRES) $(SWIFT) test --skip-build --parallel --num-workers 2

# Sanitizer runs build into their own folders (a full build each, about 5 minutes on 2 cores).
# The end-to-end tests pass ASAN_OPTIONS and LSAN_OPTIONS on to every shiftctl they start, so a
# leak or memory error in one fails its test; scripts/lsan.supp lists the reports that are not
# leaks of ours (docs/guarantees.md, section 6).
asan:
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
		$(WITH_POSTGRES) $(SWIFT) test --skip-build --scratch-path .build-asan --parallel --num-workers 2

tsan:
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(WITH_POSTGRES) $(SWIFT) test --skip-build --scratch-path .build-tsan --parallel --num-workers 2

demo:
	$(SWIFT) build -c release --product shiftctl
	./scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/shiftctl"

bench:
	$(SWIFT) build -c release --product shiftctl
	$(SWIFT) build -c release --product shiftbench
	"$$($(SWIFT) build -c release --show-bin-path)/shiftbench"

bench-quick:
	$(SWIFT) build -c release --product shiftctl
	$(SWIFT) build -c release --product shiftbench
	"$$($(SWIFT) build -c release --show-bin-path)/shiftbench" --quick --runs 3

clean:
	rm -rf .build
