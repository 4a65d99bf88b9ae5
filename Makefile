# Torch-FL. The README's two commands: `make demo` and `make test`.
SHELL := /bin/bash
VENDOR ?= mlu
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# TORCH=<version> builds and tests against another torch of .ci/torch_versions; the
# first line there is the default, whose output is the committed generated/. Where
# each torch's environment, builds and output live: codegen/torch_versions.py.
TORCH_VERSIONS := python3 $(ROOT)/codegen/torch_versions.py
DEFAULT_TORCH := $(shell $(TORCH_VERSIONS) default)
# `make torch-canary TORCH=<release>` names a release the list lacks: the canary tries it
# in a clone whose list gains it; here the default torch stands.
ifeq ($(MAKECMDGOALS),torch-canary)
CANARY_TORCH := $(if $(filter command line environment,$(origin TORCH)),$(TORCH))
override TORCH := $(DEFAULT_TORCH)
endif
TORCH ?= $(DEFAULT_TORCH)
SUPPORTED_TORCH := $(shell $(TORCH_VERSIONS) list)
ifeq ($(filter $(TORCH),$(SUPPORTED_TORCH)),)
$(error TORCH=$(TORCH) is not supported; the supported versions are $(SUPPORTED_TORCH) (.ci/torch_versions says why each is there))
endif
export TORCH_FL_TORCH := $(TORCH)
BUILD_ROOT := $(shell $(TORCH_VERSIONS) build-root $(TORCH))
GENERATED := $(shell $(TORCH_VERSIONS) generated-dir $(TORCH))
DIST := $(shell $(TORCH_VERSIONS) dist-dir $(TORCH))
PYTHON := $(BUILD_ROOT)/venv/bin/python
BUILD := $(BUILD_ROOT)/$(VENDOR)
# Vendors whose spec exists; `make test` builds and tests each.
VENDORS := $(patsubst specs/%.yaml,%,$(wildcard specs/*.yaml))
JOBS ?= $(shell nproc)
# ccache hits across clones (CI builds in a fresh clone): paths relative to the repo.
export CCACHE_BASEDIR := $(ROOT)
export CCACHE_NOHASHDIR := 1
# A CUDA build of torch (2.14.1+cu130, 2.11.0) makes its CMake config pick GPU
# architectures; its default list (sm_50 ... sm_120a) has ones nvcc 13 refuses.
# Hopper, the lent machine's GPU; override for another.
export TORCH_CUDA_ARCH_LIST ?= 9.0

.PHONY: simulated-chips chip-independent-shares torch-canary test-torchvision setup generate check-generated backend wheel test test-codegen test-cpp test-python test-packaging bench-import test-sanitize bench-instructions diff-torch conformance site bench demo python-path clean gpu-check gpu-deps vendor-lines fuzz fuzz-compositions mutation

setup:
	@bash .ci/setup_env.sh

python-path: setup
	@echo $(PYTHON)

generate: setup
	@$(PYTHON) -m codegen generate --vendor $(VENDOR) --out $(GENERATED)/$(VENDOR)

# generated/ is the default torch's output, checked for drift; another torch's lives in
# its build tree, written here for every vendor (with a note per schema that differs).
check-generated: setup
ifeq ($(TORCH),$(DEFAULT_TORCH))
	@$(PYTHON) -m codegen check
else
	@for v in $(VENDORS); do $(PYTHON) -m codegen generate --vendor $$v --out $(GENERATED)/$$v || exit 1; done
endif

# cmake configures a build tree again only when its arguments, the torch they find, the CUDA
# architectures torch's CMake reads or the chips' test directories (added at configure)
# changed, or when something else configured it since (the wheel's scikit-build-core, with
# TORCH_FL_TESTS=OFF, or the build re-running cmake): finding torch costs ~5 s of CPU, and
# `make test` asks for each backend four times per torch. The build itself re-runs cmake when
# a CMakeLists.txt changes or a generated source appears.
CONFIGURE_ARGS = -S . -B $(BUILD) -G Ninja -DTORCH_FL_VENDOR=$(VENDOR) -DPython3_EXECUTABLE=$(PYTHON) \
	-DTORCH_FL_TESTS=ON -DTORCH_FL_GENERATED_DIR=$(GENERATED)
backend: generate
	@mkdir -p $(BUILD)
	@configured="$(CONFIGURE_ARGS) (torch: $$($(PYTHON) -c 'import importlib.util; print(importlib.util.find_spec("torch").origin)');\
		TORCH_CUDA_ARCH_LIST=$(TORCH_CUDA_ARCH_LIST); tests: $(wildcard vendors/*/tests/CMakeLists.txt))"; \
	if [ ! -f $(BUILD)/build.ninja ] || [ ! $(BUILD)/configured.args -nt $(BUILD)/CMakeCache.txt ] || \
			[ "$$(cat $(BUILD)/configured.args)" != "$$configured" ]; then \
		rm -f $(BUILD)/configured.args; \
		cmake $(CONFIGURE_ARGS) >$(BUILD)/configure.log 2>&1 || { cat $(BUILD)/configure.log; exit 1; }; \
		echo "$$configured" > $(BUILD)/configured.args; \
	fi
	@cmake --build $(BUILD) -j $(JOBS)

