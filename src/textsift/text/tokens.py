"""Tokenise and count with scikit-learn's rules, on Polars' string kernels and sorted integers.

:func:`count_tokens` gives, for a list of texts, the matrix of token (or token n-gram) counts
over the sorted vocabulary of every term -- what ``CountVectorizer(token_pattern=r"(?u)\\b\\w
\\w+\\b", ngram_range=...)`` (lowercasing, stop words, no pruning) gives, value for value --
several times faster; n-grams are counted as packed integers by :mod:`textsift.text.ngrams`.

**Why the tokens are exact.** A match of ``\\b\\w\\w+\\b`` is a maximal run of two or more
word characters, so the matches are those of ``[W]{2,}`` (leftmost, greedy), ``W`` being the
word characters, with no ``\\b`` needed. Polars' regex engine (Rust's ``regex``) has its own
Unicode ``\\w`` (marks, connector punctuation, join controls; no ``No`` numbers) and its own
Unicode tables, which differ from Python's ``str.isalnum() or "_"``: on IMDb 7 of 101,895
vocabulary entries differ. So ``W`` is not Rust's ``\\w``: it is the set of code points that
*Python's* ``re`` calls ``\\w``, listed once per process (:func:`word_class`, 734 ranges under
Python 3.11) and written into the pattern as a character class. Lowercasing is Python's own
``str.lower`` (final sigma and the special case mappings included). So no document has to be
detected and tokenised apart: every one is tokenised by the same rule as Python's. The one
thing Polars cannot hold is a lone surrogate (a Python string may have one; UTF-8 cannot):
it is not a word character, so it is replaced by a space, which tokenises alike. A tokenizer
callable (a morphological analyser, or your own) replaces the pattern: its tokens are
numbered and counted the same way.

**Why Polars.** Measured on IMDb (50,000 reviews, 65 M characters; 2-core machine): finding
the tokens with Polars' ``str.extract_all`` takes 1.1 s of CPU, PyArrow's
``split_pattern_regex`` (RE2, which has no Unicode ``\\w``: a ``[^\\pL\\pN_]+`` split) 2.0 s,
and scikit-learn's whole ``CountVectorizer`` 9-11 s. The tokens are then numbered by PyArrow's
``dictionary_encode`` (a hash table in C++; Polars' categoricals keep a global string cache
that grows with every corpus), the distinct words sorted, stemmed and mapped once. Blocks of
documents run on a thread pool: Polars, PyArrow, NumPy and scipy release the GIL.

**N-grams.** With the words numbered ``1..V`` in sorted order, an n-gram is packed into one
integer (:mod:`textsift.text.ngrams`), whose order is Python's order of the strings
``"w_1 ... w_k"`` as long as no word holds a character at or below the space (the joining
character; checked, and the strings sorted when one does). Stop words go before the n-grams
are formed, as scikit-learn removes them, and stems are paired. Packing needs ``n b`` bits
(``2^b > V``) plus those of a part's document numbers within 63: n-grams of up to 3 words on a
100k-word vocabulary; longer ones are left to ``CountVectorizer``
(:class:`~textsift.text.ngrams.NotPackable`).

**Stemming** (:func:`stem_words`): each distinct word of a block is stemmed once with
PyStemmer, the C build of the Snowball stemmers (English: Porter 2, the stems of the
pure-Python ``snowballstemmer``, tested on every word type of the shared corpora), about ten
times faster, and called once per word type rather than once per token.
"""

from __future__ import annotations

import itertools
import os
import re
from contextlib import contextmanager
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from . import ngrams
from .languages import stemmer
from .ngrams import NotPackable, pool_map, split_block, tally, window_keys

__all__ = ["count_tokens", "stem_words", "word_class"]

#: Characters of text per block: blocks are tokenised in parallel (at least one per thread
#: when each gets ``MIN_BLOCK_CHARS``), then merged; at most ``MAX_BLOCK_CHARS`` bounds the
#: memory of a block's tokens. A merge costs, so blocks are as few as that allows.
MIN_BLOCK_CHARS = 1_000_000
MAX_BLOCK_CHARS = 32_000_000

