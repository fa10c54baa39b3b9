"""Tokenise and count with scikit-learn's rules, in a compiled kernel and on sorted integers.

:func:`count_tokens` gives, for a list of texts, the matrix of token (or token n-gram) counts
over the sorted vocabulary of every term -- what ``CountVectorizer(token_pattern=r"(?u)\\b\\w
\\w+\\b", ngram_range=...)`` (lowercasing, stop words, no pruning) gives, value for value --
an order of magnitude faster; n-grams are counted as packed integers by :mod:`textsift.text.ngrams`.

**Why the tokens are exact.** A match of ``\\b\\w\\w+\\b`` is a maximal run of two or more
word characters (leftmost, greedy), with no ``\\b`` needed, the word characters being those
*Python's* ``re`` calls ``\\w`` (``str.isalnum() or "_"``); the text is lowercased first by
``str.lower``'s own rules, the special cases (``"İ".lower()`` is two code points) and the
final sigma (``"ΟΔΟΣ".lower() == "οδος"``: ``Σ`` after a cased letter and before none,
case-ignorable characters skipped, as CPython decides it) included. Other engines' Unicode
tables differ from Python's (Rust's ``regex`` counts combining marks and connector
punctuation as word characters and not ``½``: 7 of IMDb's 101,895 terms), so none is used:
the compiled kernel ``textsift._count`` (C, built by the package's own build with the
machine's C compiler) reads its tables from the running Python,
:func:`~textsift.text.unicode.unicode_tables`
(which code point is a word character, white space, cased, case-ignorable; each one's
lowercase), found once per process by running ``re`` and ``str.lower`` over every code
point. Nothing is hard-coded, so the tokens follow the Unicode version of the Python they
run under, and every text is tokenised by the same rule as Python's, lone surrogates
included (no word character: they split words, as any other non-word character does).

**How.** The kernel reads each ``str`` in place (Latin-1 texts byte by byte, the others as
code points), lowercases, cuts the tokens, and looks each one's UTF-8 bytes up in an
open-addressing hash table (a slot holds a term's first 16 bytes, its length and its last
document, so a token costs one cache line, fetched ahead while the document's earlier tokens
are counted); each document's (term, count) pairs are written as it ends. Two or more
threads take contiguous ranges of the documents (equal numbers of characters), each with
its own table; each sorts its terms (UTF-8 byte order is code-point order: Python's order of
``str``), the sorted lists are merged once into the vocabulary, and every thread renumbers
its entries and sorts each row (a radix sort) in parallel. What comes back is the CSR
matrix's arrays and the sorted terms as ``str``: no Python object per token, the vocabulary
held once. For n-grams the kernel gives each token's term instead (int32), and its second
pass (``_count.ngrams``) counts the packed n-grams the same way: a hash table of integers per
thread, each thread's keys radix-sorted, one merge. Stop words and stems map the sorted
terms, each word once, before the n-grams are formed. A
tokenizer callable (a morphological analyser, or your own) replaces the pattern: its tokens
are numbered by PyArrow's ``dictionary_encode`` and counted the same way. ``bench/count.py``
measures the pass against ``CountVectorizer`` and the Rust counters that install.

**N-grams.** With the words numbered ``1..V`` in sorted order, an n-gram is packed into one
integer (the packing of :mod:`textsift.text.ngrams`), whose order is Python's order of the strings
``"w_1 ... w_k"`` as long as no word holds a character at or below the space (the joining
character; checked, and the strings sorted when one does). Stop words go before the n-grams
are formed, as scikit-learn removes them, and stems are paired. Packing needs ``n b`` bits
(``2^b > V``) within 62: n-grams of up to 3 words on a 100k-word vocabulary (4 on a
30k-word one); longer ones are left to ``CountVectorizer``
(:class:`~textsift.text.ngrams.NotPackable`).

**Stemming** (:func:`stem_words`): each distinct word of a block is stemmed once with
PyStemmer, the C build of the Snowball stemmers (English: Porter 2, the stems of the
pure-Python ``snowballstemmer``, tested on every word type of the shared corpora), about ten
times faster, and called once per word type rather than once per token.
"""

from __future__ import annotations

import itertools
import os
from contextlib import contextmanager
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from . import ngrams
from .languages import stemmer
from .ngrams import NotPackable, pool_map

__all__ = ["count_tokens", "stem_words"]

#: Characters of text per block: blocks are tokenised in parallel (at least one per thread
#: when each gets ``MIN_BLOCK_CHARS``), then merged; at most ``MAX_BLOCK_CHARS`` bounds the
#: memory of a block's tokens. A merge costs, so blocks are as few as that allows.
MIN_BLOCK_CHARS = 1_000_000
MAX_BLOCK_CHARS = 32_000_000

@lru_cache(maxsize=1)
def _kernel():
    """The compiled count pass, given the running Python's tables once."""
    from .. import _count
    from .unicode import unicode_tables

    flags, lower, expansions = unicode_tables()
    _count.set_tables(flags.tobytes(), lower.astype("<i4").tobytes(), expansions.tobytes())
    return _count


def stem_words(words: list[str], language: str = "english") -> list[str]:
    """Snowball stems of ``words`` (PyStemmer, the C Snowball; English is Porter 2)."""
    return stemmer(language).stemWords(words)


