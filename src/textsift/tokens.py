"""Tokenise and count with scikit-learn's rules, on Polars' string kernels and sorted integers.

:func:`count_tokens` gives, for a list of texts, the matrix of token (or token n-gram) counts
over the sorted vocabulary of every term -- what ``CountVectorizer(token_pattern=r"(?u)\\b\\w
\\w+\\b", ngram_range=...)`` (lowercasing, stop words, no pruning) gives, value for value --
several times faster. :func:`tally` is the counting core it shares with the character
n-grams of :mod:`textsift.chars`.

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

**N-grams as sorted integers** (:func:`tally`). With the words numbered ``1..V`` in sorted
order, an n-gram ``(w_1, ..., w_k)`` (``k <= n``) is packed into one integer, ``b`` bits a
word (``2^b > V``), the missing words of a shorter one as zeros:
``w_1 2^{b(n-1)} + ... + w_k 2^{b(n-k)}``. Integer order is then the order of the tuples with
a prefix first, which is Python's order of the strings ``"w_1 ... w_k"`` as long as no word
holds a character at or below the space (the joining character; checked, and the strings
sorted when one does). Each (n-gram, document) pair is packed below it, the pairs of a part
of the corpus sorted once (Polars' multi-threaded sort), and runs of equal pairs counted:
that sorted list *is* the part's matrix by columns (CSC, rows sorted), whose conversion to
CSR (scipy, linear) gives canonical rows. Stop words go before the n-grams are formed, as
scikit-learn removes them. Packing needs ``n b`` bits plus those of a part's document
numbers within 63: n-grams of up to 3 words on a 100k-word vocabulary; longer ones are left
to ``CountVectorizer`` (:class:`NotPackable`).

**Stemming** (:func:`stem_words`): each distinct word of a block is stemmed once with
PyStemmer, the C build of the Snowball stemmers (English: Porter 2, the stems of the
pure-Python ``snowballstemmer``, tested on every word type of the shared corpora), about ten
times faster, and called once per word type rather than once per token.
"""

from __future__ import annotations

import itertools
import os
import re
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from .languages import stemmer

__all__ = ["NotPackable", "count_tokens", "stem_words", "tally", "word_class"]

#: Characters of text per block: blocks are tokenised in parallel (at least one per thread
#: when each gets ``MIN_BLOCK_CHARS``), then merged; at most ``MAX_BLOCK_CHARS`` bounds the
#: memory of a block's tokens. A merge costs, so blocks are as few as that allows.
MIN_BLOCK_CHARS = 1_000_000
MAX_BLOCK_CHARS = 32_000_000
#: (n-gram, document) pairs sorted at once by :func:`tally`: bounds its memory (16 bytes a
#: pair while sorting) whatever the corpus.
MAX_PAIRS = 8_000_000

_SURROGATE = re.compile("[\ud800-\udfff]")


