"""Direction: whether a term is over- or under-represented in a class.

Most per-class scores are two-sided: ``chi2``, ``bns``, ``ig``, ``acc_ratio``, ... score a
term that a class's documents *lack* as highly as one they *have* (Forman 2003 discusses such
negative features, useful to a classifier). A person reading "the terms of class ``c``" wants
the first kind. The direction of a term in a class (or label) ``c`` compares the share of the
class's documents that contain it with the share of the other documents that do:

    sign(A / N_c - B / (N - N_c)) = sign(A (N - N_c) - B N_c)

``+1``: over-represented in ``c`` (its documents contain the term more often than the rest);
``-1``: under-represented; ``0``: equal shares, or no document outside ``c``. With label sets
the rest is the documents without the label, as every one-vs-rest score takes it. It is
computed as the scores are, once per distinct one-vs-rest table (``binary_scores``), and
is kept beside every per-class table: the views of a class's terms (``textsift score --class``
and ``--per-class``, the report's table of each class, the explore page) show the
over-represented terms unless told otherwise; selection for a learner stays two-sided unless
it asks (``TermSelector(direction=...)``).
"""

from __future__ import annotations

import numpy as np

from .._choices import DIRECTIONS as _DIRECTIONS
from ..counting.counts import Counts
from ..errors import choose
from ._per_class import binary_scores
from ._tables import ScoreTable

__all__ = ["DIRECTIONS", "check_direction", "direction", "representation", "signs_at"]

#: Which terms of a class a view or a selector keeps: over-represented in it, under-
#: represented, or both.
DIRECTIONS = _DIRECTIONS


def representation(A, B, C, D):
    """``sign(A / N_c - B / (N - N_c))`` with ``N_c = A + C`` and ``N - N_c = B + D``, as the
    sign of ``A (B + D) - B (A + C)`` (exact for counts below 2**26; the products of larger
    counts are rounded, which can only matter where the two shares agree to 1e-16)."""
    return np.sign(A * (B + D) - B * (A + C))


def direction(counts: Counts) -> ScoreTable:
    """The direction of every term in every non-empty class (module docstring): ``+1``,
    ``-1`` or ``0``, a per-class table in sparse form like the scores' (unseen terms
    ``-inf``)."""
    return binary_scores(counts, representation)


def signs_at(cells, terms: np.ndarray, classes: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The direction of each term ``terms[i]`` in class ``classes[i]`` of the counts whose
    non-zero cells are ``cells`` (:class:`~textsift.counting._cells.SparseCells`), ``at[i]``
    its cell there (``-1``: ``A = 0``): :func:`representation` of the cell's table, formed
    as :func:`direction` forms it (a non-zero cell's ``(A, df - A, N_c - A, N - N_c - B)``,
    an absent cell's ``(0, df, N_c, N - N_c - df)``), so the same values, to the bit;
    ``-inf`` for an unseen term, as the table has it."""
    at = np.asarray(at, dtype=np.int64)
    held = at >= 0
    a = cells.a[at[held]]
    df = cells.df_values[cells.df_index[terms]]
    pos = cells.pos[classes]
    b, d = df.copy(), cells.n - pos - df
    b[held] = df[held] - a
    d[held] = cells.n - pos[held] - b[held]
    a_all = np.zeros(len(at))
    a_all[held] = a
    out = representation(a_all, b, pos - a_all, d).astype(np.float64)
    out[df == 0] = -np.inf
    return out


def check_direction(value) -> str:
    """``value`` if it is one of :data:`DIRECTIONS`, else an error naming them."""
    return choose(value, DIRECTIONS, "direction", "over: terms over-represented in the "
                  "class, under: under-represented, both: every term")
