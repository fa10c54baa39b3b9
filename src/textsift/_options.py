"""The preprocessing options, each defined once: name, type, default, help and choices.

:class:`~textsift.text.vectorize.VectorizerOptions` (its fields, defaults and checks), the command
line's corpus options (``--min-df``, ``--ngrams``, ...: :mod:`textsift.cli.options`) and the
experiment file's ``[preprocessing]`` table (:mod:`textsift.experiment.schema`: its keys,
types, defaults and reference) are all made from :data:`PREPROCESSING`, so a new option is one
:class:`Option` here (and what it does, in :mod:`textsift.text.vectorize`). This module imports
nothing heavy: the command line builds its options from it at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._choices import ANALYZERS
from .text.tokenizers import TOKENIZERS

#: scikit-learn's token pattern: words of two or more word characters.
DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"


@dataclass(frozen=True)
class Flag:
    """How the command line gives an option: its flag, and the type and metavar of the text
    it reads when that is not the option's own (``--ngrams 1-2`` for ``(1, 2)``)."""

    flag: str
    type: type | None = None
    metavar: str | None = None


@dataclass(frozen=True)
class Option:
    """One preprocessing option.

    ``annotation`` is the type of its field of ``VectorizerOptions``, ``types`` the Python
    types a value of an experiment file may have (``kind`` says them in words for the
    reference), ``choices`` a function giving the values it takes (read when asked, from the
    registry that holds them), ``cli`` how the command line gives it (``None``: it does not)."""

    name: str
    annotation: str
    default: object
    types: tuple[type, ...]
    kind: str
    help: str
    choices: Callable[[], tuple] | None = None
    cli: Flag | None = None

    @property
    def doc(self) -> str:
        """The help as a sentence, with the choices: the experiment reference's text."""
        return f"{self.help}."


PREPROCESSING: tuple[Option, ...] = (
    Option("min_df", "int | float", 1, (int, float), "integer or fraction",
           "Keep terms in at least this many (training) documents: a count, or a fraction of "
           "them", cli=Flag("--min-df", int)),
    Option("max_df", "int | float", 1.0, (int, float), "integer or fraction",
           "Keep terms in at most this fraction of the (training) documents, or this many "
           "when above 1", cli=Flag("--max-df", float)),
    Option("stop_words", "str | None", None, (str,), "string",
           "Drop the stop words of this list: english (scikit-learn's), or a language "
           "(stopwords-iso's list: german, korean, ...); default none",
           cli=Flag("--stop-words")),
    Option("stem", "bool", False, (bool,), "boolean",
           "Stem the words (Snowball, in the language; English: Porter 2)",
           cli=Flag("--stem")),
    Option("language", "str", "english", (str,), "string",
           "The text's language: its Snowball stemmer for stemming (any of PyStemmer's, e.g. "
           "german)", cli=Flag("--language")),
    Option("ngram_range", "tuple[int, int]", (1, 1), (list, tuple), "list of integers",
           "Count n-grams of MIN to MAX words (or characters, with analyzer char or char_wb): "
           "1-2 adds pairs of words (default 1-1; in a file, [1, 2]: scikit-learn's "
           "ngram_range)", cli=Flag("--ngrams", str, "MIN-MAX")),
    Option("analyzer", "str", "word", (str,), "string",
           "Terms are word n-grams (word), character n-grams (char), or character n-grams "
           "inside words (char_wb), as scikit-learn's", choices=lambda: ANALYZERS,
           cli=Flag("--analyzer")),
    Option("tokenizer", "str | Callable | None", None, (str,), "string",
           "Words from a morphological analyser instead of the token pattern: "
           + ", ".join(f"{t.name} ({t.summary})" for t in TOKENIZERS.values())
           + "; default none (from Python, any callable text -> tokens)",
           choices=lambda: tuple(TOKENIZERS), cli=Flag("--tokenizer")),
    Option("strip_headers", "bool", False, (bool,), "boolean",
           "Drop e-mail/news headers (everything before the first blank line)",
           cli=Flag("--strip-headers")),
    Option("binary", "bool", False, (bool,), "boolean",
           "Count presence instead of occurrences in the document-term matrices"),
    Option("lowercase", "bool", True, (bool,), "boolean",
           "Lower-case the text before tokenising"),
    Option("token_pattern", "str", DEFAULT_TOKEN_PATTERN, (str,), "string",
           "Regular expression of a token (scikit-learn's by default)"),
    Option("max_features", "int | None", None, (int,), "integer",
           "Keep only this many terms, those of the largest total counts (scikit-learn's "
           "max_features); default every term"),
)
