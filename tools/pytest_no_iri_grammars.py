"""A pytest plugin that refuses ``import rfc3987_syntax`` for the whole test process.

pytest.ini names it (``-p tools.pytest_no_iri_grammars``), so pytest imports it before the
plugins it finds installed, nbval among them, which import nbformat and so jsonschema: each
pytest process (xdist workers included) is spared about 3 s of grammar compiling. Why this is
safe: :mod:`tools.jupyter_imports`. pytest finds it because pytest.ini's ``pythonpath = .``
puts the repository root on ``sys.path`` before the ``-p`` plugins are imported.
"""
from tools.jupyter_imports import refuse_iri_grammars

refuse_iri_grammars()
