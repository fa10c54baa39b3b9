"""Document-term matrices through scikit-learn's ``CountVectorizer``, sparse all the way.

The matrix holds term counts; presence is derived from it when counting
(:meth:`textsift.counts.Counts.from_matrix`), so one matrix serves both the document-level
scores and the term-frequency ones (RC, AM). Stemming (Snowball/Porter through
``snowballstemmer``, as the RC paper stemmed) and newsgroup header stripping are options.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from .corpus import strip_header

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
        raise ValueError("the corpus is empty: no documents to vectorize")
    vec = build_vectorizer(opts, **kw)
    try:
        X = vec.fit_transform(texts)
    except ValueError as exc:
        msg = str(exc)
        if "no terms remain" in msg or "empty vocabulary" in msg:
            raise ValueError(
                f"the vocabulary is empty after preprocessing ({msg}); lower min_df, raise "
                "max_df, or check the text field and token pattern"
            ) from None
        if "max_df corresponds to < documents than min_df" in msg:
            raise ValueError(
                f"the vocabulary is empty: min_df={vec.min_df} asks for more documents than "
                f"max_df={vec.max_df} allows among the {len(texts)} documents; lower min_df"
            ) from None
        raise
    X = sp.csr_matrix(X)
    X.sort_indices()  # canonical CSR: counting then needs no copy to rule out duplicates
    return X, np.asarray(vec.get_feature_names_out(), dtype=object), vec
