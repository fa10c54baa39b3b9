"""Keyness in one call: the terms of a target against a reference, from the tables people
have (a list of texts, a pandas or Polars column), with their evidence and dispersion.
:func:`keyness` is also ``textsift.keyness`` (the module is not named after the function, so
that importing it does not shadow ``textsift.keyness``).

:func:`keyness` counts the texts, ranks every term of the target by ``method`` and gives each
its evidence through :func:`textsift.evidence.terms.evidence` -- the one path ``textsift score
--evidence`` takes, so the two agree column by column. The table starts with quanteda's
``textstat_keyness`` layout (K. Benoit et al., "quanteda: An R package for the quantitative
analysis of textual data", JOSS 3(30) (2018) 774):

* ``feature`` -- the term;
* the statistic, named after the method (``g2``, ``chi2``, ``fisher``, ...), **signed**:
  negative for a term under-represented in the target; the rows are sorted by it, the
  target's terms first, the reference's last;
* ``p`` -- the method's p-value (none for a method that is not a test);
* ``n_target``, ``n_reference`` -- the term's count (tokens) in each,

then textsift's: ``direction`` (``over``/``under``), ``df``, the document counts ``A``, ``B``,
``C``, ``D``, ``q`` (``p`` adjusted by ``correction`` over ``family``), the effect sizes with
their intervals (:mod:`textsift.scores.effects`), the dispersion of each group
(:mod:`textsift.evidence.dispersion`: ``range_*``, ``dp_*``, ``dp_norm_*``, ``cv_*``) and the
document-level tests (:mod:`textsift.evidence.document_tests`: ``p_wilcoxon``, ``q_wilcoxon``, and
with ``bootstrap=B`` ``p_bootstrap``, ``q_bootstrap``).

The **reference** is the documents without the target (the default), another group
(``reference="label"``), a reference corpus given as texts (counted with the target's
vocabulary and preprocessing: :func:`textsift.evidence.reference.count_reference`), or a **frequency
list** (a mapping or a pandas Series ``term -> count``, e.g. a general corpus's word list:
quanteda issue 495). A frequency list has no documents, so its comparison is of **tokens**:
``A`` and ``B`` are the term's counts, ``C`` and ``D`` the other tokens of each side (the
keyness table of corpus linguistics, P. Rayson and R. Garside, "Comparing corpora using
frequency profiling", 2000), the reference's dispersion and the document-level tests are
NaN, and the list's terms are matched as they are written (lowercase them if the target is
lowercased). Everywhere else the units are documents.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._choices import CORRECTION, FAMILY
from ..counting.counts import Counts
from ..errors import TextsiftError

__all__ = ["keyness"]

#: The name of the target's group when ``groups`` are true/false flags, or absent.
TARGET = "target"
#: The name of the rest when ``groups`` are flags.
REST = "rest"


def keyness(texts, groups=None, *, target=None, reference=None, data=None,
            method: str = "g2", correction: str = CORRECTION, family: str = FAMILY,
            level: float = 0.95, direction: str = "both", min_range: int | None = None,
            bootstrap: int = 0, random_state=0, output: str = "pandas", opts=None,
            **preprocessing):
    """The keyness table of the target against the reference (module docstring).

    Parameters
    ----------
    texts : a sequence of strings, a pandas or Polars column, or a column name of ``data``.
    groups : each text's group (a sequence, a column, or a column name of ``data``); true/false
        flags mark the target; ``None``: every text is the target (give a reference corpus).
    target : the target group (a value of ``groups``; not with flags or ``groups=None``).
    reference : ``None`` (the documents without the target), a value of ``groups``, a
        reference corpus (a sequence or column of texts), or a frequency list (a mapping or a
        pandas Series of term -> count).
    data : a pandas or Polars DataFrame (or a Hugging Face ``Dataset``) ``texts`` and
        ``groups`` name columns of.
    method : a nominal method of :data:`textsift.scores.REGISTRY` (``g2`` by default: the
        log-likelihood ratio of keyness).
    correction, family, level : as ``textsift score --evidence``'s.
    direction : ``both`` (the default: the target's and the reference's terms), ``over`` or
        ``under``.
    min_range : only the terms in at least this many of the target's documents.
    bootstrap : resamples of Lijffijt's bootstrap test (0: none).
    random_state : the bootstrap's seed.
    output : ``"pandas"`` or ``"polars"``.
    opts, preprocessing : the preprocessing (:class:`~textsift.text.vectorize.VectorizerOptions`
        and/or its fields, e.g. ``min_df=5``).
    """
    from ..scores import get_method
    from ..selection.ranking import rank
    from ..text.vectorize import _options, vectorize
    from .dispersion import Documents
    from .terms import evidence, keep_range

    if output not in ("pandas", "polars"):
        raise TextsiftError(f"output must be 'pandas' or 'polars', got {output!r}")
    m = get_method(method)
    if m.kind != "nominal":
        raise TextsiftError(f"{m.name} is an {m.kind} method; keyness compares two groups: "
                            "choose a nominal method (g2, chi2, fisher, ...)")
    texts = _strings(_column(texts, data, "texts"), "texts")
    frequency = _frequency_list(reference)
    corpus = None if frequency is not None or reference is None or _is_label(reference) \
        else _strings(_column(reference, None, "reference"), "reference")
    labels, target = _groups(_column(groups, data, "groups") if groups is not None else None,
                             target, len(texts), external=frequency is not None
                             or corpus is not None)
    opts = _options(opts, preprocessing)
    X, names, _ = vectorize(texts, opts)
    counts = Counts.from_matrix(X, labels, feature_names=names)
    docs = Documents.of(X, labels, counts.classes)
    rows = np.asarray(labels) == target
    if frequency is not None:
        counts, docs = _against_frequencies(X[rows], names, frequency, target)
    elif corpus is not None:
        from .reference import against_corpus, count_reference

        ref, X_ref = count_reference(corpus, counts, opts, matrix=True)
        counts = against_corpus(counts, ref, target)
        docs = Documents.two_groups(X[rows], X_ref)
    elif reference is not None:
        from ..labels import group_index
        from .reference import against

        two = against(counts, target, reference)
        docs = docs.select_classes([group_index(counts.classes, c) for c in two.classes])
        counts = two
    label = counts.classes[0] if frequency is not None or corpus is not None else target
    ranked = rank(counts, m, class_label=label, direction=direction)
    ranked = ranked.head(int((ranked.scores > -np.inf).sum()))
    if min_range is not None and frequency is None:
        ranked = keep_range(counts, ranked, m, min_range)
    frame = evidence(counts, ranked, m, correction, family, level, documents=docs,
                     bootstrap=bootstrap, random_state=random_state)
    if frequency is not None:  # tokens: the counts are the cells; the list has no documents
        frame["n_target"], frame["n_reference"] = frame["A"], frame["B"]
        frame["range_reference"] = np.nan
        if min_range is not None:  # documents of the target, not its tokens (A here)
            keep_range(counts, ranked.head(0), m, min_range)  # the same check of min_range
            keep = frame["range_target"].to_numpy() >= min_range
            frame, ranked = frame[keep].reset_index(drop=True), _rows(ranked, keep)
    frame = _layout(frame, m.name, ranked)
    if output == "polars":
        import polars as pl

        return pl.from_pandas(frame)
    return frame


def _rows(ranked, keep):
    """The ranking's rows ``keep`` (a boolean mask)."""
    from dataclasses import replace

    return replace(ranked, index=ranked.index[keep], scores=ranked.scores[keep],
                   groups=None if ranked.groups is None else ranked.groups[keep],
                   signs=None if ranked.signs is None else ranked.signs[keep])


