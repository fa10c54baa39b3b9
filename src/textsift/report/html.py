"""``DIR/report.html``: a self-contained report of an experiment directory.

The page holds, in one file with every image inline (``data:image/png;base64``): what was run,
the notes of the run (clipped sizes, skipped policies), a curve per metric and learner, the
best method at each size, the top terms of each method side by side, and the summary table.
The figures are also written as PNG and SVG files in ``DIR/figures/``.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import pandas as pd

from .._io import atomic_write
from ..errors import TextsiftError
from ..experiment.store import Store
from .plots import LOWER_IS_BETTER, curve_figures, label_of

__all__ = ["best_per_size", "macro_over_tasks", "top_terms_table", "write_report"]

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left}th{background:#f4f4f4}
img{max-width:100%;display:block;margin:1em 0}.note{color:#8a5a00}code{background:#f4f4f4}
"""


def best_per_size(summary: pd.DataFrame) -> pd.DataFrame:
    """For each learner, metric and size, the method (and policy) with the best mean; equal
    best means are all named (``"a = b"``), and ``"all tied"`` when every method has it."""
    single = summary["aggregate"].nunique() == 1
    rows = []
    for (learner, metric, n), part in summary.groupby(["learner", "metric", "n_features"]):
        value = part["mean"].min() if metric in LOWER_IS_BETTER else part["mean"].max()
        tied = part[part["mean"] == value]
        names = ("all tied" if len(tied) == len(part) > 1 else " = ".join(
            label_of(m, a, single) for m, a in zip(tied["method"], tied["aggregate"],
                                                   strict=True)))
        rows.append({"learner": learner, "metric": metric, "n_features": n,
                     "best": f"{names} ({value:.4f})"})
    table = pd.DataFrame(rows)
    return table.pivot(index="n_features", columns=["learner", "metric"], values="best")


def macro_over_tasks(summary: pd.DataFrame) -> pd.DataFrame:
    """Average a summary over its datasets (e.g. the binary tasks of a one-vs-rest
    experiment): mean of the per-task means, their std across tasks, ``folds`` = tasks."""
    keys = ["method", "aggregate", "n_features", "learner", "metric"]
    out = summary.groupby(keys, sort=True)["mean"].agg(mean="mean", std="std",
                                                       folds="count").reset_index()
    return out.assign(dataset="all tasks", std=out["std"].fillna(0.0))


def top_terms_table(terms: pd.DataFrame, top: int = 15) -> pd.DataFrame:
    """Top terms of every (method, policy) as side-by-side columns (rows are ranks)."""
    single = terms["aggregate"].nunique() == 1
    terms = terms[terms["rank"] <= top]
    cols = {label_of(m, a, single): g.set_index("rank")["term"]
            for (m, a), g in terms.groupby(["method", "aggregate"], sort=False)}
    return pd.DataFrame(cols).rename_axis("rank")


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def write_report(directory) -> Path:
    """Write ``directory/report.html`` and ``directory/figures/*``; return the page's path."""
    store = Store(directory)
    manifest = store.manifest()
    config = manifest["config"]
    summary = pd.read_parquet(store.root / "summary.parquet") if (
        store.root / "summary.parquet").exists() else None
    if summary is None or summary.empty:
        store.results()  # raises the "finish the run first" error
        raise TextsiftError(f"{store.root}: the results table is empty")
    notes_path = store.root / "notes.json"
    notes = json.loads(notes_path.read_text()) if notes_path.exists() else []
    if summary["dataset"].nunique() > 1:
        n_tasks = summary["dataset"].nunique()
        summary = macro_over_tasks(summary)
        notes.append(f"curves and tables are means over {n_tasks} tasks (macro-average); the "
                     "bands are +/- one standard deviation across tasks")
    dataset = config["corpus"]["dataset"]
    if config.get("tasks") == "one_vs_rest":
        dataset += " (one-vs-rest tasks)"
    figures = curve_figures(summary, store.root / "figures", dataset)
    folds = int(summary["folds"].max())
    learners = ", ".join(f"{lr['label']} ({lr['name']}, {lr['weighting']} input)"
                         for lr in config["learners"])
    protocol = (f"{folds}-fold cross-validation" if config["protocol"] == "cv"
                else "train/test split")
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>textsift report: {html.escape(config['name'])}</title>"
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(config['name'])}</h1>",
        "<p>" + html.escape(
            f"Dataset {dataset}, {protocol}, learners: {learners}. "
            f"Methods: {', '.join(config['methods'])}; policies: "
            f"{', '.join(sorted(summary['aggregate'].unique()))}. Seed {config['seed']}.")
        + "</p>",
    ]
    parts += [f"<p class='note'>note: {html.escape(n)}</p>" for n in notes]
    parts.append("<h2>Curves</h2>")
    for f in figures:
        parts.append(_img(f.png, f.title))
    parts.append("<h2>Best method per number of terms</h2>")
    parts.append(best_per_size(summary).to_html(escape=True))
    terms_path = store.root / "terms.csv"
    if terms_path.exists():
        parts.append("<h2>Top terms of each method (fold 0)</h2>")
        terms = pd.read_csv(terms_path, keep_default_na=False)
        parts.append(top_terms_table(terms).to_html(escape=True))
    parts.append("<h2>Summary (mean and std over folds)</h2><details><summary>table</summary>")
    parts.append(summary.to_html(index=False, float_format=lambda x: f"{x:.4f}", escape=True))
    parts.append("</details><p>Files: <code>results.csv</code>, <code>results.parquet</code>, "
                 "<code>summary.csv</code>, <code>figures/</code>.</p></body></html>")
    out = store.root / "report.html"
    atomic_write(out, lambda fh: fh.write("\n".join(parts).encode("utf-8")))
    return out
