"""``DIR/report.html``: a self-contained report of an experiment directory, for a person.

The page holds, in one file with every image inline (``data:image/png;base64``): what was run
(corpus, protocol, learners and measures by name), the notes of the run, a figure per metric
as wide as the page (learners side by side; under cross-validation each point the mean over
the folds with an error bar of one standard deviation, the number of folds in the caption),
the best method at each level, the top terms of each method side by side (with a note naming
the methods whose top terms are rare words, and why: :func:`.terms.rare_terms_note`), the top
terms of each class under the best method (``class_terms.csv``, as the run wrote it), for label sets
each label's F1 (:func:`per_label_table`), the table of results (mean and std over folds only
when there are folds) with, beside it, the results whose macro-F1 is far below their accuracy
(:func:`.trap.majority_class_trap`), and links to the files. The figures are also written as
PNG and SVG files in ``DIR/figures/``. The sections of terms are
:mod:`textsift.report.terms`' (``terms_sections``); this module puts the page together.
"""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._io import atomic_write
from ..errors import TextsiftError
from ..experiment.store import Store, by_level, level_columns
from ..learners.metrics import lower_is_better
from .plots import (
    BASELINES,
    curve_figures,
    label_of,
    learner_title,
    method_name,
    metric_name,
    one_policy_each,
    spread_caption,
)
from .terms import best_method, terms_sections
from .trap import TRAP_GAP, majority_class_trap

if TYPE_CHECKING:
    from ..experiment.specs import Experiment

