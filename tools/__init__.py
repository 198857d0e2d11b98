"""The machinery that builds and tests the book, kept out of the installed package.

``pip install llm-arithmetic`` (and Binder, which installs the package to run the notebooks)
gets only what a reader's kernel runs: the formulas, the catalogs, the estimate, and the
helpers a chapter calls. What only a maintainer's build or test run needs lives here, at the
repository root, beside ``scripts/`` (the commands) and ``tests/``, and is never installed:

* :mod:`tools.sphinx_ext` -- the book's Sphinx extension (redirects of old page URLs, the
  version substitution, extensions declared parallel-safe); with :mod:`tools.sphinx_speed`
  (two repeated lookups of a build done once);
* :mod:`tools.sphinx_widgets` -- the Sphinx extension that bundles the widgets' JavaScript
  (``formulas.js`` turned from an ES module into a classic script, the catalog, the
  hand-written widgets) into every HTML build;
* :mod:`tools.jupyter_imports` and the pytest plugin :mod:`tools.pytest_no_iri_grammars` --
  jsonschema's 3-s IRI grammars refused in build and test processes;
* :mod:`tools.generate` -- the one build step that writes every generated file (the numeric
  module, ``formulas.js``, the compiled catalogs, the plan's appendix).

Why a folder of its own and not ``book/_ext/``: ``book/`` holds the prose pages, and two of
these modules serve pytest, not Sphinx. How each tool finds them: Jupyter Book adds the
repository root to ``sys.path`` for the extensions named in ``_config.yml``
(``sphinx.local_extensions``); pytest loads the plugin by name (``-p tools.pytest_no_iri_grammars``
in ``pytest.ini``, whose ``pythonpath = .`` puts the root on ``sys.path`` first);
``scripts/build_book.py`` puts the root on ``sys.path`` itself.

What stayed in the package, and why: a notebook's kernel on Binder runs
:func:`llm_arithmetic.book.display.glue`, which keeps myst-nb's import from compiling the same
IRI grammars (:func:`llm_arithmetic.book.display.without_iri_grammars`). Not needed by a
kernel but still in the package, as inputs of the HTML build that the bundler here reads from
it: the widgets' JavaScript and CSS (``llm_arithmetic/book/widgets/``) and the catalog as JSON
(:func:`llm_arithmetic.book.export.catalog_data`).
"""
