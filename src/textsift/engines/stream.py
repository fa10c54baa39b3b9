"""Counting a corpus chunk by chunk, in memory bounded by the vocabulary, not the corpus.

Two vocabulary modes:

* **exact** (:func:`count_exact`) -- two passes. Pass 1 sums, over chunks, each term's
  document frequency and total count (:class:`DocumentFrequencies`) and then prunes the
  vocabulary exactly as scikit-learn's ``CountVectorizer.fit`` does (``min_df``, ``max_df``,
  then ``max_features`` by total count; terms sorted). Pass 2 counts each chunk with a
  ``CountVectorizer`` fixed to that vocabulary, :meth:`Counts.from_matrix` per chunk, and
  adds the chunk counts with ``+``. The result equals ``Counts.from_texts`` on the whole
  corpus: every count is an integer (exact in float64), so the order of the sums is
  immaterial.
* **hashing** (:func:`count_hashed`) -- one pass with scikit-learn's ``HashingVectorizer``
  (``alternate_sign=False``, ``norm=None``): counts per hash bucket, memory fixed by
  ``n_features`` whatever the vocabulary. A bucket's ``term_freq`` is the sum of its terms';
  its ``doc_counts`` lie between the largest of its terms' and their sum (two terms of one
  bucket in one document count once). :func:`recover_terms` names the buckets a ranking
  selected by a second, light pass that keeps only the terms hashing into them.

A *source* is a callable returning a fresh iterable of :class:`~textsift.engines.readers.Chunk`
(it is iterated once per pass), e.g. ``functools.partial(iter_chunks, path, ...)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

from ..corpus import EmptyCorpusError
from ..counts import Counts
from ..errors import TextsiftError
from ..vectorize import VectorizerOptions, build_vectorizer
from .readers import Chunk

__all__ = [
    "DocumentFrequencies",
    "count_chunks",
    "count_exact",
    "count_hashed",
    "fixed_vectorizer",
    "hashing_vectorizer",
    "name_buckets",
    "recover_terms",
]

Source = Callable[[], Iterable[Chunk]]


def _empty_vocabulary(reason: str) -> TextsiftError:
    # the wording of textsift.vectorize.vectorize, so both engines fail alike
    return TextsiftError(f"the vocabulary is empty after preprocessing ({reason}); lower min_df, "
                         "raise max_df, or check the text field and token pattern")


@dataclass
class DocumentFrequencies:
    """Pass 1 of the exact mode: documents seen, and each term's document frequency ``df`` and
    total count ``tf``. Additive over disjoint chunks (``a + b``, or ``a.update(b)`` in place).
    """

    n_docs: int = 0
    df: Counter = field(default_factory=Counter)
    tf: Counter = field(default_factory=Counter)

    @classmethod
    def of_texts(cls, texts: list[str], opts: VectorizerOptions | None = None):
        """Frequencies of one chunk, through ``CountVectorizer`` without pruning."""
        vec = build_vectorizer(opts, min_df=1, max_df=1.0, max_features=None)
        try:
            X = vec.fit_transform(texts).tocsr()
        except ValueError as exc:
            if "empty vocabulary" in str(exc):  # no token in this chunk: it still has documents
                return cls(len(texts))
            raise
        names = vec.get_feature_names_out().tolist()
        df = np.bincount(X.indices, minlength=len(names))
        tf = np.asarray(X.sum(axis=0)).ravel()
        return cls(len(texts), Counter(dict(zip(names, df.tolist(), strict=True))),
                   Counter(dict(zip(names, tf.tolist(), strict=True))))

    def update(self, other: DocumentFrequencies) -> DocumentFrequencies:
        self.n_docs += other.n_docs
        self.df.update(other.df)
        self.tf.update(other.tf)
        return self

    def __add__(self, other: DocumentFrequencies) -> DocumentFrequencies:
        return DocumentFrequencies().update(self).update(other)

    def vocabulary(self, opts: VectorizerOptions | None = None) -> np.ndarray:
        """The sorted terms ``CountVectorizer(min_df, max_df, max_features).fit`` keeps on the
        same documents (the pruning of its ``_limit_features``, restated here because
        scikit-learn offers it only on a full matrix)."""
        opts = opts or VectorizerOptions()
        names = np.array(sorted(self.df), dtype=object)
        if not len(names):
            raise _empty_vocabulary(
                "empty vocabulary; perhaps the documents only contain stop words")
        df = np.fromiter((self.df[t] for t in names), np.int64, len(names))
        n = self.n_docs
        high = opts.max_df if isinstance(opts.max_df, Integral) else opts.max_df * n
        low = opts.min_df if isinstance(opts.min_df, Integral) else opts.min_df * n
        if high < low:  # worded as textsift.vectorize.vectorize words it
            raise TextsiftError(
                f"the vocabulary is empty: min_df={opts.min_df} asks for more documents than "
                f"max_df={opts.max_df} allows among the {n} documents; lower min_df "
                "or raise max_df")
        mask = (df <= high) & (df >= low)
        limit = opts.max_features
        if limit is not None and mask.sum() > limit:
            tf = np.fromiter((self.tf[t] for t in names), np.int64, len(names))
            keep = (-tf[mask]).argsort()[:limit]  # the very call scikit-learn makes
            new = np.zeros(len(names), dtype=bool)
            new[np.flatnonzero(mask)[keep]] = True
            mask = new
        if not mask.any():
            raise _empty_vocabulary(
                "After pruning, no terms remain. Try a lower min_df or a higher max_df.")
        return names[mask]


def frequencies(chunks: Iterable[Chunk], opts: VectorizerOptions | None = None,
                advance=None) -> DocumentFrequencies:
    """Pass 1 over some chunks."""
    total = DocumentFrequencies()
    for chunk in chunks:
        total.update(DocumentFrequencies.of_texts(chunk.texts, opts))
        if advance:
            advance(len(chunk))
    return total


def fixed_vectorizer(vocabulary, opts: VectorizerOptions | None = None) -> CountVectorizer:
    """A ``CountVectorizer`` with the preprocessing of ``opts`` and a fixed vocabulary."""
    vec = build_vectorizer(opts)
    return vec.set_params(vocabulary={t: i for i, t in enumerate(vocabulary)})


def count_chunks(chunks: Iterable[Chunk], vectorizer, feature_names=None, classes=None,
                 advance=None) -> Counts | None:
    """Counts of each chunk under one fitted (or fixed, or hashing) vectorizer, added up.
    ``None`` when there are no chunks (an empty partition)."""
    total = None
    for chunk in chunks:
        X = vectorizer.transform(chunk.texts)
        part = Counts.from_matrix(X, chunk.labels, classes=classes, feature_names=feature_names)
        total = part if total is None else total + part
        if advance:
            advance(len(chunk))
    return total


@contextmanager
def _progress(enabled: bool, description: str):
    """An ``advance(n_docs)`` callback drawing a rich progress line on stderr, or ``None``."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"),
               TextColumn("{task.completed:,.0f} documents"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None)
        yield lambda n: bar.advance(task, n)


