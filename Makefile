# Two entry points, each self-sufficient on a machine that has only Python 3.11+:
#   make serve   set up .venv and serve MCP over HTTP on 127.0.0.1:8765 (default database)
#   make test    set up .venv and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: serve test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[postgres,test,bench]'
	touch $(STAMP)

serve: $(STAMP)
	$(VENV)/bin/worlddb serve --transport http

test: $(STAMP)
	$(PY) -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
