"""The package's structure: floors by role, every import pointing down, no import circle.

Floors, lowest first. A module may import from its own floor and from lower floors only, and
every import counts: at module level, inside a function or method, under ``if``/``try``
(a lazy import is a dependency too; it only runs later):

    0  core          errors, units, lookup, symbols, display, the formula registry (sympy)
    1  numeric       the generated functions (no sympy; needs only core.errors). The registry
                     evaluates through them without importing them: llm_arithmetic.formulas
                     binds them (core.registry.bind_numeric)
    2  formulas, catalog, plan
                     registered expressions; models, chips and formats (catalog: numeric only,
                     never sympy); the plan of an estimate as data, and its interpreter
    3  arguments, weights
                     the estimate's parts that need only the catalog: the argument checks its
                     callers share (a model by name, counts, serving figures); the weights
                     counted (bits of a format or a file type, the plan's weight inputs)
    4  layout, media the parts that check counts (arguments): the parallel degrees, the
                     communication options and a chip's figures; images, video and audio in a
                     prompt
    5  speculative   drafts, checked as the target is laid out (layout) at their own weights
                     (weights)
    6  estimate      the one orchestration, joining 3 to 5
    7  sweeps        many estimates: the frontier over batches (estimate's plan), the sweep
    8  articles, book, teaching, lab, forecast_fit, forecast, forecast_validation, deploy,
       engine, explain
    9  cli
    10 the package's __init__ and __main__ (nothing inside the package imports them)

A circle is any cycle among these imports, whether they run at import time or later: two
modules that need each other are one module, or a third one is missing.

``catalog``, ``estimate`` and its parts (every module of floors 3 to 7), ``numeric`` and ``cli``
must not import sympy at module level (the command line's speed depends on it; the ``formula`` command imports the registry when it runs).

No module is left outside these rules: the generator of the numeric code and the appendix is
``tools/generate.py``, the build step, outside the installed package.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic"
#: The floor of each role: a subpackage, or a top-level module.
FLOOR = {"core": 0, "numeric": 1, "formulas": 2, "catalog": 2, "plan": 2,
         # estimate's parts, split from it by concern, each below the modules that use it:
         # argument checks and weights need only the catalog; the layout on chips and the
         # prompt's media check counts; drafts are laid out and weighed as the target is
         "arguments": 3, "weights": 3, "layout": 4, "media": 4, "speculative": 5,
         "estimate": 6,
         # the frontier evaluates estimate's plan point by point
         "sweeps": 7,
         "articles": 8, "book": 8, "teaching": 8, "lab": 8, "deploy": 8, "engine": 8,
         "explain": 8,
         # the forecast's fit (its rows, terms, the fit, the intervals, the stored fit and its
         # lookups); the forecast served from it (a runtime's name, a build's day, the caveats,
         # the forecast keys of an estimate), which the fit never needs; and the forecast's
         # errors on the measured rows with the stored fit's making, beside the fit and needing
         # nothing of the served forecast
         "forecast_fit": 8, "forecast": 8, "forecast_validation": 8,
         "cli": 9,
         "__init__": 10, "__main__": 10}
NO_SYMPY = ("catalog", "arguments", "weights", "layout", "media", "speculative", "estimate",
            "sweeps", "numeric", "cli")
SYMPY_MODULES = {"llm_arithmetic.formulas", "llm_arithmetic.core.registry",
                 "llm_arithmetic.core.symbols", "llm_arithmetic.core.display"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, top_level: bool = False) -> set[str]:
    """Package-internal modules a file imports (absolute names): every import statement
    anywhere in it; with ``top_level``, only those that run when the module is imported."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if top_level:
        nodes = list(tree.body) + [c for n in tree.body if isinstance(n, (ast.Try, ast.If))
                                   for c in ast.walk(n)]
    else:
        nodes = list(ast.walk(tree))
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "llm_arithmetic":
                continue
            subs = {f"{target}.{a.name}" for a in node.names}
            out.update(subs & set(MODULES))
            if subs - set(MODULES):  # names defined in the module (or package) itself
                out.add(target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "llm_arithmetic")
    return {m for m in out if m != name}


def _with_parents(modules: set[str]) -> set[str]:
    """Importing ``a.b.c`` runs ``a.b``'s ``__init__`` too (the top package's excepted: it is
    imported before anything in it)."""
    out = set(modules)
    for m in modules:
        parts = m.split(".")
        out.update(".".join(parts[:i]) for i in range(2, len(parts)))
    return out & set(MODULES)


def _parent_packages(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(2, len(parts))}


@functools.cache
def graph(top_level: bool = False) -> dict[str, set[str]]:
    """Every edge, module to module (a module's own parent packages left out: they run first;
    but a name taken from the top package, ``from .. import estimate``, is an import of its
    ``__init__``, the top floor); with ``top_level``, only the imports run on import. Parsed
    on first use, not on import: every pytest-xdist worker imports this file to collect it,
    one runs its tests."""
    return {m: _with_parents(_imports(p, top_level)) - _parent_packages(m)
            for m, p in MODULES.items()}


