"""Counting a corpus chunk by chunk, in memory bounded by the vocabulary, not the corpus.

Two vocabulary modes:

* **exact** (:func:`count_exact`) -- one pass. Each chunk is tokenised and counted
  (:func:`textsift.text.vectorize.count_terms`: every term, no pruning) into per-class counts
  (:meth:`Counts.from_matrix`), which :class:`TermTotals` adds up term by term, over the union
  of the chunks' vocabularies and classes. At the end the vocabulary is sorted and pruned
  exactly as scikit-learn's ``CountVectorizer.fit`` prunes it
  (:func:`textsift.text.vectorize.term_mask`: ``min_df``, ``max_df``, then ``max_features`` by
  total count). Every count is an integer (exact in float64), so the result equals
  ``Counts.from_texts`` on the whole corpus whatever the chunking. Memory: the counts of every
  term seen, ``V_all x m x 16`` bytes (before pruning) and their names, and one chunk of
  documents. **N-grams** make ``V_all`` explode (IMDb: 102k words, 2.5 M words and pairs, most
  in one document), so where ``min_df`` prunes, an n-gram count first takes a light pass that
  adds each term's document frequency into a fixed table of :data:`PREFILTER_BUCKETS` buckets
  (Polars' string hash): a bucket's count bounds each of its terms' from above, so the
  counting pass can drop every term whose bucket stays below ``min_df`` and the result is
  still exact. Memory is then that table (32 MB) plus the terms that survive and their
  bucket-mates; with ``min_df = 1`` the bound is the result itself.
* **hashing** (:func:`count_hashed`) -- one pass, the counts of scikit-learn's
  ``HashingVectorizer`` (``alternate_sign=False``, ``norm=None``; each chunk's distinct terms
  hashed once): counts per hash bucket, memory fixed by ``n_features`` whatever the
  vocabulary. A bucket's ``term_freq`` is the sum of its terms';
  its ``doc_counts`` lie between the largest of its terms' and their sum (two terms of one
  bucket in one document count once). :func:`recover_terms` names the buckets a ranking
  selected by a second, light pass that keeps only the terms hashing into them.

:class:`DocumentFrequencies` and :func:`fixed_vectorizer` serve engines that count in two
passes (vocabulary first, then counts against it: the Dask engine).

A *source* is a callable returning a fresh iterable of :class:`~textsift.engines.readers.Chunk`
(it is iterated once per pass), e.g. ``functools.partial(iter_chunks, path, ...)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from ..counting._sums import TableSums, grown, rows_of
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..reading.corpus import EmptyCorpusError
from ..text.vectorize import (
    Vectorizer,
    VectorizerOptions,
    count_terms,
    min_documents,
    select_columns,
    term_mask,
)
from .readers import Chunk

__all__ = [
    "PREFILTER_BUCKETS",
    "DocumentFrequencies",
    "TermTotals",
    "count_chunks",
    "count_exact",
    "count_hashed",
    "fixed_vectorizer",
    "hashing_vectorizer",
    "name_buckets",
    "recover_terms",
]

Source = Callable[[], Iterable[Chunk]]

#: Buckets of the table of document frequencies that bounds an n-gram count's memory.
PREFILTER_BUCKETS = 2**22


@dataclass
class DocumentFrequencies:
    """Pass 1 of a two-pass count: documents seen, and each term's document frequency ``df``
    and total count ``tf``. Additive over disjoint chunks (``a + b``, or ``a.update(b)``)."""

    n_docs: int = 0
    df: Counter = field(default_factory=Counter)
    tf: Counter = field(default_factory=Counter)

    @classmethod
    def of_texts(cls, texts: list[str], opts: VectorizerOptions | None = None):
        """Frequencies of one chunk (:func:`textsift.text.vectorize.count_terms`)."""
        X, names = count_terms(texts, opts)
        names = names.tolist()
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
        same documents (:func:`textsift.text.vectorize.term_mask`)."""
        names = np.array(sorted(self.df), dtype=object)
        df = np.fromiter((self.df[t] for t in names), np.int64, len(names))
        tf = np.fromiter((self.tf[t] for t in names), np.int64, len(names))
        return names[term_mask(df, tf, self.n_docs, opts)]