_SURROGATE = re.compile("[\ud800-\udfff]")


def _class_of(pattern: str) -> str:
    """The code points Python's ``re`` matches with ``pattern`` (one character; in ``str``
    patterns), as a character class for Rust's ``regex``: found by running it over every code
    point (surrogates excluded: they match no class used here and cannot be UTF-8)."""
    ranges = []
    for lo, hi in ((0, 0xD800), (0xE000, 0x110000)):
        every = np.arange(lo, hi, dtype="<u4").tobytes().decode("utf-32-le")  # chr(lo..hi-1)
        for m in re.finditer(pattern + "+", every):
            ranges.append((lo + m.start(), lo + m.end() - 1))
    return "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}"
                   for a, b in ranges)


@lru_cache(maxsize=1)
def word_class() -> str:
    """The code points Python's ``re`` matches with ``\\w``, as a Rust character class."""
    return _class_of(r"\w")


@lru_cache(maxsize=1)
def space_class() -> str:
    """The code points Python's ``re`` matches with ``\\s`` -- those ``str.isspace`` and
    ``str.split`` take for white space -- as a Rust character class."""
    return _class_of(r"\s")


@lru_cache(maxsize=1)
def _word_pattern() -> str:
    return f"[{word_class()}]{{2,}}"


@lru_cache(maxsize=1)
def _nonspace_pattern() -> str:
    return f"[^{space_class()}]+"


def stem_words(words: list[str], language: str = "english") -> list[str]:
    """Snowball stems of ``words`` (PyStemmer, the C Snowball; English is Porter 2)."""
    return stemmer(language).stemWords(words)


