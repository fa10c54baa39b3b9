"""The method registry: canonical name -> scoring function over :class:`~textsift.counts.Counts`.

A scoring function is pure: it reads counts and returns a :class:`ScoreTable`, a (V, G) array
with one column per group (a class for one-vs-rest scores, a rank or an ordinal split for the
ordinal methods, a single column for global scores). Selection policies
(:mod:`textsift.policies`) turn a table into a ranking.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..counts import Counts

__all__ = ["REGISTRY", "Method", "ScoreTable", "compute", "get_method", "per_class", "register"]


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Scores of every term for every group.

    values : (V, G) float64; ``-inf`` marks unseen terms (and, for round robin, terms that
        are not candidates of a group); never NaN.
    groups : (G,) group labels (classes, ranks, split names, or ``["all"]``).
    seen : (V,) bool, ``df > 0``.
    weights : (G,) group weights for ``wavg`` (class priors), or None.
    """

    values: np.ndarray
    groups: np.ndarray
    seen: np.ndarray
    weights: np.ndarray | None = None


@dataclass(frozen=True)
class Method:
    name: str
    func: Callable[..., ScoreTable]
    kind: str  # "nominal" or "ordinal"
    summary: str
    default_aggregate: str = "max"
    aggregates: tuple[str, ...] = ("max", "sum", "wavg", "rr")
    provisional: bool = False
    params: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.name} (provisional)" if self.provisional else self.name


REGISTRY: dict[str, Method] = {}


def register(name, kind, summary, default_aggregate="max", aggregates=("max", "sum", "wavg", "rr"),
             provisional=False):
    """Decorator adding a scoring function to :data:`REGISTRY` under ``name``."""

    def deco(func):
        if name in REGISTRY:
            raise ValueError(f"method {name!r} is registered twice")
        REGISTRY[name] = Method(name, func, kind, summary, default_aggregate, tuple(aggregates),
                                provisional)
        return func

    return deco


def get_method(name: str) -> Method:
    """The registered method ``name``; an unknown name raises with the closest matches."""
    try:
        return REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), list(REGISTRY), n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(
            f"unknown method {name!r}.{hint} `textsift methods` lists them all: "
            f"{', '.join(sorted(REGISTRY))}"
        ) from None


def compute(counts: Counts, method: str, **params) -> ScoreTable:
    """Score every term of ``counts`` with ``method`` (keyword ``params`` go to the method)."""
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counts.Counts, got {type(counts).__name__}")
    table = get_method(method).func(counts, **params)
    values = table.values
    if np.isnan(values).any() or not table.seen.all():  # rare: skip the pass when clean
        values = np.where(np.isnan(values) | ~table.seen[:, None], -np.inf, values)
    return ScoreTable(values, table.groups, table.seen, table.weights)


def nonempty_classes(counts: Counts) -> Counts:
    """``counts`` without the classes that have no documents (excluded from every per-class
    score, METHODS.md §0.7); at least two must remain."""
    keep = counts.class_sizes > 0
    if keep.sum() < 2:
        raise ValueError(
            "per-class scoring needs at least two classes with documents; got only one "
            f"class ({[str(c) for c in counts.classes[keep]]}). Check the label field."
        )
    return counts if keep.all() else counts.select_classes(keep)


def per_class(counts: Counts, binary_metric, **params) -> ScoreTable:
    """Apply a binary metric ``f(A, B, C, D)`` to every non-empty class, one-vs-rest
    (METHODS.md §B.3). Classes without training documents are left out (§0.7).

    Exact and sparse: with ``B = df - A``, ``C = pos - A``, ``D = N - pos - df + A``, every
    cell with ``A = 0`` (most of them) depends only on ``(df, class)``, so the metric is
    evaluated once per distinct ``df`` and class and gathered, then once per non-zero cell.
    The values are bit-for-bit those of ``f(*counts.contingency())``.
    """
    counts = nonempty_classes(counts)
    cells = counts.cells
    pos = counts.class_sizes.astype(np.float64)
    N = float(counts.n_docs)
    dfu = cells.df_values[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        grid = binary_metric(0.0, dfu, pos[None, :], N - pos[None, :] - dfu, **params)
        grid = np.broadcast_to(np.asarray(grid, dtype=np.float64), (len(dfu), len(pos)))
        values = np.take(grid, cells.df_index, axis=0)
        np.put(values, cells.flat, binary_metric(cells.a, cells.b, cells.c, cells.d, **params))
    return ScoreTable(values, counts.classes, counts.seen, counts.priors)


def global_table(counts: Counts, values: np.ndarray) -> ScoreTable:
    """A one-column table for a class-independent score."""
    column = np.asarray(values, dtype=np.float64)[:, None]
    return ScoreTable(column, np.array(["all"], dtype=object), counts.seen, None)
