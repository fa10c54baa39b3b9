"""Curves of an experiment: a metric against the number of terms, one line per method.

One figure per (learner, metric), with one panel per selection policy when the experiment
compares policies (a method with a single score column, such as ``df`` or ``ig_multi``, is
the same under every policy and is drawn in each panel). The x axis is logarithmic when the
sizes span more than a factor of 20. With several folds each point is the mean and the band
is +/- one standard deviation. Figures are written as PNG and SVG (matplotlib, Agg backend).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..scores import get_method  # noqa: E402

__all__ = ["LOWER_IS_BETTER", "Figure", "curve_figures", "label_of"]

#: Metrics where a smaller value is better.
LOWER_IS_BETTER = {"misclassification_error", "mae_macro", "mae_micro"}


@dataclass(frozen=True)
class Figure:
    title: str
    png: Path
    svg: Path


def label_of(method: str, aggregate: str, single_policy: bool) -> str:
    return method if single_policy else f"{method} ({aggregate})"


def _one_column(method: str) -> bool:
    try:
        return get_method(method).aggregates == ("max",)
    except ValueError:  # a method no longer registered: draw it as it was run
        return False


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text).strip("-")


def curve_figures(summary: pd.DataFrame, out_dir, dataset: str = "") -> list[Figure]:
    """Draw every (learner, metric) curve of ``summary`` (the summary table) into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # a method scored as one column (df, ig_multi) is the same under every policy: it is
    # drawn in every panel, and the panels are the policies of the per-class methods
    single = {m for m in summary["method"].unique() if _one_column(m)}
    policies = sorted(summary.loc[~summary["method"].isin(single), "aggregate"].unique()) or \
        sorted(summary["aggregate"].unique())
    sizes = summary["n_features"]
    log_x = sizes.max() / max(sizes.min(), 1) > 20
    methods = sorted(summary["method"].unique())
    palette = plt.cm.tab10 if len(methods) <= 10 else plt.cm.tab20
    style = {m: (palette(i % palette.N), "-" if i < palette.N else "--")
             for i, m in enumerate(methods)}
    band = 0.15 if len(methods) <= 4 else 0.05  # many overlapping bands hide the lines
    figures = []
    for (learner, metric), part in summary.groupby(["learner", "metric"], sort=True):
        fig, axes = plt.subplots(1, len(policies), figsize=(4.2 * len(policies) + 1.5, 3.8),
                                 sharey=True, squeeze=False)
        for ax, policy in zip(axes[0], policies, strict=True):
            panel = part[(part["aggregate"] == policy) | part["method"].isin(single)]
            for method, line in panel.groupby("method", sort=True):
                line = line.sort_values("n_features")
                colour, dash = style[method]
                ax.plot(line["n_features"], line["mean"], marker="o", ms=3, lw=1.4,
                        ls=dash, label=method, color=colour)
                if (line["folds"] > 1).any():
                    ax.fill_between(line["n_features"], line["mean"] - line["std"],
                                    line["mean"] + line["std"], color=colour, alpha=band)
            if log_x:
                ax.set_xscale("log")
            ax.set_xlabel("number of terms")
            ax.set_title(f"policy: {policy}" if len(policies) > 1 else "", fontsize=10)
            ax.grid(True, alpha=0.3)
        axes[0][0].set_ylabel(metric)
        handles = {}  # every method once, also those drawn in some panels only
        for ax in axes[0]:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(lab, h)
        axes[0][-1].legend([handles[m] for m in methods if m in handles],
                           [m for m in methods if m in handles], fontsize=8,
                           loc="center left", bbox_to_anchor=(1.02, 0.5))
        title = f"{dataset}: {metric}, {learner}".strip(": ")
        fig.suptitle(title, fontsize=11)
        fig.tight_layout()
        stem = out_dir / _slug(f"{learner}-{metric}")
        png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
        fig.savefig(png, dpi=100)
        fig.savefig(svg)
        plt.close(fig)
        figures.append(Figure(title, png, svg))
    return figures
