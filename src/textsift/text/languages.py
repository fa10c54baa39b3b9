"""Languages: the stemmers and the stop-word lists of a text's language.

* **Stemmers**: every algorithm of PyStemmer (the C build of the Snowball stemmers, BSD-3):
  ``Stemmer.algorithms()``, 36 of them (``english`` is Porter 2, ``porter`` the original
  Porter stemmer).
* **Stop words**: ``"english"`` is scikit-learn's own list (``ENGLISH_STOP_WORDS``, 318 words),
  as it always was in textsift. Any other language takes the list of *stopwords-iso*
  (``stopwordsiso``, MIT): 58 languages, 32 of the 36 stemmer languages, where the
  ``stop-words`` package (BSD-3) has 33 languages and 25 of them (it lacks, among others,
  Armenian, Basque, Esperanto, Estonian, Irish and Lithuanian). Both have Korean
  (stopwords-iso 679 entries, stop-words 595); stopwords-iso is chosen for its coverage.
  A language is named in English (``"german"``) or by its ISO 639-1 code (``"de"``).
* **Korean morphemes**: not a stemmer nor a stop list but a tokenizer, ``tokenizer="korean"``
  (:mod:`textsift.text.tokenizers`).
"""

from __future__ import annotations

import threading
from functools import cache

from ..errors import TextsiftError, did_you_mean

__all__ = ["LANGUAGES", "check_language", "check_stop_words", "stemmer", "stop_list"]

#: stopwords-iso's languages: ISO 639-1 code -> English name.
ISO_NAMES = {
    "af": "afrikaans", "ar": "arabic", "bg": "bulgarian", "bn": "bengali", "br": "breton",
    "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "eo": "esperanto", "es": "spanish", "et": "estonian", "eu": "basque",
    "fa": "persian", "fi": "finnish", "fr": "french", "ga": "irish", "gl": "galician",
    "gu": "gujarati", "ha": "hausa", "he": "hebrew", "hi": "hindi", "hr": "croatian",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "ja": "japanese",
    "ko": "korean", "ku": "kurdish", "la": "latin", "lt": "lithuanian", "lv": "latvian",
    "mr": "marathi", "ms": "malay", "nl": "dutch", "no": "norwegian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sk": "slovak", "sl": "slovenian",
    "so": "somali", "st": "sesotho", "sv": "swedish", "sw": "swahili", "th": "thai",
    "tl": "tagalog", "tr": "turkish", "uk": "ukrainian", "ur": "urdu", "vi": "vietnamese",
    "yo": "yoruba", "zh": "chinese", "zu": "zulu",
}
_CODES = {name: code for code, name in ISO_NAMES.items()}
#: Stemmer algorithms that are variants of a language's: their stop list is the language's.
_VARIANTS = {"porter": "english", "dutch_porter": "dutch"}


def _stemmers() -> tuple[str, ...]:
    import Stemmer

    return tuple(Stemmer.algorithms())


#: Every language name accepted: a stemmer's, or a stop list's.
LANGUAGES = tuple(sorted(set(_stemmers()) | set(ISO_NAMES.values())))


def check_language(language) -> str:
    """The language's name (an ISO 639-1 code read as its name): an error naming the closest
    one when no stemmer nor stop list has it."""
    if not isinstance(language, str):
        raise TextsiftError(f"language must be a language's name, e.g. 'german', got "
                            f"{language!r}")
    name = ISO_NAMES.get(language.lower(), language.lower())
    if name not in LANGUAGES:
        raise TextsiftError(f"no stemmer or stop list has the language {language!r}"
                            + (did_you_mean(name, LANGUAGES)
                               or f"; the languages are {', '.join(LANGUAGES)}"))
    return name


def stemmer(language: str = "english"):
    """PyStemmer's stemmer of ``language``, one per thread (a ``Stemmer`` object is not
    thread-safe), without PyStemmer's cache (the callers stem each word once)."""
    import Stemmer

    name = check_language(language)
    if name not in _stemmers():
        has = sorted(set(_stemmers()) - set(_VARIANTS))
        hint = (" (Korean: morphemes with tokenizer 'korean', or character n-grams)"
                if name == "korean" else "")
        raise TextsiftError(f"there is no stemmer for {name}{hint}; drop stemming, or choose "
                            f"one of {', '.join(has)}")
    cache = _local.__dict__.setdefault("stemmers", {})
    if name not in cache:
        cache[name] = Stemmer.Stemmer(name, 0)
    return cache[name]


_local = threading.local()


def check_stop_words(stop_words) -> str | None:
    """``None``, ``"english"`` (scikit-learn's list) or the name of a language with a stop
    list (an ISO code read as its name)."""
    if stop_words is None or stop_words == "english":
        return stop_words
    if not isinstance(stop_words, str):
        raise TextsiftError(f"stop_words must be a language's name ('english' is "
                            f"scikit-learn's list), got {stop_words!r}")
    name = ISO_NAMES.get(stop_words.lower(), stop_words.lower())
    name = _VARIANTS.get(name, name)
    if name not in _CODES:
        raise TextsiftError(f"no stop list for {stop_words!r}" + (
            did_you_mean(name, _CODES) or f"; the lists are 'english' (scikit-learn's) and "
            f"stopwords-iso's: {', '.join(sorted(_CODES))}"))
    return name


@cache
def stop_list(stop_words: str) -> frozenset[str]:
    """The words of a stop list: scikit-learn's for ``"english"``, stopwords-iso's for any
    other language."""
    if stop_words == "english":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return ENGLISH_STOP_WORDS
    import stopwordsiso

    return frozenset(stopwordsiso.stopwords(_CODES[check_stop_words(stop_words)]))
