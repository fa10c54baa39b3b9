"""Word polarities and the adaptive weights ``w_j = 1 / (|pol_j| + tol)`` (the AdaBag paper's
penalty factors).

Sources (:func:`load_polarity`):

* ``"imdb"`` -- the expected ratings of Potts (2011) shipped with aclImdb
  (``imdb/vocab_expected_rating.jsonl.gz``: ``word``, ``expected_rating`` on the 1-10 scale
  centred on 0, range -4.5..4.5). Transform: ``pol = expected_rating / 4.5``, the distance
  from the scale's middle as a fraction of its half-range, in [-1, 1]. (They were computed on
  the IMDb reviews themselves, so IMDb test errors with them are mildly optimistic.)
* ``"vader"`` -- VADER's lexicon (vaderSentiment), mean valence -4..4, divided by 4.
* ``"afinn"`` -- AFINN-en-165 (afinn), valence -5..5, divided by 5.
* ``"uniform"`` -- 1 for every word: the plain lasso (variant (i) of the AdaBag paper's
  simulation).
* a path -- a CSV (``word,polarity``) or JSONL (``word`` and ``polarity`` or
  ``expected_rating``) file, values used as given.

Words a lexicon lacks get polarity 0, hence weight ``1/tol`` = 1e5: they can enter only at tiny
lambdas, so in practice the lexicon decides the candidate words. A lexicon covering none of the
vocabulary, or all-zero polarities, is an error (every word would be penalised alike by 1e5).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import TextsiftError

__all__ = ["POLARITY_SOURCES", "adaptive_weights", "load_polarity", "polarity_from_lexicon",
           "shrink_polarity"]

#: Named word-polarity sources (a file path is accepted too; module docstring).
POLARITY_SOURCES = ("imdb", "vader", "afinn", "uniform")
DATA_ENV = "TEXTSIFT_DATA"


def adaptive_weights(polarity, tol: float = 1e-5) -> np.ndarray:
    """``1 / (|pol| + tol)``; all-zero or non-finite polarities are errors."""
    pol = np.asarray(polarity, dtype=float)
    if not np.all(np.isfinite(pol)):
        raise TextsiftError("polarities must be finite numbers")
    if not np.any(pol != 0):
        raise TextsiftError("every polarity is 0, so every word gets the same weight 1/tol; use "
                         "--polarity uniform for the plain lasso, or a lexicon that covers "
                         "the vocabulary")
    if tol <= 0:
        raise TextsiftError("tol must be > 0")
    return 1.0 / (np.abs(pol) + tol)


def shrink_polarity(polarity, counts, prior: float = 0.0, min_count: int = 0) -> np.ndarray:
    """Rare words' polarities pulled towards 0: ``pol_j n_j / (n_j + prior)`` for a word in
    ``n_j`` documents, and 0 for a word in fewer than ``min_count``. A lexicon's polarity of a
    word seen in few reviews is a noisy mean; the factor is the posterior mean's under a prior
    centred on 0 worth ``prior`` reviews (the usual shrinkage of a mean of ``n`` observations).
    ``prior=0, min_count=0`` leave the polarities as they are."""
    pol = np.asarray(polarity, dtype=float)
    n = np.asarray(counts, dtype=float)
    if n.shape != pol.shape or np.any(n < 0):
        raise TextsiftError("counts must hold one document count >= 0 per polarity")
    if not prior >= 0 or not min_count >= 0:
        raise TextsiftError(f"polarity_prior and polarity_min_count must be >= 0, got {prior} "
                            f"and {min_count}")
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.where(n > 0, n / (n + prior), 0.0) if prior > 0 else np.ones_like(n)
    return np.where(n >= min_count, pol * factor, 0.0)


def polarity_from_lexicon(vocabulary, lexicon: dict, min_coverage: int = 1) -> np.ndarray:
    """Polarity of each vocabulary word from a ``word -> polarity`` mapping (0 when absent)."""
    vocabulary = np.asarray(vocabulary, dtype=object)
    pol = np.array([lexicon.get(w, 0.0) for w in vocabulary], dtype=float)
    covered = int(sum(w in lexicon for w in vocabulary))
    if covered < min_coverage:
        raise TextsiftError(f"the polarity lexicon covers {covered} of the {len(vocabulary)} "
                         "vocabulary words; check that it matches the tokenisation (lower "
                         "case?) or choose another --polarity")
    return pol


def _imdb_lexicon(path: Path | None) -> dict:
    if path is None:
        root = os.environ.get(DATA_ENV)
        if not root:
            raise TextsiftError("polarity 'imdb' needs the aclImdb expected ratings: set "
                             f"{DATA_ENV} to the data folder holding "
                             "imdb/vocab_expected_rating.jsonl.gz, or pass that file")
        path = Path(root) / "imdb" / "vocab_expected_rating.jsonl.gz"
    if not Path(path).exists():
        raise TextsiftError(f"{path}: no such lexicon file")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return {r["word"]: r["expected_rating"] / 4.5 for r in map(json.loads, fh)}


def _file_lexicon(path: Path) -> dict:
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz")):
        frame = pd.read_json(path, lines=True)
    elif name.endswith((".csv", ".csv.gz", ".tsv")):
        frame = pd.read_csv(path, sep="\t" if name.endswith(".tsv") else ",")
    else:
        raise TextsiftError(f"{path}: a polarity file must be .csv, .tsv or .jsonl(.gz)")
    value = next((c for c in ("polarity", "expected_rating", "score") if c in frame), None)
    if "word" not in frame or value is None:
        raise TextsiftError(f"{path}: needs a 'word' column and a 'polarity' column")
    return dict(zip(frame["word"].astype(str), frame[value].astype(float), strict=True))


def _optional(module: str, package: str, source: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise TextsiftError(f"polarity {source!r} needs the {package} package: pip install "
                            f"'textsift[lexicons]' (or {package})") from None


def load_polarity(source: str, vocabulary) -> np.ndarray:
    """Polarity per vocabulary word from ``source`` (module docstring)."""
    vocabulary = np.asarray(vocabulary, dtype=object)
    source = str(source)
    if source == "uniform":
        return np.ones(len(vocabulary))
    if source == "imdb":
        lex = _imdb_lexicon(None)
    elif source == "vader":
        vader = _optional("vaderSentiment.vaderSentiment", "vaderSentiment", source)
        lex = {w: v / 4.0 for w, v in vader.SentimentIntensityAnalyzer().lexicon.items()}
    elif source == "afinn":
        afinn = _optional("afinn", "afinn", source)
        lex = {w: v / 5.0 for w, v in afinn.Afinn()._dict.items()}
    elif Path(source).exists():
        p = Path(source)
        lex = _imdb_lexicon(p) if p.name == "vocab_expected_rating.jsonl.gz" else _file_lexicon(p)
    else:
        raise TextsiftError(f"unknown polarity source {source!r}: use imdb, vader, afinn, uniform "
                         "or the path of a word,polarity file")
    return polarity_from_lexicon(vocabulary, lex)
