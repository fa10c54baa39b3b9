"""The rank scale of ordinal classification: one home for its roundings.

Ordinal labels are integer ranks on a declared or observed scale (e.g. 1-5 stars), checked by
:func:`check_ranks` (:mod:`textsift.labels`, with every other labelling). The scores
(:mod:`textsift.scores.ordinal`), the learner (:class:`textsift.learners.RankSVR`), the
measures (:mod:`textsift.learners.metrics`) and the experiment harness all read the scale through
these functions, so "a valid rank", "the nearest rank" and "the middle rank" mean one thing.
AdaBag's low and high classes of a rating scale (:func:`class_thresholds`) are read here too.
"""

from __future__ import annotations

import numpy as np

from ..errors import TextsiftError
from . import check_ranks  # ordinal labels are checked with the other labels

__all__ = ["check_ranks", "check_thresholds", "class_thresholds", "describe_ratings",
           "nearest_index", "nearest_rank", "trivial_rank"]


def nearest_index(values, scale) -> np.ndarray:
    """Index of the nearest rank of the sorted ``scale`` (the lower one on a tie: our rule)."""
    scale = np.asarray(scale, dtype=np.float64)
    mid = (scale[1:] + scale[:-1]) / 2
    return np.searchsorted(mid, np.asarray(values, dtype=np.float64), side="left")


def nearest_rank(values, scale) -> np.ndarray:
    """Round each value to the nearest rank of the sorted ``scale``; an exact tie goes to the
    lower rank (our tie rule). Values off the scale go to its ends, so rounding also clips."""
    scale = np.asarray(scale, dtype=np.float64)
    return scale[nearest_index(values, scale)]


def trivial_rank(ranks) -> float:
    """The rank the trivial predictor Triv always outputs: the middle of the scale
    (Baccianella, Esuli & Sebastiani 2010: 3 stars on 1-5). On an even scale the lower of the
    two middle ranks (our tie rule); both give the same ``MAE^M`` when every rank occurs.
    """
    ranks = np.unique(np.asarray(ranks, dtype=np.float64))
    if len(ranks) == 0:
        raise TextsiftError("the scale is empty")
    return float(ranks[(len(ranks) - 1) // 2])


def describe_ratings(ratings) -> str:
    """The ratings present, for a message: ``"1, 2, 3, 4, 5"``, or the range and the number of
    distinct values when there are more than 12."""
    r = np.unique(np.asarray(ratings, dtype=np.float64))
    if len(r) > 12:
        return f"{r[0]:g}..{r[-1]:g} ({len(r)} distinct values)"
    return ", ".join(f"{v:g}" for v in r)


def class_thresholds(ratings) -> tuple[float, float]:
    """The thresholds ``(a, b)`` of a "low" (``y <= a``) and a "high" (``y >= b``) class on the
    rating scale found in ``ratings``: ``a`` is the largest rating present at most
    ``lo + (hi - lo) / 3`` and ``b`` the smallest at least ``lo + 2 (hi - lo) / 3`` (``lo``,
    ``hi`` the lowest and highest rating), so the middle third is left out. 1-5 stars give
    2 and 4, 1-10 (IMDb) 4 and 7 -- the AdaBag paper's --, two ratings the two of them."""
    r = np.unique(np.asarray(ratings, dtype=np.float64))
    if len(r) == 0 or not np.all(np.isfinite(r)):
        raise TextsiftError("the ratings must be finite numbers, and there must be some")
    if len(r) < 2:
        raise TextsiftError(f"every rating is {r[0]:g}: a low and a high class need at least "
                            "two different ratings")
    lo, hi = r[0], r[-1]
    tol = 1e-9 * (hi - lo)
    a = r[r <= lo + (hi - lo) / 3 + tol][-1]
    b = r[r >= lo + 2 * (hi - lo) / 3 - tol][0]
    return float(a), float(b)


def check_thresholds(ratings, a, b) -> None:
    """Both classes of the thresholds ``a < b`` have ratings: ``a`` is not below and ``b`` not
    above every rating; else an error naming the threshold (``--low``/``--high``) and the
    ratings present."""
    r = np.asarray(ratings, dtype=np.float64)
    if len(r) == 0:
        raise TextsiftError("no ratings: there is nothing to classify")
    if np.ptp(r) == 0:
        raise TextsiftError(f"every rating is {r[0]:g}, so there is one class only; AdaBag "
                            "needs low (<= a) and high (>= b) ratings")
    if a < r.min() or b > r.max():
        low = a < r.min()
        name, option, side, cls = (("a", "--low", "below", "low") if low else
                                   ("b", "--high", "above", "high"))
        good = class_thresholds(r)
        raise TextsiftError(f"{name}={a if low else b:g} ({option}) is {side} every rating "
                            f"found, so the {cls} class has no rows; ratings present: "
                            f"{describe_ratings(r)}. Choose a and b (--low, --high) among "
                            f"them (for this scale textsift adabag uses a={good[0]:g}, "
                            f"b={good[1]:g})")
