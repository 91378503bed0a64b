# Developer tasks; CI (.ci/run) runs the same commands. `make help` lists them.
PYTHON ?= python

.PHONY: help install build test test-slow test-pure lint format type fuzz bench scorecard check

help:  ## this list
	@grep -E "^[a-z-]+:.*## " $(MAKEFILE_LIST) | sed "s/:.*## /\t/"

install:  ## editable install with the extension and every dev tool
	GCXWIRE_REQUIRE_EXTENSIONS=1 $(PYTHON) -m pip install -e ".[test]"

build:  ## rebuild the Cython extension in place (after editing .pyx/.pxi/.h)
	$(PYTHON) setup.py build_ext --inplace -q

test:  ## the default tier; every codec test runs on both twins ([c] and [py])
	$(PYTHON) -m pytest

test-slow:  ## the slow tier: long fuzz, load, 64 MB inputs, slow servers
	$(PYTHON) -m pytest -m slow

test-pure:  ## the codec tests on the pure-Python twin only
	$(PYTHON) -m pytest tests/codec --no-c-extensions

lint:  ## ruff (lint and format check) and cython-lint
	$(PYTHON) -m ruff check src tests bench
	$(PYTHON) -m ruff format --check src tests bench
	cython-lint src/gcxwire

format:  ## apply ruff's fixes and formatting
	$(PYTHON) -m ruff check --fix src tests bench
	$(PYTHON) -m ruff format src tests bench

type:  ## mypy --strict over src, tests and bench
	$(PYTHON) -m mypy

fuzz:  ## the long fuzz run on both twins (scripts/fuzz.sh RUNS OUT JOBS)
	bash scripts/fuzz.sh

bench:  ## speed ratios (CPU time, one process) and the quick speed suite
	$(PYTHON) bench/ratios.py
	$(PYTHON) -m pytest bench/speed --quick --benchmark-disable -q

scorecard:  ## regenerate bench/scorecard.md
	$(PYTHON) bench/scorecard.py --quiet > bench/scorecard.md

check: lint type test  ## what to run before landing