def _role(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a path
    that closes on its first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(_path(graph, sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _path(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A closed path through a component, from its first module back to it (for the message)."""
    start, members = component[0], set(component)
    previous, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & members):
            if w == start:
                path = [v]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return path[::-1] + [start]
            if w not in previous:
                previous[w] = v
                queue.append(w)
    return component


def test_every_module_has_a_floor():
    assert {_role(m) for m in MODULES} <= set(FLOOR), set(map(_role, MODULES)) - set(FLOOR)


def test_the_graph_sees_imports_inside_functions():
    # book.display imports the registry inside equation_latex only: a graph of module-level
    # imports alone would miss that edge
    assert "llm_arithmetic.core.registry" in graph()["llm_arithmetic.book.display"]
    assert "llm_arithmetic.core.registry" not in graph(True)["llm_arithmetic.book.display"]


def test_no_import_circle():
    cycles = _cycles(graph())
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_circle_finder_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _marked(modules):
    return sorted(modules)


@pytest.mark.parametrize("module", _marked(MODULES))
def test_dependencies_point_down(module):
    floor = FLOOR[_role(module)]
    up = sorted(d for d in graph()[module] if FLOOR[_role(d)] > floor)
    assert not up, f"{module} (floor {floor}, {_role(module)}) imports " + ", ".join(
        f"{d} (floor {FLOOR[_role(d)]})" for d in up)


def test_the_forecasts_fit_needs_nothing_of_the_served_forecast():
    """forecast_fit makes and reads the stored fit, forecast_validation measures it: neither
    imports the served forecast (a runtime's name, a build's day, the caveats), which imports
    the fit."""
    for module in ("llm_arithmetic.forecast_fit", "llm_arithmetic.forecast_validation"):
        assert "llm_arithmetic.forecast" not in graph()[module], module
    assert "llm_arithmetic.forecast_fit" in graph()["llm_arithmetic.forecast"]


@pytest.mark.parametrize("module", _marked(m for m in MODULES if _role(m) in NO_SYMPY))
def test_fast_path_imports_no_sympy(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    top_sympy = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                 and "sympy" in ast.unparse(n)]
    assert not top_sympy, module
    bad = {d for d in graph(True)[module] if any(d == s or d.startswith(s + ".") for s in SYMPY_MODULES)}
    assert not bad, f"{module} imports {bad}"



#: Imports of a private name (or from a private module) of the package that are deliberate:
#: (importing module, "from-module:name") with the reason. Anything else a module needs from
#: another has a public name there, with a docstring.
PRIVATE_IMPORTS_ALLOWED = {
    # the generated module of formulas: numeric/__init__ re-exports it, and it takes its
    # runtime's helpers under private aliases so that its namespace holds formulas only
    **{("llm_arithmetic.numeric", source): "the generated module, re-exported"
       for source in ("._numeric:*", "._numeric:__all__", ".:_numeric")},
    **{("llm_arithmetic.numeric._numeric", f"._runtime:{n}"): "the generated module's runtime"
       for n in ("F", "exact_args", "exact_result", "ceil", "floor", "inf", "quiet",
                 "vector_args", "vector_result")},
    # numeric._runtime's exact_result (in its __all__): the one rule by which the evaluation
    # code turns an exact value back into an int or a float, as the generated functions do
    **{(m, f"{dots}numeric._runtime:exact_result"): "numeric's runtime rule for exact results"
       for m, dots in (("llm_arithmetic.book.export", ".."), ("llm_arithmetic.engine", "."),
                       ("llm_arithmetic.estimate", "."), ("llm_arithmetic.explain", "."),
                       ("llm_arithmetic.plan.interpreter", ".."))},
}


def private_imports() -> dict[tuple[str, str], str]:
    """(importing module, "from-module:name") -> file:line for every ``from X import Y`` of
    the package (relative, or from ``llm_arithmetic``) where Y or a part of X starts with an
    underscore."""
    lib = PACKAGE.parent
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(lib).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = "." * node.level + (node.module or "")
            if node.level == 0 and not source.startswith("llm_arithmetic"):
                continue
            private_module = any(p.startswith("_") for p in (node.module or "").split("."))
            for alias in node.names:
                if alias.name.startswith("_") or private_module:
                    found[(module, f"{source}:{alias.name}")] = \
                        f"{path.relative_to(lib)}:{node.lineno}"
    return found


def test_no_module_imports_another_ones_private_names():
    """deploy took estimate's argument checks (``_count``, ``_generated``,
    ``_serving_number``), engine its ``_parallel``, the export its ``_SERVING_RANGES``, explain
    the interpreter's ``_step_refs``, ``_lookup`` and ``_scope``, the CLI the export's
    ``_model`` and the plots the style's ``_ax``: each now has a public name with a docstring;
    what is left is listed with its reason in PRIVATE_IMPORTS_ALLOWED, and the list stays
    exact."""
    found = private_imports()
    unlisted = {k: v for k, v in found.items() if k not in PRIVATE_IMPORTS_ALLOWED}
    assert not unlisted, f"private names imported across modules: {unlisted}"
    stale = sorted(set(PRIVATE_IMPORTS_ALLOWED) - set(found))
    assert not stale, f"PRIVATE_IMPORTS_ALLOWED lists imports no module makes: {stale}"
