"""Curves of an experiment: a metric against the number of terms kept, one line per method.

One figure per metric, as wide as the report's page: a panel per learner side by side (and a
row of panels per selection policy when the experiment compares policies; a method with a
single score column, such as ``df`` or ``ig_multi``, is the same under every policy and is
drawn in each row). An experiment given in ratios is drawn as Baccianella et al. draw it:
the metric against the reduction level (% of the vocabulary kept) on a logarithmic axis. The
FFS and Triv baselines are horizontal lines. With several folds (or tasks) each point is the
mean and its error bar +/- one standard deviation, and the title says over how many.
Figures are written as PNG and SVG (matplotlib, Agg).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .._io import atomic_write  # noqa: E402
from ..learners.metrics import lower_is_better  # noqa: E402
from ..scores import REGISTRY  # noqa: E402

if TYPE_CHECKING:
    from ..experiment.specs import LearnerSpec

__all__ = ["BASELINES", "Figure", "curve_figures", "label_of", "learner_title", "metric_name",
           "method_name", "one_policy_each", "spread_caption"]

BASELINES = {"ffs": ("FFS (every term)", "black", "--"), "triv": ("Triv", "grey", ":")}
_METRICS = {
    "accuracy": "accuracy", "micro_f1": "micro-averaged F1", "macro_f1": "macro-averaged F1",
    "precision": "macro-averaged precision", "recall": "macro-averaged recall",
    "misclassification_error": "misclassification error", "f1_pos": "F1 of the positive class",
    "precision_pos": "precision of the positive class",
    "recall_pos": "recall of the positive class",
    "mae_macro": "MAE^M (macro-averaged MAE)", "mae_micro": "MAE^mu (plain MAE)",
    "samples_f1": "F1 of each document's label set, averaged", "hamming_loss": "Hamming loss",
}
_MARKUP = {"tex": (("^M", "$^M$"), ("^mu", "$^\\mu$")),
           "html": (("^M", "<sup>M</sup>"), ("^mu", "<sup>μ</sup>")), "text": ()}
_LEARNERS = {"nb": "naive Bayes", "linear_svm": "linear SVM",
             "logreg": "logistic regression", "svr": "ε-SVR rounded to ranks"}
_ORDINAL = {"var": "Var", "rr_var": "RR(Var)", "var_idf": "Var*IDF",
            "rr_var_idf": "RR(Var*IDF)", "rr_igor": "RR(IGOR)", "rr_nc_idf": "RR(NC*IDF)",
            "prp": "PRP (provisional)"}


@dataclass(frozen=True)
class Figure:
    title: str
    png: Path
    svg: Path


def metric_name(metric: str, markup: str = "text", direction: bool = True) -> str:
    """A measure as a reader names it (``markup``: "text", "tex" for matplotlib or "html"),
    and which way is better."""
    name = _METRICS.get(metric, metric)
    for plain, marked in _MARKUP[markup]:
        name = name.replace(plain, marked)
    if not direction:
        return name
    return f"{name}, {'lower' if lower_is_better(metric) else 'higher'} is better"


def method_name(method: str) -> str:
    """Ordinal methods as the papers write them; baselines by name; the rest as registered."""
    if method in BASELINES:
        return BASELINES[method][0]
    m = REGISTRY.get(method)
    return _ORDINAL.get(method, m.label if m else method)


def one_policy_each(frame: pd.DataFrame) -> bool:
    """Whether every method of a table is ranked under one policy (then a label needs no
    policy: it is the method's own)."""
    return bool((frame.groupby("method")["aggregate"].nunique() <= 1).all())


def label_of(method: str, aggregate: str, single_policy: bool) -> str:
    """A curve's legend: the method's readable name, with its policy when several are shown."""
    name = method_name(method)
    return name if single_policy or method in BASELINES else f"{name} ({aggregate})"


def learner_title(spec: LearnerSpec) -> str:
    """``LearnerSpec("svr", "svr-balanced", ..., (("balanced", True),))`` ->
    "svr-balanced: ε-SVR rounded to ranks, balanced weights"."""
    what = _LEARNERS.get(spec.name, spec.name)
    params = dict(spec.params)
    if params.get("balanced"):
        what += ", balanced weights"
    if "class_weight" in params:
        what += (", balanced class weights" if params["class_weight"] == "balanced" else
                 ", class weights")
    return what if spec.label == spec.name else f"{spec.label}: {what}"


def _one_column(method: str) -> bool:
    m = REGISTRY.get(method)
    return m is not None and m.aggregates == ("max",)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "-" for ch in text).strip("-")


