"""The explore page for many labels (tags, headings: more than :data:`MANY` labels): the page
holds what every label shares -- the policies' rankings, the labels' names and sizes, which
a search box chooses from -- and each label's own data lies in shard files beside the page
(:data:`SHARD` labels each), which the page loads when a label of theirs is chosen: the page
stays the size of a few labels however many there are.

A shard (:func:`shards`) holds, for each of its labels, each method's first ``label_cap``
terms by the label's own scores (:func:`textsift.classwise.top_many`, the ranking
``textsift score --class`` prints) and the label's document count of each of those terms and
of the policies' terms; its terms are named (with their ``df``), and the page maps them onto
its own. A shard file is a script (``window.textsift.shard(number, payload)``, the payload
gzip-compressed JSON in base64, as the page's own): scripts load from ``file://``, where the
browser refuses to fetch a file.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator

import numpy as np

from .._choices import EXPLORE_LABEL_CAP, EXPLORE_MANY, EXPLORE_SHARD
from ..classwise import top_many
from ..counts import Counts
from ..scores import PerClass

__all__ = ["LABEL_CAP", "MANY", "SHARD", "shard_script", "shards"]

#: Above this many labels (classes) the page loads each label's data when it is chosen.
MANY = EXPLORE_MANY
#: Labels per shard file.
SHARD = EXPLORE_SHARD
#: Terms kept per method and label in the shards (their own top terms).
LABEL_CAP = EXPLORE_LABEL_CAP


def shards(counts: Counts, tables: dict, shared: np.ndarray, label_cap: int,
           rounded) -> Iterator[tuple[int, dict]]:
    """``(number, payload)`` of each shard: labels ``number * SHARD`` onwards, each with
    its top ``label_cap`` terms by each method of ``tables`` (name -> its sparse table),
    and its document counts of those terms and of ``shared`` (the page's own terms)."""
    cells = counts.cells
    order, start = cells.by_class
    for number, first in enumerate(range(0, counts.n_classes, SHARD)):
        labels = np.arange(first, min(first + SHARD, counts.n_classes))
        views = {name: _label_lists(table, counts.classes, labels, label_cap)
                 for name, table in tables.items()}
        terms = np.unique(np.concatenate(
            [shared] + [ids for lists in views.values() for ids, _ in lists if ids is not None]
        )).astype(np.int64)
        local = {int(t): i for i, t in enumerate(terms)}
        payload = {"first": int(first), "terms": _names(counts, terms),
                   "df": counts.df[terms].tolist(), "views": {}, "a": []}
        for name, lists in views.items():
            payload["views"][name] = [None if ids is None else
                                      [[local[int(t)] for t in ids], rounded(scores)]
                                      for ids, scores in lists]
        for j in labels:
            mine = order[start[j]:start[j + 1]]
            held = np.isin(cells.row[mine], terms)
            rows, a = cells.row[mine][held], cells.a[mine][held]
            payload["a"].append([[local[int(t)] for t in rows], a.astype(np.int64).tolist()])
        yield number, payload


def _label_lists(table, classes: np.ndarray, labels: np.ndarray, cap: int) -> list:
    """Each label's (of ``labels``, indices of ``classes``) first ``cap`` terms and scores by
    ``table``: ``(ids, scores)``, or ``None`` for a label without documents (it has no
    column) and under a score of the term alone (no label has a list of its own)."""
    out: list = [None] * len(labels)
    if not isinstance(table, PerClass):
        return out
    groups = np.asarray(table.groups)
    at = np.minimum(np.searchsorted(groups, classes[labels]), len(groups) - 1)
    scored = np.flatnonzero(groups[at] == classes[labels])
    for i, found in zip(scored, top_many(table, at[scored], cap), strict=True):
        out[i] = found
    return out


def _names(counts: Counts, terms: np.ndarray) -> list[str]:
    names = counts.feature_names
    return [str(t) for t in (names[terms] if names is not None else terms)]


def shard_script(number: int, payload: dict) -> str:
    """The shard file: one call of the page's loader, the payload compressed as the page's."""
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    data = base64.b64encode(gzip.compress(raw.encode("utf-8"), 6, mtime=0)).decode("ascii")
    return f'window.textsift.shard({number}, "{data}");\n'