def empty_corpus() -> EmptyCorpusError:
    return EmptyCorpusError("the corpus is empty: the source yielded no (selected) documents; "
                       "check the path, the split and the fields")


def count_exact(source: Source, opts: VectorizerOptions | None = None, classes=None,
                progress: bool = False) -> Counts:
    """Exact counts of a chunked source in two passes (module docstring); equal to
    ``Counts.from_texts(all_texts, all_labels, opts, classes)``.

    Memory: the pass-1 table and the ``(V, m)`` counts; one chunk of documents at a time.
    """
    with _progress(progress, "pass 1/2: vocabulary") as advance:
        freq = frequencies(source(), opts, advance)
    if freq.n_docs == 0:
        raise empty_corpus()
    names = freq.vocabulary(opts)
    with _progress(progress, "pass 2/2: counting") as advance:
        counts = count_chunks(source(), fixed_vectorizer(names, opts), names, classes, advance)
    return counts


# --------------------------------------------------------------------------- hashing mode
def hashing_vectorizer(opts: VectorizerOptions | None = None,
                       n_features: int = 2**18) -> HashingVectorizer:
    """scikit-learn's ``HashingVectorizer`` over the tokens of ``opts`` (same analyzer as the
    exact mode: lowercasing, token pattern, stop words, stemming, header stripping), raw
    counts. Document-frequency pruning needs a vocabulary, so ``min_df``, ``max_df`` and
    ``max_features`` must keep their defaults."""
    opts = opts or VectorizerOptions()
    if opts.min_df != 1 or opts.max_df != 1.0 or opts.max_features is not None:
        raise TextsiftError("the hashing mode counts buckets, not terms: min_df, max_df and "
                            "max_features apply to the exact mode only; leave them at their "
                            "defaults")
    if not isinstance(n_features, Integral) or n_features < 1:
        raise TextsiftError(f"n_features must be a positive integer, got {n_features!r}")
    return HashingVectorizer(analyzer=build_vectorizer(opts).build_analyzer(),
                             n_features=int(n_features), alternate_sign=False, norm=None,
                             binary=opts.binary)


