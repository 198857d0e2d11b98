# LLM Inference Arithmetic: the two commands are `make book` and `make test`.
# Each creates the virtual environment .venv when it is missing.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JB     := $(VENV)/bin/jupyter-book
PORT   ?= 8000

.PHONY: all book book-strict test pytest bench serve outputs student venv clean

all: book

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

venv: $(STAMP)

## build the HTML book, re-reading only the pages whose source changed (a one-cell edit takes
## seconds); warnings are errors in the pages it re-reads (scripts/build_book.py says what an
## incremental build does not catch: `make book-strict` does)
book: $(STAMP)
	$(PY) scripts/build_book.py
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

## build the HTML book from scratch, strict: every page re-read, every Sphinx warning an error
book-strict: $(STAMP)
	$(PY) scripts/build_book.py --all
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

## every check: the strict book build, then unit tests, doctests and nbval over notebooks/
test: book-strict pytest

pytest: $(STAMP)
	$(PY) -m pytest

## performance targets (ratios measured in one run)
bench: $(STAMP)
	$(PY) scripts/bench.py

## serve the built book on http://127.0.0.1:$(PORT)
serve: book
	$(PY) -m http.server --directory _build/html --bind 127.0.0.1 $(PORT)

## the student edition: every exercise, no solution, into _build/student/html (strict, verified);
## _build/student/src is the tree to push to the `student` branch (book/instructors.md)
student: $(STAMP)
	$(PY) scripts/make_student.py

## re-run every notebook top to bottom and store its outputs (after changing lib/)
outputs: $(STAMP)
	bash scripts/regenerate_outputs.sh

clean:
	rm -rf _build
