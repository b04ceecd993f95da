# flashpoc: `make demo` runs a whole POC on this machine; `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PARAMS ?= parameters/demo-local.yaml
# A folder of engine kits (vdbench/install.sh, ...) beside the clone: `make test` installs the
# engines it finds there into .engines/ so that the tests run them for real (they skip otherwise).
ENGINES ?= ../shared/engines
# pytest-xdist workers for `make test`: most of the suite waits (fixed-length fio and vdbench points,
# HammerDB's whole minute, sshd and kernel start-ups), so more workers than CPUs; TEST_WORKERS=0: one process.
# On 2 CPUs: 4 workers 20-22 min, 6 workers 19 min, 8 workers 19.7 min (the CPUs busy throughout); later, with
# the HammerDB tests niced (their minute-long runs wait), 6 workers 16 min 07 s, 7 workers 14 min 59 s (docs/development.md).
# The tests write bytecode caches (__pycache__) even where PYTHONDONTWRITEBYTECODE is set: each notebook kernel
# and flashpoc command they start (hundreds) would otherwise compile flashpoc again, and each worker the tests.
# One collection first writes the test modules' caches (pytest's assertion rewriting: 13 CPU-s), which the
# workers then read, rather than each worker rewriting them all at once as the suite starts (7 x 13 CPU-s); it
# collects two halves of the tests side by side (7 s where one collection took 12.6 s on 2 CPUs).
TEST_WORKERS ?= 7
COLLECT = PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --collect-only -qq -p no:cacheprovider

.PHONY: demo test venv os-packages engines lab bench clean

# pip compiles the installed packages' bytecode one file after the other (18 of the install's 46 s here); compileall
# does it on every CPU (3 s for the same 6,658 files), so pip is told not to.
$(BIN)/flashpoc: pyproject.toml
	@$(PYTHON) -m venv --help >/dev/null 2>&1 || tools/install-os-packages.sh python3-venv
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); tools/install-os-packages.sh python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null
	@touch $@

venv: $(BIN)/flashpoc

os-packages:
	@tools/install-os-packages.sh fio

demo: venv os-packages
	$(BIN)/flashpoc run $(PARAMS)

engines:
	@tools/install-engines.sh $(ENGINES) .engines

test: venv os-packages
	@tools/install-os-packages.sh openssh-server openssh-client default-jre-headless chromium fdisk e2fsprogs iproute2 mount procps postgresql-15 libtommath1
	@tools/install-engines.sh $(ENGINES) .engines
	$(BIN)/lint-imports --no-cache
	@{ $(COLLECT) tests/engines tests/analysis >/dev/null 2>&1 & \
	   $(COLLECT) --ignore=tests/engines --ignore=tests/analysis >/dev/null 2>&1; wait; } || true
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_WORKERS)

# JupyterLab on the workbook (flashpoc lab): working copies of the four notebooks for the campaign of
# PARAMS in results/<campaign>/notebooks/, the first one open; the templates in notebooks/ stay clean
# (saved without outputs) and a run of them is recorded with its campaign. `make lab PARAMS=`: no
# campaign. LAB_ARGS: options for jupyter lab (e.g. --port=8889).
LAB_ARGS ?=
lab: venv
	$(BIN)/flashpoc lab $(PARAMS) -- $(LAB_ARGS)

bench: venv os-packages
	$(BIN)/python benchmarks/overhead.py
	$(BIN)/python benchmarks/probe_strategies.py
	$(BIN)/python benchmarks/fio_by_hand.py
	$(BIN)/python benchmarks/report_scale.py
	$(BIN)/python benchmarks/check_fanout.py
	$(BIN)/python benchmarks/awr_parse.py
	$(BIN)/python benchmarks/vdbench_overhead.py
	$(BIN)/python benchmarks/hammerdb_overhead.py
	$(BIN)/python benchmarks/multihost_point.py

clean:
	rm -rf $(VENV) .engines results/scratch
