"""Folds of an experiment: read the corpus once, tokenise it once, and for every fold build the
document-term matrices and the :class:`~textsift.counting.counts.Counts` of its training part,
cached on
disk (one ``.npz`` per fold, written atomically) so that trials -- and a resumed run -- reuse them.

The vocabulary of a fold is fitted on that fold's training documents only (``min_df`` and
``max_df`` apply to them), as in any honest evaluation.

Label sets (a multilabel task) are read into a :class:`~textsift.labels.Labels` over every
label of the corpus, and a fold's parts carry their 0/1 indicator matrices over those labels
(a label may have no document in a part). Their folds are not stratified: scikit-learn has
no multi-label stratification (iterative stratification, Sechidis et al. 2011, is not in it),
so cross-validation uses shuffled :class:`~sklearn.model_selection.KFold`, a random test part
``train_test_split`` without ``stratify``, and the runner says so in a note.

The corpus is tokenised and counted once (:func:`textsift.text.vectorize.count_terms`: lowercasing,
header stripping, the token pattern, stop words, each distinct word stemmed once), into one
matrix over every term; a fold's matrices are its rows and the columns its training part
keeps (:func:`textsift.text.vectorize.term_mask`) -- what a ``CountVectorizer`` fitted on the
training documents and applied to the test documents gives.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

from .._io import atomic_write_text, write_npz
from ..counting.counts import Counts
from ..errors import DataWarning, TextsiftError
from ..labels import (
    LabelForms,
    LabelKind,
    Labels,
    as_labels,
    check_label_counts,
    check_label_spelling,
    decide_kind,
    distinct_labels,
    holds_label_lists,
    unseen_classes,
)
from ..labels.ranks import check_ranks
from ..reading.corpus import (
    TABLE,
    CorpusError,
    is_table,
    load_sample,
    numeric_labels,
    read_corpus,
)
from ..text.vectorize import count_terms, term_mask
from ._keys import ConfigError
from ._methods import check_class_weights
from ._tasks import for_labels
from .specs import Experiment, FoldRef, TrainTest
from .store import StoreError

__all__ = ["SUMMARY", "Prepared", "fold_notes", "fold_paths", "fold_summaries", "kind_of",
           "load_fold", "prepare_documents", "prepare_folds", "read_documents"]


# --------------------------------------------------------------------------- documents
def _frame(exp: Experiment, path, bad: list, forms: LabelForms) -> pd.DataFrame:
    """The records of one source: a file's path, a table in memory, or None (the sample)."""
    c = exp.corpus
    corpus = load_sample(c.sample, check_spelling=False) if path is None else read_corpus(
        path, c.text_field, c.label_field, on_bad_line="skip" if c.skip_bad_lines else "error",
        bad_lines=bad, strip_labels=c.strip_labels, label_sep=c.label_sep,
        encoding=c.encoding, sep=c.sep,
        ranks=c.label_kind == "ordinal",
        check_spelling=False,  # every file's labels checked together
        forms=forms)
    frame = corpus.frame
    for f in (c.text_field, c.label_field):
        if f not in frame.columns:
            raise ConfigError(f"{exp.source}: [corpus] field {f!r} is not in {_name(exp, path)}; "
                              f"fields are {list(frame.columns)}")
    return frame


def _name(exp: Experiment, source) -> str:
    """A source in messages: its path, the sample's name, or ``the DataFrame``."""
    return TABLE if is_table(source) else str(source or exp.corpus.sample)


def read_documents(exp: Experiment, log=None) -> tuple[list[str], np.ndarray | Labels,
                                                       np.ndarray | None]:
    """``(texts, labels, is_test)`` of the whole corpus; ``is_test`` is None under CV and for
    a random test part (``test_size``). ``labels`` is an array of one label per document, or
    the :class:`~textsift.labels.Labels` of label sets (a document may have none).
    Documents with an empty text are dropped (and counted through ``log``): they carry
    nothing to select from, yet would count in every ``N``.

    With ``protocol = "split"`` the test part is ``test_path`` when given, else the records
    whose ``split_field`` equals ``test_split`` (the rest must equal ``train_split``).
    """
    bad: list = []
    texts, labels, is_test = _documents(exp, bad)
    if bad and log is not None:
        log(f"skipped {len(bad):,} malformed line(s) (first: {bad[0][0]} line {bad[0][1]})")
    keep = np.array([bool(t.strip()) for t in texts], dtype=bool)
    if not keep.all():
        if log is not None:
            log(f"dropped {int((~keep).sum()):,} documents with an empty text")
        texts = [t for t, k in zip(texts, keep, strict=True) if k]
        labels = labels.take(keep) if isinstance(labels, Labels) else labels[keep]
        is_test = None if is_test is None else is_test[keep]
    if is_test is not None and (is_test.all() or not is_test.any()):
        raise ConfigError(f"{exp.source}: the split leaves an empty train or test part")
    return texts, labels, is_test


