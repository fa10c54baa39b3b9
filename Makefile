# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow docs install lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml setup.py src/textsift/_count.c src/textsift/_fisher.c
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/textsift demo

# the fast tests (all but those marked slow: under 10 minutes on 2 cores)
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

# the slow end-to-end tests (the demo, the documentation site, the full corpora's identities,
# killed and resumed runs); .ci/run runs them after `make test` and `make docs`, and
# TEXTSIFT_SITE=site makes the site's tests check the site `make docs` built
test-slow: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m slow

# the documentation site in site/ (strict: a broken reference or a missing page fails it);
# it works offline and from file:// (open site/index.html)
docs: $(STAMP)
	rm -rf site docs/api docs/_generated docs/reproductions
	$(BIN)/python -m sphinx -q -W --keep-going -n -b html docs site
	@echo "site: $(CURDIR)/site/index.html"

lint: $(STAMP)
	$(BIN)/ruff check src tests bench docs

clean:
	rm -rf $(VENV) build src/textsift/*.so *.egg-info .pytest_cache site docs/api docs/_generated docs/reproductions