__all__ = ["best_per_size", "macro_over_tasks", "passing_table", "per_label_table",
           "write_report"]

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left}th{background:#f4f4f4}
img{width:100%;display:block;margin:1em 0}.note{color:#8a5a00}code{background:#f4f4f4}
summary{cursor:pointer;margin:.4em 0}ul.files{columns:3}h3{font-size:1em}
tr:target{background:#fff3c4}
"""
_FILES = ("results.csv", "results.parquet", "summary.csv", "summary.parquet", "terms.csv",
          "class_terms.csv", "term_evidence.csv", "labels.csv", "labels.parquet", "timings.csv",
          "notes.json", "run.json", "experiment.json")


def _column(summary: pd.DataFrame, name: str) -> pd.Series:
    return summary[name] if name in summary else pd.Series(np.nan, summary.index)


def _levels(summary: pd.DataFrame) -> pd.Series:
    """A readable name for each row's level: "0.5%" for a ratio, "all (12,942)" for every
    term, "alpha 0.05" for a significance level (its numbers of terms differ by method and
    fold: :func:`passing_table`), the number of terms otherwise."""
    ratio, alpha = _column(summary, "ratio"), _column(summary, "alpha")
    by_ratio = (ratio.notna() | alpha.notna() | summary["method"].isin(list(BASELINES))).all()
    return pd.Series([f"alpha {a:g}" if a == a else f"{100 * r:g}%" if by_ratio and r < 1 else
                      f"all ({n:,})" if r == 1 else f"{n:,}"
                      for n, r, a in zip(summary["n_features"], ratio, alpha, strict=True)],
                     index=summary.index)


def _level_order(summary: pd.DataFrame) -> list[str]:
    """The levels' names in order: numbers of terms, ratios, alphas, then every term."""
    ratio, alpha = _column(summary, "ratio"), _column(summary, "alpha")
    kind = np.select([ratio == 1, alpha.notna(), ratio.notna()], [3, 2, 1], 0)
    key = summary.assign(level=_levels(summary), kind=kind,
                         value=alpha.fillna(ratio).fillna(summary["n_features"]))
    return list(key.sort_values(["kind", "value"])["level"].drop_duplicates())


def passing_table(results: pd.DataFrame) -> pd.DataFrame:
    """How many terms pass each alpha: per method (and scope: a label's own terms, a one-vs-rest
    task's class) and alpha, the mean number of terms kept over the folds (and tasks) with
    their least and greatest, from the results' ``n_features`` (scope local: the mean per
    label). Empty without alphas."""
    if "alpha" not in results:
        return pd.DataFrame()
    rows = results[results["alpha"].notna()]
    rows = rows.assign(selection=[m if a not in ("local", "pos") else
                                  f"{m} ({'each label' if a == 'local' else 'the class'}'s own)"
                                  for m, a in zip(rows["method"], rows["aggregate"],
                                                  strict=True)])
    one = rows.drop_duplicates(["selection", "alpha", "dataset", "fold"])
    stats = one.groupby(["selection", "alpha"])["n_features"].agg(["mean", "min", "max"])
    cell = [f"{m:,.0f}" if lo == hi else f"{m:,.0f} ({lo:,}-{hi:,})"
            for m, lo, hi in zip(stats["mean"], stats["min"], stats["max"], strict=True)]
    wide = stats.assign(cell=cell)["cell"].unstack("alpha")
    return wide.rename(columns=lambda a: f"alpha {a:g}").rename_axis(None).rename_axis(
        None, axis=1)


def best_per_size(summary: pd.DataFrame) -> pd.DataFrame:
    """For each learner, metric and level, the method (and policy) with the best mean; equal
    best means are all named (``"a = b"``), and ``"all tied"`` when every method has it.
    Baselines are not candidates."""
    summary = summary[~summary["method"].isin(list(BASELINES))]
    single = one_policy_each(summary)
    levels = _levels(summary)
    rows = []
    for (learner, metric, level), part in summary.groupby(["learner", "metric", levels]):
        value = part["mean"].min() if lower_is_better(metric) else part["mean"].max()
        tied = part[part["mean"] == value]
        names = ("all tied" if len(tied) == len(part) > 1 else " = ".join(
            label_of(m, a, single) for m, a in zip(tied["method"], tied["aggregate"],
                                                   strict=True)))
        rows.append({"learner": learner, "metric": metric, "level": level,
                     "best": f"{names} ({value:.4f})"})
    table = pd.DataFrame(rows).pivot(index="level", columns=["learner", "metric"],
                                     values="best")
    return table.reindex(_level_order(summary)).rename_axis(None)


def macro_over_tasks(summary: pd.DataFrame) -> pd.DataFrame:
    """Average a summary over its datasets (e.g. the binary tasks of a one-vs-rest
    experiment): mean of the per-task means, their std across tasks, ``folds`` = tasks (with
    a value); per level, as :func:`~textsift.experiment.store.summarise` groups them (an
    alpha's tasks keep different numbers of terms: ``n_features`` is their mean)."""
    levels = level_columns(summary)
    keys = ["method", "aggregate", *levels, "n_level", "learner", "metric"]
    out = by_level(summary).groupby(keys, sort=True, dropna=False).agg(
        n_features=("n_features", "mean"), mean=("mean", "mean"), std=("mean", "std"),
        folds=("mean", "count")).reset_index()
    out["n_features"] = out["n_features"].round().astype("int64")
    return out.drop(columns="n_level").assign(dataset="all tasks", std=out["std"].fillna(0.0))


def per_label_table(labels: pd.DataFrame, learner: str, method: str,
                    aggregate: str) -> pd.DataFrame:
    """Each label's F1 with ``learner`` (``labels``: the rows of ``labels.csv``), mean over
    folds: its training and test documents, its F1 with every term, then with ``method``
    under ``aggregate`` at each level below all. Rows: the labels, most training documents
    first."""
    part = labels[labels["learner"] == learner]
    docs = part.groupby("label")[["train", "test"]].mean().round().astype("int64")
    out = docs.rename(columns={"train": "training documents", "test": "test documents"})
    every = part[part["ratio"] == 1]
    if len(every):
        first = every.iloc[0]
        every = every[(every["method"] == first["method"])
                      & (every["aggregate"] == first["aggregate"])]
        out["every term"] = every.groupby("label")["f1"].mean()
    chosen = part[(part["method"] == method) & (part["aggregate"] == aggregate)
                  & ~(part["ratio"] == 1)]
    if len(chosen):
        keys = [*level_columns(chosen), "n_level", "label"]
        means = by_level(chosen).groupby(keys, dropna=False).agg(
            n_features=("n_features", "mean"), f1=("f1", "mean")).reset_index()
        means["n_features"] = means["n_features"].round().astype("int64")
        means["level"] = _levels(means.assign(method=method)).to_numpy()
        order = _level_order(means.assign(method=method))
        wide = means.pivot(index="label", columns="level", values="f1").reindex(columns=order)
        out = out.join(wide.rename(columns=lambda c: f"{c} terms" if c[0].isdigit() and
                                   not c.endswith("%") else c))
    out = out.sort_values(["training documents", "test documents"], ascending=False,
                          kind="stable")
    return out.rename_axis(None)


def _per_label_section(store: Store, exp: Experiment, summary: pd.DataFrame) -> list[str]:
    """Label sets: each label's F1 under the first learner, every term and the best method."""
    path = store.root / "labels.parquet"
    if not path.exists():
        return []
    learner, metric = exp.learners[0], exp.metrics[0]
    best = best_method(summary, learner.label, metric) or (None, None)
    table = per_label_table(pd.read_parquet(path), learner.label, *best)
    what = (f"and with {method_name(best[0])} (policy {best[1]}), the best mean "
            if best[0] else "")
    text = (html.escape(f"F1 of each label with {learner_title(learner)}: with every term ")
            + html.escape(what) + (metric_name(metric, "html", direction=False) + html.escape(
                " over the levels below all, at each level") if best[0] else "")
            + html.escape(". A label's F1 is 0 where it has no true or predicted positive "
                          "test document (as the macro average counts it)."))
    return ["<h2>Each label's F1</h2>", f"<p>{text}</p>",
            table.to_html(escape=True, float_format=lambda v: f"{v:.3f}")]


def _results_tables(summary: pd.DataFrame, learners: dict, folds: int) -> list[str]:
    """Per (learner, metric): the methods against the levels, then the baselines (one value,
    the same at every level: the horizontal lines of the figures)."""
    single = one_policy_each(summary)
    cell = (lambda r: f"{r['mean']:.4f}") if folds == 1 else (
        lambda r: f"{r['mean']:.4f} ± {r['std']:.4f}")
    out = []
    is_base = summary["method"].isin(list(BASELINES))
    frame = summary.assign(level=_levels(summary),
                           name=[label_of(m, a, single) for m, a in
                                 zip(summary["method"], summary["aggregate"], strict=True)],
                           cell=summary.apply(cell, axis=1), base=is_base)
    order = _level_order(summary[~is_base])
    rank = {lb: i for i, lb in enumerate(learners)}  # the file's order of the learners
    groups = frame.groupby(["learner", "metric"], sort=False)
    for (learner, metric), part in sorted(groups, key=lambda g: rank.get(g[0][0], len(rank))):
        wide = part[~part["base"]].pivot(index="name", columns="level", values="cell")
        wide = wide.reindex(columns=order).fillna("")
        for name, value in zip(part.loc[part["base"], "name"], part.loc[part["base"], "cell"],
                               strict=True):
            wide.loc[name] = value
        out.append(f"<details><summary>{html.escape(learners.get(learner, learner))}: "
                   f"{metric_name(metric, 'html')}</summary>"
                   + wide.rename_axis(None, axis=1).to_html(escape=True, index_names=False)
                   + "</details>")
    return out


def _trap_note(summary: pd.DataFrame, learners: dict, shown: int = 10) -> list[str]:
    """The results whose macro-F1 is far below their accuracy, as a note and a table (the
    largest gaps first)."""
    trap = majority_class_trap(summary)
    if trap.empty:
        return []
    single = one_policy_each(summary)
    table = pd.DataFrame({
        "learner": [learners.get(lr, lr) for lr in trap["learner"]],
        "method": [label_of(m, a, single) for m, a in zip(trap["method"], trap["aggregate"],
                                                           strict=True)],
        "level": _levels(trap).to_numpy(),
        "accuracy": trap["accuracy"].map("{:.4f}".format),
        "macro-F1": trap["macro_f1"].map("{:.4f}".format)})
    note = (f"note: {len(trap)} result(s) have a macro-F1 far below their accuracy (by more "
            f"than {TRAP_GAP:.3f}, what always answering the majority class of two equal "
            "classes gives): the learner mostly predicts the largest classes, and accuracy "
            "overstates how well it does on the others -- the majority-class trap. Read "
            "macro-F1, or weight the classes (class_weight = \"balanced\" in [[learners]])."
            + (f" The {shown} largest gaps:" if len(trap) > shown else ""))
    return [f"<p class='note'>{html.escape(note)}</p>",
            table.head(shown).to_html(escape=True, index=False)]


def _curves_section(figures: list, spread: str | None, alphas: bool) -> list[str]:
    """The figures, with what a point is (none when every level is an alpha)."""
    if not figures:
        return []
    out = ["<h2>Curves</h2>"] + ([f"<p>Each point: the {spread}.</p>"] if spread else [])
    if alphas:
        out.append("<p>" + html.escape("The alpha levels are not drawn (each fold keeps its "
                                       "own number of terms there): see the tables.") + "</p>")
    return out + [_img(f.png, f.title) for f in figures]


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _describe(exp: Experiment, summary: pd.DataFrame, dataset: str, learners: dict) -> str:
    folds = int(summary["folds"].max())
    protocol = (f"{folds}-fold cross-validation" if exp.protocol == "cv"
                else "one train/test split")
    if exp.ratios:
        sel = "ratios of the training vocabulary " + ", ".join(
            f"{100 * r:g}%" for r in exp.ratios)
    elif exp.sizes:
        sel = "numbers of terms " + ", ".join(map(str, exp.sizes))
    else:
        sel = ""
    if exp.alphas:
        sel += ("; and " if sel else "") + (
            "the terms whose p-value passes alpha " + ", ".join(map(str, exp.alphas))
            + f" after the {exp.correction} correction over "
            + ("each class's terms" if exp.family == "class" else "every term-class cell")
            + ", in any class (two-sided)")
    esc = html.escape
    text = [esc(f"Corpus {dataset}, {protocol}."),
            esc("Methods: " + ", ".join(method_name(m) for m in exp.methods) + f"; {sel}."),
            esc("Learners: " + "; ".join(learners.values()) + "."),
            "Measures: " + "; ".join(metric_name(m, "html") for m in exp.metrics) + "."]
    if exp.baselines:
        text.append(esc("Baselines: " + ", ".join(method_name(b) for b in exp.baselines)
                        + f" (Triv always says {exp.kind.trivial})."))
    if exp.tuning:
        grids = "; ".join(f"{k} in {{{', '.join(map(str, v))}}}" for k, v in exp.tuning.grids)
        text.append(f"Tuned on a stratified {100 * exp.tuning.val_size:g}% of each training "
                    f"set, by {metric_name(exp.metrics[0], 'html', direction=False)}: "
                    f"{esc(grids)}.")
    return "<p>" + " ".join(text) + f" Seed {exp.seed}.</p>"


def _passing_section(store: Store) -> list[str]:
    """With alphas: how many terms pass each (:func:`passing_table`)."""
    table = passing_table(store.results())
    if table.empty:
        return []
    text = ("The number of terms that pass each alpha, mean over the folds (least-greatest): "
            "what a learner reads at that level. Policies select the same terms there.")
    return ["<h2>Terms that pass each alpha</h2>", f"<p>{html.escape(text)}</p>",
            table.to_html(escape=True)]


def write_report(directory, out=None) -> Path:
    """Write ``out/report.html`` and ``out/figures/*`` (``out``: the experiment ``directory``
    unless given -- elsewhere, a read-only experiment gets its report too); return the
    page's path. The new figures are written over the old, and the old ones the new page no
    longer links are removed after it: at every moment the page on disk links files that
    exist (a ``kill -KILL`` used to leave the old page linking deleted figures)."""
    store = Store(directory)
    home = store.root if out is None else Path(out)
    exp = store.experiment()
    path = store.root / "summary.parquet"
    summary = pd.read_parquet(path) if path.exists() else None
    if summary is None or summary.empty:
        store.results()  # raises the "finish the run first" error
        raise TextsiftError(f"{store.root}: the results table is empty")
    notes_path = store.root / "notes.json"
    notes = json.loads(notes_path.read_text()) if notes_path.exists() else []
    unit = "folds"
    if summary["dataset"].nunique() > 1:
        n_tasks = summary["dataset"].nunique()
        summary, unit = macro_over_tasks(summary), "tasks"
        notes.append(f"curves and tables are means over {n_tasks} tasks (macro-average); the "
                     "error bars are +/- one standard deviation across tasks")
    dataset = exp.corpus.dataset
    if exp.tasks == "one_vs_rest":
        dataset += " (one-vs-rest tasks)"
    learners = {lr.label: learner_title(lr) for lr in exp.learners}
    figures = curve_figures(summary, home / "figures", dataset, learners, unit)
    folds = int(summary["folds"].max())
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>textsift report: {html.escape(exp.name)}</title>"
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(exp.name)}</h1>", _describe(exp, summary, dataset, learners)]
    parts += [f"<p class='note'>note: {html.escape(n)}</p>" for n in notes]
    parts += _curves_section(figures, spread_caption(summary, unit), bool(exp.alphas))
    parts.append("<h2>Best method at each level</h2>")
    best = best_per_size(summary)
    order = {lb: i for i, lb in enumerate(learners)}
    best = best[sorted(best.columns, key=lambda c: order.get(c[0], len(order)))]
    best.columns = [f"{learners.get(lr, lr)}: {metric_name(m)}" for lr, m in best.columns]
    parts.append(best.to_html(escape=True).replace("^M", "<sup>M</sup>").replace(
        "^mu", "<sup>μ</sup>"))
    parts += _passing_section(store)
    parts += terms_sections(store, exp, summary)
    parts += _per_label_section(store, exp, summary)
    parts.append("<h2>Results</h2>" if folds == 1 else
                 f"<h2>Results: mean ± std over {folds} {unit}</h2>")
    parts += _trap_note(summary, learners)
    parts += _results_tables(summary, learners, folds)
    files = [Path(os.path.relpath(store.root / f, home)).as_posix() for f in _FILES
             if (store.root / f).exists()]
    drawn = [f"figures/{f.png.name}" for f in figures] + [f"figures/{f.svg.name}"
                                                          for f in figures]
    parts.append("<h2>Files</h2><ul class='files'>" + "".join(
        f"<li><a href='{html.escape(f)}'>{html.escape(f)}</a></li>" for f in files + drawn)
        + "</ul></body></html>")
    page = home / "report.html"
    atomic_write(page, lambda fh: fh.write("\n".join(parts).encode("utf-8")))
    for old in (home / "figures").iterdir():  # figures no page links any more, partial files
        if f"figures/{old.name}" not in drawn:
            old.unlink(missing_ok=True)
    return page