def _documents(exp: Experiment, bad: list):
    c = exp.corpus
    sources = [c.table] if c.table is not None else [None] if c.sample else list(c.paths)
    forms = LabelForms()  # the spellings of every file's labels: one warning for them all
    frames = [_frame(exp, p, bad, forms) for p in sources]
    n_train = sum(len(f) for f in frames)
    if c.test_path:
        frames.append(_frame(exp, c.test_path, bad, forms))
    forms.warn(exp.source)
    _same_kind_of_labels(exp, frames, [*sources, *([c.test_path] if c.test_path else [])])
    frame = pd.concat(frames, ignore_index=True)
    texts = frame[c.text_field].fillna("").astype(str).tolist()
    check_label_spelling(distinct_labels(frame[c.label_field]), exp.source)
    labels = _labels(exp, frame[c.label_field])
    if exp.protocol == "cv" or exp.test_size:
        return texts, labels, None
    if c.test_path:
        is_test = np.arange(len(frame)) >= n_train
    else:
        if c.split_field not in frame.columns:
            raise ConfigError(
                f"{exp.source}: protocol 'split' needs [corpus] test_path or a split field; "
                f"{c.split_field!r} is not among {list(frame.columns)}")
        split = frame[c.split_field].astype(str).to_numpy()
        other = ~np.isin(split, [c.train_split, c.test_split])
        if other.any():
            raise ConfigError(
                f"{exp.source}: {int(other.sum())} records have {c.split_field} outside "
                f"{{{c.train_split!r}, {c.test_split!r}}} (e.g. {split[other][0]!r})")
        is_test = split == c.test_split
    return texts, labels, is_test


def _same_kind_of_labels(exp: Experiment, frames, sources) -> None:
    """Label lists in one file and single labels in another are an error naming both."""
    field = exp.corpus.label_field
    kinds = [len(f) > 0 and holds_label_lists(f[field]) for f in frames]
    if len(set(kinds)) > 1:
        a, b = kinds.index(True), kinds.index(False)
        raise CorpusError(
            f"{exp.source}: the label {field!r} is a list in {_name(exp, sources[a])} "
            f"and a single label in {_name(exp, sources[b])}; give every record of "
            'every file a list of labels (["x"]; [] for none) or every record one label')


def _labels(exp: Experiment, column: pd.Series) -> np.ndarray | Labels:
    if column.isna().any():
        raise CorpusError(f"{int(column.isna().sum())} records have no label "
                          f"{exp.corpus.label_field!r}; drop or fill them")
    if holds_label_lists(column):  # (whether the declared kind takes them: kind_of)
        return as_labels(column.tolist())
    if not LabelKind(exp.corpus.label_kind).ranks:
        return column.astype(str).to_numpy(dtype=str)
    try:
        y, _ = check_ranks(numeric_labels(column, exp.corpus.label_field), exp.corpus.ranks)
    except ValueError as exc:
        raise ConfigError(f"{exp.source}: ordinal task: {exc}") from None
    return y.astype(np.int64)


def kind_of(exp: Experiment, label_lists: bool) -> LabelKind:
    """The kind of the experiment's labels, label lists (``label_lists``) or one label per
    record, as :func:`~textsift.labels.decide_kind` decides it from ``[corpus] label_kind``."""
    try:
        return decide_kind(exp.corpus.label_kind, label_lists, exp.corpus.label_field)
    except TextsiftError as exc:
        raise ConfigError(f"{exp.source}: {exc}") from None


