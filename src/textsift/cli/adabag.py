"""``textsift adabag`` and ``textsift pca-lda``: the AdaBag lasso and its PCA + LDA baseline."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import typer

from ._app import app, console, fail


def _load(data: list[Path], text_field: str, label_field: str, group_field: str | None,
          min_df: int):
    """Read and concatenate DATA files, check the fields, and vectorise (binary, min_df)."""
    from ..corpus import CorpusError, numeric_labels, read_corpus
    from ..vectorize import VectorizerOptions, vectorize

    frames = []
    for path in data:
        try:
            frames.append(read_corpus(path, text_field, label_field).frame)
        except CorpusError as exc:
            fail(str(exc))
    frame = pd.concat(frames, ignore_index=True)
    try:
        y = numeric_labels(frame[label_field], label_field)
    except CorpusError as exc:
        fail(f"--label-field: {exc}")
    groups = None
    if group_field is not None:
        if group_field not in frame:
            fail(f"no group field {group_field!r}; fields are {list(frame.columns)}")
        groups = frame[group_field].astype(str).to_numpy()
    X, names, _ = vectorize(frame[text_field].astype(str).tolist(),
                            VectorizerOptions(binary=True, min_df=min_df))
    return X, y, groups, names


@app.command()
def adabag(
    data: list[Path] = typer.Argument(None, help="Corpus file(s) (JSONL/CSV/Parquet), joined"),
    label_field: str = typer.Option(None, "--label-field", help="Numeric rating field"),
    text_field: str = typer.Option("text", "--text-field"),
    group_field: str = typer.Option(None, "--group-field",
                                    help="Categorical field for the data-shared lasso"),
    scheme: str = typer.Option("ws3", "--scheme", help="Group weights ws1..ws6"),
    polarity: str = typer.Option("imdb", "--polarity",
                                 help="imdb | vader | afinn | uniform | FILE (word,polarity)"),
    low: float = typer.Option(4.0, "--low", help="a: ratings <= a are class 0"),
    high: float = typer.Option(7.0, "--high", help="b: ratings >= b are class 1"),
    bootstraps: int = typer.Option(100, "--bootstraps", "-B"),
    seed: int = typer.Option(0, "--seed"),
    min_df: int = typer.Option(5, "--min-df", help="Words in at least this many documents"),
    backend: str = typer.Option("adelie", "--backend", help="adelie | glmnet (optional, GPL-2)"),
    min_ratio: float = typer.Option(1e-3, "--min-ratio", help="Smallest lambda / lambda_max"),
    patience: int = typer.Option(
        0, "--patience", help="Stop a path after this many lambdas without improvement (0: no)"),
    max_active: int = typer.Option(
        3000, "--max-active", help="Stop a path past this many non-zero coefficients (0: no)"),
    cutoff_selection: str = typer.Option("raw", "--cutoff-selection", help="raw | loess | 1se"),
    final_model: str = typer.Option("pooled", "--final-model", help="pooled | per_group"),
    lambda_selection: str = typer.Option("min", "--lambda-selection",
                                         help="min | 1se: lambda of each bootstrap"),
    n_jobs: int = typer.Option(1, "--n-jobs"),
    simulate: bool = typer.Option(False, "--simulate", help="Run the paper's simulation"),
    variant: str = typer.Option("assigned", "--variant", help="Simulation: assigned | equal"),
    out: Path = typer.Option(..., "--out", help="Output folder (resumes a run in it)"),
):
    """AdaBag: bootstrap-bagged adaptive (data-shared) lasso; writes summary.json, bfd.csv,
    cutoffs.csv and PNG pictures to --out."""
    from ..lasso import AdaBag, load_polarity
    from ..lasso import simulate as simulate_data
    from ..report.adabag import save_adabag

    extra = {"scheme": scheme, "polarity": polarity, "backend": backend, "seed": seed}
    if simulate:
        sim = simulate_data(seed, variant=variant)
        X, y, groups, names, pol = sim.X, sim.y, None, sim.feature_names, sim.polarity
        low, high = sim.a, sim.b
        extra.update(polarity=f"simulation ({variant})", data="simulation")
    else:
        if not data or label_field is None:
            fail("give DATA and --label-field (or --simulate)")
        X, y, groups, names = _load(data, text_field, label_field, group_field, min_df)
        try:
            pol = load_polarity(polarity, names)
        except (ValueError, ImportError) as exc:
            fail(str(exc))
        extra["data"] = [str(p) for p in data]
    model = AdaBag(a=low, b=high, scheme=scheme, n_bootstraps=bootstraps, backend=backend,
                   min_ratio=min_ratio, patience=patience or None, max_active=max_active or None,
                   cutoff_selection=cutoff_selection, final_model=final_model, seed=seed,
                   n_jobs=n_jobs, store=out / "bootstraps", progress=True,
                   lambda_selection=lambda_selection)
    try:
        model.fit(X, y, pol, groups)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    summary = save_adabag(model, names, out, {**extra, "a": low, "b": high})
    console.print(f"test error {summary['test_error']:.4f} with {summary['model_size']} words "
                  f"(cutoff {summary['cutoff']}, validation {summary['validation_error']:.4f});"
                  f" written to {out}")


@app.command("pca-lda")
def pca_lda_command(
    data: list[Path] = typer.Argument(None, help="Corpus file(s), joined"),
    label_field: str = typer.Option(None, "--label-field"),
    text_field: str = typer.Option("text", "--text-field"),
    group_field: str = typer.Option(None, "--group-field", help="Also one run per group"),
    low: float = typer.Option(4.0, "--low"),
    high: float = typer.Option(7.0, "--high"),
    seed: int = typer.Option(0, "--seed"),
    min_df: int = typer.Option(5, "--min-df"),
    scale: bool = typer.Option(True, "--scale/--no-scale", help="Standardise the columns"),
    max_components: int = typer.Option(300, "--max-components"),
    simulate: bool = typer.Option(False, "--simulate"),
    out: Path = typer.Option(..., "--out"),
):
    """PCA (variance- and entropy-ordered, 20/25/30% of variance) + Fisher LDA, fitted on the
    core and validation parts of AdaBag's 2:1:1 split and tested on its test part."""
    from .._io import atomic_write, atomic_write_text
    from ..baselines import pca_lda
    from ..lasso import simulate as simulate_data
    from ..lasso.adabag import split_211

    if simulate:
        sim = simulate_data(seed)
        X, y, groups, low, high = sim.X, sim.y, None, sim.a, sim.b
    else:
        if not data or label_field is None:
            fail("give DATA and --label-field (or --simulate)")
        X, y, groups, _ = _load(data, text_field, label_field, group_field, min_df)
    keep = (y <= low) | (y >= high)
    X, y = X[keep], y[keep]
    groups = np.zeros(len(y), dtype=object) if groups is None else groups[keep]
    theta = (y >= high).astype(int)
    try:
        part = split_211(theta, np.unique(groups, return_inverse=True)[1], seed)
    except ValueError as exc:
        fail(str(exc))
    runs = [("pooled", np.ones(len(y), bool))]
    if group_field is not None:
        runs += [(str(g), groups == g) for g in np.unique(groups)]
    tables = []
    for name, rows in runs:
        tr, te = rows & (part < 2), rows & (part == 2)
        console.print(f"PCA + LDA on {name}: {tr.sum()} training, {te.sum()} test documents")
        t = pca_lda(X[tr], theta[tr], X[te], theta[te], scale=scale,
                    max_components=max_components, seed=seed)
        tables.append(t.assign(group=name))
    table = pd.concat(tables, ignore_index=True)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "pca_lda.csv", lambda fh: table.to_csv(fh, index=False))
    results = [{k: (None if isinstance(v, float) and np.isnan(v) else v)
                for k, v in r.items()} for r in table.to_dict("records")]
    summary = {"results": results, "scale": scale, "seed": seed,
               "best_test_error": float(table["test_error"].min())}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1, default=float))
    console.print(table.to_string(index=False))
