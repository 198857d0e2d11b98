r"""The formula registry: one registration per quantity.

A formula is written once, as a Python function whose body builds a sympy expression from its
keyword arguments::

    @formula("kv_cache_bytes_per_token")
    def kv_cache_bytes_per_token(*, n_layers, n_kv_heads, d_head, bits_kv=16):
        '''KV-cache bytes for one token: a key and a value vector per KV head and layer.'''
        return 2 * n_layers * n_kv_heads * d_head * bits_kv / 8

:func:`formula` calls the function once with the glossary's symbols (each argument name is a
glossary entry of :mod:`llm_arithmetic.core.symbols`, so a name has one meaning everywhere) and
records a :class:`Formula`: the expression, the left-hand side (a glossary entry too, which
gives the unit), the argument order and defaults from the ``def``. Nothing else is written by
hand: the docstring's mathematics and parameter list are generated from the expression and the
glossary, and so are the numeric Python module (:mod:`llm_arithmetic.numeric`, no sympy at
run time) and the JavaScript module the book's pages run.

A registered formula is callable. With numbers it evaluates the generated numeric function;
with sympy arguments it substitutes them, so formulas build on formulas::

    @formula("kv_cache")
    def kv_cache_bytes(*, n_layers, n_kv_heads, d_head, context, batch=1, bits_kv=16):
        return kv_cache_bytes_per_token(n_layers=n_layers, ...) * context * batch

The registry holds what has been imported; :func:`llm_arithmetic.articles.all_formulas` (the top
of the formula modules: the articles' formulas build on the package's) imports every module that
registers one, so the registry it returns is complete whatever was imported first.

>>> from llm_arithmetic.articles import all_formulas
>>> f = all_formulas()["kv_cache_bytes_per_token"]
>>> f.params, f.unit
(('n_layers', 'n_kv_heads', 'd_head', 'bits_kv'), 'B')
>>> f(n_layers=32, n_kv_heads=8, d_head=128)
131072
>>> print(f.latex())
\kappa = \frac{L H_{kv} d_{head} b_{kv}}{4}
"""
from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral
from types import MappingProxyType
from typing import Any, Callable, Mapping

import sympy as sp

from .symbols import GLOSSARY

__all__ = ["Formula", "formula", "FORMULAS", "bind_numeric"]


_REGISTRY: dict[str, "Formula"] = {}
#: The registry, read-only: what has been imported. :func:`llm_arithmetic.articles.all_formulas`
#: imports every formula module first.
FORMULAS: Mapping[str, "Formula"] = MappingProxyType(_REGISTRY)

#: Where a formula's generated numeric function comes from: a module (or any object) with one
#: attribute per formula name. The registry sits below the code generated from it and never
#: imports it; the floor that registers formulas binds it (:func:`bind_numeric`, called by
#: ``llm_arithmetic.formulas`` and ``llm_arithmetic.articles`` with ``llm_arithmetic.numeric``).
_NUMERIC_SOURCE: list[Any] = []


def bind_numeric(source: Any) -> None:
    """Evaluate every formula through ``source``'s attribute of the formula's name (the
    generated :mod:`llm_arithmetic.numeric`; a test may bind another). Functions already looked
    up are looked up again."""
    _NUMERIC_SOURCE[:] = [source]
    for f in _REGISTRY.values():
        f._numeric.clear()


def _sympify_arg(value: Any) -> Any:
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, Integral):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, float):
        return sp.nsimplify(value, rational=True)
    return sp.sympify(value)