def spread_caption(summary: pd.DataFrame, unit: str = "folds") -> str | None:
    """"mean over 5 folds, error bars ± one standard deviation" for a summary over several
    folds (or, ``unit="tasks"``, tasks); ``None`` for one split."""
    n = int(summary["folds"].max())
    return f"mean over {n} {unit}, error bars ± one standard deviation" if n > 1 else None


def curve_figures(summary: pd.DataFrame, out_dir, dataset: str = "",
                  learners: dict | None = None, unit: str = "folds") -> list[Figure]:
    """Draw a figure per metric of ``summary`` (the summary table) into ``out_dir`` (none
    when its only levels are alphas, whose numbers of terms differ by fold: no curve);
    ``learners`` maps a learner's label to its title; ``unit`` names what the means and
    standard deviations are over ("folds", or "tasks" for a macro-average). Each file is
    written atomically over its earlier version; the figures of an earlier report that are
    not drawn again are left for the caller to remove once the new page links the new set
    (:func:`textsift.report.html.write_report`): a report killed half-way never links a
    missing file."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    learners = learners or {}
    base = summary[summary["method"].isin(list(BASELINES))]
    curves = summary[~summary["method"].isin(list(BASELINES))]
    if "alpha" in curves:  # not a curve: their numbers of terms differ by fold (the tables)
        curves = curves[curves["alpha"].isna()]
    if curves.empty:  # only alphas: no curve to draw
        return []
    # a ratio experiment has no level given as a number of terms
    by_ratio = curves["ratio"].notna().all() and not curves.empty
    single = {m for m in curves["method"].unique() if _one_column(m)}
    policies = sorted(curves.loc[~curves["method"].isin(single), "aggregate"].unique()) or \
        sorted(curves["aggregate"].unique())
    methods = sorted(curves["method"].unique(), key=method_name)
    palette = plt.cm.tab10 if len(methods) <= 10 else plt.cm.tab20
    style = {m: (palette(i % palette.N), "-" if i < palette.N else "--")
             for i, m in enumerate(methods)}
    spread = spread_caption(summary, unit)
    figures: list[Figure] = []
    drawn: dict = {}  # a figure of each shape, drawn again for the next metric
    try:
        for metric, part in summary.groupby("metric", sort=False):
            present = list(dict.fromkeys(part["learner"]))  # in the file's order when known
            columns = [lb for lb in learners if lb in present] + [
                lb for lb in present if lb not in learners]
            fig, axes = _blank(drawn, len(policies), len(columns))
            for (row, policy), (col, learner) in ((r, c) for r in enumerate(policies)
                                                  for c in enumerate(columns)):
                ax = axes[row][col]
                panel = curves[(curves["metric"] == metric) & (curves["learner"] == learner) & (
                    (curves["aggregate"] == policy) | curves["method"].isin(single))]
                _draw_curves(ax, panel, style, by_ratio)
                _draw_baselines(ax, base[(base["metric"] == metric)
                                         & (base["learner"] == learner)])
                title = learners.get(learner, learner)
                row_name = ("; each label's own terms (scope local)" if policy == "local" else
                            f"; policy {policy}")
                ax.set_title(title + (row_name if len(policies) > 1 else ""), fontsize=10)
                ax.set_xlabel("% of the vocabulary kept" if by_ratio else "number of terms")
                ax.grid(True, alpha=0.3)
            for row in axes:
                row[0].set_ylabel(metric_name(metric, "tex", direction=False))
            handles = {}  # every line once, also those drawn in some panels only
            for ax in axes.flat:
                for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                    handles.setdefault(lab, h)
            fig.legend(handles.values(), handles.keys(), loc="lower center", fontsize=9,
                       ncol=min(len(handles), 6), frameon=False)
            title = f"{dataset}: {metric_name(metric)}".strip(": ")
            suffix = f"; {spread}" if spread else ""
            fig.suptitle(f"{dataset}: {metric_name(metric, 'tex')}".strip(": ") + suffix,
                         fontsize=11)
            rows_of_legend = -(-len(handles) // 6)
            fig.tight_layout(rect=(0, 0.05 * rows_of_legend / len(policies) + 0.02, 1, 1))
            figures.append(_save(fig, out_dir / _slug(metric), title))
    finally:
        for fig, _ in drawn.values():
            plt.close(fig)
    return figures


def _blank(drawn: dict, rows: int, columns: int):
    """``(fig, axes)``: a figure of ``rows`` x ``columns`` panels sharing their y axis, the
    one of that shape drawn for an earlier metric emptied of its curves, baselines and
    legend (its axes, ticks and fonts made once: most of a figure's cost), else a new one
    kept in ``drawn``. Every metric has the same levels (each trial measures them all), so
    the x axis an earlier metric set up (its scale, its ticks) is the one the next would
    get: the files are those of a new figure, to the byte (PNG)."""
    if (rows, columns) in drawn:
        fig, axes = drawn[rows, columns]
        for ax in axes.flat:
            for container in list(ax.containers):  # an error bar's lines with it
                container.remove()
            for artist in [*ax.lines, *ax.collections]:
                artist.remove()
            ax.relim()
        for legend in list(fig.legends):
            legend.remove()
        return fig, axes
    drawn[rows, columns] = plt.subplots(rows, columns, squeeze=False, sharey=True,
                                        figsize=(12, 0.6 + 3.7 * rows))
    return drawn[rows, columns]


def _draw_baselines(ax, base: pd.DataFrame) -> None:
    """A horizontal line per baseline of ``base`` (one metric and learner): its mean."""
    for method, (label, colour, dash) in BASELINES.items():
        line = base[base["method"] == method]
        if len(line):
            ax.axhline(line["mean"].iloc[0], color=colour, ls=dash, lw=1.3, label=label)


def _save(fig, stem: Path, title: str) -> Figure:
    """``fig`` written as ``stem.png`` and ``stem.svg`` (atomically)."""
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    atomic_write(png, lambda fh: fig.savefig(fh, dpi=100, format="png"))
    atomic_write(svg, lambda fh: fig.savefig(fh, format="svg"))
    return Figure(title, png, svg)


def _draw_curves(ax, panel: pd.DataFrame, style, by_ratio: bool) -> None:
    """A line per method of ``panel``; with several folds, an error bar of +/- one standard
    deviation at each point (bands of many methods overlap into a wash)."""
    x_of = (lambda d: 100 * d["ratio"]) if by_ratio else (lambda d: d["n_features"])
    for method, line in panel.groupby("method", sort=False):
        line = line.sort_values("ratio" if by_ratio else "n_features")
        colour, dash = style[method]
        aggregates = line["aggregate"].unique()
        ax.plot(x_of(line), line["mean"], marker="o", ms=3, lw=1.4, ls=dash, color=colour,
                label=label_of(method, aggregates[0], len(aggregates) == 1))
        if (line["folds"] > 1).any():
            ax.errorbar(x_of(line), line["mean"], yerr=line["std"], fmt="none",
                        ecolor=colour, elinewidth=1, capsize=2.5, alpha=0.8)
    if panel.empty:
        return
    x = x_of(panel)
    if by_ratio or x.max() / max(x.min(), 1) > 20:
        ax.set_xscale("log")
    if by_ratio:
        ticks = sorted(x.unique())
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=8)
        ax.minorticks_off()
