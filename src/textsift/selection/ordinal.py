"""The term selector of ordinal regression: :class:`OrdinalSelector`, a
:class:`~textsift.selection.selectors.TermSelector` restricted to the ordinal methods
(:mod:`textsift.scores.ordinal`) whose labels are ordered integer ranks on a scale, checked
when it is fitted (from a matrix or from counts whose classes are the ranks)::

    Pipeline([("vec", CountVectorizer()), ("sel", OrdinalSelector("rr_nc_idf", k=500)),
              ("clf", LogisticRegression())])
"""

from __future__ import annotations

from sklearn.utils._param_validation import StrOptions

from .._bounds import choices_documented, constraints
from .._choices import CORRECTION, CORRECTIONS, FAMILY, RR_VARIANTS
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import as_labels, check_requirement
from ..labels.ranks import check_ranks
from ..scores import REGISTRY, Method, get_method
from .selectors import _BOUNDS, TermSelector

__all__ = ["OrdinalSelector"]


@choices_documented
class OrdinalSelector(TermSelector):
    """Keep the best terms for ordinal regression (Baccianella, Esuli & Sebastiani 2010;
    :mod:`textsift.scores.ordinal`): a :class:`TermSelector` restricted to the ordinal methods,
    whose labels must be ordered integer ranks.

    Parameters
    ----------
    method : str, default="rr_nc_idf"
        ``var``, ``var_idf``, ``rr_var``, ``rr_var_idf``, ``rr_igor``, ``rr_nc_idf`` or ``prp``
        (provisional).
    k : int or "all", optional
        Number of terms kept; default 10 unless ``ratio`` is given (not both).
    ratio : float in (0, 1], optional
        Reduction level ``|S|/|T|``: keep ``max(1, ceil(ratio * n_ranked))`` terms.
    ranks : array-like of int, optional
        The full rating scale (e.g. ``[1, 2, 3, 4, 5]``). Ranks with no training documents
        then still exist for the RR methods (our choice: a rank with no documents may still be
        assigned terms, and keeps its turn), and a rating outside the scale is an error.
        Default: the ranks present in ``y``.
    rr_variant : {choices}
        Round-robin duplicate rule (only matters for ``rr_igor``, whose lists overlap).
    method_params : dict, optional
        E.g. ``{"a": 0.5}`` (IDF exponent), ``{"eps": 0.1}``, ``{"idf": "smooth"}``.
    alpha : float in (0, 1], optional
        Keep the terms whose adjusted p-value passes ``alpha`` (instead of ``k`` or
        ``ratio``): for ``mann_whitney``, the ordinal method with a test
        (:class:`TermSelector`'s ``alpha``).
    correction : {choices}, default="bh"
    """

    # The TermSelector options that do not apply to ordinal methods.
    threshold = None
    aggregate = None
    class_label = None
    direction = "both"
    family = FAMILY  # an ordinal test has one p-value per term: one family either way

    _parameter_choices = {"rr_variant": RR_VARIANTS, "correction": CORRECTIONS}
    _parameter_constraints = constraints(
        _BOUNDS, _parameter_choices, k=[StrOptions({"all"}), None], ratio=[None],
        alpha=[None], method=[str, callable, Method], ranks=["array-like", None],
        method_params=[dict, None])

    def __init__(self, method="rr_nc_idf", k=None, ratio=None, ranks=None, rr_variant="skip",
                 method_params=None, alpha=None, correction=CORRECTION):
        self.method = method
        self.k = k
        self.ratio = ratio
        self.ranks = ranks
        self.rr_variant = rr_variant
        self.method_params = method_params
        self.alpha = alpha
        self.correction = correction

    @property
    def classes(self):
        return self.ranks

    def _check_labels(self, y):
        # label sets (lists, an indicator) are refused as the ordinal methods refuse them
        check_requirement(("ranks",), as_labels(y), getattr(self.method, "__name__",
                                                             self.method))
        return check_ranks(y, self.ranks)  # ordered integer ranks and their scale

    def fit_counts(self, counts: Counts):
        """Fit from precomputed :class:`Counts` whose classes are the ranks of the scale."""
        return super().fit_counts(counts)

    def _fit_counts(self, counts: Counts):
        if not callable(self.method) and get_method(self.method).kind != "ordinal":
            ordinal = sorted(n for n, m in REGISTRY.items() if m.kind == "ordinal")
            raise TextsiftError(
                f"{self.method!r} is not an ordinal method; choose one of {', '.join(ordinal)}"
            )
        check_ranks(counts.classes)
        return super()._fit_counts(counts)