# The vendor's wheel, dist/torch_fl_<vendor>-*.whl (dist/torch-<version>/ for another
# torch), by scikit-build-core (pyproject.toml)
# in the build tree of `make backend`: after it, only packing is left.
wheel: backend
	@mkdir -p $(DIST)
	@$(PYTHON) -m pip wheel -q --no-build-isolation --no-deps -w $(DIST) -C vendor=$(VENDOR) -C build-dir=$(BUILD) . \
		>$(BUILD)/wheel.log 2>&1 || { cat $(BUILD)/wheel.log; exit 1; }
	@ls -1 $(DIST)/torch_fl_$(VENDOR)-*.whl

# Every vendor built first, one after the other (each build uses every core), then
# the vendors' suites side by side (SUITE_JOBS at a time, default: all of them), and with
# the default torch the generator's unit tests beside them (one more job) (with another torch,
# check-generated runs the generator itself for every vendor on that release's schemas):
# a suite waits on its device queues, its subprocesses and Python, so one suite per core
# still leaves cores idle, and with two at a time on two cores the last long suite ran
# alone. Each one's output is printed when it ends.
SUITE_JOBS ?= $(words $(VENDORS))
test: setup check-generated
	@for v in $(VENDORS); do $(MAKE) --no-print-directory backend VENDOR=$$v || exit 1; done
	@$(MAKE) --no-print-directory -j $$(( $(SUITE_JOBS) + 1 )) --output-sync=recurse $(addprefix test-suites-,$(VENDORS)) \
		$(if $(filter $(TORCH),$(DEFAULT_TORCH)),test-codegen)

