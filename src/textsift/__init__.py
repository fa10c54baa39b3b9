"""textsift: choose the words that matter in text and ordinal text classification.

The names below are imported when first used (PEP 562), so that ``import textsift`` -- and
the command line, which starts with it -- loads neither scikit-learn's estimators, scipy.stats
nor pandas before it needs them.
"""

from importlib import import_module

#: Each public name -> the module it lives in.
_HOMES = {
    "Corpus": "reading.corpus", "load_sample": "reading.corpus", "read_corpus": "reading.corpus",
    "Counts": "counting.counts",
    "AdaBagClassifier": "lasso",
    "keyness": "evidence.keywords",
    "REGISTRY": "scores", "compute": "scores",
    "OrdinalSelector": "selection.ordinal", "TermSelector": "selection.selectors",
    "rank": "selection.ranking",
}

__all__ = sorted(_HOMES)
__version__ = "0.1.0"


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'textsift' has no attribute {name!r}")
    value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value  # imported once
    return value


def __dir__():
    return sorted({*globals(), *_HOMES})