def count_hashed(source: Source, opts: VectorizerOptions | None = None, n_features: int = 2**18,
                 classes=None, progress: bool = False) -> Counts:
    """Counts per hash bucket in one pass; ``feature_names`` is ``None`` (bucket ``i`` is row
    ``i``). Memory is ``n_features x n_classes x 16`` bytes; collisions grow as the vocabulary
    approaches ``n_features``, so raise it for large vocabularies. Typical use::

        counts = count_hashed(src, opts)
        top = rank(counts, "chi2", top=20)                     # terms are bucket numbers
        named = name_buckets(counts, recover_terms(src, top["term"].astype(int), opts))
        rank(named, "chi2", top=20)
    """
    vec = hashing_vectorizer(opts, n_features)
    with _progress(progress, "hashing") as advance:
        counts = count_chunks(source(), vec, None, classes, advance)
    if counts is None:
        raise empty_corpus()
    return counts


def recover_terms(source: Source, buckets, opts: VectorizerOptions | None = None,
                  n_features: int = 2**18) -> dict[int, list[str]]:
    """The terms of the corpus that hash into ``buckets``, most frequent (by documents) first.

    A second, light pass: each chunk's terms are hashed with scikit-learn's ``FeatureHasher``
    (the hasher inside ``HashingVectorizer``) and only those landing in ``buckets`` are kept.
    """
    hashing_vectorizer(opts, n_features)  # validates the options alike
    wanted = np.unique(np.asarray(buckets, dtype=np.int64))
    hasher = FeatureHasher(n_features=int(n_features), input_type="string", alternate_sign=False)
    df: Counter = Counter()
    for chunk in source():
        freq = DocumentFrequencies.of_texts(chunk.texts, opts)
        terms = list(freq.df)
        if not terms:
            continue
        where = hasher.transform([[t] for t in terms]).indices
        for i in np.flatnonzero(np.isin(where, wanted)):
            df[(int(where[i]), terms[i])] += freq.df[terms[i]]
    found: dict[int, list[str]] = {int(b): [] for b in wanted}
    for (b, term), _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0][1])):
        found[b].append(term)
    return found


def name_buckets(counts: Counts, terms: dict[int, list[str]]) -> Counts:
    """Hashed counts with feature names: ``"a|b"`` for a bucket holding terms ``a`` and ``b``
    (most frequent first), ``"#i"`` for buckets not named."""
    names = np.array([f"#{i}" for i in range(counts.n_terms)], dtype=object)
    for b, ts in terms.items():
        if ts:
            names[b] = "|".join(ts)
    return Counts(counts.classes, counts.class_sizes, counts.doc_counts, counts.term_freq, names)
