"""The reduction-level experiment of Baccianella, Esuli & Sebastiani (METHODS.md §A.8-§A.9).

For one corpus with a train/test split: for each ordinal method and reduction level
``ratio = |S|/|T|``, select terms on the training set, train :class:`~textsift.learners.RankSVR`
on them, and report ``MAE^M`` and ``MAE^mu`` on the test set; plus the full feature set (FFS)
and the trivial predictor Triv (always the middle rank).

Protocol (the paper tunes ``a`` on a validation split of the training set [V]; the rest is
[A] and stated here):

* The vocabulary is fitted on the training documents (``CountVectorizer``, no frequency
  threshold unless asked); scores use binary presence (§0.1).
* Learner features: sublinear tf-idf (idf from the training documents), restricted to the
  selected terms, then L2-normalised per document.
* A stratified ``val_size`` part of the training set is held out. For every (method, ratio)
  the IDF exponent ``a`` (IDF methods only) and the SVR's ``C`` are chosen on it by
  ``MAE^M`` (ties: first in grid order), then terms are re-selected and the learner refitted
  on the whole training set with the chosen values.
* ``ratio = 1`` keeps every term whatever the method, so those rows are the FFS result.

Results go to ``DIR/results.csv`` and ``.parquet`` (written atomically after every row, so
an interrupted run resumes where it stopped; ``DIR/settings.json`` guards against resuming
with other settings) and the figure to ``DIR/mae_macro.png``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

from ._io import atomic_write
from .corpus import numeric_labels, read_corpus
from .counts import Counts
from .learners import RankSVR
from .metrics import mae_macro, mae_micro, trivial_rank
from .policies import n_from_ratio
from .scores import compute, get_method
from .scores.ordinal import check_ranks
from .selectors import ranking_of
from .vectorize import VectorizerOptions, vectorize

__all__ = ["METHODS", "RATIOS", "OrdinalData", "Settings", "load_ordinal", "plot_results",
           "run"]

METHODS = ("var", "rr_var", "prp", "var_idf", "rr_var_idf", "rr_igor", "rr_nc_idf")
RATIOS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)
LEARNERS = {"svr": False, "svr-balanced": True}
COLUMNS = ["method", "ratio", "n_features", "mae_macro", "mae_micro", "learner", "a", "C",
           "val_mae_macro"]


@dataclass(frozen=True)
class Settings:
    """Everything that determines the numbers of a run (saved to ``settings.json``)."""

    methods: tuple = METHODS
    ratios: tuple = RATIOS
    learners: tuple = ("svr", "svr-balanced")
    a_grid: tuple = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    c_grid: tuple = (0.3, 1.0, 3.0)
    val_size: float = 0.25
    random_state: int = 0
    vectorizer: dict = field(default_factory=dict)

    def __post_init__(self):
        for m in self.methods:
            if get_method(m).kind != "ordinal":
                raise ValueError(f"{m!r} is not an ordinal method")
        for r in self.ratios:
            if not 0 < r <= 1:
                raise ValueError(f"reduction levels must be in (0, 1], got {r}")
        for lrn in self.learners:
            if lrn not in LEARNERS:
                raise ValueError(f"unknown learner {lrn!r}; use {' or '.join(LEARNERS)}")
        if not self.a_grid or not self.c_grid or min(self.a_grid) <= 0 or min(self.c_grid) <= 0:
            raise ValueError("the a and C grids must be non-empty lists of positive numbers")
        if not 0 < self.val_size < 1:
            raise ValueError(f"val_size must be in (0, 1), got {self.val_size}")


@dataclass
class OrdinalData:
    """A vectorized ordinal corpus: term-count matrices, ranks, the scale."""

    name: str
    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray
    scale: np.ndarray
    feature_names: np.ndarray
    n_dropped: int = 0


def load_ordinal(path, rating_field, text_field="text", split_field="split", ranks=None,
                 opts: VectorizerOptions | None = None, name=None, test_size=0.2,
                 random_state=0) -> OrdinalData:
    """Read a corpus, drop documents with no text, validate the ranks against the scale
    (``ranks`` or the ranks present) and vectorize (vocabulary from the training part).

    With ``split_field`` the records marked ``train``/``test`` are used; without it a
    stratified ``test_size`` split with ``random_state``.
    """
    corpus = read_corpus(path, text_field, rating_field)
    frame = corpus.frame
    empty = frame[text_field].fillna("").astype(str).str.strip() == ""
    frame = frame[~empty]
    y, scale = check_ranks(numeric_labels(frame[rating_field], rating_field), ranks)
    if split_field:
        if split_field not in frame.columns:
            raise ValueError(f"no split field {split_field!r}; fields are {list(frame.columns)}")
        split = frame[split_field].astype(str).to_numpy()
        train, test = split == "train", split == "test"
        if not train.any() or not test.any():
            raise ValueError(f"split field {split_field!r} needs 'train' and 'test' records")
    else:
        idx_tr, _ = train_test_split(np.arange(len(y)), test_size=test_size, stratify=y,
                                     random_state=random_state)
        train = np.zeros(len(y), dtype=bool)
        train[idx_tr] = True
        test = ~train
    texts = frame[text_field].astype(str).to_numpy()
    X_train, names, vec = vectorize(texts[train], opts)
    return OrdinalData(name or Path(path).parent.name, X_train, y[train],
                       vec.transform(texts[test]), y[test], scale, names, int(empty.sum()))


class _Fold:
    """Counts, learner features and rankings of one training set (+ an evaluation set)."""

    def __init__(self, X, y, X_eval, y_eval, scale):
        self.counts = Counts.from_matrix(X, y, classes=scale)
        self.y, self.y_eval = y, y_eval
        tfidf = TfidfTransformer(sublinear_tf=True).fit(X)
        self.W, self.W_eval = tfidf.transform(X).tocsc(), tfidf.transform(X_eval).tocsc()
        self.n_ranked = int(self.counts.seen.sum())
        self._rankings = {}

    def ranking(self, method, a=None):
        key = (method, a)
        if key not in self._rankings:
            params = {} if a is None else {"a": a}
            table = compute(self.counts, method, **params)
            self._rankings[key] = ranking_of(table, get_method(method).default_aggregate).index
        return self._rankings[key]

    def fit_eval(self, cols, C, balanced, scale):
        """Fit RankSVR on the columns ``cols`` (all if None); predict the evaluation set."""
        W, W_eval = (self.W, self.W_eval) if cols is None else (self.W[:, cols],
                                                                self.W_eval[:, cols])
        model = RankSVR(C=C, balanced=balanced, ranks=scale).fit(normalize(W.tocsr()), self.y)
        return model.predict(normalize(W_eval.tocsr()))


def _grid(method, s: Settings):
    a_values = s.a_grid if "a" in _params(method) else (None,)
    return [(a, C) for a in a_values for C in s.c_grid]


def _params(method):
    import inspect

    return inspect.signature(get_method(method).func).parameters


def run(data: OrdinalData, out_dir, settings: Settings | None = None, progress=None,
        n_jobs: int = 1) -> pd.DataFrame:
    """Run (or resume) the experiment on ``data``; return the results table.

    ``progress`` is an optional ``rich.progress.Progress``; one task per corpus advances per
    result row. ``n_jobs`` parallelises the grid of one (method, ratio) with joblib.
    """
    from joblib import Parallel, delayed

    s = settings or Settings()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _check_settings(out, data, s)
    results = _read_results(out)
    done = set(zip(results.learner, results.method, results.ratio, strict=True))
    fit_idx, val_idx = train_test_split(np.arange(len(data.y_train)), test_size=s.val_size,
                                        stratify=data.y_train, random_state=s.random_state)
    Xtr = data.X_train.tocsr()
    y = data.y_train
    val = _Fold(Xtr[fit_idx], y[fit_idx], Xtr[val_idx], y[val_idx], data.scale)
    full = _Fold(Xtr, y, data.X_test, data.y_test, data.scale)
    jobs = [(lrn, m, r) for lrn in s.learners for m in ("triv", "ffs", *s.methods)
            for r in ((1.0,) if m in ("triv", "ffs") else s.ratios)]
    task = progress.add_task(data.name, total=len(jobs)) if progress is not None else None
    rows = results.to_dict("records")
    pool = Parallel(n_jobs=n_jobs, prefer="threads") if n_jobs != 1 else None
    for lrn, method, ratio in jobs:
        label = "triv" if method == "triv" else "ffs" if method == "ffs" else \
            get_method(method).label
        if (lrn, label, ratio) not in done:
            rows.append(_one(lrn, method, label, ratio, data, s, val, full, rows, pool, delayed))
            _write_results(out, pd.DataFrame(rows, columns=COLUMNS))
        if task is not None:
            progress.advance(task)
    results = _read_results(out)
    plot_results(results, out / "mae_macro.png", title=data.name)
    return results


def _one(lrn, method, label, ratio, data, s, val, full, rows, pool, delayed):
    balanced = LEARNERS[lrn]
    row = {"method": label, "ratio": ratio, "learner": lrn, "a": np.nan, "C": np.nan,
           "val_mae_macro": np.nan}
    if method == "triv":
        pred = np.full(len(data.y_test), trivial_rank(data.scale))
        return {**row, "n_features": 0, **_scores(data.y_test, pred)}
    if method != "ffs" and ratio >= 1.0:  # every term kept: the FFS result
        ffs = next(r for r in rows if r["method"] == "ffs" and r["learner"] == lrn)
        return {**ffs, "method": label}
    grid = _grid(method, s) if method != "ffs" else [(None, C) for C in s.c_grid]

    def cols(fold, a):
        if method == "ffs":
            return None
        return fold.ranking(method, a)[: n_from_ratio(ratio, fold.n_ranked)]

    def val_score(a, C):
        return mae_macro(val.y_eval, val.fit_eval(cols(val, a), C, balanced, data.scale))

    if pool is None:
        scores = [val_score(a, C) for a, C in grid]
    else:
        for a, _ in grid:  # rankings are cached; fill the cache before threads share it
            cols(val, a)
        scores = pool(delayed(val_score)(a, C) for a, C in grid)
    best = int(np.argmin(scores))
    a, C = grid[best]
    chosen = cols(full, a)
    pred = full.fit_eval(chosen, C, balanced, data.scale)
    n = full.n_ranked if chosen is None else len(chosen)
    return {**row, "n_features": n, "a": np.nan if a is None else a, "C": C,
            "val_mae_macro": scores[best], **_scores(data.y_test, pred)}


def _scores(y, pred):
    return {"mae_macro": mae_macro(y, pred), "mae_micro": mae_micro(y, pred)}


# ----------------------------------------------------------------------------- storage
def _check_settings(out: Path, data: OrdinalData, s: Settings) -> None:
    record = {"corpus": data.name, "n_train": len(data.y_train), "n_test": len(data.y_test),
              "n_terms": int(data.X_train.shape[1]), "scale": data.scale.tolist(),
              **asdict(s)}
    record = json.loads(json.dumps(record))  # tuples -> lists, as read back
    path = out / "settings.json"
    if path.exists():
        old = json.loads(path.read_text())
        if old != record:
            diff = sorted(k for k in record if old.get(k) != record[k])
            raise ValueError(
                f"{out} holds results of a run with other settings ({', '.join(diff)}); "
                "use another output directory or delete it to start afresh"
            )
        return
    atomic_write(path, lambda fh: fh.write(json.dumps(record, indent=2).encode()))


def _read_results(out: Path) -> pd.DataFrame:
    path = out / "results.csv"
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    return pd.read_csv(path)


def _write_results(out: Path, df: pd.DataFrame) -> None:
    atomic_write(out / "results.csv", lambda fh: df.to_csv(fh, index=False))
    atomic_write(out / "results.parquet", lambda fh: df.to_parquet(fh, index=False))


# ----------------------------------------------------------------------------- figure
def plot_results(results: pd.DataFrame, path, title="") -> Path:
    """MAE^M against reduction level, a line per method, FFS and Triv as horizontal lines
    (the layout of the SAC 2010 figure); one panel per learner. The x axis is logarithmic so
    that the low reduction levels, where the methods differ, are readable."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    learners = list(dict.fromkeys(results["learner"]))
    fig, axes = plt.subplots(1, len(learners), figsize=(6.4 * len(learners), 4.6), sharey=True,
                             squeeze=False)
    for ax, lrn in zip(axes[0], learners, strict=True):
        part = results[results["learner"] == lrn]
        for method, grp in part.groupby("method", sort=False):
            if method in ("ffs", "triv"):
                value = grp["mae_macro"].iloc[0]
                style = {"ffs": ("k", "--", "FFS"), "triv": ("grey", ":", "Triv")}[method]
                ax.axhline(value, color=style[0], ls=style[1], lw=1.2, label=style[2])
                continue
            grp = grp.sort_values("ratio")
            ax.plot(100 * grp["ratio"], grp["mae_macro"], marker="o", ms=3.5, lw=1.3,
                    label=_display(method))
        ax.set_xscale("log")
        ticks = sorted(part.loc[~part["method"].isin(["ffs", "triv"]), "ratio"].unique() * 100)
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("Reduction level (% of the vocabulary kept)")
        ax.set_title(f"{title}  learner: {lrn}".strip())
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("MAE$^M$ (lower is better)")
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.tight_layout()
    path = Path(path)
    atomic_write(path, lambda fh: fig.savefig(fh, dpi=120, format=path.suffix.lstrip(".")))
    plt.close(fig)
    return path


_NAMES = {"var": "Var", "rr_var": "RR(Var)", "var_idf": "Var*IDF", "rr_var_idf": "RR(Var*IDF)",
          "rr_igor": "RR(IGOR)", "rr_nc_idf": "RR(NC*IDF)",
          "prp (provisional)": "PRP (provisional)"}


def _display(method: str) -> str:
    return _NAMES.get(method, method)
