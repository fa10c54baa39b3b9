"""The rank scale of ordinal classification: one home for its roundings.

Ordinal labels are integer ranks on a declared or observed scale (e.g. 1-5 stars), checked by
:func:`check_ranks` (:mod:`textsift.labels`, with every other labelling). The scores
(:mod:`textsift.scores.ordinal`), the learner (:class:`textsift.learners.RankSVR`), the
measures (:mod:`textsift.metrics`) and the experiment harness all read the scale through
these functions, so "a valid rank", "the nearest rank" and "the middle rank" mean one thing.
"""

from __future__ import annotations

import numpy as np

from .errors import TextsiftError
from .labels import check_ranks  # ordinal labels are checked with the other labels

__all__ = ["check_ranks", "nearest_index", "nearest_rank", "trivial_rank"]


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
