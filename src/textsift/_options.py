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


#: The document bounds (``min_df``, ``max_df``): what a value may be, in words, and which
#: fractions are allowed (a whole number counts documents: at least 1).
DOCUMENT_BOUNDS: dict[str, tuple[str, Callable[[float], bool]]] = {
    "min_df": ("a number of documents >= 1 or a fraction of them in [0, 1)",
               lambda x: 0 <= x < 1),
    "max_df": ("a fraction in (0, 1] or a number of documents >= 1", lambda x: 0 < x <= 1),
}


def check_document_bound(name: str, value) -> None:
    """``value`` of the document bound ``name`` (:data:`DOCUMENT_BOUNDS`) is a whole number
    of documents (>= 1) or a fraction the bound allows -- scikit-learn's reading: an int
    counts documents, a float is a proportion -- else a ``TextsiftError`` that says which."""
    from numbers import Integral, Real

    from .errors import TextsiftError

    what, fraction_ok = DOCUMENT_BOUNDS[name]
    if isinstance(value, Integral) and not isinstance(value, bool):
        if value >= 1:
            return
    elif isinstance(value, Real) and not isinstance(value, bool) and fraction_ok(float(value)):
        return
    raise TextsiftError(f"{name} must be {what}, got {value!r}")


def read_document_bound(name: str, text) -> int | float:
    """A document bound as the command line writes it, read as an experiment file's TOML
    reads it: an integer (``5``) counts documents, a decimal (``0.01``, ``1e-3``) is a
    fraction; then checked (:func:`check_document_bound`). A value that is a number already
    is checked as it is."""
    from .errors import TextsiftError

    value = text
    if isinstance(text, str):
        try:
            value = int(text.strip())
        except ValueError:
            try:
                value = float(text.strip())
            except ValueError:
                raise TextsiftError(f"{name} must be {DOCUMENT_BOUNDS[name][0]}, got "
                                    f"{text!r}") from None
    check_document_bound(name, value)
    return value


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
           "them", cli=Flag("--min-df", str, "N|FRACTION")),
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
