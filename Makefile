# ShiftScheduler — common tasks. `make help` lists them.
SWIFT ?= swift

.PHONY: help test demo build release bench bench-quick clean

help:
	@echo "make demo         build shiftctl and run the guided tour on a fresh store in a temp folder"
	@echo "make test         run the whole test suite (what CI runs)"
	@echo "make build        debug build of every target"
	@echo "make release      release build"
	@echo "make bench        run every benchmark (release) and print Markdown for BENCHMARKS.md"
	@echo "make bench-quick  a short benchmark run (smaller sizes)"

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel --num-workers 2

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
