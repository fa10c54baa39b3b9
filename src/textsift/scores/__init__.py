"""Scoring functions, one module per family, and the registry that names them.

``compute(counts, "chi2")`` returns a :class:`ScoreTable` and ``compute_many(counts, names)``
yields one per method; ``REGISTRY`` maps every canonical name to its :class:`Method` (kind,
one-line summary, default aggregate, what it requires of the labelling: ``Method.requires``,
checked by :func:`textsift.labels.check_requirement`). ``pvalues(counts, "chi2")`` gives the
p-values of the methods that are tests (:mod:`.significance`; the tests of one 2 x 2 table,
from its cells: :mod:`.contingency`).
"""

from . import (  # noqa: F401  (register them)
    association,
    forman,
    information,
    lexical,
    ordinal,
    rank_test,
    significance,
)
from ._absent import Absent, Grid
from ._registry import (
    ABSENT_ORDERS,
    REGISTRY,
    SIGNED_POLICIES,
    Method,
    ScoreTable,
    clean,
    compute,
    compute_many,
    get_method,
    per_class,
    policy_refusal,
    register,
)
from .significance import PValues, pvalues, with_pvalues

__all__ = ["ABSENT_ORDERS", "REGISTRY", "SIGNED_POLICIES", "Absent", "Grid", "Method",
           "PValues", "ScoreTable", "clean", "compute", "compute_many",
           "get_method", "per_class", "policy_refusal", "pvalues", "register", "with_pvalues"]
