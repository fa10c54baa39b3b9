"""Pictures and tables of an AdaBag run: the bagging-frequency bar chart, validation and test
error against the cutoff ``c``, and a word cloud of ``A_{c*}`` sized by ``|OLS coefficient|``
and coloured by its sign (PNG, matplotlib + wordcloud)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .._io import atomic_write, atomic_write_text
from ..errors import TextsiftError
from ..lasso.adabag import bootstrap_seconds

__all__ = ["bfd_chart", "bfd_table", "cutoff_chart", "save_adabag", "word_cloud"]

POSITIVE, NEGATIVE = "#1b7837", "#b2182b"


def _figure():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def bfd_table(frequencies, names) -> pd.DataFrame:
    """``term,frequency`` for words selected at least once, by decreasing frequency (ties in
    vocabulary order)."""
    f = np.asarray(frequencies)
    order = np.argsort(-f, kind="stable")
    order = order[f[order] > 0]
    return pd.DataFrame({"term": np.asarray(names, dtype=object)[order], "frequency": f[order]})


def bfd_chart(frequencies, names, path, label_limit: int = 60, n_bootstraps: int | None = None):
    """The bagging frequency distribution: every word selected at least once, by decreasing
    frequency (one bar per word); words are named on the axis when there are at most
    ``label_limit`` of them (beyond, the bars touch and are drawn as one filled outline: a
    patch per bar took two seconds for IMDb's 1,923 words)."""
    plt = _figure()
    table = bfd_table(frequencies, names)
    n = len(table)
    fig, ax = plt.subplots(figsize=(max(6.5, 0.22 * n + 2) if n <= label_limit else 9, 4))
    if n <= label_limit:
        ax.bar(np.arange(n), table["frequency"], width=0.8, color="#4c72b0")
        ax.set_xticks(np.arange(n), table["term"], rotation=90, fontsize=8)
    else:
        ax.stairs(table["frequency"], np.arange(n + 1) - 0.5, fill=True, color="#4c72b0")
        ax.set_xlabel(f"{n} words selected at least once, by decreasing frequency")
    ax.set_ylabel("bagging frequency" + (f" (of {n_bootstraps})" if n_bootstraps else ""))
    ax.set_title("Bagging frequency distribution")
    fig.tight_layout()
    atomic_write(path, lambda fh: fig.savefig(fh, dpi=120, format="png"))
    plt.close(fig)


def cutoff_chart(cutoffs, validation, test, cutoff, path, criterion="misclassification"):
    """Validation and test loss (of ``criterion``, the misclassification error by default) of
    ``A_c`` against ``c``; ``c*`` marked."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(cutoffs, validation, label="validation", color="#4c72b0")
    ax.plot(cutoffs, test, label="test", color="#dd8452")
    ax.axvline(cutoff, color="grey", ls="--", lw=1, label=f"c* = {cutoff}")
    ax.set_xlabel("cutoff c (model A_c = words with frequency >= c)")
    ax.set_ylabel("misclassification error" if criterion == "misclassification" else
                  f"loss of the criterion {criterion}")
    ax.legend()
    fig.tight_layout()
    atomic_write(path, lambda fh: fig.savefig(fh, dpi=120, format="png"))
    plt.close(fig)


def word_cloud(names, coef, path, top: int = 150, seed: int = 0):
    """Word cloud of the ``top`` words by ``|coef|``: size ~ ``|coef|``, green positive, red
    negative."""
    from wordcloud import WordCloud

    names, coef = np.asarray(names, dtype=object), np.asarray(coef, dtype=float)
    order = np.argsort(-np.abs(coef), kind="stable")[:top]
    order = order[coef[order] != 0]
    if len(order) == 0:
        raise TextsiftError("no non-zero coefficient: nothing to draw")
    sign = {str(names[j]): coef[j] > 0 for j in order}
    cloud = WordCloud(width=900, height=500, background_color="white", random_state=seed,
                      prefer_horizontal=0.9)
    cloud.generate_from_frequencies({str(names[j]): float(abs(coef[j])) for j in order})
    cloud.recolor(color_func=lambda word, **_: POSITIVE if sign.get(word) else NEGATIVE)
    atomic_write(path, lambda fh: cloud.to_image().save(fh, format="PNG"))


def save_adabag(run, names, out, extra: dict | None = None, pictures: bool = True) -> dict:
    """Write ``summary.json``, ``bfd.csv``, ``cutoffs.csv`` and the pictures of a
    :class:`~textsift.lasso.HoldoutRun` to ``out``; returns the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = np.asarray(names, dtype=object)
    model = run.model
    selected = np.flatnonzero(model.support_)
    coef = model.coef_[selected]
    summary = {
        "test_error": run.test_error,
        "validation_error": model.validation_error_,
        "model_size": int(len(selected)),
        "cutoff": model.cutoff_,
        "selected_terms": [str(t) for t in names[selected]],
        "coefficients": {str(names[j]): float(c) for j, c in zip(selected, coef, strict=True)},
        "intercept": model.intercept_,
        "test_error_by_group": run.test_error_by_group,
        "group_weights": {str(g): float(r) for g, r in zip(model.groups_, model.r_,
                                                           strict=True)},
        "n_bootstraps": model.n_bootstraps,
        "criterion": model.criterion_.name,
        "class_weight": model.class_weight_.tolist(),
        "threshold": model.threshold_,
        "final_penalty": model.final_penalty_,
        "test_scores": run.test_scores,
        "n_features": int(len(names)),
        "split_sizes": {k: int(np.sum(run.part == i))
                        for i, k in enumerate(("core", "validation", "test"))},
        "seconds": run.seconds,
        "stage_seconds": {**model.seconds_,
                          "bootstrap_cpu": bootstrap_seconds(model.bootstraps_)},
        **(extra or {}),
    }
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1, allow_nan=False))
    atomic_write(out / "bfd.csv",
                 lambda fh: bfd_table(model.frequencies_, names).to_csv(fh, index=False))
    cut = pd.DataFrame({"cutoff": model.cutoffs_, "model_size": model.sizes_,
                        "validation_error": model.validation_errors_,
                        "test_error": run.test_errors})  # the criterion's loss
    atomic_write(out / "cutoffs.csv", lambda fh: cut.to_csv(fh, index=False))
    if pictures:
        bfd_chart(model.frequencies_, names, out / "bfd.png", n_bootstraps=model.n_bootstraps)
        cutoff_chart(model.cutoffs_, model.validation_errors_, run.test_errors,
                     model.cutoff_, out / "cutoff.png", model.criterion_.name)
        if np.any(coef != 0):
            word_cloud(names[selected], coef, out / "wordcloud.png")
    return summary
