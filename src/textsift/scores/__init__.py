"""Scoring functions, one module per family, and the registry that names them.

``compute(counts, "chi2")`` returns a :class:`ScoreTable` and ``compute_many(counts, names)``
yields one per method; ``REGISTRY`` maps every canonical name to its :class:`Method` (kind,
one-line summary, default aggregate).
"""

from . import association, forman, information, ordinal  # noqa: F401  (register the methods)
from ._registry import (
    REGISTRY,
    REQUIREMENTS,
    Method,
    PerClass,
    ScoreTable,
    check_applies,
    clean,
    compute,
    compute_many,
    get_method,
    per_class,
    register,
)

__all__ = ["REGISTRY", "REQUIREMENTS", "Method", "PerClass", "ScoreTable", "check_applies",
           "clean", "compute", "compute_many", "get_method", "per_class", "register"]