# --------------------------------------------------------------------------- folds
def fold_indices(exp: Experiment, labels, is_test) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train, test)`` document indices of every fold, each in corpus order. Label sets
    are not stratified (module docstring)."""
    label_sets = isinstance(labels, Labels)
    n = labels.n_docs if label_sets else len(labels)
    if exp.protocol == "split" and exp.test_size:
        try:
            train, _ = train_test_split(np.arange(n), test_size=exp.test_size,
                                        stratify=labels if exp.kind.stratified else None,
                                        random_state=exp.seed)
        except ValueError as exc:
            raise ConfigError(f"{exp.source}: cannot draw a stratified test part of "
                              f"{exp.test_size:g}: {exc}") from None
        is_test = np.ones(n, dtype=bool)
        is_test[train] = False
    if exp.protocol == "split":
        return [(np.flatnonzero(~is_test), np.flatnonzero(is_test))]
    stratified = exp.stratified and exp.kind.stratified
    splitter = (StratifiedKFold if stratified else KFold)(n_splits=exp.folds, shuffle=True,
                                                          random_state=exp.seed)
    if stratified:
        _check_fold_classes(exp, labels)
    try:
        with warnings.catch_warnings():  # said above, in words a user can act on
            warnings.filterwarnings("ignore", "The least populated class", UserWarning)
            return list(splitter.split(np.zeros(n), labels if exp.kind.stratified else None))
    except ValueError as exc:
        raise ConfigError(f"{exp.source}: cannot make {exp.folds} folds: {exc}") from None


def _check_fold_classes(exp: Experiment, labels) -> None:
    """Warn when a class has fewer documents than there are folds (scikit-learn's
    ``StratifiedKFold`` says so in a ``UserWarning`` of its own words): some folds then test
    no document of it."""
    classes, sizes = np.unique(labels, return_counts=True)
    few = sizes < exp.folds
    if few.any():
        shown = ", ".join(f"{c!r} ({n:,})" for c, n in zip(classes[few][:5], sizes[few][:5],
                                                           strict=True))
        warnings.warn(
            f"{exp.source}: {int(few.sum()):,} class(es) have fewer documents than the "
            f"{exp.folds} folds ({shown}{' ...' if few.sum() > 5 else ''}), so some folds' test "
            f"parts have none of them; use at most {int(sizes.min())} folds ([evaluation] "
            "folds), or drop or merge those classes", DataWarning, stacklevel=3)


def _build_fold(exp, X, names, labels, train, test) -> TrainTest:
    """The fold's matrices from the corpus's term counts ``X`` (every term, ``names``): the
    terms of the training documents that ``min_df`` / ``max_df`` keep on them."""
    X_train = X[train]
    df = np.bincount(X_train.indices, minlength=X.shape[1])
    seen = df > 0
    try:
        mask = term_mask(df[seen], np.asarray(X_train[:, seen].sum(axis=0)).ravel(),
                         len(train), exp.preprocessing)
    except TextsiftError as exc:
        raise ConfigError(f"{exp.source}: empty vocabulary in a fold ({exc}); lower min_df "
                          "or raise max_df") from None
    keep = np.flatnonzero(seen)[mask]
    X_train, X_test = X_train[:, keep], X[test][:, keep]
    if isinstance(labels, Labels):  # label sets: indicators over every label of the corpus
        y_train, y_test = labels.matrix[train], labels.matrix[test]
        classes = labels.classes
    else:
        y_train, y_test = labels[train], labels[test]
        classes = exp.corpus.ranks if exp.kind.ranks else None
    given = Labels(classes, matrix=y_train) if isinstance(labels, Labels) else y_train
    counts = Counts.from_matrix(X_train, given, classes=None if isinstance(labels, Labels)
                                else classes, feature_names=names[keep].astype(str))
    return TrainTest(X_train=sp.csr_matrix(X_train), y_train=y_train,
                     X_test=sp.csr_matrix(X_test), y_test=y_test, counts=counts)


def save_fold(data: TrainTest, path: Path) -> None:
    """Write a fold to ``path`` atomically (temporary file + ``os.replace``); its sparse
    matrices (the documents', label sets' indicators, counts in the sparse layout) as their
    arrays."""
    arrays = {}
    c = data.counts
    matrices = [("Xtr", data.X_train), ("Xte", data.X_test)]
    if sp.issparse(data.y_train):  # label sets: their indicators
        matrices += [("Ytr", data.y_train), ("Yte", data.y_test)]
    else:
        arrays.update(y_train=data.y_train, y_test=data.y_test)
    for name, X in matrices:
        if not sp.issparse(X):
            arrays[name] = X
            continue
        arrays.update({f"{name}_data": X.data, f"{name}_indices": X.indices,
                       f"{name}_indptr": X.indptr, f"{name}_shape": np.array(X.shape)})
    arrays.update(classes=c.classes.astype(str) if c.classes.dtype == object else c.classes,
                  class_sizes=c.class_sizes, feature_names=c.feature_names.astype(str),
                  n_docs=c.n_docs, df=c.df, tf=c.tf, multilabel=c.multilabel)
    arrays.update(c.table_arrays())
    write_npz(path, arrays)


def load_fold(ref) -> TrainTest:
    """Read a cached fold: a :class:`~.specs.FoldRef` (the file must still be that version of
    it: a rebuilt file is refused, so that no trial mixes two experiments' folds), or a path."""
    if isinstance(ref, FoldRef) and FoldRef.of(ref.path) != ref:
        raise StoreError(f"{ref.path} changed while the run was using it (another run in the "
                         "same --out?); run again with --resume")
    with np.load(ref.path if isinstance(ref, FoldRef) else ref, allow_pickle=False) as z:
        a = {k: z[k] for k in z.files}

    def csr(name):
        return sp.csr_matrix((a[f"{name}_data"], a[f"{name}_indices"], a[f"{name}_indptr"]),
                             shape=tuple(a[f"{name}_shape"]))

    docs, weights = Counts.tables_of_arrays(a)
    counts = Counts(a["classes"], a["class_sizes"], docs, weights,
                    a["feature_names"].astype(object), a["n_docs"][()], a["df"], a["tf"],
                    a["multilabel"][()])
    y_train, y_test = (csr("Ytr"), csr("Yte")) if "Ytr_data" in a else (a["y_train"],
                                                                         a["y_test"])
    return TrainTest(X_train=csr("Xtr"), y_train=y_train, X_test=csr("Xte"), y_test=y_test,
                     counts=counts)


@dataclass(frozen=True, eq=False)
class Prepared:
    """An experiment's corpus read, checked and counted once (``X``: every term, ``names``),
    the indices of its folds, and its first fold built in memory: all the work on the data
    that can fail, done before the first file is written (:func:`prepare_documents`)."""

    X: sp.csr_matrix
    names: np.ndarray
    labels: np.ndarray | Labels
    splits: list[tuple[np.ndarray, np.ndarray]]
    first: TrainTest
    exp: Experiment


def prepare_documents(exp: Experiment, log=print, n_jobs: int = 1) -> Prepared:
    """Read, check and count the corpus (on ``n_jobs`` threads) and build fold 0:
    a corpus that cannot be read, a split that leaves a part empty, a training part with one
    class (or, for label sets, no label), folds that cannot be made, a key the labels do not
    fit (:func:`kind_of`, ``_tasks.for_labels``: ``Prepared.exp`` is the experiment for
    them), or an
    empty vocabulary are errors raised here."""
    texts, labels, is_test = read_documents(exp, log)
    sizes = labels if isinstance(labels, Labels) else as_labels(labels)
    check_label_counts(sizes.classes, sizes.class_sizes, sizes.n_docs, sizes.multilabel,
                       exp.source, exp.corpus.label_field)  # before the work
    exp = for_labels(exp, kind_of(exp, isinstance(labels, Labels)))
    if not isinstance(labels, Labels):  # (a class_weight table is refused for label sets)
        check_class_weights(exp, labels)
    splits = fold_indices(exp, labels, is_test)
    for k, (train, _) in enumerate(splits):
        if isinstance(labels, Labels):
            if not labels.matrix[train].nnz:
                part = "training part" + (f" of fold {k}" if exp.n_folds > 1 else "")
                raise CorpusError(f"{exp.source}: no document of the {part} has a label "
                                  f"({len(train):,} documents); check the split and [corpus] "
                                  f"label_field ({exp.corpus.label_field!r})")
            continue
        present = np.unique(labels[train])
        if len(present) < 2:
            part = "training part" + (f" of fold {k}" if exp.n_folds > 1 else "")
            raise CorpusError(
                f"{exp.source}: the {part} has a single class ({present[0]!r}, "
                f"{len(train):,} documents); classifying needs two or more. Check [corpus] "
                f"label_field ({exp.corpus.label_field!r}) and the split")
    log(f"tokenising {len(texts):,} documents")
    X, names = count_terms(texts, exp.preprocessing, n_threads=effective_n_jobs(n_jobs))
    return Prepared(X, names, labels, splits, _build_fold(exp, X, names, labels, *splits[0]),
                    exp)


def fold_notes(data: TrainTest, where: str = "") -> list[str]:
    """Notes on a fold (``where``: " of fold 2", or nothing for one fold): a test part with
    classes that its training part never has (:func:`~textsift.labels.unseen_classes`), which
    no learner has seen an example of -- with every test class unseen, every measure is that
    of a wrong answer."""
    if sp.issparse(data.y_train):  # label sets
        return _unseen_labels(data, where)
    unseen = unseen_classes(data.y_train, data.y_test)
    if not unseen:
        return []
    n, n_test = sum(unseen.values()), len(data.y_test)
    shown = ", ".join(f"{c!r} ({m:,})" for c, m in list(unseen.items())[:5])
    return [f"the test part{where}: {n:,} of its {n_test:,} documents "
            f"{'has a class' if n == 1 else 'have classes'} that no training document has "
            f"({shown}{' ...' if len(unseen) > 5 else ''})"
            + ("; that is every test document, so every prediction is wrong" if n == n_test
               else "") + "; no learner has seen an example of them, and a classifier never "
            "predicts them. Check the split and the label field"]


def _unseen_labels(data: TrainTest, where: str) -> list[str]:
    """The note on the labels of a fold's test part that no training document has (label
    sets)."""
    m = data.y_train.shape[1]
    train = np.bincount(data.y_train.indices, minlength=m)
    test = np.bincount(data.y_test.indices, minlength=m)
    unseen = np.flatnonzero((test > 0) & (train == 0))
    if not len(unseen):
        return []
    classes = data.counts.classes
    shown = ", ".join(f"{str(classes[j])!r} ({test[j]:,})" for j in unseen[:5])
    return [f"the test part{where}: {len(unseen)} label(s) that no training document has "
            f"({shown}{' ...' if len(unseen) > 5 else ''}); [evaluation] label_set = "
            "'train_and_test' leaves them out, 'all' measures them, predicted nowhere"]


def _summary(data: TrainTest, k: int, n_folds: int) -> dict:
    """What the runner needs of a fold besides its trials: its vocabulary size and its notes."""
    return {"n_terms": data.n_terms,
            "notes": fold_notes(data, f" of fold {k}" if n_folds > 1 else "")}


def fold_paths(exp: Experiment, cache_dir: Path) -> list[Path]:
    """The cache file of each fold of ``exp`` in ``cache_dir`` (built or not)."""
    return [Path(cache_dir) / f"fold-{k}.npz" for k in range(exp.n_folds)]


#: The summary of the cached folds beside them: each fold's vocabulary size and notes
#: (:func:`fold_notes`), so that a run reads no fold file for them.
SUMMARY = "folds.json"


def fold_summaries(cache_dir: Path) -> list[dict] | None:
    """Each cached fold's ``{"n_terms": ..., "notes": [...]}``, or None when the cache has
    no summary (:func:`prepare_folds` writes it with the last fold)."""
    path = Path(cache_dir) / SUMMARY
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def prepare_folds(exp: Experiment, cache_dir: Path, log=print, n_jobs: int = 1,
                  prepared: Prepared | None = None) -> list[Path]:
    """Paths of the cached folds of ``exp``, building the missing ones (corpus read and
    counted at most once, on ``n_jobs`` threads; or taken from ``prepared``) and the summary
    of them all (:func:`fold_summaries`), from the folds as they are built."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    paths = fold_paths(exp, cache_dir)
    missing = [k for k, p in enumerate(paths) if not p.exists()]
    if not missing and (cache_dir / SUMMARY).exists():
        return paths
    p = (prepared or prepare_documents(exp, log, n_jobs)) if missing else None
    summaries = []
    for k, path in enumerate(paths):
        if k not in missing:  # built by a run killed before its summary: read once
            summaries.append(_summary(load_fold(path), k, len(paths)))
            continue
        train, test = p.splits[k]
        data = p.first if k == 0 else _build_fold(exp, p.X, p.names, p.labels, train, test)
        save_fold(data, path)
        summaries.append(_summary(data, k, len(paths)))
        log(f"fold {k}: {len(train):,} train / {len(test):,} test documents, "
            f"{data.n_terms:,} terms")
    atomic_write_text(cache_dir / SUMMARY, json.dumps(summaries))
    return paths
