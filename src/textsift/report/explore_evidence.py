"""The evidence the explore page shows beside a class's terms: each term's p-value, its
adjusted p-value ``q`` and its log ratio with the interval, as ``textsift score --class C
--evidence`` prints them (:func:`textsift.evidence.terms.evidence`; ``q`` by the chosen correction
over the chosen family, by default Benjamini-Hochberg over the class's terms; the interval at
95%).

Only the methods with a p-value (:func:`textsift.scores.with_pvalues`) and a ranking of each
class have it, and only for the first ``top`` terms of each class's lists (over- and
under-represented: :func:`.explore_labels.class_lists`), which keeps the page small; with
``alpha`` (``textsift explore --alpha``), deeper where needed: down to the last term of the
list (at most ``cap`` long) whose ``q`` passes alpha (:func:`textsift.evidence.significant.passes`,
the rule of :func:`textsift.evidence.significant.significant_terms`), so that the page's filter
shows every term that ``textsift score --class C --alpha`` selects within the embedded lists. The
log ratio is the class's against the rest's, whatever the method: it is kept once per
(class, term).
"""

from __future__ import annotations

import math

import numpy as np

from .._choices import CORRECTION, CORRECTION_NAMES, DEFAULT_LEVEL, FAMILY
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..evidence.significant import passes, rule
from ..labels import group_index
from ..scores import REGISTRY
from ..scores.effects import log_ratio
from ..scores.significance import pvalues

__all__ = ["CORRECTION", "EVIDENCE_TOP", "FAMILY", "LEVEL", "class_evidence", "label_evidence",
           "shard_evidence"]

#: Terms per class list whose evidence is embedded.
EVIDENCE_TOP = 200
#: ``score --evidence``'s defaults: the correction, its family and the intervals' level.
#: ``explore --correction`` and ``--family`` choose the first two.
LEVEL = DEFAULT_LEVEL


def significant(x, passing=None) -> list:
    """p-values to 3 significant digits for JSON (``None`` where there is no test); exact
    for the smallest ones, which a scale by a power of ten would overflow. ``passing``
    (booleans, one per value): round each value toward its side of alpha -- down where it
    passes, up where not -- so that the page's filter at alpha keeps exactly the terms that
    pass (0.04996 rounded to the nearest, 0.05, would fail ``q < 0.05``)."""
    values = np.asarray(x).tolist()
    if passing is None:
        return [None if math.isnan(v) else float(f"{v:.3g}") for v in values]
    return [None if math.isnan(v) else _toward(v, bool(up)) for v, up in
            zip(values, passing, strict=True)]


def _toward(v: float, down: bool) -> float:
    """``v`` to 3 significant digits, rounded down (``down``) or up."""
    digits, _, exp = f"{v:.2e}".partition("e")
    units = int(digits.replace(".", ""))  # "4.99" -> 499
    near = float(f"{v:.3g}")
    if down and near > v:
        units -= 1
    elif not down and near < v:
        units += 1
    return float(f"{units}e{int(exp) - 2}")