def count_tokens(texts: list[str], preprocess=None, stop_words=None, stem: bool = False,
                 n_threads: int | None = None, ngram_range: tuple[int, int] = (1, 1),
                 language: str = "english", tokenize=None, split: str = "words"):
    """Token (n-gram) counts of ``texts`` under scikit-learn's default token pattern.

    ``preprocess`` maps a text to the string to tokenise (e.g. ``str.lower``; ``None`` keeps
    it), ``stop_words`` is a set of tokens to drop, ``stem`` stems the tokens left (Snowball
    ``language``), ``ngram_range`` forms the n-grams of the tokens left, ``tokenize`` (a
    callable: text -> tokens, optionally with a ``batch(texts)`` method) replaces the token
    pattern; ``split="spaces"`` takes the runs of non-white-space characters as tokens
    (``str.split``: what :mod:`textsift.text.chars` needs). Returns ``(X, names)``: ``X`` a
    canonical CSR matrix (documents x terms, int32 counts) and ``names`` the terms, sorted
    as Python sorts strings -- every term of the texts, no pruning; an empty vocabulary
    gives zero columns. :class:`~textsift.text.ngrams.NotPackable` when the n-grams do not fit
    the packing.
    """
    threads = n_threads or os.cpu_count() or 1
    jobs = [(texts[a:b], preprocess, stop_words, stem, language, tokenize, split)
            for a, b in text_blocks(texts, threads)]
    low, high = ngram_range
    if high == 1:  # each block's matrix (its rows sorted by scipy), then merged
        return _merge(pool_map(_block_counts, jobs, threads), len(texts))
    blocks = pool_map(_block_words, jobs, threads)
    names, blocks = _union(blocks)
    bits = max(len(names), 1).bit_length()
    if bits * high > 62:
        raise NotPackable

    sizes = range(low, high + 1)
    pieces = [p for b in blocks for p in split_block(*b, ngrams.MAX_PAIRS // len(sizes))]
    del blocks  # the pieces alone hold the token ids now, and the tally frees them
    X, vocab = tally(lambda p: window_keys(p[0] + 1, p[1], sizes, bits, high), pieces,
                     bits * high, threads)
    return _sorted_as_strings(X, join_names(names, vocab, bits, high), names)


def text_blocks(texts, threads: int, max_chars: int | None = None) -> list[tuple[int, int]]:
    """Contiguous ranges of documents with about equal numbers of characters: at least one a
    thread when each gets ``MIN_BLOCK_CHARS``, at most ``max_chars`` (``MAX_BLOCK_CHARS``)
    each."""
    ends = np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)))
    total = int(ends[-1]) if len(ends) else 0
    n = max(1, -(-total // (max_chars or MAX_BLOCK_CHARS)),
            min(threads, total // MIN_BLOCK_CHARS))
    cuts = np.searchsorted(ends, total * np.arange(1, n) / n)
    edges = np.unique(np.r_[0, cuts, len(texts)])
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)] or [(0, 0)]


def _series(texts):
    import polars as pl

    try:
        return pl.Series(texts, dtype=pl.String)
    except UnicodeEncodeError:  # lone surrogates: non-word characters, as a space is
        return pl.Series([_SURROGATE.sub(" ", t) for t in texts], dtype=pl.String)


def _block_words(job):
    """The tokens of one block: ``(ids, lengths, names)``, ``ids`` each kept token's term
    (int64, stop words dropped) among ``names`` (a sorted pyarrow array of the block's
    terms: stems when stemming), ``lengths`` the number of kept tokens of each document."""
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    texts, preprocess, stop_words, stem, language, tokenize, split = job
    if preprocess is not None:
        texts = [preprocess(t) for t in texts]
    if tokenize is not None:
        docs = _tokenized(tokenize, texts)
        lengths = np.fromiter(map(len, docs), np.int64, len(docs))
        flat = pa.array(itertools.chain.from_iterable(docs), pa.string())
    else:
        pattern = _word_pattern() if split == "words" else _nonspace_pattern()
        tokens = _series(texts).str.extract_all(pattern)
        lengths = tokens.list.len().to_numpy().astype(np.int64)
        flat = tokens.list.explode(empty_as_null=False).to_arrow(
            compat_level=pl.CompatLevel.newest())
    encoded = pc.dictionary_encode(flat)  # the block's distinct words, numbered
    column, names = _columns(encoded.dictionary.cast(pa.string()), stop_words, stem, language)
    ids = column[encoded.indices.to_numpy()]
    if stop_words:
        kept = ids >= 0
        doc = np.repeat(np.arange(len(texts)), lengths)[kept]
        ids, lengths = ids[kept], np.bincount(doc, minlength=len(texts))
    return ids, lengths, names


#: Called with a number of documents as a tokenizer finishes them (:func:`reporting`).
_REPORT = None
#: Documents a tokenizer's progress is told of at once.
REPORT_EVERY = 256


@contextmanager
def reporting(progress):
    """Within the block, ``progress(documents)`` is called (from the counting threads) each
    time a tokenizer callable (Kiwi's morphemes, your own) has tokenised ``REPORT_EVERY``
    more documents: the slow step of such a count, which the command line shows."""
    global _REPORT
    before, _REPORT = _REPORT, progress
    try:
        yield
    finally:
        _REPORT = before


def _tokenized(tokenize, texts) -> list[list[str]]:
    """Each text's tokens by ``tokenize`` (its ``batch`` if it has one), as lists; it stops
    between documents when the count is interrupted (:func:`textsift.text.ngrams.stopping`)."""
    docs = tokenize.batch(texts) if hasattr(tokenize, "batch") else map(tokenize, texts)
    out, report = [], _REPORT
    for doc in docs:
        out.append(list(doc))
        if len(out) % REPORT_EVERY == 0:
            if ngrams.stopping():
                raise ngrams.Stopped
            if report is not None:
                report(REPORT_EVERY)
    if report is not None and len(out) % REPORT_EVERY:
        report(len(out) % REPORT_EVERY)
    return out


def _block_counts(job):
    """``(X, names)`` of one block: ``names`` a sorted pyarrow string array."""
    ids, lengths, names = _block_words(job)
    indptr = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    X = sp.csr_matrix((np.ones(len(ids), np.int32), ids.astype(np.int32), indptr),
                      shape=(len(lengths), len(names)))
    X.sum_duplicates()  # sorts each row's terms and adds repeated ones
    return X, names


def _merge(parts, n_docs: int):
    """Stack the blocks' matrices over the sorted union of their vocabularies."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(parts) == 1:
        X, names = parts[0]
        return X, _to_numpy(names)
    union = pc.unique(pa.concat_arrays([names for _, names in parts]))
    union = union.take(pc.sort_indices(union))
    data, indices, indptr, offset = [], [], [np.zeros(1, np.int64)], 0
    for X, names in parts:
        where = pc.index_in(names, value_set=union).to_numpy().astype(np.int32)
        data.append(X.data)
        indices.append(where[X.indices])  # increasing: rows stay sorted
        indptr.append(X.indptr[1:] + offset)
        offset += X.nnz
    X = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), np.concatenate(indptr)),
                      shape=(n_docs, len(union)))
    X.has_sorted_indices = True
    return X, _to_numpy(union)


def _columns(words, stop_words, stem, language):
    """Each distinct word once: ``(column, names)``, the column of each word's term (``-1``
    for a stop word) among ``names``, the sorted terms (stems when ``stem``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keep = None
    if stop_words:
        stop = pa.array(sorted(stop_words), pa.string())
        keep = ~pc.is_in(words, value_set=stop).to_numpy(zero_copy_only=False)
        words = words.filter(pa.array(keep))
    if stem:
        words = pa.array(stem_words(words.to_pylist(), language), pa.string())
    terms = pc.dictionary_encode(words)  # stems: several words, one term
    order = pc.sort_indices(terms.dictionary).to_numpy()
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    column = rank[terms.indices.to_numpy()]
    if keep is not None:
        full = np.full(len(keep), -1, np.int64)
        full[keep] = column
        column = full
    return column, terms.dictionary.take(pa.array(order))


def _union(blocks):
    """The sorted union of the blocks' terms, and every block's ``(ids, lengths)`` with the
    ids renumbered in it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(blocks) == 1:
        ids, lengths, names = blocks[0]
        return names, [(ids, lengths)]
    union = pc.unique(pa.concat_arrays([names for _, _, names in blocks]))
    union = union.take(pc.sort_indices(union))
    return union, [(pc.index_in(names, value_set=union).to_numpy().astype(np.int64)[ids],
                    lengths) for ids, lengths, names in blocks]


def _to_numpy(names) -> np.ndarray:
    return names.to_numpy(zero_copy_only=False)  # str objects, 15x faster than to_pylist


# --------------------------------------------------------------------------- n-gram keys
def join_names(names, vocab, bits: int, high: int):
    """The strings of packed word n-grams: their words joined by spaces (pyarrow)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = (1 << bits) - 1
    words = []
    for j in range(high):
        w = (vocab >> (bits * (high - 1 - j))) & mask
        words.append(names.take(pa.array(w - 1, mask=w == 0)))
    if high == 1:
        return words[0]
    return pc.binary_join_element_wise(*words, " ", null_handling="skip")


def _sorted_as_strings(X, names, words):
    """``(X, names)`` with the columns in Python's order of the names: already so unless a
    word holds a character at or below the space (module docstring). A word holding a space
    (a tokenizer's ``"new york"``) makes n-grams of different words one string (the word
    ``"new york"``, the pair ``"new"``, ``"york"``): ``CountVectorizer`` counts strings, so
    such columns are one term, their counts added."""
    import pyarrow.compute as pc

    if not (len(words) and pc.any(pc.match_substring_regex(words, r"[\x00-\x20]")).as_py()):
        return X, _to_numpy(names)
    order = pc.sort_indices(names).to_numpy()
    X = sp.csr_matrix(X[:, order])
    names = _to_numpy(names.take(order))
    starts = np.flatnonzero(np.r_[True, names[1:] != names[:-1]])
    if len(starts) < len(names):  # equal strings, adjacent once sorted: one column each
        term = np.cumsum(np.r_[False, names[1:] != names[:-1]])
        X = sp.csr_matrix((X.data, term[X.indices], X.indptr), shape=(X.shape[0], len(starts)))
        X.sum_duplicates()
        names = names[starts]
    X.sort_indices()
    return X, names