@dataclass
class TermTotals:
    """The counts of every term seen so far, over the classes seen so far: chunk counts with
    different vocabularies and classes added term by term (the exact mode's one pass), with
    ``N``, ``df`` and ``TF(t)`` (label sets: not the sums over the classes); the (V, m)
    tables in a ``textsift.counting._sums.TableSums``, which keeps them in the storage
    the chunks' counts call for."""

    names: list = field(default_factory=list)  # pyarrow arrays: the terms, by row
    n_terms: int = 0
    classes: np.ndarray | None = None
    class_sizes: np.ndarray | None = None
    tables: TableSums | None = None
    n_docs: int = 0
    df: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    tf: np.ndarray = field(default_factory=lambda: np.zeros(0))
    multilabel: bool = False

    def add(self, part: Counts, rows=None) -> TermTotals:
        """Add the counts of one chunk: its rows are those of ``part.feature_names``, or the
        given row numbers (hash buckets: then no names are kept)."""
        if self.classes is None:
            self.classes, self.class_sizes = part.classes, np.zeros(part.n_classes, np.int64)
            self.tables = TableSums(part.n_classes)
            self.multilabel = part.multilabel
        if not np.isin(part.classes, self.classes).all():  # new classes: widen the table
            self._widen(np.union1d(self.classes, part.classes))
        cols = np.searchsorted(self.classes, part.classes)
        if rows is None:
            rows = self._rows(part.feature_names)
        elif len(rows):
            self.n_terms = max(self.n_terms, int(rows.max()) + 1)
        if self.n_terms > len(self.df):  # grow geometrically
            size = max(self.n_terms, 2 * len(self.df))
            self.tables.grow(size)
            self.df, self.tf = grown(self.df, size), grown(self.tf, size)
        self.class_sizes[cols] += part.class_sizes
        self.n_docs += part.n_docs
        self.df[rows] += part.df
        self.tf[rows] += part.tf
        self.tables.add(part, rows, cols)
        return self

    def _widen(self, classes: np.ndarray) -> None:
        at = np.searchsorted(classes, self.classes)
        sizes = np.zeros(len(classes), np.int64)
        sizes[at] = self.class_sizes
        self.tables.widen(at, len(classes))
        self.classes, self.class_sizes = classes, sizes

    def _rows(self, terms) -> np.ndarray:
        """The rows of ``terms``, new terms appended (a hash lookup in C++: pyarrow)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        terms = pa.array(terms, pa.string())
        if self.names:
            self.names = [pa.concat_arrays(self.names)]
            rows = pc.index_in(terms, value_set=self.names[0])
        else:
            rows = pa.nulls(len(terms), pa.int32())
        new = rows.is_null().to_numpy(zero_copy_only=False)
        rows = rows.fill_null(0).to_numpy().astype(np.intp)
        rows[new] = self.n_terms + np.arange(new.sum())
        self.names.append(terms.filter(pa.array(new)))
        self.n_terms += int(new.sum())
        return rows

    def counts(self, n_rows: int | None = None) -> Counts:
        """The totals as :class:`Counts`: terms sorted, or (rows given as numbers) ``n_rows``
        rows without names; in the layout their share of non-zero cells calls for."""
        import pyarrow as pa
        import pyarrow.compute as pc

        n = self.n_terms if n_rows is None else n_rows
        docs, weights = self.tables.tables(n)
        df, tf = rows_of(self.df, n), rows_of(self.tf, n)
        if n_rows is not None:
            return Counts(self.classes, self.class_sizes, docs, weights, None, self.n_docs, df,
                          tf, self.multilabel).to_layout("auto")
        names = pa.concat_arrays(self.names) if self.names else pa.array([], pa.string())
        order = pc.sort_indices(names).to_numpy()
        return Counts(self.classes, self.class_sizes, docs[order], weights[order],
                      names.take(pa.array(order)).to_numpy(zero_copy_only=False), self.n_docs,
                      df[order], tf[order], self.multilabel).to_layout("auto")


def frequencies(chunks: Iterable[Chunk], opts: VectorizerOptions | None = None,
                advance=None) -> DocumentFrequencies:
    """Pass 1 over some chunks."""
    total = DocumentFrequencies()
    for chunk in chunks:
        total.update(DocumentFrequencies.of_texts(chunk.texts, opts))
        if advance:
            advance(len(chunk))
    return total


def fixed_vectorizer(vocabulary, opts: VectorizerOptions | None = None) -> Vectorizer:
    """A vectorizer with the preprocessing of ``opts`` and a fixed vocabulary."""
    return Vectorizer(vocabulary, opts)


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


#: A progress callback ``progress(stage, done, total)``: what is being done, how much of it
#: is done, of how much (``None`` when unknown: the documents of a stream). The library
#: calls it and draws nothing; the command line draws it on stderr.
Progress = Callable[[str, int, int | None], None]


@contextmanager
def _progress(progress: Progress | None, stage: str):
    """An ``advance(n_docs)`` telling ``progress(stage, documents so far, None)``, or
    ``None`` without ``progress``."""
    if progress is None:
        yield None
        return
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        progress(stage, done, None)

    yield advance


def empty_corpus() -> EmptyCorpusError:
    return EmptyCorpusError("the corpus is empty: the source yielded no (selected) documents; "
                       "check the path, the split and the fields")


def count_exact(source: Source, opts: VectorizerOptions | None = None, classes=None,
                progress: Progress | None = None, prefilter: bool | None = None) -> Counts:
    """Exact counts of a chunked source in one pass (module docstring); equal to
    ``Counts.from_texts(all_texts, all_labels, opts, classes)``. ``prefilter`` (default:
    for n-grams) takes the light first pass that lets ``min_df`` drop terms as they come.
    ``progress(stage, documents, None)`` is told of each chunk (``Progress``)."""
    opts = opts or VectorizerOptions()
    if prefilter is None:
        prefilter = opts.ngram_range[1] > 1 or opts.analyzer != "word"
    keep = _prefilter(source, opts, progress) if prefilter else None
    totals = TermTotals()
    with _progress(progress, "counting") as advance:
        for chunk in source():
            if not len(chunk):
                continue
            X, names = count_terms(chunk.texts, opts)
            if keep is not None:
                mask = keep(names)
                X, names = select_columns(X, mask), names[mask]
            totals.add(Counts.from_matrix(X, chunk.labels, classes=classes, feature_names=names))
            if advance:
                advance(len(chunk))
    if totals.classes is None:
        raise empty_corpus()
    counts = totals.counts()
    total = np.rint(counts.tf).astype(np.int64)  # binary: presences
    return counts.select_terms(term_mask(counts.df, total, counts.n_docs, opts))


def _buckets(names) -> np.ndarray:
    import polars as pl

    return (pl.Series(names, dtype=pl.String).hash(seed=0).to_numpy()
            % PREFILTER_BUCKETS).astype(np.int64)


def _prefilter(source: Source, opts: VectorizerOptions, progress: Progress | None):
    """The light pass: a term -> whether its bucket's document frequency reaches ``min_df``
    (``None`` when ``min_df`` drops nothing)."""
    if isinstance(opts.min_df, Integral) and opts.min_df <= 1:
        return None
    bound = np.zeros(PREFILTER_BUCKETS, np.int64)
    n_docs = 0
    with _progress(progress, "bounding document frequencies") as advance:
        for chunk in source():
            if not len(chunk):
                continue
            X, names = count_terms(chunk.texts, opts)
            df = np.bincount(X.indices, minlength=len(names))
            bound += np.bincount(_buckets(names), weights=df,
                                 minlength=PREFILTER_BUCKETS).astype(np.int64)
            n_docs += len(chunk)
            if advance:
                advance(len(chunk))
    low = min_documents(opts.min_df, n_docs)
    if low <= 1:
        return None
    return lambda names: bound[_buckets(names)] >= low


# --------------------------------------------------------------------------- hashing mode
def hashing_vectorizer(opts: VectorizerOptions | None = None,
                       n_features: int = 2**18) -> HashingCounter:
    """What scikit-learn's ``HashingVectorizer(alternate_sign=False, norm=None)`` gives over
    the tokens of ``opts`` (lowercasing, token pattern, stop words, stemming, header
    stripping): raw counts per bucket. Document-frequency pruning needs a vocabulary, so
    ``min_df``, ``max_df`` and ``max_features`` must keep their defaults."""
    opts = opts or VectorizerOptions()
    if opts.min_df != 1 or opts.max_df != 1.0 or opts.max_features is not None:
        raise TextsiftError("the hashing mode counts buckets, not terms: min_df, max_df and "
                            "max_features apply to the exact mode only; leave them at their "
                            "defaults")
    if not isinstance(n_features, Integral) or n_features < 1:
        raise TextsiftError(f"n_features must be a positive integer, got {n_features!r}")
    return HashingCounter(opts, int(n_features))


class HashingCounter:
    """``HashingVectorizer``'s counts from :func:`textsift.text.vectorize.count_terms`: each
    distinct term of a chunk hashed once (scikit-learn's ``FeatureHasher``, the hasher inside
    ``HashingVectorizer``), the term counts pooled by bucket."""

    def __init__(self, opts: VectorizerOptions, n_features: int):
        self.opts, self.n_features = opts, n_features

    def transform(self, texts) -> sp.csr_matrix:
        X, names = count_terms(texts, replace(self.opts, binary=False))
        bucket = np.zeros(0, np.int32)
        if len(names):
            from sklearn.feature_extraction import FeatureHasher  # the hashing mode only

            hasher = FeatureHasher(self.n_features, input_type="string", alternate_sign=False)
            bucket = hasher.transform([[t] for t in names]).indices
        H = sp.csr_matrix((X.data.astype(np.float64), bucket[X.indices], X.indptr),
                          shape=(X.shape[0], self.n_features))
        H.sum_duplicates()
        if self.opts.binary:
            H.data[:] = 1
        return H


def count_hashed(source: Source, opts: VectorizerOptions | None = None, n_features: int = 2**18,
                 classes=None, progress: Progress | None = None) -> Counts:
    """Counts per hash bucket in one pass.

    ``feature_names`` is ``None`` (bucket ``i`` is row ``i``). Memory is
    ``n_features x n_classes x 16`` bytes; collisions grow as the vocabulary approaches
    ``n_features``, so raise it for large vocabularies. Typical use::

        counts = count_hashed(src, opts)
        top = rank(counts, "chi2", top=20)                     # terms are bucket numbers
        named = name_buckets(counts, recover_terms(src, top.index, opts))
        rank(named, "chi2", top=20)
    """
    vec = hashing_vectorizer(opts, n_features)
    totals = TermTotals()
    with _progress(progress, "hashing") as advance:
        for chunk in source():
            if not len(chunk):
                continue
            H = vec.transform(chunk.texts)  # counted over the buckets this chunk uses only
            used = np.bincount(H.indices, minlength=n_features) > 0
            compact = sp.csr_matrix((H.data, (np.cumsum(used) - 1)[H.indices], H.indptr),
                                    shape=(H.shape[0], int(used.sum())))
            totals.add(Counts.from_matrix(compact, chunk.labels, classes=classes),
                       rows=np.flatnonzero(used))
            if advance:
                advance(len(chunk))
    if totals.classes is None:
        raise empty_corpus()
    return totals.counts(n_rows=n_features)


def recover_terms(source: Source, buckets, opts: VectorizerOptions | None = None,
                  n_features: int = 2**18) -> dict[int, list[str]]:
    """The terms of the corpus that hash into ``buckets``, most frequent (by documents) first.

    A second, light pass: each chunk's terms are hashed with scikit-learn's ``FeatureHasher``
    (the hasher inside ``HashingVectorizer``) and only those landing in ``buckets`` are kept.
    """
    from sklearn.feature_extraction import FeatureHasher

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
    return replace(counts, feature_names=names)
