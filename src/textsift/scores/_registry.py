"""The method registry: canonical name -> scoring function over :class:`~textsift.counts.Counts`.

A scoring function is pure: it reads counts and returns a :class:`ScoreTable`, a (V, G) array
with one column per group (a class for one-vs-rest scores, a rank or an ordinal split for the
ordinal methods, a single column for global scores), or, for a per-class score, the same
table in sparse form (:class:`PerClass`), which :func:`compute` writes out. Selection policies
(:mod:`textsift.policies`) turn a table into a ranking.

Per-class scores cost one pass over the cells that differ: a cell with ``A = 0`` (most of
the (V, m) table) depends only on ``(df, class)``, so a metric is evaluated once per distinct
``(df, class)`` and once per non-zero cell, in one vectorised call
(:attr:`~textsift.counts.SparseCells.evaluation_set`, built once per :class:`Counts` and
shared by every method), and the table is written by one gather and one scatter. NaN and
unseen terms are turned into ``-inf`` on those few values, before the table exists.
:func:`compute_many` scores one :class:`Counts` with many methods this way.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..counts import Counts
from ..errors import TextsiftError
from ..policies import AGGREGATES

__all__ = ["REGISTRY", "Method", "PerClass", "ScoreTable", "binary_scores", "clean", "compute",
           "compute_many", "get_method", "per_class", "register"]


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Scores of every term for every group.

    Attributes
    ----------
    values : ndarray of shape (V, G), float64
        ``-inf`` marks unseen terms and "no score in this group" (for round robin, terms that
        are not candidates of a group); never NaN. :func:`compute` establishes this rule
        (:func:`clean`) for every table it returns, a user's function's included, and the
        policies trust it.
    groups : ndarray of shape (G,)
        Group labels (classes, ranks, split names, or ``["all"]``).
    seen : ndarray of shape (V,), bool
        ``df > 0``.
    weights : ndarray of shape (G,) or None
        Group weights for ``wavg`` (class priors).
    """

    values: np.ndarray
    groups: np.ndarray
    seen: np.ndarray
    weights: np.ndarray | None = None

    # the reading interface it shares with the sparse form, PerClass
    def table(self) -> ScoreTable:
        return self

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` (a view; ``out`` is not needed)."""
        return self.values[start:stop]

    def column(self, j: int) -> np.ndarray:
        return self.values[:, j]


#: What a method may require of a labelling (:attr:`Method.requires`), and what it means.
REQUIREMENTS = {
    "ranks": "ordered integer ranks as labels (ratings such as 1-5 stars)",
    "single_label": "exactly one label per document",
}


@dataclass(frozen=True)
class Method:
    """A registered scoring method. ``params`` maps each keyword parameter of ``func`` (after
    the counts) to its default, e.g. ``{"a": 1.0, "eps": 0.1, "idf": "standard"}``, and
    ``choices`` gives the values a parameter takes when its annotation lists them
    (``Literal["standard", "smooth"]``): callers (the CLI, experiment grids) read which
    parameters a method takes from them. ``formula`` is the score in LaTeX (in the notation of
    the contingency table: ``A``, ``B``, ``C``, ``D``, ``tpr``, ``fpr``, ``TF``; the
    documentation renders it) and ``reference`` the paper it comes from.

    ``requires`` lists what the method needs of a labelling, from :data:`REQUIREMENTS`:
    ``"ranks"`` (every ordinal method: ``kind == "ordinal"`` exactly when it is there) and
    ``"single_label"`` (the method reads the classes as a partition of the documents);
    :func:`check_applies` checks them. Each method's docstring says why it has its own.
    ``reads_term_freq`` says whether it reads ``Counts.term_freq`` (so that a caller counting
    for this method alone can leave the term frequencies out)."""

    name: str
    func: Callable[..., ScoreTable]
    kind: str  # "nominal" or "ordinal"
    summary: str
    default_aggregate: str = "max"
    aggregates: tuple[str, ...] = AGGREGATES
    provisional: bool = False
    params: dict = field(default_factory=dict)
    formula: str = ""
    reference: str = ""
    requires: tuple[str, ...] = ()
    choices: dict = field(default_factory=dict)
    reads_term_freq: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} (provisional)" if self.provisional else self.name


#: Every registered method: canonical name -> :class:`Method` (``textsift methods`` lists them).
REGISTRY: dict[str, Method] = {}


def register(name, kind, summary, default_aggregate="max", aggregates=AGGREGATES,
             provisional=False, *, formula="", reference="", requires=(),
             reads_term_freq=False):
    """Decorator adding a scoring function to :data:`REGISTRY` under ``name``; ``formula``
    (LaTeX) and ``reference`` document it (every built-in method has both). An ordinal
    method requires ``"ranks"`` and ``"single_label"`` (a document has one rating) besides
    ``requires``. The parameters are those of the function's signature after its counts."""
    if kind not in ("nominal", "ordinal"):
        raise RuntimeError(f"method {name!r}: kind must be 'nominal' or 'ordinal'")
    requires = tuple(dict.fromkeys(
        (("ranks", "single_label") if kind == "ordinal" else ()) + tuple(requires)))
    unknown = set(requires) - set(REQUIREMENTS)
    if unknown:
        raise RuntimeError(f"method {name!r}: unknown requirements {sorted(unknown)}")

    def deco(func):
        if name in REGISTRY:
            raise RuntimeError(f"method {name!r} is registered twice")
        params, choices = _parameters(func)
        REGISTRY[name] = Method(name, func, kind, summary, default_aggregate, tuple(aggregates),
                                provisional, params, formula, reference, requires, choices,
                                reads_term_freq)
        return func

    return deco


def _parameters(func) -> tuple[dict, dict]:
    """``(defaults, choices)`` of the keyword parameters of ``func`` after its counts; choices
    from ``Literal`` annotations."""
    import inspect
    import typing

    params = list(inspect.signature(func).parameters.values())[1:]
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    hints = typing.get_type_hints(func)
    choices = {n: typing.get_args(hints[n]) for n in defaults
               if typing.get_origin(hints.get(n)) is typing.Literal}
    return defaults, choices


def check_applies(method, *, ranks: bool, single_label: bool = True) -> Method:
    """The registered ``method`` (a name or a :class:`Method`) if it applies to a labelling
    whose labels are ordered integer ranks (``ranks``) and give each document one label
    (``single_label``); else one :class:`~textsift.errors.TextsiftError` naming what is
    missing. The selectors call it where a method meets counts; a caller that knows only the
    kind of task (an experiment file's ``task = "ordinal"``) can call it before any data."""
    m = method if isinstance(method, Method) else get_method(method)
    facts = {"ranks": ranks, "single_label": single_label}
    missing = [r for r in m.requires if not facts[r]]
    if missing:
        raise TextsiftError(
            f"{m.name} needs {' and '.join(REQUIREMENTS[r] for r in missing)}, and the labels "
            "given do not meet that; choose a method without that requirement, e.g. chi2, ig "
            "or bns")
    return m


def get_method(name: str) -> Method:
    """The registered method ``name``; an unknown name raises with the closest matches."""
    try:
        return REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), list(REGISTRY), n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise TextsiftError(
            f"unknown method {name!r}.{hint} `textsift methods` lists them all: "
            f"{', '.join(sorted(REGISTRY))}"
        ) from None


def compute(counts: Counts, method, *, dense: bool = True, **params) -> ScoreTable | PerClass:
    """Score every term of ``counts`` with ``method`` (keyword ``params`` go to the method).

    ``method`` is a registered name, a :class:`Method`, or a user's scoring function
    ``method(counts, **params)`` returning one score per term (shape ``(V,)``: a global
    score), one per term and class (``(V, m)``, columns in ``counts.classes`` order), or a
    :class:`ScoreTable`. Whatever made it, the table follows one rule: never NaN, unseen terms
    ``-inf`` (:func:`clean`). ``dense=False`` returns a per-class table in the sparse form
    the method made it (:class:`PerClass`, whose rows, columns or whole table are written
    when asked for: a ranking by blocks of rows never holds the (V, m) table)."""
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counts.Counts, got {type(counts).__name__}")
    if callable(method) and not isinstance(method, Method):
        return _from_function(counts, method, params)
    table = _call(_method(method), counts, params)
    if isinstance(table, PerClass):
        return table.table() if dense else table
    return clean(table)


def _method(method) -> Method:
    return method if isinstance(method, Method) else get_method(method)


#: Parameters that were renamed: old name -> new name (named in the error an old name gets).
RENAMED = {"eps_nc": "eps"}


def _call(m: Method, counts: Counts, params: dict):
    """``m.func(counts, **params)``, a parameter the method does not take refused by name, and
    counts without the term frequencies the method reads."""
    if m.reads_term_freq and counts.term_freq is None:
        raise TextsiftError(f"{m.name} reads term frequencies, which these counts do not have "
                            "(counted with term_freq=False); count with term_freq=True")
    unknown = sorted(set(params) - set(m.params))
    if unknown and not _takes_any_keyword(m.func):
        hint = "".join(f" ({k} is now called {RENAMED[k]})" for k in unknown if k in RENAMED)
        raise TextsiftError(f"{m.name} has no parameter {', '.join(unknown)}{hint}; it takes "
                            f"{', '.join(m.params) or 'none'}")
    return m.func(counts, **params)


def _takes_any_keyword(func) -> bool:
    import inspect

    return any(p.kind is inspect.Parameter.VAR_KEYWORD
               for p in inspect.signature(func).parameters.values())


def clean(table: ScoreTable) -> ScoreTable:
    """The table with NaN and unseen terms as ``-inf``: the one rule every :class:`ScoreTable`
    follows, applied where a table is made (a full pass only when there is something to
    change). Policies (:mod:`textsift.policies`) rely on it and never clean again."""
    values = table.values
    if np.isnan(values).any() or not table.seen.all():
        values = np.where(np.isnan(values) | ~table.seen[:, None], -np.inf, values)
    return ScoreTable(values, table.groups, table.seen, table.weights)


def _from_function(counts: Counts, func, params: dict) -> ScoreTable:
    """The table of a user's scoring function (see :func:`compute`), its shape checked."""
    out = func(counts, **params)
    name = getattr(func, "__name__", repr(func))
    if isinstance(out, ScoreTable):
        values, groups, weights = out.values, out.groups, out.weights
    else:
        values = np.asarray(out, dtype=np.float64)
        if values.ndim == 1:
            values, groups, weights = values[:, None], np.array(["all"], dtype=object), None
        elif values.ndim == 2 and values.shape[1] == counts.n_classes:
            groups, weights = counts.classes, counts.priors
        else:
            raise TextsiftError(
                f"scoring function {name} returned shape {values.shape}; return one score per "
                f"term ({counts.n_terms},) or per term and class ({counts.n_terms}, "
                f"{counts.n_classes})")
    if values.shape[0] != counts.n_terms:
        raise TextsiftError(f"scoring function {name} returned {values.shape[0]} scores for "
                            f"{counts.n_terms} terms")
    return clean(ScoreTable(np.asarray(values, dtype=np.float64), np.asarray(groups),
                            counts.seen, weights))


def compute_many(counts: Counts, methods=None, params: dict | None = None,
                 reuse: bool = False):
    """Score ``counts`` with each of ``methods`` (names; default every nominal method, sorted),
    yielding ``(name, ScoreTable)`` in that order; ``params`` maps a name to its keyword
    parameters.

    Every name is checked before any work. The per-class methods share one evaluation set
    (module docstring) and the cached derived counts; each table is built when the caller
    asks for it. With ``reuse=True`` the per-class tables are all written into one (V, m)
    buffer, so a table is valid only until the next one is asked for: for a caller that
    reduces each table (a ranking, a column) before going on, which then costs one table's
    memory instead of one per method (fresh memory pages cost, on some machines, as much as
    the scores themselves).
    """
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counts.Counts, got {type(counts).__name__}")
    if methods is None:
        methods = sorted(n for n, m in REGISTRY.items() if m.kind == "nominal")
    methods = [get_method(name).name for name in methods]
    params = params or {}
    unknown = set(params) - set(methods)
    if unknown:
        raise TextsiftError(f"parameters given for {sorted(unknown)}, which are not among the "
                            f"methods asked for ({', '.join(methods)})")
    buffer = None
    for name in methods:
        out = _call(get_method(name), counts, params.get(name, {}))
        if not isinstance(out, PerClass):
            yield name, clean(out)
            continue
        if reuse and (buffer is None or buffer.shape != out.counts.doc_counts.shape):
            buffer = np.empty(out.counts.doc_counts.shape)
        yield name, out.table(buffer if reuse else None)


def nonempty_classes(counts: Counts) -> Counts:
    """``counts`` without the classes that have no documents (excluded from every per-class
    score, METHODS.md §0.7); at least two must remain."""
    if (counts.class_sizes > 0).sum() < 2:
        raise TextsiftError(
            "per-class scoring needs at least two classes with documents; got only one "
            f"class ({[str(c) for c in counts.classes[counts.class_sizes > 0]]}). "
            "Check the label field."
        )
    return counts.with_documents


@dataclass(frozen=True, eq=False)
class PerClass:
    """A per-class (V, m) score table in sparse form, over ``counts`` (whose classes all have
    documents). Either ``tables`` holds one value per distinct one-vs-rest table of
    ``counts.cells.evaluation_set``, or ``zero`` gives the values of the cells with ``A = 0``
    and ``nz`` those of the non-zero cells, in ``counts.cells.flat`` order. ``zero`` is an
    array broadcastable to (V, m), or ``(ufunc, x, y)`` for ``ufunc(x, y)`` of a (V, 1) and a
    (1, m) array (in either order), written straight into the table.

    The dense values are written only when asked for, and follow the rule of
    :class:`ScoreTable` (NaN and unseen terms as ``-inf``, the sparse values cleaned once):
    the whole table (:meth:`table`), a block of its rows (:meth:`rows`, what a policy needs
    to globalise a (V, m) table of any size in a buffer of a few megabytes) or one column
    (:meth:`column`). Each gives the same values, to the bit."""

    counts: Counts
    tables: np.ndarray | None = None
    zero: np.ndarray | None = None
    nz: np.ndarray | None = None

    @property
    def groups(self) -> np.ndarray:
        return self.counts.classes

    @property
    def seen(self) -> np.ndarray:
        return self.counts.seen

    @property
    def weights(self) -> np.ndarray:
        return self.counts.priors

    @cached_property
    def _sparse(self) -> tuple[np.ndarray | None, np.ndarray]:
        """``(grid, nz)``: the ``(distinct df, class)`` grid of the ``A = 0`` values (``None``
        for the ``zero`` form) and the values of the non-zero cells, without NaN."""
        c, cells = self.counts, self.counts.cells
        if self.tables is None:
            return None, _minus_inf_for_nan(self.nz)
        tables = _minus_inf_for_nan(self.tables)
        grid = tables[:cells.n_zero].reshape(-1, c.n_classes)
        if len(cells.df_values) and cells.df_values[0] == 0:  # df = 0: unseen terms
            grid[0] = -np.inf
        return grid, tables.take(cells.nz_table)

    def table(self, out: np.ndarray | None = None) -> ScoreTable:
        """The dense table: one gather and one scatter, into ``out`` (a (V, m) float64
        array) when given, else into fresh memory."""
        c = self.counts
        values = self.rows(0, c.n_terms, out)
        return ScoreTable(values, c.classes, c.seen, c.priors)

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the dense table, written into the first ``stop - start``
        rows of ``out`` (a C-contiguous float64 array ``m`` wide) when given."""
        c, cells = self.counts, self.counts.cells
        m = c.n_classes
        values = np.empty((stop - start, m)) if out is None else out[:stop - start]
        grid, nz = self._sparse
        if grid is not None:
            np.take(grid, cells.df_index[start:stop], axis=0, out=values, mode="clip")  # no copy
        else:
            _outer_or_broadcast(_row_slice(self.zero, start, stop, c.n_terms), values)
            seen = c.seen[start:stop]
            if not seen.all():
                values[~seen] = -np.inf
        lo, hi = np.searchsorted(cells.flat, [start * m, stop * m])
        np.put(values, cells.flat[lo:hi] - start * m, nz[lo:hi])
        return values

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of the dense table (the scores of one class)."""
        c, cells = self.counts, self.counts.cells
        grid, nz = self._sparse
        if grid is not None:
            values = grid[cells.df_index, j]
        else:
            zero = self.zero
            if isinstance(zero, tuple):
                ufunc, x, y = zero
                zero = (ufunc, *(a[:, j:j + 1] if a.shape[1] > 1 else a for a in (x, y)))
            else:
                zero = np.asarray(zero)
                zero = zero[:, j:j + 1] if zero.ndim == 2 and zero.shape[1] > 1 else zero
            values = np.empty((c.n_terms, 1))
            _outer_or_broadcast(zero, values)
            values = values[:, 0]
            values[~c.seen] = -np.inf
        mine = cells.col == j
        values[cells.row[mine]] = nz[mine]
        return values


def _row_slice(zero, start: int, stop: int, n_terms: int):
    """``zero`` (an array or ``(ufunc, x, y)``) for rows ``start:stop``: the operands with one
    row per term sliced, those with one row kept."""
    def rows(a):
        a = np.asarray(a)
        return a[start:stop] if a.ndim == 2 and a.shape[0] == n_terms > 1 else a

    if isinstance(zero, tuple):
        return (zero[0], rows(zero[1]), rows(zero[2]))
    return rows(zero)


def _outer_or_broadcast(zero, values: np.ndarray) -> None:
    """Write the ``zero`` values of :class:`PerClass` into ``values``, without NaN. NaN is
    looked for in the factors: finite factors give no NaN (an overflow gives ``inf``)."""
    if isinstance(zero, tuple):
        ufunc, x, y = zero
        with np.errstate(over="ignore"):
            ufunc(x, y, out=values)
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            np.copyto(values, -np.inf, where=np.isnan(values))
    else:
        np.copyto(values, np.broadcast_to(_minus_inf_for_nan(zero), values.shape))


def _minus_inf_for_nan(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)  # a copy: the caller's array is never changed
    np.copyto(a, -np.inf, where=np.isnan(a))
    return a


def binary_scores(counts: Counts, binary_metric, **params) -> PerClass:
    """A binary metric ``f(A, B, C, D)`` for every non-empty class, one-vs-rest (METHODS.md
    §B.3), in sparse form. Classes without training documents are left out (§0.7).

    Exact and sparse: with ``B = df - A``, ``C = pos - A``, ``D = N - pos - df + A``, a cell's
    table depends only on ``(A, df, class)``; the metric is evaluated once per distinct table
    (:attr:`~textsift.counts.SparseCells.evaluation_set`), in one call. The table's values are
    bit-for-bit those of ``f(*counts.contingency())``.
    """
    counts = nonempty_classes(counts)
    A, B, C, D = counts.cells.evaluation_set
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = binary_metric(A, B, C, D, **params)
    return PerClass(counts, tables=np.broadcast_to(np.asarray(values, dtype=np.float64), A.shape))


def binary_method(binary_metric):
    """The scoring method of a binary metric ``f(A, B, C, D, **params)``: :func:`binary_scores`
    over the counts, with the metric's own keyword parameters as its signature (so that
    :func:`register` lists them in :attr:`Method.params`)."""
    import inspect
    import typing

    def method(counts, **params):
        return binary_scores(counts, binary_metric, **params)

    own = list(inspect.signature(binary_metric).parameters.values())[4:]
    counts = inspect.Parameter("counts", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = inspect.Signature([counts, *own])
    hints = typing.get_type_hints(binary_metric)  # evaluated in the metric's module
    method.__annotations__ = {p.name: hints[p.name] for p in own if p.name in hints}
    method.__name__ = method.__qualname__ = binary_metric.__name__
    return method


def per_class(counts: Counts, binary_metric, **params) -> ScoreTable:
    """The dense table of ``binary_scores`` (NaN and unseen terms as ``-inf``)."""
    return binary_scores(counts, binary_metric, **params).table()


def global_table(counts: Counts, values: np.ndarray) -> ScoreTable:
    """A one-column table for a class-independent score."""
    column = np.asarray(values, dtype=np.float64)[:, None]
    return ScoreTable(column, np.array(["all"], dtype=object), counts.seen, None)
