"""Terms in context: short snippets of training documents around chosen terms.

:func:`find_snippets` reads the documents once, in order, and finds each wanted term where the
vectorizer (:class:`~textsift.text.vectorize.VectorizerOptions`) formed it, so that its surface form
is what is highlighted:

* words and word n-grams -- header stripping, the token pattern (or the tokenizer), lowercasing,
  stop words dropped, Snowball stemming in the options' language, then ``n`` tokens joined by a
  space, as scikit-learn's word analyzer does. An n-gram's surface form runs from its first
  token to its last, with the stop words between them (``"film good"`` is shown as ``"film was
  not good"`` with English stop words). The tokens of a tokenizer carry no offsets: each is
  looked for in the text after the one before, and a term whose tokens are not found as
  written (a morpheme that is not a substring of the text) has no snippet there;
* character n-grams (``char``: of the lowercased text, each run of two or more white-space
  characters one space; ``char_wb``: of each word padded with a space on both sides) -- found
  as substrings of the text so normalised, the white space of the n-gram not highlighted.

It keeps, for each wanted term and class, the first ``quota[t, c]`` documents of that class
containing the term (one snippet per document, none twice), and stops reading as soon as every
quota is full. The context is ``words`` tokens of the default token pattern (the options' own
for words) on each side.

A document with a label list (label sets) serves each of its labels' classes; its snippets
then carry, as a fourth item, the classes of all its labels when it has several, so that a
page showing "the rest" of a class can leave out the documents that have that class too.

Written by hand: scikit-learn's analyzers return terms without their character offsets,
which a snippet needs.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

import numpy as np

from ..errors import TextsiftError
from ..reading.corpus import strip_header
from ..text.languages import stop_list
from ..text.tokenizers import resolve_tokenizer
from ..text.vectorize import DEFAULT_TOKEN_PATTERN, VectorizerOptions, build_vectorizer

__all__ = ["find_snippets"]

#: ``(left context, the term as written, right context)``.
Snippet = tuple[str, str, str]

_SPACE = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text)


def find_snippets(documents: Iterable[tuple[str, object]], terms, class_index: dict,
                  quota: np.ndarray, opts: VectorizerOptions | None = None, words: int = 5,
                  max_chars: int = 60) -> list[list[list[Snippet]]]:
    """Snippets of ``terms`` in ``documents``, per term and class.

    Parameters
    ----------
    documents : iterable of (text, label) pairs
        Read once (a generator is fine); a label may be a list of labels.
    terms : sequence of str
        The wanted terms, as the vocabulary spells them (lowercased, stemmed).
    class_index : dict
        Label -> class column (labels outside it are skipped).
    quota : ndarray of shape (len(terms), n_classes), int
        Snippets wanted per term and class.
    opts : VectorizerOptions, optional
        How the documents were tokenised (default options when None).
    words, max_chars : int
        Context kept on each side of the term (at most ``words`` tokens and ``max_chars``
        characters, whitespace squashed).

    Returns
    -------
    list
        ``out[t][c]``, a list of at most ``quota[t, c]`` snippets, in document order: ``(left,
        term, right)``, and the sorted classes of the document's labels when it has several.
    """
    opts = opts or VectorizerOptions()
    terms = list(terms)
    quota = np.asarray(quota, dtype=np.int64)
    if quota.shape != (len(terms), len(set(class_index.values()))):
        raise TextsiftError(f"quota has shape {quota.shape}; expected one row per term "
                            "and one column per class")
    left = quota.copy()
    remaining = int(left.sum())
    # need[c]: term -> row, for the terms whose quota in class c is not yet full
    need = [{t: i for i, t in enumerate(terms) if left[i, c] > 0} for c in range(left.shape[1])]
    out: list[list[list[Snippet]]] = [[[] for _ in range(quota.shape[1])] for _ in terms]
    finder = _WordFinder(opts) if opts.analyzer == "word" else _CharFinder(opts)
    for text, label in documents if remaining > 0 else ():
        own = _classes_of(label, class_index)
        wanted = [c for c in own if need[c]]
        if not wanted:
            continue
        if opts.strip_headers:
            text = strip_header(text)
        shown, first = finder.locate(text, set().union(*(need[c].keys() for c in wanted)))
        tag = (own,) if len(own) > 1 else ()
        for k, snippet in _cut(finder, shown, first, words, max_chars, tag).items():
            for c in wanted:
                t = need[c].get(k)
                if t is None or snippet in out[t][c]:
                    continue  # not wanted here, or the same words again (a quoted reply)
                out[t][c].append(snippet)
                left[t, c] -= 1
                remaining -= 1
                if left[t, c] == 0:
                    del need[c][k]
        if remaining <= 0:
            break  # read no further
    return out


def _classes_of(label, class_index: dict) -> list[int]:
    """The class columns of a document's label (of each of its labels, sorted)."""
    if isinstance(label, list | tuple | set | frozenset | np.ndarray):
        return sorted({class_index[v] for v in map(_hashable, label) if v in class_index})
    column = class_index.get(_hashable(label))
    return [] if column is None else [column]


def _cut(finder, shown: str, first: dict, words: int, max_chars: int, tag: tuple) -> dict:
    """The snippet of each term found at ``first[term] = (a, b)`` in the text ``shown``:
    ``(left, term, right, *tag)``, the context tokens' starts and ends taken once."""
    if not first:
        return {}
    spans = [m.span() for m in finder.context.finditer(shown)]
    starts, ends = [a for a, _ in spans], [b for _, b in spans]
    out = {}
    for k, (a, b) in first.items():
        lo, hi = _window(starts, ends, a, b, words)
        out[k] = (_squash(shown[lo:a])[-max_chars:], _squash(shown[a:b]),
                  _squash(shown[b:hi])[:max_chars], *tag)
    return out


