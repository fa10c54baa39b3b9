# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test docs install lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/textsift demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

# the documentation site in site/ (strict: a broken reference or a missing page fails it);
# it works offline and from file:// (open site/index.html)
docs: $(STAMP)
	rm -rf site docs/api docs/_generated docs/reproductions
	$(BIN)/python -m sphinx -q -W --keep-going -n -b html docs site
	@echo "site: $(CURDIR)/site/index.html"

lint: $(STAMP)
	$(BIN)/ruff check src tests bench docs

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache site docs/api docs/_generated docs/reproductions
