"""Document-term matrices: scikit-learn's ``CountVectorizer`` counts, several times faster.

:func:`vectorize` returns what ``CountVectorizer(...).fit_transform`` returns -- the same
vocabulary, in the same order, and the same matrix -- for the options of
:class:`VectorizerOptions` (lowercasing, stop words, ``min_df``, ``max_df``,
``max_features``, ``binary``, header stripping, stemming). With scikit-learn's default token
pattern the tokens are found and counted by :func:`textsift.tokens.count_tokens` (Polars'
string kernels with Python's own word characters and lowercasing, every distinct word stemmed
once); any other token pattern, or a document that is not a string, is handed to
``CountVectorizer`` itself (:func:`build_vectorizer`). Either way the vocabulary is pruned by
:func:`term_mask`, scikit-learn's rule restated for counts that arrive in chunks.

The matrix holds term counts; presence is derived from it when counting
(:meth:`textsift.counts.Counts.from_matrix`), so one matrix serves both the document-level
scores and the term-frequency ones (RC, AM). Stemming is Snowball English (Porter 2, as the
RC paper stemmed) through PyStemmer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from .corpus import strip_header
from .errors import TextsiftError
from .tokens import count_tokens, stem_words

__all__ = ["Vectorizer", "VectorizerOptions", "build_vectorizer", "count_terms", "prune",
           "term_mask", "vectorize"]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"


@dataclass(frozen=True)
class VectorizerOptions:
    """Preprocessing options shared by the CLI, the harness and the streaming engine."""

    binary: bool = False
    min_df: int | float = 1
    max_df: int | float = 1.0
    token_pattern: str = DEFAULT_TOKEN_PATTERN
    lowercase: bool = True
    stop_words: str | None = None
    stem: bool = False
    strip_headers: bool = False
    max_features: int | None = None

    def __post_init__(self):
        """Check every option here, where it is set, rather than deep inside a fit."""
        for name in ("binary", "lowercase", "stem", "strip_headers"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise TextsiftError(f"{name} must be true or false, got {getattr(self, name)!r}")
        _document_bound("min_df", self.min_df, "a number of documents >= 1 or a fraction in "
                        "[0, 1)", lambda x: 0 <= x < 1)
        _document_bound("max_df", self.max_df, "a fraction in (0, 1] or a number of "
                        "documents >= 1", lambda x: 0 < x <= 1)
        if self.max_features is not None and (not _is_int(self.max_features)
                                              or self.max_features < 1):
            raise TextsiftError(f"max_features must be a positive number of terms, got "
                                f"{self.max_features!r}")
        if self.stop_words not in (None, "english"):
            raise TextsiftError(f"stop_words must be 'english' (scikit-learn's list) or "
                                f"nothing, got {self.stop_words!r}")
        try:
            re.compile(self.token_pattern)
        except (re.error, TypeError) as exc:
            raise TextsiftError(f"token_pattern {self.token_pattern!r} is not a regular "
                                f"expression ({exc})") from None


def _is_int(x) -> bool:
    return isinstance(x, Integral) and not isinstance(x, bool | np.bool_)


def _document_bound(name: str, value, what: str, fraction_ok) -> None:
    """``value`` is a whole number of documents (>= 1) or a fraction ``fraction_ok`` accepts
    (scikit-learn's reading: an int counts documents, a float is a proportion)."""
    if _is_int(value):
        if value >= 1:
            return
    elif isinstance(value, Real) and not isinstance(value, bool | np.bool_) and fraction_ok(
            float(value)):
        return
    raise TextsiftError(f"{name} must be {what}, got {value!r}")


class _StemmingAnalyzer:
    """Tokenise with scikit-learn's analyzer, then stem each token (:func:`stem_words`,
    each distinct word once per analyzer). Picklable, so it works under joblib."""

    def __init__(self, base):
        self.base = base
        self.memo: dict[str, str] = {}

    def __call__(self, doc):
        tokens = self.base(doc)
        new = [w for w in set(tokens) if w not in self.memo]
        if new:
            self.memo.update(zip(new, stem_words(new), strict=True))
        return [self.memo[w] for w in tokens]


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
    :func:`vectorize` is identical to, and what it uses for a custom token pattern."""
    opts = _options(opts, kw)
    vec = CountVectorizer(
        binary=opts.binary,
        min_df=opts.min_df,
        max_df=opts.max_df,
        token_pattern=opts.token_pattern,
        lowercase=opts.lowercase,
        stop_words=opts.stop_words,
        preprocessor=_preprocessor(opts),
        max_features=opts.max_features,
        dtype=np.int32,
    )
    if opts.stem:  # the analyzer holds the other options: unset, they would be warned about
        vec.set_params(analyzer=_StemmingAnalyzer(vec.build_analyzer()), preprocessor=None,
                       stop_words=None, token_pattern=DEFAULT_TOKEN_PATTERN)
    return vec


def _fast(opts: VectorizerOptions, texts) -> bool:
    """Whether :func:`textsift.tokens.count_tokens` gives ``CountVectorizer``'s tokens."""
    return opts.token_pattern == DEFAULT_TOKEN_PATTERN and all(isinstance(t, str) for t in texts)


def count_terms(texts, opts: VectorizerOptions | None = None, n_threads: int | None = None,
                **kw) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(X, names)``: the counts of *every* term of ``texts`` (no document-frequency pruning;
    presence only when ``opts.binary``), ``names`` sorted. No token at all gives no column.
    ``n_threads`` caps the threads of the fast path (default: one per core)."""
    opts = _options(opts, kw)
    texts = list(texts)
    if _fast(opts, texts):
        prep = _preprocessor(opts) or (str.lower if opts.lowercase else None)
        stop = ENGLISH_STOP_WORDS if opts.stop_words == "english" else None
        X, names = count_tokens(texts, prep, stop, opts.stem, n_threads)
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
    high = opts.max_df if isinstance(opts.max_df, Integral) else opts.max_df * n_docs
    low = opts.min_df if isinstance(opts.min_df, Integral) else opts.min_df * n_docs
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
    mask = term_mask(np.bincount(X.indices, minlength=X.shape[1]),
                     np.asarray(X.sum(axis=0)).ravel(), X.shape[0], opts)
    return _columns(X, mask), np.asarray(names, dtype=object)[mask]


def _columns(X: sp.csr_matrix, mask: np.ndarray) -> sp.csr_matrix:
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
