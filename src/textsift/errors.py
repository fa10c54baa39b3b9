"""The one error type textsift raises for bad input.

Every problem a user can fix -- a corpus that cannot be read or used, an option or parameter
out of range, an experiment file that does not validate, an output directory that cannot be
used -- raises :class:`TextsiftError` (or one of its subclasses, which only say which stage
found the problem), with a message that names the file, line or parameter and the fix.

It subclasses :class:`ValueError`, so code written against scikit-learn's convention
(``ValueError`` for invalid parameters and data) keeps working. Any other exception escaping
textsift is a bug. The command line prints a ``TextsiftError`` as one ``error: ...`` line on
stderr and exits with code 2; anything else keeps its traceback and exits with code 1.
"""

from __future__ import annotations

__all__ = ["CorpusError", "TextsiftError"]


class TextsiftError(ValueError):
    """Bad input (data, options or configuration); the message says what and how to fix it."""


class CorpusError(TextsiftError):
    """A corpus cannot be read or used as asked; the message says why and what to do."""
