"""Document-term matrices: scikit-learn's ``CountVectorizer`` counts, an order of magnitude faster.

:func:`vectorize` returns what ``CountVectorizer(...).fit_transform`` returns -- the same
vocabulary, in the same order, and the same matrix -- for the options of
:class:`VectorizerOptions` (lowercasing, stop words, ``min_df``, ``max_df``,
``max_features``, ``binary``, ``ngram_range``, ``analyzer``, header stripping, stemming, a
tokenizer). Word tokens (scikit-learn's default token pattern, or a tokenizer's) and their
n-grams are counted by :func:`textsift.text.tokens.count_tokens` (a compiled kernel with
Python's own word characters and lowercasing, every distinct word stemmed once, n-grams as
sorted integers); character n-grams by :func:`textsift.text.chars.count_chars`. Any other token
pattern, a document that is not a string, or n-grams too long to pack are handed to
``CountVectorizer`` itself (:func:`build_vectorizer`). Either way the vocabulary is pruned by
:func:`term_mask`, scikit-learn's rule restated for counts that arrive in chunks.

The matrix holds term counts; presence is derived from it when counting
(:meth:`textsift.counting.counts.Counts.from_matrix`), so one matrix serves both the document-level
scores and the term-frequency ones (RC, AM). Stemming is Snowball (Porter 2 for English, as
the RC paper stemmed) through PyStemmer, in any of its languages
(:mod:`textsift.text.languages`); stop words come before n-grams are formed, and stems too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable  # noqa: F401  (the tokenizer field's annotation)
from dataclasses import field, make_dataclass
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from .._bounds import MAX_DF, MIN_DF
from .._choices import ANALYZERS
from .._options import DEFAULT_TOKEN_PATTERN, PREPROCESSING
from ..errors import TextsiftError, did_you_mean
from ..reading.corpus import strip_header
from .chars import count_chars
from .languages import check_language, check_stop_words, stemmer, stop_list
from .ngrams import NotPackable
from .tokenizers import resolve_tokenizer
from .tokens import count_tokens, stem_words

if TYPE_CHECKING:  # scikit-learn is imported where its vectorizer is built
    from sklearn.feature_extraction.text import CountVectorizer

__all__ = ["ANALYZERS", "Vectorizer", "VectorizerOptions", "build_vectorizer", "count_terms",
           "prune", "select_columns", "term_mask", "vectorize"]

#: The options that are true or false.
_FLAGS = tuple(o.name for o in PREPROCESSING if o.types == (bool,))


class _Checks:
    """The checks of :class:`VectorizerOptions` (whose fields are made from the one
    definition of each option, ``textsift._options.PREPROCESSING``): its methods."""

    def __post_init__(self):
        """Check every option here, where it is set, rather than deep inside a fit."""
        for name in _FLAGS:
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise TextsiftError(f"{name} must be true or false, got {getattr(self, name)!r}")
        MIN_DF.check(self.min_df, "min_df")  # the ranges the command line checks too
        MAX_DF.check(self.max_df, "max_df")
        if self.max_features is not None and (not _is_int(self.max_features)
                                              or self.max_features < 1):
            raise TextsiftError(f"max_features must be a positive number of terms, got "
                                f"{self.max_features!r}")
        object.__setattr__(self, "ngram_range", _ngram_range(self.ngram_range))
        if self.analyzer not in ANALYZERS:
            raise TextsiftError(f"unknown analyzer {self.analyzer!r}"
                                f"{did_you_mean(self.analyzer, ANALYZERS)}; choose one of "
                                f"{', '.join(ANALYZERS)}")
        object.__setattr__(self, "language", check_language(self.language))
        object.__setattr__(self, "stop_words", check_stop_words(self.stop_words))
        if self.stem:
            stemmer(self.language)  # a language without a stemmer is an error now
        try:
            pattern = re.compile(self.token_pattern)
        except (re.error, TypeError) as exc:
            raise TextsiftError(f"token_pattern {self.token_pattern!r} is not a regular "
                                f"expression ({exc})") from None
        resolve_tokenizer(self.tokenizer)  # a known name, its library installed, or a callable
        if self.analyzer != "word":
            self._check_characters()
        elif self.ngram_range[1] > 1 and self.tokenizer is None:
            _check_ngram_pattern(self.token_pattern, pattern)

    def _check_characters(self):
        """Character n-grams have no tokens: the options about tokens are refused, not
        ignored (scikit-learn only warns)."""
        word_only = [name for name, unset in (
            ("stop_words", self.stop_words is None), ("stem", not self.stem),
            ("token_pattern", self.token_pattern == DEFAULT_TOKEN_PATTERN),
            ("tokenizer", self.tokenizer is None)) if not unset]
        if word_only:
            raise TextsiftError(f"analyzer {self.analyzer!r} counts character n-grams: "
                                f"{', '.join(word_only)} apply to words only; drop them, or "
                                "use analyzer 'word'")


def _options_doc() -> str:
    lines = ["Preprocessing options shared by the CLI, the harness and the streaming engine.",
             "",
             "Each is defined once (``textsift._options.PREPROCESSING``), as are the command",
             "line's corpus options and an experiment file's ``[preprocessing]`` keys;",
             "``ngram_range`` and ``analyzer`` mean what they mean to ``CountVectorizer``, and",
             "every value is checked where it is set.", "", "Parameters", "----------"]
    for o in PREPROCESSING:
        lines += [f"{o.name} : {o.annotation}, default={o.default!r}", f"    {o.doc}"]
    return "\n".join(lines)


#: The preprocessing options (one field per entry of ``textsift._options.PREPROCESSING``).
VectorizerOptions = make_dataclass(
    "VectorizerOptions", [(o.name, o.annotation, field(default=o.default))
                          for o in PREPROCESSING],
    frozen=True, namespace={"__module__": __name__, "__doc__": _options_doc(),
                            "__post_init__": _Checks.__post_init__,
                            "_check_characters": _Checks._check_characters})


def _ngram_range(value) -> tuple[int, int]:
    """``(min_n, max_n)`` with ``1 <= min_n <= max_n`` (a list, as TOML gives, is read too)."""
    if (isinstance(value, list | tuple) and len(value) == 2 and all(map(_is_int, value))
            and 1 <= value[0] <= value[1]):
        return int(value[0]), int(value[1])
    raise TextsiftError(f"ngram_range must be (min_n, max_n) with 1 <= min_n <= max_n, e.g. "
                        f"(1, 2) for words and pairs of words; got {value!r}")


def _check_ngram_pattern(text: str, pattern: re.Pattern) -> None:
    """A token pattern word n-grams can be formed from: at most one group (scikit-learn's
    rule), no empty token, no token holding white space (its n-grams' words are joined by a
    space, so a token ``"a b"`` could not be told from the pair ``a``, ``b``)."""
    problem = None
    if pattern.groups > 1:
        problem = "it has more than one capturing group"
    elif pattern.search("") is not None:
        problem = "it matches the empty string"
    else:
        probe = "ab cd, ef\tgh\nij  kl. 12 34 x y"
        tokens = pattern.findall(probe)
        if any(not t or any(c.isspace() for c in t) for t in tokens):
            problem = "its tokens can hold white space, which joins the words of an n-gram"
    if problem:
        raise TextsiftError(f"token_pattern {text!r} cannot form word n-grams: {problem}; "
                            "use a pattern whose tokens hold no white space (the default "
                            "one), or ngram_range (1, 1)")


def _is_int(x) -> bool:
    return isinstance(x, Integral) and not isinstance(x, bool | np.bool_)


class _StemmingAnalyzer:
    """scikit-learn's word analyzer with a stemmer between its steps: preprocess, tokenise,
    drop stop words, stem each token (:func:`stem_words`, each distinct word once per
    analyzer), then form the n-grams of the stems (``CountVectorizer._word_ngrams``).
    Picklable, so it works under joblib."""

    def __init__(self, vec: CountVectorizer, language: str):
        self.vec, self.language = vec, language
        self.memo: dict[str, str] = {}

    def __call__(self, doc):
        vec = self.vec
        stop = vec.get_stop_words() or ()
        tokens = [w for w in vec.build_tokenizer()(vec.build_preprocessor()(doc))
                  if w not in stop]
        new = [w for w in set(tokens) if w not in self.memo]
        if new:
            self.memo.update(zip(new, stem_words(new, self.language), strict=True))
        return vec._word_ngrams([self.memo[w] for w in tokens])


def _strip_and_lower(text: str) -> str:
    return strip_header(text).lower()


def _preprocessor(opts: VectorizerOptions):
    # a given preprocessor replaces scikit-learn's lowercasing, so combine them here
    if not opts.strip_headers:
        return None
    return _strip_and_lower if opts.lowercase else strip_header


def _options(opts, kw) -> VectorizerOptions:
    opts = opts or VectorizerOptions()
    return VectorizerOptions(**{**opts.__dict__, **kw}) if kw else opts


def build_vectorizer(opts: VectorizerOptions | None = None, **kw) -> CountVectorizer:
    """A configured ``CountVectorizer`` (``kw`` override ``opts`` fields): the reference
    :func:`vectorize` is identical to, and what it uses where its fast path does not go."""
    from sklearn.base import clone
    from sklearn.feature_extraction.text import CountVectorizer

    opts = _options(opts, kw)
    tokenizer = resolve_tokenizer(opts.tokenizer)
    params = dict(
        binary=opts.binary,
        min_df=opts.min_df,
        max_df=opts.max_df,
        lowercase=opts.lowercase,
        preprocessor=_preprocessor(opts),
        max_features=opts.max_features,
        ngram_range=opts.ngram_range,
        analyzer=opts.analyzer,
        dtype=np.int32,
    )
    if opts.analyzer == "word":  # otherwise unset: scikit-learn would warn they are unused
        params.update(token_pattern=None if tokenizer else opts.token_pattern,
                      tokenizer=tokenizer, stop_words=_stop_words(opts))
    vec = CountVectorizer(**params)
    if opts.stem:  # the analyzer holds the other options: unset, they would be warned about
        vec.set_params(analyzer=_StemmingAnalyzer(clone(vec), opts.language),
                       preprocessor=None, stop_words=None, tokenizer=None,
                       token_pattern=DEFAULT_TOKEN_PATTERN, ngram_range=(1, 1))
    return vec


def _stop_words(opts: VectorizerOptions):
    """The stop words as ``CountVectorizer`` takes them: its own ``"english"``, or a list."""
    if opts.stop_words in (None, "english"):
        return opts.stop_words
    return sorted(stop_list(opts.stop_words))


def _fast(opts: VectorizerOptions, texts) -> bool:
    """Whether :mod:`textsift.text.tokens` / :mod:`textsift.text.chars` give ``CountVectorizer``'s
    terms: any analyzer, words from the default token pattern or a tokenizer, strings."""
    return ((opts.analyzer != "word" or opts.tokenizer is not None
             or opts.token_pattern == DEFAULT_TOKEN_PATTERN)
            and (set(map(type, texts)) <= {str}  # (fast; str subclasses are asked below)
                 or all(isinstance(t, str) for t in texts)))


def _count_fast(texts, opts: VectorizerOptions, n_threads):
    prep = _preprocessor(opts) or (str.lower if opts.lowercase else None)
    if opts.analyzer != "word":
        return count_chars(texts, opts.analyzer, opts.ngram_range, prep, n_threads)
    stop = stop_list(opts.stop_words) if opts.stop_words else None
    return count_tokens(texts, prep, stop, opts.stem, n_threads, opts.ngram_range,
                        opts.language, resolve_tokenizer(opts.tokenizer))


def count_terms(texts, opts: VectorizerOptions | None = None, n_threads: int | None = None,
                **kw) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(X, names)``: the counts of *every* term of ``texts`` (no document-frequency pruning;
    presence only when ``opts.binary``), ``names`` sorted. No token at all gives no column.
    ``n_threads`` caps the threads of the fast path (default: one per core)."""
    opts = _options(opts, kw)
    texts = list(texts)
    if _fast(opts, texts):
        try:
            X, names = _count_fast(texts, opts, n_threads)
        except NotPackable:  # n-grams too long to pack: CountVectorizer's own count below
            pass
        else:
            if opts.binary:
                X.data[:] = 1
            return X, names
    vec = build_vectorizer(opts, min_df=1, max_df=1.0, max_features=None)
    try:
        X = sp.csr_matrix(vec.fit_transform(texts))
    except ValueError as exc:
        if "empty vocabulary" not in str(exc):
            raise
        return sp.csr_matrix((len(texts), 0), dtype=np.int32), np.empty(0, dtype=object)
    X.sort_indices()
    return X, np.asarray(vec.get_feature_names_out(), dtype=object)


