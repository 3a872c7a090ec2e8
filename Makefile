# Set-up and everyday commands. Every target creates .venv and installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install demo test lint studio clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

## The quickstart experiment, offline: 100 runs x 5 rounds with rule-based simulators.
demo: $(STAMP)
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

## Open the graphs in LangGraph Studio (langgraph dev).
studio: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[studio]"
	$(BIN)/langgraph dev

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