def _layout(frame: pd.DataFrame, name: str, ranked) -> pd.DataFrame:
    """quanteda's columns first, the statistic signed, sorted by it."""
    signs = ranked.signs if ranked.signs is not None else np.ones(len(ranked))
    frame = frame.rename(columns={"term": "feature"})
    score = frame["score"].to_numpy(dtype=float)  # the ranking's: signed or not
    frame[name] = np.where(signs < 0, -np.abs(score), np.where(signs > 0, np.abs(score), score))
    if "direction" not in frame:
        frame["direction"] = np.select([signs > 0, signs < 0], ["over", "under"], "")
    first = ["feature", name, *[c for c in ("p", "n_target", "n_reference") if c in frame]]
    rest = [c for c in frame.columns if c not in first and c not in ("position", "score")]
    frame = frame[first + rest]
    order = np.argsort(-frame[name].to_numpy(), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def _column(values, data, role: str):
    """``values`` itself, or the column of ``data`` it names."""
    if isinstance(values, str) and data is not None:
        named = getattr(data, "column_names", None)  # a Hugging Face Dataset's
        columns = [str(c) for c in (named if named is not None else data.columns)]
        if values not in columns:
            raise TextsiftError(f"the data have no column {values!r} (the {role}); its columns "
                                f"are {', '.join(columns)}: name one of them")
        return data[values]
    if isinstance(values, str):
        raise TextsiftError(f"{role} is the string {values!r}: give a sequence (one per "
                            "document) or a column, or name a column of data=DataFrame")
    return values


def _strings(values, role: str) -> list:
    if hasattr(values, "to_list"):  # a pandas or Polars column
        values = values.to_list()
    values = list(values)
    if not values:
        raise TextsiftError(f"the {role} hold no document")
    bad = next((i for i, v in enumerate(values) if not isinstance(v, str)), None)
    if bad is not None:
        raise TextsiftError(f"the {role} must be strings: item {bad} is "
                            f"{type(values[bad]).__name__} {values[bad]!r} (fill or drop the "
                            "missing texts)")
    return values


def _is_label(value) -> bool:
    return isinstance(value, str | int | np.integer | bool | np.bool_)


def _groups(groups, target, n: int, external: bool):
    """The labels of the documents and the target's: flags become :data:`TARGET` and
    :data:`REST`; no groups, every document the target (an external reference needed)."""
    if groups is None:
        if not external:
            raise TextsiftError("without groups every text is the target: give a reference "
                                "corpus (reference=texts) or a frequency list "
                                "(reference={term: count}), or groups and a target")
        if target is not None:
            raise TextsiftError("target names a group, and no groups are given: drop target, "
                                "or give groups")
        return np.full(n, TARGET, dtype=object), TARGET
    if hasattr(groups, "to_list"):
        groups = groups.to_list()
    groups = list(groups)
    if len(groups) != n:
        raise TextsiftError(f"{n} texts but {len(groups)} groups; give one group per text")
    if any(g is None or (isinstance(g, float) and np.isnan(g)) for g in groups):
        raise TextsiftError("some groups are missing (None or NaN): fill or drop those rows")
    if any(isinstance(g, list | tuple | set | frozenset | np.ndarray) for g in groups):
        raise TextsiftError("the groups are label sets (several labels per text): keyness "
                            "compares one target with a reference; give true/false flags of "
                            "the target instead, e.g. [\"joy\" in labels for labels in "
                            "df[\"labels\"]]")
    if all(isinstance(g, bool | np.bool_) for g in groups):
        if target is not None:
            raise TextsiftError("the groups are true/false flags of the target: drop target "
                                "(True marks the target)")
        flags = np.asarray(groups, dtype=bool)
        if flags.all() and not external or not flags.any():
            raise TextsiftError("the target flags must mark some texts and, without a "
                                "reference corpus, leave some unmarked")
        return np.where(flags, TARGET, REST).astype(object), TARGET
    values = sorted({str(g) for g in groups})
    if target is None:
        raise TextsiftError(f"give the target group (target=...); the groups are "
                            f"{', '.join(values[:20])}")
    if str(target) not in values:
        raise TextsiftError(f"the target {target!r} is not among the groups "
                            f"({', '.join(values[:20])}"
                            f"{', ...' if len(values) > 20 else ''}): name one of them")
    if len(values) == 1 and not external:
        raise TextsiftError(f"the groups have one value ({values[0]!r}): there is nothing to "
                            "compare the target with; give groups of two values or more, or a "
                            "reference corpus (reference=texts or a frequency list)")
    labels = np.array([str(g) for g in groups], dtype=object)
    return labels, str(target)


def _frequency_list(reference) -> pd.Series | None:
    """A reference frequency list as a Series of non-negative counts by term, or None when
    ``reference`` is no frequency list."""
    if isinstance(reference, Mapping):
        series = pd.Series(dict(reference), dtype=object)
    elif isinstance(reference, pd.Series) and (reference.dtype.kind in "iuf" or (
            len(reference) and not isinstance(reference.iloc[0], str))):
        series = reference.astype(object)
    else:
        return None
    if series.empty:
        raise TextsiftError("the reference frequency list is empty; give term -> count pairs")
    for term, count in series.items():
        if not isinstance(term, str):
            raise TextsiftError(f"the reference frequency list has the term {term!r}, which "
                                "is not a string: its keys must be the terms")
        number = isinstance(count, int | float | np.integer | np.floating) and not isinstance(
            count, bool | np.bool_)
        if not number or not np.isfinite(count) or count < 0:
            raise TextsiftError(f"the reference frequency list gives {term!r} the count "
                                f"{count!r}: counts must be non-negative numbers; fix or drop "
                                "that entry")
    return series.astype(np.float64)


def _against_frequencies(X, names, frequency: pd.Series, target):
    """Token-level two-group counts of the target's documents ``X`` against a frequency list
    (module docstring), and the target's documents (the reference has none)."""
    import scipy.sparse as sp

    from .dispersion import Documents

    in_list = frequency.groupby(level=0).sum()
    ref = in_list.reindex(pd.Index(names, dtype=object)).fillna(0.0).to_numpy()
    if not (ref > 0).any():
        raise TextsiftError("the reference frequency list shares no term with the target: "
                            "check that its terms are preprocessed as the target's (e.g. "
                            "lowercased)")
    if not np.allclose(ref, np.round(ref)):
        raise TextsiftError("the reference frequency list holds fractional counts; a "
                            "keyness test needs whole numbers of tokens (give raw counts, not "
                            "relative frequencies)")
    tgt = np.asarray(X.sum(axis=0)).ravel()
    sizes = np.array([int(round(tgt.sum())), int(round(in_list.sum()))], dtype=np.int64)
    doc_counts = np.column_stack([np.round(tgt), np.round(ref)]).astype(np.int64)
    counts = Counts(np.array([TARGET if target is None else target, "reference"],
                             dtype=object), sizes, doc_counts, None,
                    np.asarray(names, dtype=object))
    n = X.shape[0]
    member = sp.csr_matrix(np.c_[np.ones(n, bool), np.zeros(n, bool)])
    docs = Documents(sp.csr_matrix(X, dtype=np.float64), member,
                     np.asarray(X.sum(axis=1), dtype=np.float64).ravel())
    return counts, docs
