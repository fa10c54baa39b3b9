"""textsift: choose the words that matter in text and ordinal text classification."""

from .corpus import Corpus, load_sample, read_corpus
from .counts import Counts
from .lasso import AdaBagClassifier
from .scores import REGISTRY, compute
from .selectors import OrdinalSelector, TermSelector, rank

__all__ = ["REGISTRY", "AdaBagClassifier", "Corpus", "Counts", "OrdinalSelector",
           "TermSelector", "compute", "load_sample", "rank", "read_corpus"]
__version__ = "0.1.0"