def count_tokens(texts: list[str], preprocess=None, stop_words=None, stem: bool = False,
                 n_threads: int | None = None, ngram_range: tuple[int, int] = (1, 1),
                 language: str = "english", tokenize=None, split: str = "words"):
    """Token (n-gram) counts of ``texts`` under scikit-learn's default token pattern.

    ``preprocess`` maps a text to the string to tokenise (e.g. ``str.lower``, which the
    kernel applies itself; ``None`` keeps it), ``stop_words`` is a set of tokens to drop,
    ``stem`` stems the tokens left (Snowball ``language``), ``ngram_range`` forms the n-grams
    of the tokens left, ``tokenize`` (a callable: text -> tokens, optionally with a
    ``batch(texts)`` method) replaces the token pattern; ``split="spaces"`` takes the runs of
    non-white-space characters as tokens (``str.split``: what :mod:`textsift.text.chars` needs).
    Returns ``(X, names)``: ``X`` a canonical CSR matrix (documents x terms, int32 counts)
    and ``names`` the terms, sorted as Python sorts strings -- every term of the texts, no
    pruning; an empty vocabulary gives zero columns.
    :class:`~textsift.text.ngrams.NotPackable` when the n-grams do not fit the packing.
    """
    threads = n_threads or os.cpu_count() or 1
    low, high = ngram_range
    if tokenize is None:
        lower = preprocess is str.lower
        if preprocess is not None and not lower:
            texts = [preprocess(t) for t in texts]
        elif not isinstance(texts, list):
            texts = list(texts)
        if high == 1:
            return _kernel_counts(texts, lower, split == "spaces", threads, stop_words, stem,
                                  language)
        names, blocks = _kernel_words(texts, lower, threads, stop_words, stem, language)
    else:
        jobs = [(texts[a:b], preprocess, stop_words, stem, language, tokenize)
                for a, b in text_blocks(texts, threads)]
        if high == 1:  # each block's matrix (its rows sorted by scipy), then merged
            return _merge(pool_map(_block_counts, jobs, threads), len(texts))
        names, blocks = _union(pool_map(_block_words, jobs, threads))
    bits = max(len(names), 1).bit_length()
    if bits * high > 62:
        raise NotPackable

    ids = np.concatenate([np.asarray(i, np.int64) for i, _ in blocks])
    lengths = np.concatenate([np.asarray(n, np.int64) for _, n in blocks])
    del blocks
    indptr, indices, data, keys = _kernel().ngrams(ids, lengths, low, high, bits, threads)
    del ids
    X = sp.csr_matrix((np.frombuffer(data, np.int32), np.frombuffer(indices, np.int32),
                       np.frombuffer(indptr, np.int64)), shape=(len(lengths), len(keys) // 8))
    X.has_sorted_indices = True
    vocab = np.frombuffer(keys, np.int64)
    return _sorted_as_strings(X, join_names(names, vocab, bits, high), names)


def _kernel_counts(texts, lower, spaces, threads, stop_words, stem, language):
    """``(X, names)`` of the compiled pass: its CSR arrays, rows sorted; stop words and
    stems applied to the sorted vocabulary, each word once."""
    indptr, indices, data, words = _kernel().count(texts, lower, spaces, threads, False)
    indptr = np.frombuffer(indptr, np.int64)
    indices = np.frombuffer(indices, np.int32)
    X = sp.csr_matrix((np.frombuffer(data, np.int32), indices, indptr),
                      shape=(len(texts), len(words)))
    X.has_sorted_indices = True
    if not (stop_words or stem):
        return X, _object_array(words)
    import pyarrow as pa

    column, names = _columns(pa.array(words, pa.string()), stop_words, stem, language)
    column = column[indices]
    keep = column >= 0
    X = sp.csr_matrix((X.data[keep], column[keep].astype(np.int32),
                       np.r_[0, np.cumsum(keep)][indptr]), shape=(len(texts), len(names)))
    if stem:  # several words, one stem: their counts added, rows sorted again
        X.sum_duplicates()
    else:  # dropping stop words keeps the order of the others
        X.has_sorted_indices = True
    return X, _to_numpy(names)


def _kernel_words(texts, lower, threads, stop_words, stem, language):
    """The terms (a sorted pyarrow array) and ``[(ids, lengths)]``: each kept token's term
    and the number of each document's kept tokens, from the compiled pass."""
    import pyarrow as pa

    ids, lengths, words = _kernel().count(texts, lower, False, threads, True)
    ids = np.frombuffer(ids, np.int32)
    lengths = np.frombuffer(lengths, np.int64)
    words = pa.array(words, pa.string())
    if not (stop_words or stem):
        return words, [(ids.astype(np.int64), lengths)]
    column, names = _columns(words, stop_words, stem, language)
    ids = column[ids]
    if stop_words:
        kept = ids >= 0
        doc = np.repeat(np.arange(len(texts)), lengths)[kept]
        ids, lengths = ids[kept], np.bincount(doc, minlength=len(texts))
    return names, [(ids, lengths)]


def _object_array(words: list) -> np.ndarray:
    out = np.empty(len(words), dtype=object)
    out[:] = words
    return out


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


def _block_words(job):
    """The tokens a tokenizer callable gives one block: ``(ids, lengths, names)``, ``ids``
    each kept token's term (int64, stop words dropped) among ``names`` (a sorted pyarrow
    array of the block's terms: stems when stemming), ``lengths`` the number of kept tokens
    of each document."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts, preprocess, stop_words, stem, language, tokenize = job
    if preprocess is not None:
        texts = [preprocess(t) for t in texts]
    docs = _tokenized(tokenize, texts)
    lengths = np.fromiter(map(len, docs), np.int64, len(docs))
    flat = pa.array(itertools.chain.from_iterable(docs), pa.string())
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
