# BenchToward: `make run` serves the site, `make test` runs the test suite.
# Both set up everything on a fresh machine (python3 >= 3.11 and make are all they need).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DB     ?= benchtoward.db
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Browser tests: Debian's Chromium (never a browser downloaded by a test tool) and axe-core from npm, kept in a
# git-ignored project folder. CI runs as root on a fresh Debian machine; elsewhere, without root, the browser
# tests skip with that reason when Chromium is missing.
CHROMIUM := /usr/bin/chromium
NPM_DIR  := .cache/npm
AXE      := $(NPM_DIR)/node_modules/axe-core/axe.min.js
AXE_VERSION := 4.14.1

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

browser: $(AXE)
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  else echo "browser: $(CHROMIUM) is missing and apt-get needs root; the browser tests will be skipped"; fi; \
	fi

$(AXE):
	mkdir -p $(NPM_DIR)
	npm install --prefix $(NPM_DIR) --no-audit --no-fund --save-exact axe-core@$(AXE_VERSION)

test: install browser
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: install
	$(BIN)/python -m pytest -q -m slow

lint: install
	$(BIN)/python -m ruff check server tools store evaluator web tests bench
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
