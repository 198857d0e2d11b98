"""The package's structure: subpackages by role, dependencies one way, no import cycle.

Layers, lowest first; a module may import from its own layer's modules and from lower layers
only (imports inside functions included, since they are dependencies too):

    core.errors, core.units, core.lookup
    <- numeric (generated code; needs only core.errors)
    <- core.symbols, core.display, core.registry (sympy; a registered formula evaluates through
       its generated numeric function)
    <- formulas, catalog (catalog uses the numeric functions, never sympy)
    <- estimate
    <- articles, book, teaching, lab, forecast (fitted on lab's measurements)
    <- cli, numeric.generate (tools), the package's __init__

``catalog``, ``estimate``, ``numeric`` and ``cli`` must not import sympy at module level (the
command line's speed depends on it; the ``formula`` command imports the registry when it runs).
An import cycle is one among module-level imports, the ones that run at import time.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic"
LAYER = {"core.errors": 0, "core.units": 0, "core.lookup": 0, "core": 0, "numeric": 1,
         "core.symbols": 2, "core.display": 2, "core.registry": 2, "formulas": 3, "catalog": 3,
         "estimate": 4, "articles": 5, "book": 5, "teaching": 5, "lab": 5, "forecast": 5, "cli": 6,
         "numeric.generate": 6, "__main__": 7, "__init__": 7,
         "jupyter_imports": 0, "pytest_no_iri_grammars": 1}
NO_SYMPY = ("catalog", "estimate", "numeric", "cli")
SYMPY_MODULES = {"llm_arithmetic.formulas", "llm_arithmetic.core.registry",
                 "llm_arithmetic.core.symbols", "llm_arithmetic.core.display"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


_ALL = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, top_level: bool = False) -> set[str]:
    """Package-internal modules a file imports (absolute names); with ``top_level``, only the
    imports that run when the module is imported."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = ([n for n in tree.body] + [c for n in tree.body if isinstance(n, (ast.Try, ast.If))
                                       for c in ast.walk(n)]) if top_level else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("llm_arithmetic"):
                subs = {f"{target}.{a.name}" for a in node.names}
                out.update(subs & set(_ALL))
                if subs - set(_ALL):  # names defined in the module itself
                    out.add(target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("llm_arithmetic"))
    return out


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
GRAPH = {m: {i for i in _imports(p) if i in MODULES and i != m} for m, p in MODULES.items()}
TOP = {m: {i for i in _imports(p, True) if i in MODULES and i != m} for m, p in MODULES.items()}


def _role(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 and ".".join(parts[1:3]) in LAYER:
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_import_cycle():
    seen, stack = {}, []

    def visit(m):
        seen[m] = "active"
        stack.append(m)
        for d in TOP[m]:
            if seen.get(d) == "active":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            if d not in seen:
                visit(d)
        stack.pop()
        seen[m] = "done"

    for m in sorted(TOP):
        if m not in seen:
            visit(m)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_dependencies_point_down(module):
    role = _role(module)
    for dep in GRAPH[module]:
        if dep.startswith(module + ".") or _role(dep) in ("__init__",) and dep == "llm_arithmetic":
            continue
        assert LAYER[_role(dep)] <= LAYER[role], f"{module} (layer {role}) imports {dep}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _role(m) in NO_SYMPY))
def test_fast_path_imports_no_sympy(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    top_sympy = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                 and "sympy" in ast.unparse(n)]
    assert not top_sympy, module
    bad = {d for d in TOP[module] if any(d == s or d.startswith(s + ".") for s in SYMPY_MODULES)}
    assert not bad, f"{module} imports {bad}"
