# BenchToward: `make run` serves the site, `make test` runs the test suite.
# Both set up everything on a fresh machine (python3 >= 3.11 and make are all they need).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DB     ?= benchtoward.db
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install run test test-slow bench browser lint clean

install: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c requirements.lock -e '.[test]'
	touch $(STAMP)

run: install
	$(BIN)/benchtoward demo --db $(DB) --quiet
	$(BIN)/benchtoward serve --db $(DB) --host $(HOST) --port $(PORT)

test: install
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: install
	$(BIN)/python -m pytest -q -m slow

lint: install
	$(BIN)/python -m ruff check server tools store evaluator web tests bench
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
