# flashpoc: `make demo` runs a whole POC on this machine; `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PARAMS ?= parameters/demo-local.yaml
# A folder of engine kits (vdbench/install.sh, ...) beside the clone: `make test` installs the
# engines it finds there into .engines/ so that the tests run them for real (they skip otherwise).
ENGINES ?= ../shared/engines

.PHONY: demo test venv os-packages engines lab bench clean

$(BIN)/flashpoc: pyproject.toml
	@$(PYTHON) -m venv --help >/dev/null 2>&1 || tools/install-os-packages.sh python3-venv
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); tools/install-os-packages.sh python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
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
	$(BIN)/python -m pytest

lab: venv
	$(BIN)/jupyter lab notebooks/

bench: venv os-packages
	$(BIN)/python benchmarks/overhead.py
	$(BIN)/python benchmarks/probe_strategies.py
	$(BIN)/python benchmarks/fio_by_hand.py
	$(BIN)/python benchmarks/report_scale.py
	$(BIN)/python benchmarks/check_fanout.py

clean:
	rm -rf $(VENV) .engines results/scratch
