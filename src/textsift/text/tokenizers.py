"""Named tokenizers: the registry behind ``tokenizer="korean"`` (and ``--tokenizer``,
``[preprocessing] tokenizer``).

A tokenizer turns a text into its tokens, replacing the token pattern (a user may pass any
callable ``text -> tokens``; a name picks one of :data:`TOKENIZERS`). Each entry is one
:func:`register_tokenizer` here: the vectorizer, the snippets of the report, the command
line's choices and help and the experiment file's reference all read the registry, so a new
tokenizer is its entry (and the extra that installs its library). A tokenizer with a
``batch(texts)`` method is given many texts at a time (:func:`textsift.text.tokens.count_tokens`).

* ``korean`` -- Korean morphemes with Kiwi (``kiwipiepy``, Apache-2.0; the ``korean`` extra,
  ``pip install "textsift[korean]"``, whose model package is about 100 MB): eojeol (a word
  with its particles and endings glued on) split into morphemes; punctuation morphemes (tags
  ``SF SP SS SSO SSC SE SO``) are dropped, as the default token pattern drops punctuation,
  and the forms of the others are the tokens.

This module imports nothing heavy: the command line reads the names at start-up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from ..errors import TextsiftError, lookup

__all__ = ["TOKENIZERS", "KoreanTokenizer", "Tokenizer", "register_tokenizer",
           "resolve_tokenizer"]


@dataclass(frozen=True)
class Tokenizer:
    """A registered tokenizer: ``make()`` returns the callable ``text -> tokens`` (an error
    naming the command that installs its library when it is missing); ``summary`` is what the
    command line's help and the experiment reference say of it."""

    name: str
    summary: str
    make: Callable[[], Callable]


#: Every named tokenizer: name -> :class:`Tokenizer`.
TOKENIZERS: dict[str, Tokenizer] = {}


def register_tokenizer(name: str, summary: str):
    """Decorator adding a factory ``() -> callable`` to :data:`TOKENIZERS` under ``name``."""

    def deco(make):
        if name in TOKENIZERS:
            raise RuntimeError(f"tokenizer {name!r} is registered twice")
        TOKENIZERS[name] = Tokenizer(name, summary, make)
        return make

    return deco


def resolve_tokenizer(tokenizer) -> Callable | None:
    """The callable of ``tokenizer``: ``None`` (the token pattern), a callable as it is, or
    a registered name's (an unknown name is an error naming the closest)."""
    if tokenizer is None or callable(tokenizer):
        return tokenizer
    return lookup(TOKENIZERS, tokenizer, "tokenizer").make()


#: Kiwi's punctuation tags: dropped, as the default token pattern drops punctuation.
PUNCTUATION_TAGS = frozenset({"SF", "SP", "SS", "SSO", "SSC", "SE", "SO"})


class KoreanTokenizer:
    """Korean morphemes (Kiwi): a text -> the forms of its morphemes, punctuation dropped.
    ``batch`` tokenises many texts on Kiwi's own threads. Picklable (the analyser is built
    again where it is unpickled)."""

    def __init__(self):
        self._kiwi = None

    @property
    def kiwi(self):
        if self._kiwi is None:
            self._kiwi = _kiwi()
        return self._kiwi

    def __call__(self, text: str) -> list[str]:
        return [t.form for t in self.kiwi.tokenize(text) if t.tag not in PUNCTUATION_TAGS]

    #: Texts given to Kiwi at once: its threads share each batch, and a batch is what a
    #: Ctrl-C or a progress report waits for (Kiwi takes in a whole list before it answers:
    #: the 30,000 reviews of a block were 40 s).
    BATCH = 256

    def batch(self, texts) -> Iterator[list[str]]:
        """The tokens of each of ``texts``, lazily, ``BATCH`` texts at a time on Kiwi's
        threads (a caller can report progress, or stop, between batches)."""
        texts = list(texts)
        for start in range(0, len(texts), self.BATCH):
            for doc in self.kiwi.tokenize(texts[start:start + self.BATCH]):
                yield [t.form for t in doc if t.tag not in PUNCTUATION_TAGS]

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self._kiwi = None

    def __eq__(self, other):
        return isinstance(other, KoreanTokenizer)

    def __hash__(self):
        return hash(KoreanTokenizer)


_KIWI_LOCK = threading.Lock()


def _kiwi():
    """The one Kiwi of the process, built by the first thread that asks (the others wait:
    building it takes seconds, holding the GIL, and every counting thread asks at once)."""
    with _KIWI_LOCK:
        return _build_kiwi()


@lru_cache(maxsize=1)
def _build_kiwi():
    import os

    from kiwipiepy import Kiwi

    return Kiwi(num_workers=os.cpu_count() or 1)


@register_tokenizer("korean", 'Kiwi\'s Korean morphemes; pip install "textsift[korean]"')
def _korean() -> KoreanTokenizer:
    try:
        import kiwipiepy  # noqa: F401
    except ImportError:
        raise TextsiftError('the Korean tokenizer needs Kiwi: pip install "textsift[korean]"'
                            ) from None
    return KoreanTokenizer()
