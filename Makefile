# Set-up and everyday commands. Every target creates .venv and installs what it needs:
# `make demo` only the core package (no vendor SDK, no Ray, no C++ build), the other targets
# everything the tests and linters need.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HASH   := $(shell cat pyproject.toml | cksum | cut -d' ' -f1)
CORE   := $(VENV)/.installed-core-$(HASH)
STAMP  := $(VENV)/.installed-dev-$(HASH)

DIST_VENV ?= .venv-dist

.PHONY: install demo test lint dist studio clean

$(CORE): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing icl-aif (the core package) into $(VENV)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	rm -f $(VENV)/.installed-core-*
	touch $(CORE)

# llama-cpp-python (the local extra) compiles llama.cpp. A native build (-march=native) uses every
# instruction the CPU advertises, and some virtual machines advertise AMX tiles that then fault
# (SIGILL in the local-model tests); a portable build (AVX2, no AMX or AVX-512) runs everywhere.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF

$(STAMP): $(CORE)
	@echo "installing icl-aif with every extra and the test tools into $(VENV)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-dev-*
	touch $(STAMP)

install: $(STAMP)

## The quickstart experiment, offline: 100 runs x 5 rounds with rule-based simulators.
## Needs only the core package: no vendor SDK, no local model.
demo: $(CORE)
	$(BIN)/icl-aif run experiments/quickstart.yaml

## The test suite (offline, no keys).
test: $(STAMP)
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium and chromium-driver for the HTML report test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	fi
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check icl_aif graphs tests bench
	$(BIN)/ruff format --check icl_aif graphs tests bench
	$(BIN)/mypy
	$(BIN)/deptry .
	$(BIN)/lint-imports
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site  # the docs site (docs/, mkdocs.yml)

## The distributions: the wheel and the sdist built and checked (twine, the citation file), then
## the wheel installed alone into a fresh environment to list, copy and play shipped designs.
## The build tools live in their own environment: cffconvert pins jsonschema below 4.
dist: $(STAMP)
	test -x $(DIST_VENV)/bin/python || $(PYTHON) -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install --quiet build twine cffconvert
	rm -rf dist
	$(DIST_VENV)/bin/python -m build --outdir dist .
	$(DIST_VENV)/bin/twine check --strict dist/*
	$(DIST_VENV)/bin/cffconvert --validate -i CITATION.cff
	ICL_AIF_WHEEL="$$(ls dist/*.whl)" $(BIN)/python -m pytest -p no:cacheprovider tests/test_wheel.py

## Open the graphs in LangGraph Studio (langgraph dev).
studio: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[studio]"
	$(BIN)/langgraph dev

clean:
	rm -rf $(VENV) $(DIST_VENV) dist .pytest_cache .mypy_cache .ruff_cache site