def class_evidence(counts: Counts, views: dict, page_id: np.ndarray, top: int, rounded,
                   correction: str = CORRECTION, family: str = FAMILY,
                   alpha: float | None = None) -> dict | None:
    """``{"top", "correction", "correction_name" (as people name it), "family", "level",
    "alpha", "rule", "methods": {name: {"c":
    [per class: [p, q] or None], "cu": [...]}}, "untested": {name: why}, "lr": [per class:
    [ids, log ratio, low, high] or None]}``:
    the p and q (``correction`` over ``family``) of the first ``top`` terms of each class
    list of ``views`` (a method's lists, as the page's data holds them) by each method with
    a p-value -- with ``alpha``, down to the list's last term whose q passes it, if deeper
    -- aligned with the lists, and the log ratio of each of those terms in the class
    (``ids``: the page's term ids; ``rounded`` writes the numbers). ``rule``: how q passes
    alpha, ``"<="`` or ``"<"`` (:func:`textsift.evidence.significant.rule`). ``None`` when
    no method has both. ``"untested"``: why a method with a p-value has none here (a test
    of the whole table; chi2_sklearn's p-value needs one label per document)."""
    per_class = {name for name, v in views.items() if "c" in v}
    tests, untested = _tests(counts, views, per_class, correction, family)
    if not tests:
        return None
    wanted = [set() for _ in range(counts.n_classes)]
    classes = range(counts.n_classes)
    methods = {name: _lists_evidence(counts, p, q, views[name], classes, wanted, top, alpha,
                                     correction) for name, (p, q) in tests.items()}
    lr = [_log_ratios(counts, c, ids, page_id, rounded) for c, ids in enumerate(wanted)]
    if alpha is not None:
        _check_small_counts(counts, tests, alpha, correction, family)
    return {**_header(top, correction, family, alpha), "methods": methods,
            "untested": untested, "lr": lr}


def _check_small_counts(counts: Counts, tests: dict, alpha: float, correction: str,
                        family: str) -> None:
    """The warning of selection by alpha with chi2
    (:func:`textsift.evidence.significant.check_expected_counts`)
    for the terms the page keeps at ``alpha``: each class's over-represented terms whose q
    passes it, as ``textsift score --class C --alpha`` selects them."""
    from ..evidence.significant import SMALL_COUNT_TESTS, check_expected_counts, passing_scores

    for name in SMALL_COUNT_TESTS:
        if name in tests:
            kept = passing_scores(counts, name, alpha, correction, family, "over",
                                  adjusted=tests[name][1])
            check_expected_counts(counts, np.asarray(kept.scored_terms(), dtype=np.intp),
                                  tests[name][1], alpha, fixes=(
                                      "read Fisher's exact test's (--methods with fisher), or "
                                      "keep the terms of enough documents (--min-df); "
                                      "`textsift score --yates` gives Yates' correction of "
                                      "chi2"))


def label_evidence(counts: Counts, names, per_class: set, top: int,
                   correction: str = CORRECTION, family: str = FAMILY,
                   alpha: float | None = None) -> tuple[dict | None, dict]:
    """The evidence of a page of many labels (:mod:`.explore_labels`): ``(head, tests)``,
    ``head`` the page's part -- :func:`class_evidence`'s keys, each method's lists and the
    log ratios empty (``{}``: the shards fill them, :func:`shard_evidence`) -- or ``None``
    when no method of ``names`` has a p-value of each label; ``tests``: each such method's
    p-values and adjusted ones, held in the scores' sparse form (never the (V, labels)
    table)."""
    tests, untested = _tests(counts, names, per_class, correction, family)
    if not tests:
        return None, tests
    return {**_header(top, correction, family, alpha),
            "methods": {name: {"c": {}, "cu": {}} for name in tests},
            "untested": untested, "lr": {}}, tests


def shard_evidence(counts: Counts, tests: dict, top: int, alpha: float | None,
                   correction: str, rounded, labels, views: dict, local: np.ndarray) -> dict:
    """A shard's evidence: ``{"methods": {name: {"c": [per label: [p, q] or None], "cu":
    [...]}}, "lr": [per label: [ids, log ratio, low, high] or None]}`` of the labels
    ``labels`` and their lists ``views`` (:func:`.explore_labels.class_lists`, by method),
    the term ids the shard's own (``local``)."""
    wanted = [set() for _ in labels]
    methods = {name: _lists_evidence(counts, p, q, views[name], labels, wanted, top, alpha,
                                     correction) for name, (p, q) in tests.items()}
    return {"methods": methods,
            "lr": [_log_ratios(counts, int(c), ids, local, rounded)
                   for c, ids in zip(labels, wanted, strict=True)]}