def _empty(reason: str) -> TextsiftError:
    return TextsiftError(f"the vocabulary is empty after preprocessing ({reason}); lower "
                         "min_df, raise max_df, or check the text field and token pattern")


def min_documents(min_df, n_docs: int | None) -> int:
    """``min_df`` as a number of documents: itself for a number, ``ceil(min_df * n_docs)``
    for a fraction (a whole ``df`` reaches ``min_df * n_docs`` exactly when it reaches its
    ceiling: scikit-learn's rule), at least 1; 1 for a fraction of an unknown ``n_docs``."""
    if isinstance(min_df, Integral):
        return int(min_df)
    return max(1, math.ceil(min_df * n_docs)) if n_docs else 1


def max_documents(max_df, n_docs: int) -> int:
    """``max_df`` as a number of documents: itself for a number, ``floor(max_df * n_docs)``
    for a fraction (a whole ``df`` is at most ``max_df * n_docs`` exactly when it is at most
    its floor)."""
    return int(max_df) if isinstance(max_df, Integral) else math.floor(max_df * n_docs)


def term_mask(df, total, n_docs: int, opts: VectorizerOptions | None = None) -> np.ndarray:
    """The terms ``CountVectorizer`` keeps, from each term's document frequency ``df`` and
    total count ``total`` (int64; presence counts when ``binary``) over ``n_docs`` documents,
    terms sorted: ``min_df <= df <= max_df`` (fractions of ``n_docs`` or numbers), then the
    ``max_features`` largest totals -- the rule of scikit-learn's ``_limit_features``, ties
    broken by the very ``argsort`` call it makes."""
    opts = opts or VectorizerOptions()
    df = np.asarray(df)
    if not len(df):  # no token at all: min_df and max_df are not the cause
        raise TextsiftError("the vocabulary is empty: no document has a term (the texts are "
                            "empty, or hold only stop words or characters the token pattern "
                            "does not match); check the text field (--text-field), the stop "
                            "words and the token pattern")
    low, high = min_documents(opts.min_df, n_docs), max_documents(opts.max_df, n_docs)
    if high < low:
        raise TextsiftError(
            f"the vocabulary is empty: min_df={opts.min_df} asks for more documents than "
            f"max_df={opts.max_df} allows among the {n_docs} documents; lower min_df "
            "or raise max_df")
    mask = (df <= high) & (df >= low)
    limit = opts.max_features
    if limit is not None and mask.sum() > limit:
        total = np.asarray(total, dtype=np.int64)
        keep = (-total[mask]).argsort()[:limit]
        new = np.zeros(len(df), dtype=bool)
        new[np.flatnonzero(mask)[keep]] = True
        mask = new
    if not mask.any():
        raise _empty("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    return mask


def prune(X: sp.csr_matrix, names, opts: VectorizerOptions | None = None):
    """``(X, names)`` restricted to the terms :func:`term_mask` keeps."""
    X = sp.csr_matrix(X)
    mask = term_mask(*column_totals(X), X.shape[0], opts)
    names = np.asarray(names, dtype=object)
    return select_columns(X, mask), names if mask.all() else names[mask]


def column_totals(X: sp.csr_matrix, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """Each column's number of non-zero entries (a term's document frequency in a canonical
    matrix) and its total (int64), read ``chunk`` entries at a time: ``np.bincount`` and
    ``X.sum(axis=0)`` would each make an int64 or float64 copy of the whole matrix's
    entries (a third of the peak memory of a character n-gram count)."""
    df = np.zeros(X.shape[1], np.int64)
    total = np.zeros(X.shape[1], np.int64)
    for at in range(0, X.nnz, chunk):
        cols = X.indices[at:at + chunk]
        df += np.bincount(cols, minlength=X.shape[1])
        total += np.bincount(cols, weights=X.data[at:at + chunk],
                             minlength=X.shape[1]).astype(np.int64)
    return df, total


def select_columns(X: sp.csr_matrix, mask: np.ndarray) -> sp.csr_matrix:
    """The columns ``mask`` of a canonical CSR ``X``, in one pass (order kept)."""
    if mask.all():
        return X
    new = (np.cumsum(mask) - 1).astype(X.indices.dtype)
    out = _kept_entries(X, mask[X.indices], new, int(mask.sum()))
    out.has_sorted_indices = True
    return out


def _kept_entries(X: sp.csr_matrix, keep: np.ndarray, column: np.ndarray, n_columns: int):
    """The entries ``keep`` of ``X``, entry ``(d, t)`` moved to column ``column[t]``."""
    indptr = np.r_[0, np.cumsum(keep)][X.indptr]  # kept entries before each row's start
    return sp.csr_matrix((X.data[keep], column[X.indices[keep]], indptr),
                         shape=(X.shape[0], n_columns))


def vectorize(texts, opts: VectorizerOptions | None = None, **kw):
    """Fit a vocabulary on ``texts``; return ``(X, feature_names, vectorizer)``: ``X`` the CSR
    matrix of term counts that ``CountVectorizer`` gives (canonical: sorted indices),
    ``vectorizer`` a :class:`Vectorizer` counting new texts against the vocabulary. An empty
    corpus or an empty vocabulary is a clear error."""
    opts = _options(opts, kw)
    texts = list(texts)
    if not texts:
        raise TextsiftError("the corpus is empty: no documents to vectorize")
    X, names = prune(*count_terms(texts, opts), opts)
    return X, names, Vectorizer(names, opts)


class Vectorizer:
    """Counts of texts against a fixed ``vocabulary`` under ``opts``: what
    ``CountVectorizer(vocabulary=...).transform`` gives (tokens outside it are ignored), on
    the fast path when :func:`count_terms` takes it."""

    def __init__(self, vocabulary, opts: VectorizerOptions | None = None):
        self.vocabulary = np.asarray(vocabulary, dtype=object)
        self.opts = opts or VectorizerOptions()

    def get_feature_names_out(self) -> np.ndarray:
        return self.vocabulary

    def transform(self, texts) -> sp.csr_matrix:
        import pyarrow as pa
        import pyarrow.compute as pc

        X, names = count_terms(texts, self.opts)
        where = pc.index_in(pa.array(names, pa.string()),
                            value_set=pa.array(self.vocabulary, pa.string()))
        where = where.fill_null(-1).to_numpy().astype(np.int32)
        out = _kept_entries(X, where[X.indices] >= 0, where, len(self.vocabulary))
        out.sort_indices()
        return out