# What each vendor's suites run. The chip_independent tests (the code under test is the same
# for every vendor: tests/python/chip_independent.py) run once per torch, not per vendor:
# their files are shared out among the simulated chips (share K of N for the K-th), the
# packaging suite's with them. The packaging suite (the wheel in a fresh venv) runs for every
# vendor with the default torch, and for the first simulated chip with another.
# ATen's CPU kernels (the simulated chips' ALU, the CPU references) run one thread each
# here: suites side by side already fill the cores, and OpenMP teams per suite spinning
# against each other cost 8% more CPU time for the same results (measured on three suites).
comma := ,
# The simulated chips: they have devices on any machine (.ci/run asks here: make -s simulated-chips).
SIMULATED_CHIPS := $(foreach v,$(VENDORS),$(if $(shell grep -ls torch_fl_add_simulated_chip vendors/$(v)/CMakeLists.txt),$(v)))
# Those that share the chip-independent tests: the simulated chips, else the first vendor.
CHIP_INDEPENDENT_VENDORS := $(or $(SIMULATED_CHIPS),$(firstword $(VENDORS)))
position_of = $(firstword $(foreach i,$(shell seq $(words $(CHIP_INDEPENDENT_VENDORS))),$(if $(filter $1,$(word $(i),$(CHIP_INDEPENDENT_VENDORS))),$(i))))
chip_independent_share = $(if $(filter $1,$(CHIP_INDEPENDENT_VENDORS)),$(call position_of,$1)/$(words $(CHIP_INDEPENDENT_VENDORS)),skip)
# With another torch the packaging suite runs for the first of them only: its chip-independent
# file is the costliest, so share 1 holds it (tests/ci/test_chip_independent_shares.py).
runs_packaging = $(or $(filter $(TORCH),$(DEFAULT_TORCH)),$(filter $1,$(firstword $(CHIP_INDEPENDENT_VENDORS))))
test-suites-%:
	@started=$$(date +%s); export OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1}; \
		$(MAKE) --no-print-directory -j1 test-cpp test-python VENDOR=$* CHIP_INDEPENDENT=$(call chip_independent_share,$*) && \
		$(if $(call runs_packaging,$*),$(MAKE) --no-print-directory test-packaging VENDOR=$* \
			CHIP_INDEPENDENT=$(call chip_independent_share,$*) &&) \
		echo "$*: $(if $(call runs_packaging,$*),C++$(comma) Python and packaging,C++ and Python) suites passed in $$(( $$(date +%s) - started )) s (chip-independent tests: $(if $(filter skip,$(call chip_independent_share,$*)),none,share $(call chip_independent_share,$*)))"

simulated-chips:
	@echo $(SIMULATED_CHIPS)

# Which share of the chip-independent tests each vendor's suites run with this TORCH.
chip-independent-shares:
	@$(foreach v,$(VENDORS),echo "$(v): $(call chip_independent_share,$(v))$(if $(call runs_packaging,$(v)), (Python and packaging suites), (Python suite; no packaging suite))";)

# CHIP_INDEPENDENT=run|skip|K/N: the tests marked chip_independent, all, none or share K of N
# (see test-suites-%).
CHIP_INDEPENDENT ?= run

# Unit tests only: the generator's, the conformance tool's rules (tests/conformance;
# the tool itself, tests/conformance_tool, runs in `make conformance`) and the
# instruction benchmark's callgrind reader (tests/bench), the release tools of .ci/ (tests/ci).
test-codegen: setup
	@$(PYTHON) -m pytest -q tests/codegen tests/conformance tests/bench tests/ci

# The spec front end's fuzz target for longer than the test run's 30 s, with
# g++ -fsyntax-only on the C++ of accepted hostile specs (tests/codegen/spec_fuzzing.py).
FUZZ_SECONDS ?= 600
fuzz: setup
	@TORCH_FL_FUZZ_SECONDS=$(FUZZ_SECONDS) TORCH_FL_FUZZ_COMPILE=1 $(PYTHON) -m pytest -q -s -p no:cacheprovider \
		tests/codegen/test_spec_fuzz.py

# The composition fuzzer (issue #41, tests/python/composition_fuzz.py) for longer than the
# test run's 30 s, from another seed: chains of views and in-place writes against CPU.
COMPOSITION_SECONDS ?= 900
COMPOSITION_SEED ?= 100000
fuzz-compositions: backend
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_COMPOSITION_SECONDS=$(COMPOSITION_SECONDS) \
		TORCH_FL_COMPOSITION_SEED=$(COMPOSITION_SEED) $(PYTHON) -m pytest -q -s -p no:cacheprovider \
		tests/python/test_composition_fuzz.py

# Mutation testing (issue #18), not part of `make test`: mutmut's score on codegen/ and
# on the torch_fl package (target 80% each), then the issue's listed mutants, each of
# which a test must kill. TARGET=codegen|package runs one; state in build/mutation/.
mutation: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) tests/mutation/run.py $(if $(TARGET),--target $(TARGET)) $(if $(MUTATION_SAMPLE),--sample $(MUTATION_SAMPLE)) --jobs $(JOBS)

