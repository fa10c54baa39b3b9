"""``textsift adabag`` and ``textsift pca-lda``: the AdaBag lasso (the paper's 2:1:1 protocol,
:func:`textsift.lasso.holdout_run`) and its PCA + LDA baseline
(:func:`textsift.baselines.pca_lda_holdout`). Every check runs before anything is written to
--out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import typer

from .._io import check_out_dir
from ..errors import TextsiftError
from ._app import app, console


class _Bar:
    """A progress callback ``(done, total)`` drawing one rich task, added at the first call
    (after the library's checks, so bad input shows no bar)."""

    def __init__(self, progress, description: str):
        self.progress, self.description, self.task = progress, description, None

    def __deepcopy__(self, memo):  # scikit-learn's clone copies parameters; a bar is one
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task(self.description, total=total)
        self.progress.update(self.task, completed=done)


def _load(data: list[Path], text_field: str, label_field: str, group_field: str | None,
          min_df: int):
    """Read and concatenate DATA files, check the fields, and vectorise (binary, min_df)."""
    from ..corpus import CorpusError, numeric_labels, read_corpus
    from ..vectorize import VectorizerOptions, vectorize

    frame = pd.concat([read_corpus(path, text_field, label_field).frame for path in data],
                      ignore_index=True)
    try:
        y = numeric_labels(frame[label_field], label_field)
    except CorpusError as exc:
        raise TextsiftError(f"--label-field: {exc}") from None
    groups = None
    if group_field is not None:
        if group_field not in frame:
            raise TextsiftError(f"--group-field: no field {group_field!r}; fields are "
                                f"{list(frame.columns)}")
        groups = frame[group_field].astype(str).to_numpy()
    X, names, _ = vectorize(frame[text_field].astype(str).tolist(),
                            VectorizerOptions(binary=True, min_df=min_df))
    return X, y, groups, names


def _data_or_simulation(data, label_field, text_field, group_field, min_df, simulate, seed,
                        variant="assigned"):
    """``(X, y, groups, names, polarity or None, a, b)``; ``a, b`` only for the simulation."""
    from ..lasso import simulate as simulate_data

    if simulate:
        sim = simulate_data(seed, variant=variant)
        return sim.X, sim.y, None, sim.feature_names, sim.polarity, sim.a, sim.b
    if not data or label_field is None:
        raise TextsiftError("give DATA and --label-field (or --simulate)")
    X, y, groups, names = _load(data, text_field, label_field, group_field, min_df)
    return X, y, groups, names, None, None, None


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
        10, "--patience", help="Stop a path this many lambdas past its validation minimum, once "
        "more than one standard error above it (0: the whole grid)"),
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
    """AdaBag with the paper's 2:1:1 protocol (core, validation, test): bootstrap-bagged
    adaptive (data-shared) lasso; writes summary.json, bfd.csv, cutoffs.csv and PNG pictures
    to --out, and keeps finished bootstraps in --out/bootstraps to resume."""
    from rich.progress import Progress

    from ..lasso import AdaBagClassifier, holdout_run, load_polarity
    from ..report.adabag import save_adabag

    check_out_dir(out)
    model = AdaBagClassifier(
        a=low, b=high, scheme=scheme, n_bootstraps=bootstraps, backend=backend,
        min_ratio=min_ratio, patience=patience or None, max_active=max_active or None,
        cutoff_selection=cutoff_selection, final_model=final_model,
        lambda_selection=lambda_selection, random_state=seed, n_jobs=n_jobs,
        store=out / "bootstraps")
    model.check_params()  # the options (and the backend) before reading data
    X, y, groups, names, pol, a, b = _data_or_simulation(
        data, label_field, text_field, group_field, min_df, simulate, seed, variant)
    extra = {"scheme": scheme, "polarity": polarity, "backend": backend, "seed": seed}
    if simulate:
        extra.update(polarity=f"simulation ({variant})", data="simulation")
        model.set_params(a=a, b=b)
    else:
        pol = load_polarity(polarity, names)
        extra["data"] = [str(p) for p in data]
    model.set_params(polarity=pol)
    with Progress(console=console) as bar:
        model.set_params(progress=_Bar(bar, "AdaBag bootstraps"))
        run = holdout_run(model, X, y, groups)
    summary = save_adabag(run, names, out, {**extra, "a": model.a, "b": model.b})
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
    max_components: int = typer.Option(300, "--max-components",
                                       help="Leading components considered (>= 1)"),
    simulate: bool = typer.Option(False, "--simulate"),
    out: Path = typer.Option(..., "--out"),
):
    """PCA (variance- and entropy-ordered, 20/25/30% of variance) + Fisher LDA, fitted on the
    core and validation parts of AdaBag's 2:1:1 split and tested on its test part."""
    from .._io import atomic_write, atomic_write_text
    from ..baselines import pca_lda_holdout

    check_out_dir(out)
    if max_components < 1:
        raise TextsiftError(f"--max-components must be >= 1, got {max_components}")
    X, y, groups, _, _, a, b = _data_or_simulation(
        data, label_field, text_field, group_field, min_df, simulate, seed)
    if simulate:
        low, high = a, b
    table = pca_lda_holdout(X, y, low, high, groups, seed, scale=scale,
                            max_components=max_components)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "pca_lda.csv", lambda fh: table.to_csv(fh, index=False))
    results = [{k: (None if isinstance(v, float) and np.isnan(v) else v)
                for k, v in r.items()} for r in table.to_dict("records")]
    summary = {"results": results, "scale": scale, "seed": seed,
               "max_components": max_components,
               "best_test_error": float(table["test_error"].min())}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1, default=float))
    print(table.to_string(index=False))
