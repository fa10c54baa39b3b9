"""Document-term matrices through scikit-learn's ``CountVectorizer``, sparse all the way.

The matrix holds term counts; presence is derived from it when counting
(:meth:`textsift.counts.Counts.from_matrix`), so one matrix serves both the document-level
scores and the term-frequency ones (RC, AM). Stemming (Snowball/Porter through
``snowballstemmer``, as the RC paper stemmed) and newsgroup header stripping are options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from .corpus import strip_header
from .errors import TextsiftError

__all__ = ["VectorizerOptions", "build_vectorizer", "vectorize"]

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
    """Tokenise with scikit-learn's analyzer, then stem each token with Snowball's English
    (Porter 2) stemmer. Picklable, so it works under joblib."""

    def __init__(self, base):
        self.base = base

    def __call__(self, doc):
        import snowballstemmer

        stemmer = snowballstemmer.stemmer("english")
        return stemmer.stemWords(self.base(doc))


def _strip_and_lower(text: str) -> str:
    return strip_header(text).lower()


def _preprocessor(opts: VectorizerOptions):
    # a given preprocessor replaces scikit-learn's lowercasing, so combine them here
    if not opts.strip_headers:
        return None
    return _strip_and_lower if opts.lowercase else strip_header


def build_vectorizer(opts: VectorizerOptions | None = None, **kw) -> CountVectorizer:
    """A configured ``CountVectorizer`` (``kw`` override ``opts`` fields)."""
    opts = opts or VectorizerOptions()
    if kw:
        opts = VectorizerOptions(**{**opts.__dict__, **kw})
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
    if opts.stem:
        vec.set_params(analyzer=_StemmingAnalyzer(vec.build_analyzer()))
    return vec


def vectorize(texts, opts: VectorizerOptions | None = None, **kw):
    """Fit a vectorizer on ``texts``; return ``(X, feature_names, vectorizer)`` with ``X`` a
    CSR matrix of term counts. An empty corpus or an empty vocabulary is a clear error."""
    texts = list(texts)
    if not texts:
        raise TextsiftError("the corpus is empty: no documents to vectorize")
    vec = build_vectorizer(opts, **kw)
    try:
        X = vec.fit_transform(texts)
    except ValueError as exc:
        msg = str(exc)
        if "no terms remain" in msg or "empty vocabulary" in msg:
            raise TextsiftError(
                f"the vocabulary is empty after preprocessing ({msg}); lower min_df, raise "
                "max_df, or check the text field and token pattern"
            ) from None
        if "max_df corresponds to < documents than min_df" in msg:
            raise TextsiftError(
                f"the vocabulary is empty: min_df={vec.min_df} asks for more documents than "
                f"max_df={vec.max_df} allows among the {len(texts)} documents; lower min_df "
                "or raise max_df"
            ) from None
        raise
    X = sp.csr_matrix(X)
    X.sort_indices()  # canonical CSR: counting then needs no copy to rule out duplicates
    return X, np.asarray(vec.get_feature_names_out(), dtype=object), vec
