"""The explore page for many labels (tags, headings: more than :data:`MANY` labels): the page
holds what every label shares -- the policies' rankings, the labels' names and sizes, which
a search box chooses from -- and each label's own data lies in shard files beside the page
(:data:`SHARD` labels each), which the page loads when a label of theirs is chosen: the page
stays the size of a few labels however many there are.

A shard (:func:`shards`) holds, for each of its labels, each method's first ``label_cap``
terms over-represented in the label and under-represented in it, by the label's own scores
(:func:`class_lists`: the rankings ``textsift score --class --direction over`` and ``under``
print, as the page's own lists of few classes) and the label's document count of each of those
terms and of the policies' terms, and the evidence of those lists (p, q and log ratio
intervals: :func:`.explore_evidence.shard_evidence`); its terms are named (with their
``df``), and the page maps them onto its own. A shard file is a script
(``window.textsift.shard(number, payload)``, the payload gzip-compressed JSON in base64, as
the page's own): scripts load from ``file://``, where the browser refuses to fetch a file.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator

import numpy as np

from .._choices import EXPLORE_LABEL_CAP, EXPLORE_MANY, EXPLORE_SHARD
from ..counting.counts import Counts
from ..selection.ranking import ranking_of

__all__ = ["LABEL_CAP", "MANY", "SHARD", "class_lists", "shard_script", "shards"]

#: Above this many labels (classes) the page loads each label's data when it is chosen.
MANY = EXPLORE_MANY
#: Labels per shard file.
SHARD = EXPLORE_SHARD
#: Terms kept per method and label in the shards (their own top terms).
LABEL_CAP = EXPLORE_LABEL_CAP


def class_lists(counts: Counts, table, classes, cap: int, signs) -> dict:
    """``{"c": [...], "cu": [...], "cd": [...]}`` of the classes ``classes`` (indices of
    ``counts.classes``): each class's first ``cap`` terms over-represented in it (``c``) and
    under-represented (``cu``), ``(ids, scores)`` by its own scores, and which of the two
    its two-sided ranking takes next (``cd``, ``"+-+..."``); ``None`` for a class without
    documents (it has no column). :func:`textsift.scores.direction.direction` gives
    ``signs``."""
    groups = [str(g) for g in table.groups]
    sign_groups = [str(g) for g in signs.groups]
    lists: dict = {"c": [], "cu": [], "cd": []}
    for j in classes:
        cls = counts.classes[j]
        if str(cls) not in groups:
            for v in lists.values():
                v.append(None)
            continue
        for key, way in (("c", "over"), ("cu", "under")):
            r = ranking_of(table, "max", cls, limit=cap, signs=signs, direction=way)
            keep = r.scores > -np.inf
            lists[key].append((r.index[keep], r.scores[keep]))
        r = ranking_of(table, "max", cls, limit=2 * cap)
        s = signs.column(sign_groups.index(str(cls)))[r.index[r.scores > -np.inf]]
        lists["cd"].append("".join(np.where(s[s != 0] > 0, "+", "-")[:cap]))
    return lists


def shards(counts: Counts, tables: dict, signs, shared: np.ndarray, label_cap: int,
           rounded, evidence=None) -> Iterator[tuple[int, dict]]:
    """``(number, payload)`` of each shard: labels ``number * SHARD`` onwards, each with
    the lists of :func:`class_lists` (``label_cap`` terms each) by each method of ``tables``
    (name -> its table) that scores each label, and its document counts of those terms and
    of ``shared`` (the page's own terms); ``evidence(labels, lists, local)``, if given,
    makes the payload's ``"evidence"`` (:func:`.explore_evidence.shard_evidence`: the p, q
    and log ratios of the lists' terms, ``local`` the shard's term ids)."""
    cells = counts.cells
    order, start = cells.by_class
    for number, first in enumerate(range(0, counts.n_classes, SHARD)):
        labels = np.arange(first, min(first + SHARD, counts.n_classes))
        views = {name: class_lists(counts, table, labels, label_cap, signs)
                 for name, table in tables.items() if len(table.groups) > 1}
        terms = np.unique(np.concatenate(
            [shared] + [ids for lists in views.values() for key in ("c", "cu")
                        for pair in lists[key] if pair is not None for ids in pair[:1]]
        )).astype(np.int64)
        local = np.full(counts.n_terms, -1, dtype=np.int64)
        local[terms] = np.arange(len(terms))

        def pair(view, local=local):
            return None if view is None else [local[view[0]].tolist(), rounded(view[1])]

        payload = {"first": int(first), "terms": _names(counts, terms),
                   "df": counts.df[terms].tolist(),
                   "views": {name: {"c": [pair(v) for v in lists["c"]],
                                    "cu": [pair(v) for v in lists["cu"]], "cd": lists["cd"]}
                             for name, lists in views.items()},
                   "a": []}
        if evidence is not None:
            payload["evidence"] = evidence(labels, views, local)
        for j in labels:
            mine = order[start[j]:start[j + 1]]
            held = local[cells.row[mine]] >= 0
            payload["a"].append([local[cells.row[mine][held]].tolist(),
                                 cells.a[mine][held].astype(np.int64).tolist()])
        yield number, payload


def _names(counts: Counts, terms: np.ndarray) -> list[str]:
    names = counts.feature_names
    return [str(t) for t in (names[terms] if names is not None else terms)]


def shard_script(number: int, payload: dict) -> str:
    """The shard file: one call of the page's loader, the payload compressed as the page's."""
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    data = base64.b64encode(gzip.compress(raw.encode("utf-8"), 6, mtime=0)).decode("ascii")
    return f'window.textsift.shard({number}, "{data}");\n'
