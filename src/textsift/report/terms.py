"""The report's tables of terms, from the run's ``terms.csv`` and ``class_terms.csv`` (what its
trials ranked on fold 0: :mod:`textsift.experiment.runner`): the top terms of every method side
by side, a note naming the methods whose top terms are rare words, and the best method, whose
terms of each class the report shows.
"""

from __future__ import annotations

import pandas as pd

from ..learners.metrics import lower_is_better
from .plots import BASELINES, label_of, one_policy_each

__all__ = ["best_method", "rare_df", "rare_terms_note", "top_terms_table"]


def top_terms_table(terms: pd.DataFrame, top: int = 15) -> pd.DataFrame:
    """Top terms of every (method, policy) as side-by-side columns (rows are positions)."""
    single = one_policy_each(terms)
    terms = terms[terms["position"] <= top]
    cols = {label_of(m, a, single): g.set_index("position")["term"]
            for (m, a), g in terms.groupby(["method", "aggregate"], sort=False)}
    return pd.DataFrame(cols).rename_axis("position")


def rare_df(min_df: int) -> int:
    """The document frequency at or below which the report calls a term rare: twice the
    vocabulary's floor ``min_df`` (in documents), and at least 3.

    A vocabulary is Zipf-shaped: about half the terms ``min_df`` keeps are within twice the
    floor (on the bundled 20 Newsgroups sample the median df of a fold's training vocabulary
    is 6 with ``min_df = 3`` and 4 with ``min_df = 2``), so a term at or below the limit is
    among the rarer half of the vocabulary; 3 documents are few in any corpus.

    >>> rare_df(1), rare_df(2), rare_df(5)
    (3, 4, 10)
    """
    return max(3, 2 * int(min_df))


def rare_terms_note(terms: pd.DataFrame, min_df: int = 1, top: int = 15) -> str | None:
    """One line naming every method (and policy) of ``terms`` (with its ``df`` column) more
    than half of whose top ``top`` terms are rare (``df <= rare_df(min_df)``), and why; None
    when there is none. The rule reads only document frequencies, never method names."""
    if "df" not in terms:
        return None
    limit = rare_df(min_df)
    single = one_policy_each(terms)
    head = terms[terms["position"] <= top]
    rare = [label_of(m, a, single)
            for (m, a), g in head.groupby(["method", "aggregate"], sort=False)
            if (g["df"] <= limit).sum() * 2 > len(g)]
    if not rare:
        return None
    return (f"{', '.join(rare)}: most of their top {top} terms occur in at most {limit} "
            f"training documents (min_df {min_df}). These scores reward a term for belonging "
            "to one class (or one rank), not for being frequent, and a word seen in a "
            "document or two belongs to one class: it gets the best score there is.")


def best_method(summary: pd.DataFrame, learner: str, metric: str) -> tuple[str, str] | None:
    """The (method, policy) whose mean ``metric`` with ``learner``, averaged over the levels
    below "all" (where every method keeps every term and so ties), is best; the first in
    name order among equals. Baselines are not candidates; None when there is no method, or
    no method has a value (no term passed its alpha in any fold: the run's note says so)."""
    part = summary[(summary["learner"] == learner) & (summary["metric"] == metric)
                   & ~summary["method"].isin(list(BASELINES))]
    if "ratio" in part:
        below = part[~(part["ratio"] == 1)]
        part = below if len(below) else part
    means = part.groupby(["method", "aggregate"])["mean"].mean().dropna()
    if means.empty:
        return None
    best = means.min() if lower_is_better(metric) else means.max()
    return means[means == best].index[0]
