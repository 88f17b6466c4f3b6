# `make demo` and `make test` each build their own virtual environment in .venv.
PYTHON ?= python3
# Python caches the bytecode of what it imports; a machine that turns that off (PYTHONDONTWRITEBYTECODE,
# common in containers and CI) would make every run and every worker compile its imports afresh (a
# 100-game simulate: 12.7 s of CPU instead of 3.6 s). So the engine's first compile also imports what
# hadara-sim's commands import (BYTECODE), once, with the cache on, in a process beside the compiling
# ones: about 2,300 files, where compiling all 9,700 of the environment (uv --compile-bytecode) took 3
# minutes on a busy machine. Python reads bytecode that is there whether or not it may write any.
unexport PYTHONDONTWRITEBYTECODE
BYTECODE := hadara_sim.cli hadara_sim.runner hadara_sim.chunks hadara_sim.engine.game hadara_sim.policies \
	hadara_sim.report.sections hadara_sim.report.curve hadara_sim.report.surface hadara_sim.report.charts \
	hadara_sim.report.html hadara_sim.balance hadara_sim.sensitivity joblib.externals.loky
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The engine compiled on both cores (hadara_sim/warm.py), or "already compiled" at once: numba caches
# it for every later run, and an edit compiles it afresh. `make test` compiles all of it (every bot's
# kernel, the training kernel); `make demo` what its scenario plays (the steps and the planner's kernel).
WARM_ENGINE := $(BIN)/python -m hadara_sim.warm --bytecode $(BYTECODE)

.PHONY: demo test boundscheck bench verify notebook lock clean

# Installs take the exact versions of constraints.txt, the versions the tests last passed on, through
# uv (pinned there too): seconds instead of a minute of pip, and it says what it does as it goes. uv
# comes from the system's pip, which installs into the environment (`--python`): a pip of the
# environment's own takes 5 s to set up; a Python without pip sets one up after all.
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet -c constraints.txt uv \
		|| ($(BIN)/python -m ensurepip > /dev/null && $(BIN)/python -m pip install --quiet -c constraints.txt uv)
	$(BIN)/uv pip install --python $(BIN)/python -c constraints.txt -e '.[test]'
	touch $(STAMP)

# 20,000 games of the default scenario into results/default (resumed if interrupted; nothing is
# replayed when it is already complete) with a win-rate table, then the HTML summary report of
# every analysis (results/default/report/summary.html), printing where it is.
demo: $(STAMP)
	@echo "Compiling what the default scenario plays, once, on both cores (about 50 s; numba caches it),"
	@echo "and the bytecode of what hadara-sim imports beside it (later starts read it)"
	$(WARM_ENGINE) --for scenarios/default.toml
	$(BIN)/hadara-sim simulate scenarios/default.toml --games 20000 --out results/default
	$(BIN)/hadara-sim report summary results/default
	@echo "The tool is $(BIN)/hadara-sim (make puts nothing on your PATH): run it as $(BIN)/hadara-sim --help,"
	@echo "or first 'source $(BIN)/activate' and then plain 'hadara-sim --help'."

# The import layers first (pyproject.toml [tool.importlinter]: a second), then the tests, naming the
# twenty slowest (CI must stay well under 15 minutes: where its time goes is in its log).
test: $(STAMP)
	@echo "Compiling the engine once, on both cores, and the bytecode of what hadara-sim imports"
	$(WARM_ENGINE)
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest --durations=20

# The compiled engine and every bot's kernel with numba's bounds checking on (compiles afresh: minutes).
boundscheck: $(STAMP)
	HADARA_SIM_BOUNDSCHECK=1 $(BIN)/python -m pytest -n 0 tests/test_boundscheck.py

bench: $(STAMP)
	$(WARM_ENGINE)
	$(BIN)/hadara-sim bench

verify: $(STAMP)
	$(WARM_ENGINE)
	$(BIN)/hadara-sim verify --games 2000

# JupyterLab in the project's environment, on the notebooks folder (the `notebook` extra, installed once).
$(VENV)/.notebook: $(STAMP)
	$(BIN)/uv pip install --python $(BIN)/python -c constraints.txt -e '.[test,notebook]'
	touch $(VENV)/.notebook

# Jupyter refuses to run as root unless told it may (a container's usual user): then it is told.
notebook: $(VENV)/.notebook
	$(WARM_ENGINE)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# Refresh constraints.txt to the newest versions pyproject.toml allows (then run `make test`, and
# commit both when it passes).
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra test --extra notebook --extra dask --python-version 3.11 \
		--upgrade --quiet -o constraints.txt

clean:
	rm -rf $(VENV) build *.egg-info