test-cpp: backend
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# PoCL (the opencl vendor on a machine without a GPU) shows one device unless asked
# for more; the suites' multi-device tests (torchrun's two ranks) need two. Other
# OpenCL platforms ignore the variable.
export POCL_DEVICES ?= pthread pthread
# The suites' compiled OpenCL programs (ours and PoCL's beneath) kept across clones
# and torch versions, as ccache keeps objects: a program is keyed by device, driver
# version, build options and source (ocl_program_cache.cpp), so a stale one is never
# read. Without it each fresh clone builds every kernel again (0.5 s each on PoCL).
export TORCH_FL_OPENCL_CACHE_DIR ?= $(HOME)/.cache/torch_fl/opencl

test-python: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) -m pytest -q --chip-independent=$(CHIP_INDEPENDENT) tests/python

# torchvision's ops on the device (a spec's `namespaces: torchvision`), on a release that
# installs torchvision beside torch (`make test-torchvision TORCH=2.14.1`): CI runs them there
# while the newest release has no torchvision on the registry. They are in test-python too.
TORCHVISION_TESTS := tests/python/test_torchvision_ops.py tests/python/test_torchvision_models.py
test-torchvision: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) -m pytest -q $(TORCHVISION_TESTS)

# The vendor's wheel installed into a temporary venv (torch from the cached environment):
# autoload, its failure modes, the support matrix from the installed package.
test-packaging: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) -m pytest -q --chip-independent=$(CHIP_INDEPENDENT) tests/packaging

bench: backend
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_FALLBACK=silent $(PYTHON) bench/runtime_bench.py
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) bench/instruction_bench.py
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_FALLBACK=silent $(PYTHON) bench/overlap_bench.py
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_FALLBACK=silent $(PYTHON) bench/format_bench.py
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_FALLBACK=silent $(PYTHON) bench/vs_torch_cuda.py
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_FALLBACK=silent $(PYTHON) bench/allreduce_bench.py
	@$(PYTHON) bench/codegen_bench.py --vendor $(VENDOR)
	@TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_FALLBACK=silent $(PYTHON) bench/opencl_bench.py  # says it skips elsewhere

# Instructions per tiny op, device against CPU, under callgrind (about 2 minutes).
bench-instructions: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) bench/instruction_bench.py

# What autoload adds to `import torch` (bench/import_bench.py), with this vendor's wheel
# in a temporary venv.
bench-import: wheel
	@$(PYTHON) tests/packaging/wheel_venv.py $(BUILD_ROOT)/import-bench-venv $(DIST)/torch_fl_$(VENDOR)-*.whl >/dev/null
	@mkdir -p $(BUILD_ROOT)/bench && cd $(BUILD_ROOT) && import-bench-venv/bin/python $(ROOT)/bench/import_bench.py \
		--json bench/import.json

# The C++ and Python suites under AddressSanitizer + UndefinedBehaviorSanitizer; the
# simulated driver's concurrency tests and the multi-thread, multi-stream,
# multi-device runtime stress test under ThreadSanitizer (separate builds).
test-sanitize: generate
	@mkdir -p $(BUILD)-asan $(BUILD)-tsan
	@cmake -S . -B $(BUILD)-asan -G Ninja -DTORCH_FL_VENDOR=$(VENDOR) -DPython3_EXECUTABLE=$(PYTHON) \
		-DTORCH_FL_GENERATED_DIR=$(GENERATED) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" \
		>$(BUILD)-asan/configure.log 2>&1 || { cat $(BUILD)-asan/configure.log; exit 1; }
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ctest --output-on-failure
	@# The Python suite over the instrumented backend (the interpreter and libtorch are not
	@# instrumented; the sanitizer runtimes are preloaded for the backend's sake).
	@LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
		ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		TORCH_FL_VENDOR=$(VENDOR) TORCH_FL_LIBRARY=$(BUILD)-asan/vendors/$(VENDOR)/libtorch_fl_$(VENDOR).so \
		$(PYTHON) -m pytest -q -p no:cacheprovider tests/python
	@cmake -S . -B $(BUILD)-tsan -G Ninja -DTORCH_FL_VENDOR=$(VENDOR) -DPython3_EXECUTABLE=$(PYTHON) \
		-DTORCH_FL_GENERATED_DIR=$(GENERATED) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
		>$(BUILD)-tsan/configure.log 2>&1 || { cat $(BUILD)-tsan/configure.log; exit 1; }
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target $(VENDOR)_driver_test runtime_stress_test sim_work_queue_test
	@cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R "Driver\\.|RuntimeStress\\.|WorkQueue\\.|InlineFunction\\."

