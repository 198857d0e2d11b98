# LLM Inference Arithmetic: the two commands are `make book` and `make test`.
# Each creates the virtual environment .venv when it is missing.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JB     := $(VENV)/bin/jupyter-book
PORT   ?= 8000

.PHONY: all book book-strict pdf translations test pytest bench serve outputs student metadata dist venv clean

all: book

# The pinned uv installs requirements.txt (seconds, from its cache, which the Binder test then
# finds warm); where uv cannot reach an index (pip's own configuration only), pip does it.
# Both write the bytecode of what they install, as pip does by default (uv only when asked):
# where PYTHONDONTWRITEBYTECODE is set, nothing else would, and every process of `make test`
# would compile sympy, matplotlib and Sphinx again (6 CPU-s per process, measured).
$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check "$$(grep -E '^uv==' requirements.txt)"
	$(PY) -m uv pip install --quiet --compile-bytecode --python $(PY) -r requirements.txt \
	  || $(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

venv: $(STAMP)

## build the HTML book, re-reading only the pages whose source changed (a one-cell edit takes
## seconds); warnings are errors in the pages it re-reads (scripts/build_book.py says what an
## incremental build does not catch: `make book-strict` does)
book: $(STAMP)
	$(PY) scripts/editions.py build
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"
	@echo "Its Chinese edition is at file://$(CURDIR)/_build/html/zh_CN/index.html"

## build the HTML book from scratch, strict: every page re-read, every Sphinx warning an error
book-strict: $(STAMP)
	$(PY) scripts/editions.py build --all
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"
	@echo "Its Chinese edition is at file://$(CURDIR)/_build/html/zh_CN/index.html"

## the Chinese edition's catalogs brought up to date with the English text (new strings empty,
## changed ones fuzzy: they show in English until translated), then the share translated per page
translations: $(STAMP)
	$(PY) scripts/editions.py update
	$(PY) scripts/editions.py report

## the English and the Chinese book, each one PDF printed by Chromium from the built HTML
## (scripts/make_pdf.py):
## contents with page numbers, numbered chapters, figures and equations, internal links, bookmarks
pdf: book
	$(PY) scripts/make_pdf.py
	$(PY) scripts/make_pdf.py --html _build/html/zh_CN --out _build/pdf/llm-inference-arithmetic-zh_CN.pdf
	@echo "The PDFs are at $(CURDIR)/_build/pdf/llm-inference-arithmetic.pdf (English)"
	@echo "and $(CURDIR)/_build/pdf/llm-inference-arithmetic-zh_CN.pdf (Chinese: needs a CJK font, e.g. Debian's fonts-noto-cjk)"

## every check (scripts/run_tests.py): the Binder environment with nbval over notebooks/ (the
## longest test) starts at once, beside the strict book build (book-strict); then the rest of
## pytest on every core (pytest-xdist, by file; tests/conftest.py): unit tests, doctests, the
## browser suite.
## The run records its wall time (after the install) in _build/test-timing.json for `make bench`.
test: $(STAMP)
	@$(PY) scripts/run_tests.py $(PYTEST_ARGS)

## PYTEST_WORKERS: processes (default: one per core); PYTEST_ARGS: more options, e.g. --durations=25
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=
pytest: $(STAMP)
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

## performance targets (ratios measured in one run), and the wall time the last `make test` recorded
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
