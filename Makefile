# `make demo` and `make test` each build their own virtual environment in .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench verify notebook clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# 20,000 games of the default scenario into results/default (resumed if interrupted; nothing is
# replayed when it is already complete) with a win-rate table, then the HTML summary report of
# every analysis (results/default/report/summary.html), printing where it is.
demo: $(STAMP)
	$(BIN)/hadara-sim simulate scenarios/default.toml --games 20000 --out results/default
	$(BIN)/hadara-sim report summary results/default

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/hadara-sim bench

verify: $(STAMP)
	$(BIN)/hadara-sim verify --games 2000

# JupyterLab in the project's environment, on the notebooks folder (the `notebook` extra, installed once).
$(VENV)/.notebook: $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,notebook]'
	touch $(VENV)/.notebook

notebook: $(VENV)/.notebook
	$(BIN)/jupyter lab --notebook-dir=notebooks

clean:
	rm -rf $(VENV) build *.egg-info