class NotPackable(Exception):
    """The n-grams asked for do not fit 63 bits (too many words or characters, or n too
    large): the caller counts with ``CountVectorizer`` instead."""


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
    (``str.split``: what :mod:`textsift.chars` needs). Returns ``(X, names)``: ``X`` a
    canonical CSR matrix (documents x terms, int32 counts) and ``names`` the terms, sorted
    as Python sorts strings -- every term of the texts, no pruning; an empty vocabulary
    gives zero columns. :class:`NotPackable` when the n-grams do not fit the packing.
    """
    threads = n_threads or os.cpu_count() or 1
    jobs = [(texts[a:b], preprocess, stop_words, stem, language, tokenize, split)
            for a, b in _blocks(texts, threads)]
    low, high = ngram_range
    if high == 1:  # each block's matrix (its rows sorted by scipy), then merged
        return _merge(pool_map(_block_counts, jobs, threads), len(texts))
    blocks = pool_map(_block_words, jobs, threads)
    names, blocks = _union(blocks)
    bits = max(len(names), 1).bit_length()
    if bits * high > 62:
        raise NotPackable

    X, vocab = tally(lambda b: word_ngram_keys(*b, bits, ngram_range), blocks, bits * high,
                     threads)
    return _sorted_as_strings(X, join_names(names, vocab, bits, high), names)


def pool_map(fn, jobs, threads: int) -> list:
    """``[fn(j) for j in jobs]``, on ``threads`` threads when there are several jobs."""
    threads = min(len(jobs), threads)
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(fn, jobs))
    return [fn(j) for j in jobs]


def _blocks(texts, threads: int) -> list[tuple[int, int]]:
    """Contiguous ranges of documents with about equal numbers of characters."""
    ends = np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)))
    total = int(ends[-1]) if len(ends) else 0
    n = max(1, -(-total // MAX_BLOCK_CHARS), min(threads, total // MIN_BLOCK_CHARS))
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
        docs = tokenize.batch(texts) if hasattr(tokenize, "batch") else map(tokenize, texts)
        docs = [list(d) for d in docs]
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
def word_ngram_keys(ids, lengths, bits: int, ngram_range):
    """Packed keys of the word n-grams of each document, ``bits`` a word (module docstring),
    and the document of each: ``(keys, docs, n_docs)``."""
    low, high = ngram_range
    return window_keys(ids + 1, lengths, range(low, high + 1), bits, high)


def window_keys(r, lengths, sizes, bits: int, high: int, shorter: bool = False):
    """Packed keys of the windows of ``sizes`` consecutive items (numbered ``r``, ``1..``;
    ``lengths`` of them per document, end to end), ``bits`` an item: ``(keys, docs,
    n_docs)``, ``docs`` each key's document; ``shorter`` keeps only windows shorter than
    their document (char_wb's)."""
    doc = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    room = np.repeat(np.cumsum(lengths), lengths)  # items left in its document, below
    room -= np.arange(len(r))
    size = np.repeat(lengths, lengths) if shorter else None
    key = np.zeros(len(r), np.int64)
    keys, docs = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for n in range(1, min(high, len(r)) + 1):  # key: the n items from each position
        key[:len(r) - n + 1] |= r[n - 1:].astype(np.int64) << (bits * (high - n))
        if n in sizes:
            valid = (room >= n) & (size > n) if shorter else room >= n
            keys.append(key[valid])
            docs.append(doc[valid])
    return np.concatenate(keys), np.concatenate(docs), len(lengths)


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
    word holds a character at or below the space (module docstring)."""
    import pyarrow.compute as pc

    if len(words) and pc.any(pc.match_substring_regex(words, r"[\x00-\x20]")).as_py():
        order = pc.sort_indices(names).to_numpy()
        X = sp.csr_matrix(X[:, order])
        X.sort_indices()
        names = names.take(order)
    return X, _to_numpy(names)


# --------------------------------------------------------------------------- the tally
def tally(keyed, blocks, key_bits: int, n_threads: int = 1):
    """Counts of packed, non-negative keys in each document: ``(X, vocab)``, ``X`` the
    canonical CSR matrix (documents x distinct keys, int32) and ``vocab`` the distinct keys,
    sorted. ``keyed(block)`` gives a block's ``(keys, docs, n_docs)``: its keys (each below
    ``2**key_bits``), the document of each (``0..n_docs-1`` within the block) and its number
    of documents. Blocks are keyed and counted on ``n_threads`` threads, their rows stacked.

    Written by hand (no library counts pairs of integers into a sparse matrix by sorting):
    a block is cut into parts of about :data:`MAX_PAIRS` keys whose document numbers fit
    beside the key in 63 bits; each part's ``key << d | document`` values are sorted by
    Polars (multi-threaded), equal runs counted, and the part's matrix read off by columns
    (CSC, rows sorted; scipy's conversion to CSR is linear). The parts' vocabularies are then
    merged (a monotone renumbering keeps each row sorted)."""
    if key_bits > 62:
        raise NotPackable
    parts = [p for ps in pool_map(lambda b: _tally_block(*keyed(b), key_bits), blocks,
                                  n_threads) for p in ps]
    if len(parts) == 1:
        return parts[0]
    vocab = np.unique(np.concatenate([v for _, v in parts]))
    stacked = []
    for X, v in parts:
        where = np.searchsorted(vocab, v).astype(np.int32)
        stacked.append(sp.csr_matrix((X.data, where[X.indices], X.indptr),
                                     shape=(X.shape[0], len(vocab))))
    X = sp.vstack(stacked, format="csr", dtype=np.int32)
    X.has_sorted_indices = True
    return X, vocab


def _tally_block(keys, docs, n_docs: int, key_bits: int):
    """The parts of one block (:func:`tally`), counted one after the other."""
    max_docs = 1 << min(63 - key_bits, 31)
    if len(keys) <= MAX_PAIRS and n_docs <= max_docs:
        return [_tally_part(keys, docs, n_docs)]
    ends = np.cumsum(np.bincount(docs, minlength=n_docs))
    cuts, start = [0], 0
    while start < n_docs:
        base = int(ends[start - 1]) if start else 0
        stop = int(np.searchsorted(ends, base + MAX_PAIRS, side="right"))
        start = min(max(stop, start + 1), start + max_docs, n_docs)
        cuts.append(start)
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        inside = (docs >= a) & (docs < b)
        parts.append(_tally_part(keys[inside], docs[inside] - a, b - a))
    return parts


def _tally_part(keys, docs, n: int):
    import polars as pl

    doc_bits = max(n - 1, 1).bit_length()
    packed = keys << doc_bits
    packed |= docs
    packed = pl.Series(packed).sort().to_numpy()
    if not len(packed):
        return sp.csr_matrix((n, 0), dtype=np.int32), np.zeros(0, np.int64)
    new = np.empty(len(packed), bool)
    new[0] = True
    np.not_equal(packed[1:], packed[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.r_[starts, len(packed)]).astype(np.int32)
    pairs = packed[starts]
    del packed, new
    key, rows = pairs >> doc_bits, (pairs & ((1 << doc_bits) - 1)).astype(np.int32)
    first = np.empty(len(key), bool)
    first[0] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    column_starts = np.flatnonzero(first)
    indptr = np.r_[column_starts, len(key)].astype(np.int64)
    by_column = sp.csc_matrix((counts, rows, indptr), shape=(n, len(column_starts)))
    return by_column.tocsr(), key[column_starts]
