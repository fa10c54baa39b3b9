"""``textsift adabag`` and ``textsift pca-lda``: the AdaBag lasso (the paper's 2:1:1 protocol,
:func:`textsift.lasso.holdout_run`) and its PCA + LDA baseline
(:func:`textsift.learners.baselines.pca_lda_holdout`). Every check runs before anything is written
to
--out. Without --low/--high the classes come from the rating scale found in the data
(:func:`textsift.labels.ranks.class_thresholds`: 1-5 stars 2 and 4, 1-10 the paper's 4 and 7);
without --polarity AdaBag is the plain lasso."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated

import typer

from .._choices import ADABAG_CHOICES as CHOICES
from .._choices import ADABAG_CRITERIA as CRITERIA
from .._choices import BACKENDS, SCHEMES, VARIANTS
from ..errors import TextsiftError
from ._app import app, console, writes_out
from ._groups import option_group
from ._progress import task_progress
from .options import CorpusOptions, NJobs, OutDir, choices, corpus_options


def _load(corpus: CorpusOptions, group_field: str | None):
    """Read the corpus, take its labels as ratings and vectorise it (binary presence)."""
    from ..reading.corpus import numeric_labels
    from ..text.vectorize import vectorize

    frame = corpus.read(ranks=True).frame
    y = numeric_labels(frame[corpus.label_field], corpus.label_field)
    groups = None
    if group_field is not None:
        if group_field not in frame:
            raise TextsiftError(f"--group-field: no field {group_field!r}; fields are "
                                f"{list(frame.columns)}")
        groups = frame[group_field].astype(str).to_numpy()
    X, names, _ = vectorize(frame[corpus.text_field].tolist(), corpus.vectorizer(binary=True))
    return X, y, groups, names


def _data_or_simulation(corpus: CorpusOptions, group_field, simulate, seed,
                        variant="assigned"):
    """``(X, y, groups, names, polarity or None, a, b)``; ``a, b`` only for the simulation."""
    from ..lasso import simulate as simulate_data

    if simulate:
        if corpus.data:
            raise TextsiftError("--simulate makes its own data; drop DATA, or --simulate")
        sim = simulate_data(seed, variant=variant)
        return sim.X, sim.y, None, sim.feature_names, sim.polarity, sim.a, sim.b
    if not corpus.data:
        raise TextsiftError("give DATA (a corpus with ratings), or --simulate")
    X, y, groups, names = _load(corpus, group_field)
    return X, y, groups, names, None, None, None


def _thresholds(y, low, high) -> tuple[float, float, str]:
    """``(a, b, how)``: --low/--high as given, else from the ratings found (and which);
    checked against the ratings found."""
    from ..labels.ranks import check_thresholds, class_thresholds, describe_ratings

    if low is not None and high is not None:
        check_thresholds(y, low, high)
        return low, high, "--low/--high"
    a, b = class_thresholds(y)
    how = f"from the ratings found ({describe_ratings(y)})"
    a, b = (a if low is None else low), (b if high is None else high)
    check_thresholds(y, a, b)
    console.print(f"classes: low <= {a:g}, high >= {b:g} ({how}; --low/--high to change)",
                  highlight=False)
    return a, b, how


def _class_weight(text: str):
    """``none``, ``balanced`` or ``0=W0,1=W1`` (the values checked by the estimator)."""
    if text in ("none", "balanced"):
        return None if text == "none" else text
    try:
        pairs = [part.split("=") for part in text.replace(":", "=").split(",")]
        return {int(c): float(w) for c, w in pairs}
    except ValueError:
        raise TextsiftError(f"--class-weight {text!r}: use none, balanced, or the weights of "
                            "the classes as 0=W0,1=W1 (0 low, 1 high), e.g. 0=5,1=1") from None


#: The class thresholds of adabag and pca-lda (the same meaning in both).
Low = Annotated[float | None, typer.Option(
    "--low", show_default=False,
    help="a: ratings <= a are class 0 (default: from the scale found, 1-5: 2, 1-10: 4)")]
High = Annotated[float | None, typer.Option(
    "--high", show_default=False,
    help="b: ratings >= b are class 1 (default: from the scale found, 1-5: 4, 1-10: 7)")]
Scheme = choices("Scheme", SCHEMES)
Backend = choices("Backend", BACKENDS)
Cutoff = choices("Cutoff", CHOICES["cutoff_selection"])
FinalModel = choices("FinalModel", CHOICES["final_model"])
LambdaSelection = choices("LambdaSelection", CHOICES["lambda_selection"])
Criterion = choices("Criterion", CRITERIA)
Threshold = choices("Threshold", CHOICES["threshold"])
Variant = choices("Variant", VARIANTS)


_ADABAG_MIN_DF = 5  # the paper keeps the words of at least 5 documents
FinalKind = choices("FinalKind", CHOICES["final"])


@dataclass(frozen=True)
class ModelOptions:
    """The command line's options of AdaBag's estimator (:data:`MODEL_OPTIONS`), as given."""

    scheme: str
    class_weight: str
    criterion: str
    threshold: str
    final: str
    bootstraps: int
    backend: str
    min_ratio: float
    patience: int
    max_active: int
    cutoff_selection: str
    final_model: str
    lambda_selection: str
    max_features: int
    polarity_prior: float
    polarity_min_count: int

    def classifier(self, seed: int, n_jobs: int, store):
        """The :class:`~textsift.lasso.AdaBagClassifier` of these options (0: no limit)."""
        from ..lasso import AdaBagClassifier

        return AdaBagClassifier(
            scheme=self.scheme, class_weight=_class_weight(self.class_weight),
            criterion=self.criterion, threshold=self.threshold, final=self.final,
            n_bootstraps=self.bootstraps,
            backend=self.backend, min_ratio=self.min_ratio, patience=self.patience or None,
            max_active=self.max_active or None, cutoff_selection=self.cutoff_selection,
            final_model=self.final_model, lambda_selection=self.lambda_selection,
            random_state=seed, n_jobs=n_jobs, max_features=self.max_features or None,
            polarity_prior=self.polarity_prior, polarity_min_count=self.polarity_min_count,
            store=store)

    def record(self) -> dict:
        """What ``summary.json`` records of them."""
        return {"scheme": self.scheme, "backend": self.backend, "patience": self.patience,
                "cutoff_selection": self.cutoff_selection,
                "lambda_selection": self.lambda_selection, "max_features": self.max_features,
                "polarity_prior": self.polarity_prior,
                "polarity_min_count": self.polarity_min_count, "threshold_rule": self.threshold,
                "final": self.final}


def _option(annotation, default, *names, **kwargs):
    return Annotated[annotation, typer.Option(*names, rich_help_panel="AdaBag", **kwargs)], (
        default)


#: The options of AdaBag's estimator: name -> (annotation, default), given to ``adabag`` as
#: one :class:`ModelOptions` (:func:`~._groups.option_group`).
MODEL_OPTIONS = {
    "scheme": _option(Scheme, Scheme("ws3"), "--scheme", help="Group weights"),
    "class_weight": _option(
        str, "none", "--class-weight", help="Weights of the classes in the lasso and the OLS "
        "refits: none, balanced, or 0=W0,1=W1"),
    "criterion": _option(
        Criterion, Criterion("misclassification"), "--criterion",
        help="The validation loss choosing lambda and the cutoff (balanced_error for skewed "
        "classes)"),
    "threshold": _option(
        Threshold, Threshold("midpoint"), "--threshold", help="Decision threshold on the "
        "fitted rating: (a + b) / 2, or chosen on validation (reported beside the midpoint "
        "rule)"),
    "final": _option(
        FinalKind, FinalKind("ols"), "--final", help="The model on the chosen words: ols (the "
        "paper's least squares of the rating), ridge (of the rating) or logistic (of the "
        "class), their penalty chosen on validation"),
    "bootstraps": _option(int, 100, "--bootstraps", "-B", help="Bootstrap samples"),
    "backend": _option(Backend, Backend("adelie"), "--backend",
                       help="Lasso paths: adelie, or glmnet (optional, GPL-2)"),
    "min_ratio": _option(float, 1e-3, "--min-ratio", help="Smallest lambda / lambda_max"),
    "patience": _option(
        int, 10, "--patience", help="Stop a path this many lambdas past its validation "
        "minimum, once more than one standard error above it (0: the whole grid)"),
    "max_active": _option(
        int, 3000, "--max-active", help="Stop a path past this many non-zero coefficients "
        "(0: no)"),
    "cutoff_selection": _option(Cutoff, Cutoff("raw"), "--cutoff-selection",
                                help="How the bagging-frequency cutoff is chosen"),
    "final_model": _option(FinalModel, FinalModel("pooled"), "--final-model",
                           help="One model, or one per group"),
    "lambda_selection": _option(LambdaSelection, LambdaSelection("min"), "--lambda-selection",
                                help="The lambda of each bootstrap"),
    "max_features": _option(
        int, 0, "--max-features", help="Choose the cutoff among models of at most this many "
        "words (0: any size)"),
    "polarity_prior": _option(
        float, 0.0, "--polarity-prior", help="Shrink polarities by n/(n + this), n = the "
        "word's training documents (0: no)"),
    "polarity_min_count": _option(
        int, 1, "--polarity-min-count", help="Polarity 0 for words in fewer training "
        "documents"),
}


def _model_options(**values) -> ModelOptions:
    return ModelOptions(**{k: getattr(v, "value", v) for k, v in values.items()})


@app.command()
@writes_out()
@corpus_options(engine=False, min_df=_ADABAG_MIN_DF, data_required=False)
@option_group("model", MODEL_OPTIONS, _model_options)
def adabag(
    corpus: CorpusOptions,
    group_field: str = typer.Option(None, "--group-field", show_default=False,
                                    help="Categorical field for the data-shared lasso"),
    polarity: str = typer.Option(
        None, "--polarity", show_default=False,
        help="imdb | vader | afinn | uniform | FILE (word,polarity); default uniform, the "
        "plain lasso"),
    low: Low = None,
    high: High = None,
    model: ModelOptions = None,
    seed: int = typer.Option(0, "--seed", help="Random seed (splits and bootstraps)"),
    n_jobs: NJobs = 1,
    simulate: bool = typer.Option(False, "--simulate", help="Run the paper's simulation"),
    variant: Variant = typer.Option(Variant("assigned"), "--variant",
                                    help="The simulation's polarity variant"),
    out: OutDir = ...,
):
    """AdaBag with the paper's 2:1:1 protocol (core, validation, test): bootstrap-bagged
    adaptive (data-shared) lasso; writes summary.json, bfd.csv, cutoffs.csv and PNG pictures
    to --out, and keeps finished bootstraps in --out/bootstraps to resume. The labels are
    ratings; --min-df defaults to 5, the paper's.

    The classes are ratings <= --low and >= --high (default: from the rating scale found, 1-5
    stars 2 and 4, 1-10 4 and 7); without --polarity every word is penalised alike (the
    plain lasso). When one class is much rarer than the other (say under a third of the
    rows), use --class-weight balanced --criterion balanced_error (and --final logistic).

    The test error goes to stdout, progress to stderr.

    Example: textsift adabag reviews.jsonl.gz --label-field rating --out adabag-reviews
    (IMDb as in the paper: textsift adabag imdb/train.jsonl.gz imdb/test.jsonl.gz
    --label-field rating --polarity imdb --out adabag-imdb)
    """
    from ..lasso import holdout_run
    from ..report.adabag import save_adabag

    if low is not None and high is not None and not low < high:
        raise TextsiftError(f"the class thresholds need --low < --high, got {low:g} and "
                            f"{high:g}")
    from ..lasso.bagging import start_workers, stop_workers

    estimator = model.classifier(seed, n_jobs, out / "bootstraps")
    estimator.check_params()  # the options (and the backend) before reading data
    # the bootstrap workers start (and import) while this process reads the corpus
    workers_up = start_workers(n_jobs) if corpus.data and not simulate else list
    try:
        X, y, groups, names, pol, a, b = _data_or_simulation(corpus, group_field, simulate,
                                                             seed, variant.value)
        extra = {**model.record(), "seed": seed}
        if simulate:
            extra.update(polarity=f"simulation ({variant.value})", data="simulation",
                         thresholds="the simulation's")
        else:
            a, b, extra["thresholds"] = _thresholds(y, low, high)
            pol, extra["polarity"] = _polarity(polarity, names)
            extra["data"] = [str(p) for p in corpus.data]
    except BaseException:
        stop_workers()  # bad data or Ctrl-C: no waiting for the workers' imports
        raise
    workers_up()
    estimator.set_params(a=a, b=b, polarity=pol)
    with task_progress("AdaBag bootstraps", "bootstraps") as progress:
        estimator.set_params(progress=progress)
        run = holdout_run(estimator, X, y, groups)
    summary = save_adabag(run, names, out, {**extra, "a": estimator.a, "b": estimator.b})
    console.print(f"written to {out}", highlight=False)
    _print_scores(summary, model, estimator)


def _polarity(polarity: str | None, names):
    """The words' polarities (``--polarity``; none given: uniform, the plain lasso, said on
    stderr) and what ``summary.json`` records of them."""
    from ..lasso import load_polarity

    if polarity is None:
        console.print("polarity: none given, so every word is penalised alike: the plain "
                      "lasso (--polarity imdb, vader, afinn or a file for the adaptive one)",
                      highlight=False)
    return (load_polarity(polarity or "uniform", names),
            polarity or "uniform (no --polarity: the plain lasso)")


def _print_scores(summary: dict, model: ModelOptions, estimator) -> None:
    """The test error and balanced accuracy on stdout (each threshold's, when chosen on
    validation)."""
    scores = summary["test_scores"]
    print(f"test error {summary['test_error']:.4f}, balanced accuracy "
          f"{scores[model.threshold]['balanced_accuracy']:.4f} with {summary['model_size']} "
          f"words (cutoff {summary['cutoff']}, validation {model.criterion} "
          f"{summary['validation_error']:.4f}; classes <= {estimator.a:g} and >= "
          f"{estimator.b:g})")
    if model.threshold == "validation":
        for rule, s in scores.items():
            print(f"  {rule} threshold {s['threshold']:.4f}: test error "
                  f"{s['misclassification']:.4f}, balanced accuracy "
                  f"{s['balanced_accuracy']:.4f}")


@app.command("pca-lda")
@writes_out()
@corpus_options(engine=False, min_df=_ADABAG_MIN_DF, data_required=False)
def pca_lda_command(
    corpus: CorpusOptions,
    group_field: str = typer.Option(None, "--group-field", show_default=False,
                                    help="Also one run per group"),
    low: Low = None,
    high: High = None,
    seed: int = typer.Option(0, "--seed", help="Random seed (splits and bootstraps)"),
    scale: bool = typer.Option(True, "--scale/--no-scale", help="Standardise the columns"),
    max_components: int = typer.Option(300, "--max-components",
                                       help="Leading components considered (>= 1)"),
    simulate: bool = typer.Option(False, "--simulate", help="Run the paper's simulation"),
    out: OutDir = ...,
):
    """PCA (variance- and entropy-ordered, 20/25/30% of variance) + Fisher LDA, fitted on the
    core and validation parts of AdaBag's 2:1:1 split and tested on its test part; --min-df
    defaults to 5, as for adabag.

    The results table goes to stdout (and to --out), progress to stderr.

    Example: textsift pca-lda imdb/train.jsonl.gz imdb/test.jsonl.gz --label-field rating
    --out pca-imdb
    """
    import numpy as np

    from .._io import atomic_write, atomic_write_text
    from ..learners.baselines import pca_lda_holdout

    if max_components < 1:
        raise TextsiftError(f"--max-components must be >= 1, got {max_components}")
    X, y, groups, _, _, a, b = _data_or_simulation(corpus, group_field, simulate, seed)
    if simulate:
        low, high = a, b
    else:
        low, high, _ = _thresholds(y, low, high)
    table = pca_lda_holdout(X, y, low, high, groups, seed, scale=scale,
                            max_components=max_components)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "pca_lda.csv", lambda fh: table.to_csv(fh, index=False))
    results = [{k: (None if isinstance(v, float) and np.isnan(v) else v)
                for k, v in r.items()} for r in table.to_dict("records")]
    summary = {"results": results, "scale": scale, "seed": seed, "a": low, "b": high,
               "max_components": max_components,
               "best_test_error": float(table["test_error"].min())}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1, default=float))
    print(table.to_string(index=False))
