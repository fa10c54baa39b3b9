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
    values = np.where(np.isnan(table.values), -np.inf, table.values)
    values[~table.seen] = -np.inf
    return ScoreTable(values, table.groups, table.seen, table.weights)


def per_class(counts: Counts, binary_metric, **params) -> ScoreTable:
    """Apply a binary metric ``f(A, B, C, D)`` to every non-empty class, one-vs-rest
    (METHODS.md §B.3). Classes without training documents are left out (§0.7)."""
    keep = counts.class_sizes > 0
    if keep.sum() < 2:
        raise ValueError(
            "one-vs-rest scoring needs at least two classes with documents; got only one "
            f"class ({[str(c) for c in counts.classes[keep]]}). Check the label field."
        )
    A, B, C, D = (cell[:, keep] for cell in counts.contingency())
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(binary_metric(A, B, C, D, **params), dtype=np.float64)
    return ScoreTable(values, counts.classes[keep], counts.seen, counts.priors[keep])


def global_table(counts: Counts, values: np.ndarray) -> ScoreTable:
    """A one-column table for a class-independent score."""
    return ScoreTable(np.asarray(values, dtype=np.float64)[:, None], np.array(["all"], dtype=object),
                      counts.seen, None)
