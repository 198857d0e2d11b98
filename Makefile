# LLM Inference Arithmetic: the two commands are `make book` and `make test`.
# Each creates the virtual environment .venv when it is missing.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JB     := $(VENV)/bin/jupyter-book
PORT   ?= 8000

.PHONY: all book test pytest bench serve outputs student metadata dist venv clean

all: book

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

venv: $(STAMP)

## build the HTML book, strict: every Sphinx warning is an error (fresh build, no stale cache)
book: $(STAMP)
	$(JB) build . --all -W -n --keep-going
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

## every check: the strict book build, then unit tests, doctests and nbval over notebooks/
test: book pytest

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

## write what derives from repository.url (_config.yml) and __version__ into the files that
## repeat it: the notebooks' Colab cell, pyproject's URLs, README badges, CITATION.cff, CHANGELOG links
metadata: $(STAMP)
	$(PY) scripts/sync_metadata.py

## the sdist and the wheel into dist/ with the pinned build tools, checked by twine (release.yml
## builds the same way; tests/test_release.py installs the wheel alone in a fresh venv)
dist: $(STAMP)
	rm -rf dist
	$(PY) -m build --no-isolation --outdir dist .
	$(PY) -m twine check --strict dist/*

clean:
	rm -rf _build dist