def _window(starts: list[int], ends: list[int], a: int, b: int, words: int) -> tuple[int, int]:
    """The characters ``[lo, hi)`` of a snippet of ``[a, b)``, given the context tokens'
    ``starts`` and ``ends``: from ``words`` tokens before the token at or before ``a`` to
    ``words`` tokens after the token that ends at or after ``b``."""
    i = bisect_right(starts, a) - 1
    j = bisect_left(ends, b)
    lo = starts[max(0, i - words)] if i >= 0 else a
    hi = ends[min(len(ends) - 1, j + words)] if j < len(ends) else b
    return min(lo, a), max(hi, b)


class _WordFinder:
    """Words and word n-grams, where the vectorizer formed them (module docstring)."""

    def __init__(self, opts: VectorizerOptions):
        self.pattern = re.compile(opts.token_pattern)
        self.context = self.pattern if opts.tokenizer is None else re.compile(
            DEFAULT_TOKEN_PATTERN)
        self.lowercase = opts.lowercase
        self.low, self.high = opts.ngram_range
        self.stop = stop_list(opts.stop_words) if opts.stop_words else frozenset()
        self.key = _token_key(opts)
        self.tokenizer = resolve_tokenizer(opts.tokenizer)

    def locate(self, text: str, wanted: set) -> tuple[str, dict[str, tuple[int, int]]]:
        """``(text shown, {term: (start, end) of its first occurrence})`` for the terms of
        ``wanted`` in ``text``."""
        low = text.lower() if self.lowercase else text
        if self.tokenizer is None and self.high == 1:
            # a cheap filter first (findall and set work run in C), then the offsets of the
            # tokens of a document that holds a wanted term
            tokens = set(self.pattern.findall(low))
            if not wanted & (tokens if self.key is None else {self.key(t) for t in tokens}):
                return text, {}
        shown, tokens = self._tokens(text, low)
        keys, places = [], []
        for word, place in tokens:
            if word not in self.stop:
                keys.append(word if self.key is None else self.key(word))
                places.append(place)
        first: dict[str, tuple[int, int]] = {}
        for n in range(self.low, self.high + 1):
            for i in range(len(keys) - n + 1):
                term = keys[i] if n == 1 else " ".join(keys[i:i + n])
                if term in wanted and term not in first and (
                        places[i] is not None and places[i + n - 1] is not None):
                    first[term] = (places[i][0], places[i + n - 1][1])
        return shown, first

    def _tokens(self, text: str, low: str):
        """The text shown and its tokens as ``(token, (start, end) or None)``."""
        if self.tokenizer is None and len(low) == len(text):  # tokens of the lowercased text
            return text, [(low[a:b], (a, b))
                          for a, b in (m.span() for m in self.pattern.finditer(low))]
        if self.tokenizer is None:  # lowercasing changed the length: each token lowercased
            return text, [(text[a:b].lower(), (a, b))
                          for a, b in (m.span() for m in self.pattern.finditer(text))]
        shown = text if len(low) == len(text) else low
        out, cursor = [], 0
        for word in self.tokenizer(low):
            at = low.find(word, cursor)
            out.append((word, None if at < 0 else (at, at + len(word))))
            cursor = cursor if at < 0 else at + len(word)
        return shown, out


class _CharFinder:
    """Character n-grams, where the vectorizer formed them (module docstring)."""

    _RUNS = re.compile(r"\s\s+")  # scikit-learn's white-space rule for char n-grams
    context = re.compile(DEFAULT_TOKEN_PATTERN)

    def __init__(self, opts: VectorizerOptions):
        # the header is stripped before the finder sees a text
        self.analyze = build_vectorizer(opts, strip_headers=False).build_analyzer()
        self.wb = opts.analyzer == "char_wb"
        self.lowercase = opts.lowercase

    def locate(self, text: str, wanted: set) -> tuple[str, dict[str, tuple[int, int]]]:
        hits = wanted.intersection(self.analyze(text))
        if not hits:
            return text, {}
        # char_wb splits the words at any white space, char folds runs of two or more
        shown = (_SPACE if self.wb else self._RUNS).sub(" ", text)
        low = shown.lower() if self.lowercase else shown
        shown = shown if len(low) == len(shown) else low
        hay = f" {low} " if self.wb else low
        first = {}
        for term in sorted(hits):
            at = hay.find(term)
            if at < 0:
                continue
            a, b = max(at - self.wb, 0), min(at - self.wb + len(term), len(low))
            while a < b and shown[a].isspace():
                a += 1
            while b > a and shown[b - 1].isspace():
                b -= 1
            if a < b:
                first[term] = (a, b)
        return shown, first


def _token_key(opts: VectorizerOptions):
    """Lowercased token -> the term the vocabulary holds: its Snowball stem in the options'
    language with ``stem=True`` (:func:`textsift.text.tokens.stem_words`, cached: a corpus has far
    fewer distinct tokens than tokens), else None (the token itself)."""
    if not opts.stem:
        return None
    from ..text.tokens import stem_words

    cache: dict[str, str] = {}

    def key(token: str) -> str:
        k = cache.get(token)
        if k is None:
            k = cache[token] = stem_words([token], opts.language)[0]
        return k

    return key


def _hashable(label):
    return label.item() if isinstance(label, np.generic) else label