def _header(top: int, correction: str, family: str, alpha: float | None) -> dict:
    return {"top": top, "correction": correction, "correction_name": CORRECTION_NAMES[correction],
            "family": family, "level": LEVEL, "alpha": alpha, "rule": rule(correction)}


def _tests(counts: Counts, names, per_class: set, correction: str,
           family: str) -> tuple[dict, dict]:
    """``({name: (p, q)}, {name: why})``: the p-values and adjusted ones (sparse form) of
    the methods of ``names`` with a p-value of each class (``per_class``), and why each
    other method with a p-value has none here."""
    tests, untested = {}, {}
    for name in names:
        if REGISTRY[name].pvalue is None:
            continue
        if name not in per_class:
            untested[name] = (f"{name} has one test per term, of all the classes at once "
                              "(`textsift score --evidence` gives its p and q), not one per "
                              "class")
            continue
        try:
            p = pvalues(counts, name)
            tests[name] = (p, p.adjusted(correction, family, dense=False))
        except TextsiftError as exc:  # a test these labels do not allow
            untested[name] = str(exc).split(";")[0]
    return tests, untested


def _lists_evidence(counts: Counts, p, q, lists: dict, classes, wanted: list, top: int,
                    alpha: float | None, correction: str) -> dict:
    """``{"c": [...], "cu": [...]}``: ``[p, q]`` of the first terms of each list of the
    classes ``classes`` (``lists``: a method's, as :func:`.explore_labels.class_lists`
    gives them) -- ``top``, or with ``alpha`` down to the last that passes; each class's
    terms added to its set in ``wanted``."""
    groups = [str(g) for g in p.groups]
    out: dict = {"c": [], "cu": []}
    for i, c in enumerate(classes):
        pc = qc = None
        for key in ("c", "cu"):
            view = lists[key][i]
            if view is None:  # a class without documents
                out[key].append(None)
                continue
            if pc is None:
                j = 0 if len(groups) == 1 else group_index(groups, counts.classes[c])
                pc, qc = _column(p, j), _column(q, j)
            ids = np.asarray(view[0], dtype=np.intp)
            ids = ids[:_depth(qc[ids], top, alpha, correction)]
            kept = None if alpha is None else passes(qc[ids], alpha, correction)
            out[key].append([significant(pc[ids]), significant(qc[ids], kept)])
            wanted[i].update(ids.tolist())
    return out


def _column(pv, j: int) -> np.ndarray:
    """Column ``j`` of p-values held in the scores' form, NaN where there is no test."""
    x = np.array(pv.table.column(j), dtype=np.float64)
    x[np.isneginf(x)] = np.nan
    return x


def _depth(q: np.ndarray, top: int, alpha: float | None, correction: str) -> int:
    """How many of a list's first terms (their adjusted p-values ``q``, in the list's order)
    get their evidence: ``top``, or with ``alpha`` down to the last one that passes."""
    if alpha is None:
        return top
    kept = np.flatnonzero(passes(q, alpha, correction))
    return max(top, int(kept[-1]) + 1 if len(kept) else 0)


def _log_ratios(counts: Counts, c: int, ids: set, page_id: np.ndarray, rounded):
    """``[ids, log ratio, low, high]`` of the terms ``ids`` in class ``c`` against the
    documents without it (the cells of :func:`textsift.evidence.terms.evidence`)."""
    if not ids:
        return None
    ids = np.array(sorted(ids), dtype=np.intp)
    est, low, high = log_ratio(*counts.tables_at(ids, c), LEVEL)
    return [page_id[ids].tolist(), *(_written(x, rounded) for x in (est, low, high))]


def _written(x: np.ndarray, rounded) -> list:
    """``x`` to 3 digits, NaN (no document without the class: a label on every document)
    as None."""
    values = rounded(x, 3)
    nan = np.isnan(x)
    if not nan.any():
        return values
    return [None if n else v for v, n in zip(values, nan.tolist(), strict=True)]