class same_as:
    """A default that is another argument's value: ``attn_peak_flops=same_as("peak_flops")``
    makes the argument optional, and leaving it out gives the formula at the other argument's
    value (the expression keeps both symbols, so the special case is a substitution). The
    argument named must come earlier in the ``def``. The generated Python takes ``None`` for
    it; the JavaScript defaults it to the other argument."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"same_as({self.name!r})"


@dataclass(frozen=True, eq=False)
class Formula:
    """One quantity: a sympy expression of named arguments, and how to evaluate it.

    Attributes
    ----------
    name : str
        Registry key and the name of the generated numeric function.
    build : callable
        Calls the ``def`` with the glossary symbols: the expression, checked to use only the
        arguments (:attr:`expr` calls it once, when first asked).
    expr : sympy.Expr
        The expression, as the ``def`` built it (never simplified).
    lhs : str
        Glossary name of the quantity (its symbol is the equation's left-hand side; its unit is
        the formula's unit).
    params : tuple of str
        Keyword arguments, in the order of the ``def``; each a glossary name.
    defaults : Mapping[str, Any]
        Default values from the ``def``.
    doc : str
        The ``def``'s docstring: the prose and the examples (no mathematics: that is generated).
    module : str
        Where it is registered.
    exact : bool
        Whether integer arguments give exact results (``False`` for quantities that are floats
        by nature, such as an expected count with a large power in it).
    """

    name: str
    build: Callable[[], sp.Expr] = field(repr=False)
    lhs: str
    params: tuple[str, ...]
    defaults: Mapping[str, Any]
    doc: str
    module: str
    exact: bool = True
    _numeric: list = field(default_factory=list, repr=False)
    _expr: list = field(default_factory=list, repr=False)

    @property
    def expr(self) -> sp.Expr:
        """The expression, built from the ``def`` the first time it is asked for (importing
        the package builds none: a notebook that prints three equations builds those three,
        and what they call)."""
        if not self._expr:
            self._expr.append(self.build())
        return self._expr[0]

    # ---- symbols and display ----------------------------------------------------------------
    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        """The glossary symbols of :attr:`params`, in order."""
        return tuple(GLOSSARY[p].symbol for p in self.params)

    @property
    def lhs_symbol(self) -> sp.Symbol:
        return GLOSSARY[self.lhs].symbol

    @property
    def unit(self) -> str:
        """Unit of the result, from the glossary entry of the left-hand side."""
        return GLOSSARY[self.lhs].unit

    @property
    def summary(self) -> str:
        """The first paragraph of the docstring."""
        return inspect.cleandoc(self.doc).split("\n\n")[0].replace("\n", " ").strip()

    def equation(self) -> sp.Eq:
        """``Eq(lhs, expr)``, unevaluated."""
        return sp.Eq(self.lhs_symbol, self.expr, evaluate=False)

    def latex(self, lhs: bool = True) -> str:
        """The LaTeX the book prints: ``lhs = expr`` (or the expression alone)."""
        from .display import latex

        body = latex(self.expr, order=self.params)
        return f"{latex(self.lhs_symbol)} = {body}" if lhs else body

    # ---- evaluation ---------------------------------------------------------------------------
    @property
    def numeric(self) -> Callable[..., Any]:
        """The generated numeric function (:mod:`llm_arithmetic.numeric`)."""
        if not self._numeric:
            if not _NUMERIC_SOURCE:
                raise RuntimeError(f"{self.name}: no numeric functions bound (the package "
                                   "llm_arithmetic.formulas binds them when imported)")
            self._numeric.append(getattr(_NUMERIC_SOURCE[0], self.name))
        return self._numeric[0]

    def subs(self, **kwargs: Any) -> sp.Expr:
        """The expression with arguments substituted (defaults for those not given)."""
        unknown = set(kwargs) - set(self.params)
        if unknown:
            raise TypeError(f"{self.name}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(unknown))}")
        values = {}
        for p, s in zip(self.params, self.symbols):
            if p in kwargs:
                values[s] = _sympify_arg(kwargs[p])
            elif isinstance(self.defaults.get(p), same_as):
                values[s] = values[GLOSSARY[self.defaults[p].name].symbol]
            elif p in self.defaults:
                values[s] = _sympify_arg(self.defaults[p])
            else:
                raise TypeError(f"{self.name}() missing keyword argument {p!r}")
        return self.expr.xreplace(values)

    def __call__(self, **kwargs: Any) -> Any:
        """Numbers in, a number out (the generated function); sympy in, an expression out."""
        if any(isinstance(v, sp.Basic) for v in kwargs.values()):
            return self.subs(**kwargs)
        return self.numeric(**kwargs)

    def __repr__(self) -> str:
        return f"<formula {self.name}: {self.lhs} = {self.expr}>"


def formula(lhs: str, *, name: str | None = None, exact: bool = True
            ) -> Callable[[Callable[..., Any]], Formula]:
    """Register the sympy expression a ``def`` builds, as the quantity ``lhs``.

    Parameters
    ----------
    lhs : str
        Glossary name of the quantity computed (its symbol and unit come from the glossary).
    name : str, optional
        Registry key; the ``def``'s name by default (article modules prefix theirs).
    exact : bool
        ``False`` when the numeric function should always compute in floating point.
    """
    if lhs not in GLOSSARY:
        raise KeyError(f"left-hand side {lhs!r} is not in the glossary (core/symbols.py)")

    def deco(fn: Callable[..., Any]) -> Formula:
        sig = inspect.signature(fn)
        params, defaults = [], {}
        for p in sig.parameters.values():
            if p.kind is not inspect.Parameter.KEYWORD_ONLY:
                raise TypeError(f"{fn.__name__}: argument {p.name!r} must be keyword-only")
            if p.name not in GLOSSARY:
                raise KeyError(f"{fn.__name__}: argument {p.name!r} is not in the glossary "
                               "(core/symbols.py)")
            params.append(p.name)
            if p.default is not inspect.Parameter.empty:
                if isinstance(p.default, same_as) and p.default.name not in params[:-1]:
                    raise ValueError(f"{fn.__name__}: {p.name!r} defaults to "
                                     f"{p.default.name!r}, which is not an earlier argument")
                defaults[p.name] = p.default
        def build() -> sp.Expr:
            expr = sp.sympify(fn(**{p: GLOSSARY[p].symbol for p in params}))
            free = expr.free_symbols - {GLOSSARY[p].symbol for p in params}
            if free:
                raise ValueError(f"{fn.__name__}: expression uses symbols that are not "
                                 f"arguments: {free}")
            return expr

        doc = inspect.cleandoc(fn.__doc__ or "")
        if ".. math::" in doc:
            raise ValueError(f"{fn.__name__}: the docstring must not type the mathematics; it "
                             "is generated from the expression")
        key = name or fn.__name__
        if key in _REGISTRY and _REGISTRY[key].module != fn.__module__:
            raise ValueError(f"formula {key!r} registered twice ({_REGISTRY[key].module}, "
                             f"{fn.__module__})")
        f = Formula(name=key, build=build, lhs=lhs, params=tuple(params),
                    defaults=MappingProxyType(defaults), doc=doc, module=fn.__module__,
                    exact=exact)
        _REGISTRY[key] = f
        return f

    return deco


def docstring(f: Formula) -> str:
    """The generated docstring of a formula's numeric function (numpydoc, ``fluids`` style).

    The first paragraph of the ``def``'s docstring, the equation (generated from the
    expression), the parameters and the result with their glossary descriptions, symbols and
    units, then the rest of the ``def``'s docstring (notes, examples, references).
    """
    from .display import latex

    paragraphs = f.doc.split("\n\n") if f.doc else [f.name]
    head, rest = paragraphs[0], "\n\n".join(paragraphs[1:])
    lines = [head, "", ".. math::", "", "    " + f.latex(), "", "Parameters", "----------"]
    for p in f.params:
        info = GLOSSARY[p]
        d = f.defaults.get(p)
        default = (f" (default: the value of ``{d.name}``)" if isinstance(d, same_as) else
                   f" (default {d!r})" if p in f.defaults else "")
        lines.append(f"{p} : number or array{default}")
        lines.append(f"    {_capital(info.description)}, :math:`{latex(info.symbol)}` "
                     f"[{_unit(info.unit)}]")
    out = GLOSSARY[f.lhs]
    lines += ["", "Returns", "-------", f"{f.lhs} : number or array",
              f"    {_capital(out.description)}, :math:`{latex(out.symbol)}` [{_unit(out.unit)}]"]
    if rest.strip():
        lines += ["", rest]
    return "\n".join(lines)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _unit(unit: str) -> str:
    return "-" if unit == "1" else unit


def indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix, lambda line: bool(line.strip()))
