"""The running Python's Unicode rules as tables, for the compiled count pass (``textsift._count``):
which code point ``re`` calls a word character (``\\w``) or white space (``\\s``), which are
cased and case-ignorable for ``str.lower``'s final sigma, and each one's lowercase --
:func:`unicode_tables`, found once per process by running ``re`` and ``str.lower`` over every
code point, so that nothing is hard-coded and the kernel's tokens follow the Unicode version
of the Python they run under (:mod:`textsift.text.tokens` explains why its tokens are then
exactly Python's).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

__all__ = ["unicode_tables"]

#: Code points probed at a time by :func:`unicode_tables` (all 1.1 million at once held
#: about 110 MB of probe strings at the peak of every command's start; a block holds 1 MB)
_PROBE_BLOCK = 1 << 16


def _every_code_point() -> np.ndarray:
    """Every code point but the surrogates (which no UTF-8 string holds), as uint32."""
    return np.r_[np.arange(0xD800), np.arange(0xE000, 0x110000)].astype("<u4")


def _string(codes: np.ndarray) -> str:
    return np.ascontiguousarray(codes, "<u4").tobytes().decode("utf-32-le")


def _probe(codes: np.ndarray, before: list[int], after: list[int]) -> list[np.ndarray]:
    """``str.lower`` of ``before + [c] + after`` for each code point ``c`` of ``codes``,
    lowered in one call (the probes end to end, each closed by a NUL, which no code point
    but NUL lowercases to): the lowered code points of each probe, as one array and each
    probe's end in it."""
    n, width = len(codes), len(before) + len(after) + 2
    grid = np.zeros((n, width), "<u4")
    grid[:, :len(before)] = before
    grid[:, len(before)] = codes
    grid[:, len(before) + 1:width - 1] = after
    low = np.frombuffer(_string(grid.ravel()).lower().encode("utf-32-le"), "<u4")
    ends = np.flatnonzero(low == 0)
    if len(ends) != n:
        raise RuntimeError("a code point lowercased to NUL")  # no Unicode version does
    return [low, ends]


@lru_cache(maxsize=1)
def unicode_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The running Python's Unicode rules as tables, for the compiled count pass
    (``textsift._count``): ``(flags, lower, expansions)``.

    ``flags[c]`` (uint8, one a code point): 1 if ``re``'s ``\\w`` matches ``chr(c)``
    (``str.isalnum() or "_"``), 2 if ``\\s`` does (``str.isspace()``, the white space of
    ``str.split``), 4 if ``c`` is *cased* and 8 if it is *case-ignorable* in the sense of
    ``str.lower``'s final-sigma rule (Unicode's Final_Sigma context, which CPython applies:
    ``"ΟΔΟΣ".lower() == "οδος"``); a code point both cased and case-ignorable is only
    case-ignorable there, as CPython skips it first. ``lower[c]`` (int32) is
    ``ord(chr(c).lower())``, or ``-(k + 1)`` when the lowercase is several code points
    (``"İ".lower() == "i̇"``): ``expansions[k]`` is their number and the code points follow.

    All found by running ``re`` and ``str.lower`` over every code point (a few tenths of a
    second, once per process): nothing is hard-coded, so the kernel follows the Unicode
    version of the Python it runs under. The cased/case-ignorable flags are read off
    ``str.lower`` itself: ``(c + "Σ").lower()`` ends in final sigma exactly when ``c`` is
    cased (and not case-ignorable), ``("a" + c + "Σ").lower()`` when ``c`` is cased or
    case-ignorable. Surrogates are neither word characters nor white space, lowercase to
    themselves and affect no sigma.
    """
    flags = np.zeros(0x110000, np.uint8)
    lower = np.arange(0x110000, dtype=np.int32)
    expansions: list[int] = []
    every = _every_code_point()
    for first in range(0, len(every), _PROBE_BLOCK):  # in blocks: a few MB at a time
        codes = every[first:first + _PROBE_BLOCK]
        text = _string(codes)
        for bit, pattern in ((1, r"\w+"), (2, r"\s+")):
            for m in re.finditer(pattern, text):
                flags[codes[m.start():m.end()]] |= bit
        probed = codes[codes != 0]  # NUL closes the probes; neither cased nor case-ignorable
        low, ends = _probe(probed, [], [0x3A3])
        cased = low[ends - 1] == 0x3C2
        low, ends = _probe(probed, [ord("a")], [0x3A3])
        either = low[ends - 1] == 0x3C2
        flags[probed[cased]] |= 4
        flags[probed[either & ~cased]] |= 8

        low, ends = _probe(probed, [], [])
        starts = np.r_[0, ends[:-1] + 1]
        sizes = ends - starts
        one = sizes == 1
        lower[probed[one]] = low[starts[one]]
        for c, a, k in zip(probed[~one].tolist(), starts[~one].tolist(),
                           sizes[~one].tolist(), strict=True):
            lower[c] = -(len(expansions) + 1)
            expansions += [k, *low[a:a + k].tolist()]
    return flags, lower, np.array(expansions, "<u4")