conformance: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) tests/conformance_tool/run.py --vendor $(VENDOR) \
		--generated $(GENERATED) --out-dir $(BUILD)

# The published support site, build/site/ (static): every vendor x torch this checkout
# generated or verified (conformance where it ran), the vendor comparison and the
# torch diffs of build/reports/, the documentation (docs/*.md and the READMEs);
# a screenshot beside it where chromium is installed.
site: setup
	@$(PYTHON) tests/conformance_tool/support_site.py --out build/site

demo: backend
	@TORCH_FL_VENDOR=$(VENDOR) $(PYTHON) -m torch_fl.demo

# ATen overloads added, removed and changed between two torch releases, and the spec
# entries each change touches: `make diff-torch FROM=2.13.0 TO=2.14.1` (sets up both).
FROM ?= $(DEFAULT_TORCH)
diff-torch:
	@test -n "$(TO)" || { echo "usage: make diff-torch [FROM=<version>] TO=<version> (versions: .ci/torch_versions)"; exit 2; }
	@mkdir -p build/reports
	@yaml() { $$($(MAKE) --no-print-directory -s python-path TORCH=$$1) -c \
		"import os, torchgen; print(os.path.join(os.path.dirname(torchgen.__file__), 'packaged/ATen/native/native_functions.yaml'))"; }; \
		before=$$(yaml $(FROM)) && after=$$(yaml $(TO)) && \
		$(PYTHON) -m codegen diff-torch "$$before" "$$after" --names $(FROM) $(TO) \
			--json build/reports/torch_diff_$(FROM)_$(TO).json

# A torch release not yet in .ci/torch_versions, tried as CI would try it once listed:
# `make torch-canary [TORCH=<release>] [VENDOR=mlu]` (default: the newest on the package
# index). In a clone of HEAD under build/canary/: setup (installs it), generate, build,
# the C++ and Python suites, the ATen diff; one report (.ci/torch_canary.py). Not in CI:
# it downloads.
torch-canary:
	@python3 .ci/torch_canary.py --vendor $(VENDOR) $(if $(CANARY_TORCH),--torch $(CANARY_TORCH))

# Lines each vendor wrote (spec, driver, SDK, glue, ABI adapter): the cost of a new chip.
vendor-lines: setup
	@$(PYTHON) vendors/line_counts.py

clean:
	rm -rf build

# The checks that need a GPU, as one command for a lent machine with one (see docs/bring-up.md,
# "A real vendor: nvidia"): offline, with that machine's python3 and torch, no `make setup`
# (vendors/nvidia/gpu_check.sh says what it runs and where the logs go: $OUT).
# `make gpu-deps` here fills build/gpu-deps/ with what that machine lacks (carry it).
STAGE ?= all
gpu-check:
	@STAGE=$(STAGE) bash vendors/nvidia/gpu_check.sh

gpu-deps: setup
	@mkdir -p build/gpu-deps
	@$(PYTHON) -m pip download -q --no-deps --only-binary=:all: -d build/gpu-deps expecttest==0.3.0
	@rm -rf build/gpu-deps/googletest && cp -r /usr/src/googletest build/gpu-deps/googletest
	@du -sh build/gpu-deps
