"""A pytest plugin that closes every Matplotlib figure after each test and doctest.

The doctests of ``llm_arithmetic.book.plots`` draw figures through pyplot, which keeps each one
open until it is closed; one xdist worker runs many of them, and past 20 open figures Matplotlib
warns (and holds their memory). pytest.ini names this plugin (``-p tools.pytest_close_figures``).
It imports nothing: a test that never imported pyplot costs nothing.
"""
from __future__ import annotations

import sys


def pytest_runtest_teardown(item, nextitem):  # noqa: ARG001 - pytest's hook signature
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
