"""The majority-class trap: results whose accuracy looks good because the learner mostly
predicts the largest class, seen as a macro-F1 far below the accuracy.

On skewed classes accuracy rewards predicting the majority class; macro-F1 (the mean of the
per-class F1) does not, since every class counts the same. A result is *flagged* when its
(mean) accuracy exceeds its (mean) macro-F1 by more than :data:`TRAP_GAP`, 1/6: the gap of
the majority-class predictor on the least skewed data there is. The predictor that always
answers the majority class, of share ``p`` among ``m`` classes, has accuracy ``p`` and macro-F1
``2p / (m (1 + p))`` (F1 ``2p / (1 + p)`` on the majority class, 0 on the others); with two
classes its gap ``p^2 / (1 + p)`` grows from 1/6 at ``p = 1/2`` (accuracy 1/2, macro-F1 1/3)
to 0.43 at ``p = 0.9``. A result is flagged when accuracy overstates it more than always
answering the majority class of two equal classes would.

Measured (docs/guide/reports.md): on Amazon Alexa's feedback flag (92% positive) the
unweighted logistic regression (accuracy 0.922, macro-F1 0.480: it answers "positive" for
every review) and naive Bayes on every term (0.945, 0.759) are flagged; the same learners with
``class_weight = "balanced"`` (gaps 0.113 and 0.129) are not; no result of ``textsift demo``
on the balanced 20 Newsgroups sample is (largest gap 0.040).
"""

from __future__ import annotations

import pandas as pd

__all__ = ["TRAP_GAP", "majority_class_trap"]

#: A result is flagged when its accuracy exceeds its macro-F1 by more than this.
TRAP_GAP = 1 / 6
_KEYS = ["dataset", "method", "aggregate", "n_features", "ratio", "alpha", "learner"]


def majority_class_trap(summary: pd.DataFrame, gap: float = TRAP_GAP) -> pd.DataFrame:
    """The results of ``summary`` (a run's ``summary``: one row per result and measure, with
    its ``mean``) whose mean accuracy exceeds their mean macro-F1 by more than ``gap``, with
    columns ``accuracy``, ``macro_f1`` and ``gap``, the largest gap first. Empty when the run
    did not measure both; the trivial predictor (Triv, the majority class by design) is left
    out."""
    columns = [*_KEYS, "accuracy", "macro_f1", "gap"]
    both = summary[summary["metric"].isin(["accuracy", "macro_f1"])
                   & (summary["method"] != "triv")]
    if both["metric"].nunique() < 2:
        return pd.DataFrame(columns=columns)
    keys = [k for k in _KEYS if k in both]
    wide = both.set_index([*keys, "metric"])["mean"].unstack("metric").reset_index()
    wide = wide.dropna(subset=["accuracy", "macro_f1"])
    wide = wide.assign(gap=wide["accuracy"] - wide["macro_f1"])
    flagged = wide[wide["gap"] > gap].sort_values("gap", ascending=False, kind="stable")
    return flagged.reindex(columns=columns).reset_index(drop=True)
