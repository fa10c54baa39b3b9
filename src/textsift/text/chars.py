"""Character n-grams with scikit-learn's rules (``analyzer="char"`` and ``"char_wb"``), counted
as packed integers by :func:`textsift.text.ngrams.tally`.

scikit-learn's rules, which :func:`count_chars` follows exactly:

* **white space**: after preprocessing (lowercasing), every run of two or more white-space
  characters (Python's ``\\s``, the characters ``str.isspace`` takes) becomes one space; a
  single white-space character (a lone newline, a tab) is kept as it is;
* ``"char"``: every substring of ``n`` characters of that text, ``n`` in ``ngram_range``;
* ``"char_wb"``: the text is split into words at white space (``str.split``), each word
  padded with a space on both sides, and every substring of ``n`` characters *of a padded
  word* counted; a padded word no longer than the largest ``n`` is counted once, whole (and
  no longer n-grams of it), even when it is shorter than the smallest ``n``.

**How.** The characters are numbered ``1..A`` in code-point order (``A`` the size of the
corpus's alphabet) and an n-gram packed in ``n b`` bits (``2^b > A``), a shorter one padded
with zeros: integer order is then Python's string order (a prefix first). ``char`` n-grams
are read off the code points of each block of documents (NumPy, white space squashed
there); ``char_wb`` n-grams only depend on the word, so the n-grams of each *distinct* word
are counted once (a words x n-grams matrix ``W``) and the documents' counts are the product
``D W`` with the documents' word counts ``D`` (scipy) -- about ten times fewer n-grams to
form on IMDb. The names are made back from the packed integers (NumPy's fixed-width UTF-32
strings). A lone surrogate cannot be encoded (nor held by the stream engine's tables), and a
code point ``U+0000`` inside an n-gram is fixed by hand; n-grams too long for 63 bits
(``n b`` and a part's document bits) are :class:`~textsift.text.ngrams.NotPackable`.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from .ngrams import NotPackable, pool_map, stack_rows, tally, window_keys
from .tokens import count_tokens, text_blocks

__all__ = ["count_chars", "space_table"]

#: Characters per block of ``analyzer="char"`` (its n-grams are about ``n`` per character).
CHAR_BLOCK = 4_000_000
#: Blocks of documents per thread in the ``char_wb`` product (:func:`_product`).
PRODUCT_BLOCKS = 2


@lru_cache(maxsize=1)
def space_table() -> np.ndarray:
    """``table[c]``: whether code point ``c`` is white space for Python (``\\s``)."""
    table = np.zeros(0x110000, bool)
    table[[c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and chr(c).isspace()]] = True
    return table


def count_chars(texts: list[str], analyzer: str, ngram_range: tuple[int, int],
                preprocess=None, n_threads: int | None = None):
    """``(X, names)``: the counts of every character n-gram of ``texts`` (``analyzer`` is
    ``"char"`` or ``"char_wb"``) over their sorted vocabulary, as ``CountVectorizer(analyzer,
    ngram_range)`` counts them (module docstring)."""
    threads = n_threads or os.cpu_count() or 1
    if analyzer == "char_wb":
        return _char_wb(texts, ngram_range, preprocess, threads)
    return _char(texts, ngram_range, preprocess, threads)


def _codes(texts) -> tuple[np.ndarray, np.ndarray]:
    """The code points of ``texts`` end to end (uint32) and each text's length."""
    try:
        codes = np.frombuffer("".join(texts).encode("utf-32-le"), "<u4")
    except UnicodeEncodeError:  # a lone surrogate: left to CountVectorizer
        raise NotPackable from None
    return codes, np.fromiter(map(len, texts), np.int64, len(texts))


def _squash(codes, lengths):
    r"""scikit-learn's ``re.sub(r"\s\s+", " ", text)`` on each text: runs of two or more
    white-space characters become one space (worked on the white-space positions only)."""
    at = np.flatnonzero(space_table()[codes])
    ends = np.cumsum(lengths)
    # a white-space character right after another of the same text: dropped
    follows = np.zeros(len(at), bool)
    follows[1:] = at[1:] == at[:-1] + 1
    follows[1:] &= np.searchsorted(ends, at[1:], side="right") == np.searchsorted(
        ends, at[:-1], side="right")
    if not follows.any():
        return codes, lengths
    codes = codes.copy()
    run_start = np.zeros(len(at), bool)  # the first of a run of two or more: a space
    run_start[:-1] = follows[1:] & ~follows[:-1]
    codes[at[run_start]] = 32
    keep = np.ones(len(codes), bool)
    dropped = at[follows]
    keep[dropped] = False
    lost = np.bincount(np.searchsorted(ends, dropped, side="right"), minlength=len(lengths))
    return codes[keep], lengths - lost[:len(lengths)]


def _alphabet(present: np.ndarray, high: int):
    """Each code point's number among the corpus's characters (0 for absent ones), and
    the bits a character takes."""
    rank = np.cumsum(present, dtype=np.int64) * present
    bits = int(rank.max(initial=0)).bit_length() or 1
    if bits * high > 62:
        raise NotPackable
    return rank, bits


def _names(vocab, alphabet, bits, high) -> np.ndarray:
    """The strings of packed character n-grams (NumPy's UTF-32 strings, NUL-padded)."""
    mask = (1 << bits) - 1
    chars = np.stack([(vocab >> (bits * (high - 1 - j))) & mask for j in range(high)], axis=1)
    codes = np.where(chars > 0, alphabet[chars - 1], 0).astype("<u4")
    names = np.ascontiguousarray(codes).view(f"<U{high}").ravel().astype(object)
    if len(alphabet) and alphabet[0] == 0:  # U+0000 in an n-gram: NumPy would drop it
        for i in np.flatnonzero((chars == 1).any(axis=1)):
            names[i] = "".join(map(chr, codes[i, :int((chars[i] > 0).sum())]))
    return names


def _char(texts, ngram_range, preprocess, threads):
    low, high = ngram_range
    jobs = [(texts[a:b], preprocess) for a, b in text_blocks(texts, threads, CHAR_BLOCK)]
    blocks = pool_map(_squashed, jobs, threads)
    present = np.zeros(0x110000, bool)
    for codes, _ in blocks:
        present[codes] = True
    rank, bits = _alphabet(present, high)

    def keyed(block):
        return window_keys(rank[block[0]], block[1], range(low, high + 1), bits, high)

    X, vocab = tally(keyed, blocks, bits * high, threads)
    return X, _names(vocab, np.flatnonzero(present), bits, high)


def _squashed(job):
    texts, preprocess = job
    if preprocess is not None:
        texts = [preprocess(t) for t in texts]
    return _squash(*_codes(texts))


def _char_wb(texts, ngram_range, preprocess, threads):
    # the documents' words (str.split: runs of non-white-space; squashing white space
    # changes none), and the n-grams of each distinct word, padded: the word keys are freed
    # (on return from _word_ngrams) before the product, whose rows are the peak
    D, words = count_tokens(texts, preprocess, n_threads=threads, split="spaces")
    W, vocab, alphabet, bits = _word_ngrams(words, ngram_range)
    return _product(D, W, threads), _names(vocab, alphabet, bits, ngram_range[1])


def _word_ngrams(words, ngram_range):
    """``(W, vocab, alphabet, bits)``: the words x n-grams counts of the padded words."""
    low, high = ngram_range
    codes, lengths = _codes([f" {w} " for w in words.tolist()])
    present = np.zeros(0x110000, bool)
    present[codes] = True
    rank, bits = _alphabet(present, high)
    r = rank[codes]
    del codes, rank
    # windows strictly inside a longer padded word; a word no longer than high once, whole
    whole = lengths <= high
    keys, words_of, _ = window_keys(r, lengths, range(low, high + 1), bits, high,
                                    shorter=True)
    starts = np.r_[0, np.cumsum(lengths)[:-1]][whole]
    full = np.zeros(len(starts), np.int64)
    for j in range(high):
        has = lengths[whole] > j
        full[has] |= r[starts[has] + j].astype(np.int64) << (bits * (high - 1 - j))
    del r
    keys, words_of = np.r_[keys, full], np.r_[words_of, np.flatnonzero(whole)]
    W, vocab = tally(lambda _: (keys, words_of, len(lengths)), [None], bits * high)
    return W, vocab, np.flatnonzero(present), bits


def _product(D, W, threads: int) -> sp.csr_matrix:
    """``D W`` with sorted rows, by blocks of rows on ``threads`` threads (scipy's sparse
    product releases the GIL). :data:`PRODUCT_BLOCKS` blocks per thread: the stacking frees
    each block as it copies it, so the peak is the product plus one block, not twice it."""
    blocks = min(D.shape[0], threads * PRODUCT_BLOCKS) or 1
    cuts = np.linspace(0, D.shape[0], blocks + 1).astype(int)

    def rows(span):
        P = sp.csr_matrix(D[span[0]:span[1]] @ W, dtype=np.int32)
        P.sort_indices()
        return P, None

    parts = pool_map(rows, list(zip(cuts[:-1], cuts[1:], strict=True)), threads)
    return stack_rows(parts, W.shape[1])
