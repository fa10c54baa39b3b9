"""What the explore page embeds: the rankings, the terms' counts and their snippets, as one
JSON-ready dict (:func:`explore_data`), computed from :class:`~textsift.counting.counts.Counts`.

For every method the page offers (every nominal method that applies to the labels; the
ordinal ones too when the labels are integer ratings) it keeps the top ``cap`` terms of each
*view*: each class's one-vs-rest column (for the ordinal RR methods, each rank's list; a
single-column method has one list) and each globalisation policy the method allows
(:func:`textsift.selection.ranking.ranking_of`, the ranking ``textsift score`` prints). Only the
terms of some view are embedded, with their document counts per class and in all (their
``df``: with label sets, a label is a class and "the rest" the documents without it, so the
rest's counts are ``df - A`` and ``N - N_c``); for ratings also the statistics behind Var,
Var*IDF and NC (:func:`textsift.scores.ordinal.rank_stats`). Snippets are kept for the top
``snippet_top`` terms of each view (:mod:`.snippets`). For the methods with a p-value, the
first terms of each class's lists have their p, q and log ratio with its interval, as
``textsift score --evidence`` gives them (:mod:`.explore_evidence`; ``correction`` and
``family`` choose q, and ``alpha`` the page's first filter of a class's terms, as ``textsift
score --alpha`` selects them); with the documents, those terms' dispersion in the class and
in the rest too (range, DP, DPnorm, CV: :mod:`.explore_dispersion`, the documents counted as
the snippets read them).

Size: ``cap`` bounds the rankings (two numbers per entry, about ``n_methods x (n_classes + 4)
x cap`` entries), ``snippet_top`` the snippets; docs/explore.md gives the page sizes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial

import numpy as np

from .._choices import EXPLORE_CAP, EXPLORE_SNIPPET_TOP
from ..counting._tables import check_many_labels
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import LabelKind, check_requirement
from ..labels.ranks import check_ranks
from ..scores import REGISTRY, compute_many
from ..scores.direction import direction
from ..scores.ordinal import idf, nc_at_best, rank_stats
from ..selection.ranking import ranking_of
from ..text.vectorize import VectorizerOptions
from .explore_dispersion import Tally, class_dispersion
from .explore_evidence import (
    CORRECTION,
    EVIDENCE_TOP,
    FAMILY,
    class_evidence,
    label_evidence,
    shard_evidence,
)
from .explore_labels import LABEL_CAP, MANY, SHARD, class_lists, shards
from .snippets import find_snippets

__all__ = ["CAP", "SNIPPETS", "SNIPPET_TOP", "explore_data", "is_rating_scale", "page_methods",
           "page_parts"]

#: Terms kept per method and view (class, rank or policy), and terms per view whose snippets
#: are embedded (in the light module the command line reads at start-up).
CAP, SNIPPET_TOP = EXPLORE_CAP, EXPLORE_SNIPPET_TOP
#: What to do when the views of many labels do not fit in memory.
MANY_FIX = ("raise --min-df (min_df; fewer terms: fewer cells and document frequencies), keep "
            "fewer labels in the data (those with more documents), or run on a machine with "
            "more memory")
#: Snippets shown per term: half from the chosen class, half from the rest.
SNIPPETS = 20


def is_rating_scale(classes) -> bool:
    """Integer labels (1-5 stars, 1-10 ratings): the ordinal methods apply."""
    try:
        check_ranks(np.asarray(classes))
    except ValueError:
        return False
    return True


def page_methods(counts: Counts, methods=None) -> list[str]:
    """The methods of the page: ``methods`` (checked), or every nominal method that applies
    to the labels (not ``ig_multi`` for label sets) and, for integer ratings, every ordinal
    one."""
    ratings = is_rating_scale(counts.classes)
    if methods is None:
        kind = LabelKind.of(counts.multilabel, ranks=ratings)
        return sorted(n for n, m in REGISTRY.items() if kind.serves(m))
    methods = list(dict.fromkeys(methods))
    for name in methods:
        if name not in REGISTRY:
            raise TextsiftError(f"unknown method {name!r}; `textsift methods` lists them")
        check_requirement(REGISTRY[name].requires, counts, name)
        if REGISTRY[name].kind.ranks and not ratings:
            raise TextsiftError(f"{name} is an ordinal method: it needs integer ratings as "
                                "labels (e.g. --label-field rating)")
    if not methods:
        raise TextsiftError("no methods to show; name at least one")
    return methods


def _views(counts: Counts, name: str, table, cap: int, signs, per_class: bool = True) -> dict:
    """``{"c": [per class: (ids, scores) or None], "cu": [the same, under-represented
    terms], "cd": [per class: "+-+..." or None], "p": {policy: (ids, scores)}}``. A class's
    lists hold the terms over-represented in it (``c``, the page's default) and those
    under-represented (``cu``), each by its score; ``cd`` says, for the class's two-sided
    ranking, which list its next term comes from, so that the page shows both directions
    in the order ``textsift score --direction both`` prints them, exactly (a term whose
    share is the same in and out of the class has neither direction, and is in no class's
    list). Without ``per_class`` (many labels: :mod:`.explore_labels`), only the
    policies."""
    out: dict = {"p": {}}
    if len(table.groups) > 1:
        if per_class:
            lists = class_lists(counts, table, range(counts.n_classes), cap, signs)
            if any(v is not None for v in lists["c"]):
                out.update(lists)
        for agg in REGISTRY[name].aggregates:
            r = ranking_of(table, agg, limit=cap)
            out["p"][agg] = (r.index, r.scores)
    else:
        r = ranking_of(table, "max", limit=cap)
        out["p"]["max"] = (r.index, r.scores)
    return out


def _lists(views: dict) -> Iterable[tuple[np.ndarray, np.ndarray]]:
    yield from (v for v in views.get("c", ()) if v is not None)
    yield from (v for v in views.get("cu", ()) if v is not None)
    yield from views["p"].values()


def rounded(x: np.ndarray, digits: int = 4) -> list:
    """Scores to ``digits`` significant digits for JSON; +/-inf as "inf" / "-inf"."""
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x) & (x != 0)
    mag = np.zeros_like(x)
    mag[finite] = np.floor(np.log10(np.abs(x[finite])))
    scale = 10.0 ** (digits - 1 - mag)
    r = np.where(finite, np.round(x * scale) / scale, x)
    return [v if math.isfinite(v) else ("inf" if v > 0 else "-inf")
            for v in r.tolist()]


def _quota(counts: Counts, views: dict, sel: np.ndarray, top: int, per: int) -> np.ndarray:
    """Snippets wanted per (embedded term, class): ``per`` in each class where the term is
    in the top ``top`` of some view of that class (a policy list counts for the class where
    the term is most frequent), and ``per`` spread as evenly as the documents allow over the
    other classes, for "the rest"; never more than the documents there are."""
    pos = {int(t): i for i, t in enumerate(sel)}
    keen = np.zeros((len(sel), counts.n_classes), dtype=bool)
    docs = counts.doc_counts  # a few classes: dense, whatever the layout
    docs = docs.toarray() if hasattr(docs, "toarray") else docs
    rate = docs / np.maximum(counts.class_sizes, 1)[None, :]
    for v in views.values():
        for c, view in enumerate(v.get("c", [])):
            if view is not None:
                keen[[pos[int(t)] for t in view[0][:top]], c] = True
        for ids, _ in v["p"].values():
            head = ids[:top]
            keen[[pos[int(t)] for t in head], np.argmax(rate[head], axis=1)] = True
    avail = docs[sel]
    quota = np.where(keen, np.minimum(avail, per), 0)
    for row in np.flatnonzero(keen.any(axis=1)):
        rest = ~keen[row]
        quota[row, rest] = spread(avail[row, rest], per)
    return quota


def spread(avail: np.ndarray, total: int) -> np.ndarray:
    """Integer shares ``q <= avail`` as even as possible (water-filling; leftover units go
    to the first classes), summing to ``min(total, avail.sum())``.

    >>> spread(np.array([1, 5, 0, 9]), 10).tolist()
    [1, 5, 0, 4]
    """
    q = np.zeros_like(avail)
    left = min(int(total), int(avail.sum()))
    while left > 0:
        room = np.flatnonzero(q < avail)
        step = left // len(room)
        if step == 0:
            q[room[:left]] += 1
            break
        add = np.minimum(avail[room] - q[room], step)
        q[room] += add
        left -= int(add.sum())
    return q


def explore_data(counts: Counts, documents: Iterable[tuple[str, object]] | None = None, *,
                 opts: VectorizerOptions | None = None, methods=None, method=None, k: int = 50,
                 top: int = 20, cap: int = CAP, snippet_top: int = SNIPPET_TOP,
                 title: str = "textsift explore", alpha: float | None = None,
                 correction: str = CORRECTION, family: str = FAMILY, progress=None) -> dict:
    """The page's data (see the module docstring). ``documents`` -- ``(text, label)`` pairs,
    the training documents the counts were taken from, read once -- give the snippets
    (none without them); ``opts`` must be the options the counts were vectorized with.
    ``method`` is the one shown first (default chi2, when offered); ``progress`` is called
    with a short message as each stage starts. ``alpha`` (a significance level), with
    ``correction`` over ``family``: a class's ranking by a method with p-values starts with
    the terms whose q passes it (:mod:`.explore_evidence`). With more than
    :data:`~.explore_labels.MANY` labels, each label's own data is not part of it
    (:func:`page_parts` gives the shards that hold it), the methods default to ``method``
    alone, and there are no snippets."""
    return page_parts(counts, documents, opts=opts, methods=methods, method=method, k=k,
                      top=top, cap=cap, snippet_top=snippet_top, title=title, alpha=alpha,
                      correction=correction, family=family, progress=progress)[0]


def page_parts(counts: Counts, documents=None, *, opts=None, methods=None, method=None,
               k: int = 50, top: int = 20, cap: int = CAP, snippet_top: int = SNIPPET_TOP,
               title: str = "textsift explore", alpha: float | None = None,
               correction: str = CORRECTION, family: str = FAMILY, progress=None):
    """``(data, shards)``: :func:`explore_data`'s data, and with many labels the
    ``(number, payload)`` of each shard of the labels' own data
    (:func:`.explore_labels.shards`; ``None`` otherwise)."""
    say = progress or (lambda what: None)
    _check(counts, cap=cap, k=k, top=top, snippet_top=snippet_top)
    significance = _significance(alpha, correction, family)
    many = counts.n_classes > MANY
    cap = min(cap, int(counts.seen.sum()))
    if many and methods is None:  # one method's lists for every label, unless asked
        methods = [method or "chi2"]
    names = page_methods(counts, methods)
    if method is None:
        method = "chi2" if "chi2" in names else names[0]
    elif method not in names:
        raise TextsiftError(f"method {method!r} is not among the page's methods {names}")
    if many:  # before the work: refused with the bound, where the kernel killed it
        check_many_labels(counts, "the explore page", MANY_FIX)
    say("ranking the terms")
    tables, views = {}, {}
    signs = direction(counts)  # each class's lists, by direction
    for name, table in compute_many(counts, names, dense=False):  # one evaluation set
        try:
            tables[name] = table
            views[name] = _views(counts, name, table, cap, signs, per_class=not many)
        except ValueError as exc:  # a method that cannot score these labels
            raise TextsiftError(f"{name}: {exc}") from None
    sel = np.unique(np.concatenate([ids for v in views.values() for ids, _ in _lists(v)]))
    per_class = {n for n in names  # one-vs-rest scores of each class (not ranks' cuts)
                 if REGISTRY[n].kind == "nominal" and len(tables[n].groups) > 1}
    data = _data(counts, views, sel, names, method, title, cap=cap, k=k, top=top,
                 snippet_top=snippet_top, many=many, per_class=per_class,
                 significance=significance)
    if documents is not None and not many:
        say("finding the terms in context")
        tally = Tally(documents, counts, sel, opts) if data.get("evidence") and (
            counts.feature_names is not None) else None
        data["snippets"] = _snippets(counts, views, sel, documents if tally is None else tally,
                                     opts, snippet_top, np.asarray(data["terms"], dtype=object))
        read = tally.documents() if tally is not None else None
        if read is not None:  # each class's evidence terms' dispersion
            data["evidence"]["disp"] = class_dispersion(read, data["evidence"]["lr"], rounded)
    if not many:
        return data, None
    label_cap = min(LABEL_CAP, cap)
    data["many"] = {"shard": SHARD, "label_cap": label_cap, "folder": None}
    data["evidence"], tests = label_evidence(counts, names, per_class, label_cap,
                                             **significance)
    evidence = partial(shard_evidence, counts, tests, label_cap, significance["alpha"],
                       significance["correction"], rounded) if tests else None
    return data, shards(counts, tables, signs, sel, label_cap, rounded, evidence)


def _check(counts: Counts, **sizes) -> None:
    if not isinstance(counts, Counts):
        raise TextsiftError("expected textsift.counting.counts.Counts, got "
                            f"{type(counts).__name__}")
    if counts.n_terms == 0 or not counts.seen.any():
        raise TextsiftError("the vocabulary is empty: no term to show; lower --min-df, raise "
                            "--max-df or check the text field")
    if (counts.class_sizes > 0).sum() < (1 if counts.multilabel else 2):
        raise TextsiftError(
            f"explore compares a class with the rest: it needs at least two classes with "
            f"documents (a label with documents, for label sets), got "
            f"{[str(c) for c in counts.classes[counts.class_sizes > 0]]}; check --label-field")
    for name, value in sizes.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise TextsiftError(f"{name} must be a positive number of terms, got {value!r}")


def _significance(alpha, correction, family) -> dict:
    """The evidence's ``alpha``, ``correction`` and ``family``, checked."""
    from ..evidence.corrections import check_alpha, check_correction, check_family

    return {"alpha": None if alpha is None else check_alpha(alpha),
            "correction": check_correction(correction), "family": check_family(family)}


def _data(counts: Counts, views: dict, sel: np.ndarray, names, method, title, *, cap, k, top,
          snippet_top, many: bool, per_class: set, significance: dict) -> dict:
    """The page's data of the embedded terms ``sel`` (module docstring); ``per_class``: the
    methods with a ranking of each class (in the page, or in the shards of many labels);
    ``significance``: the evidence's alpha, correction and family."""
    page_id = np.full(counts.n_terms, -1, dtype=np.int64)
    page_id[sel] = np.arange(len(sel))
    terms = counts.feature_names[sel] if counts.feature_names is not None else sel.astype(str)
    ratings = is_rating_scale(counts.classes)
    nz_t, nz_c, n = (np.zeros(0, np.int64),) * 3
    if not many:  # each term's count in every class (many labels: in each shard)
        dc = counts.select_terms(sel).presence_table()
        nz_t, nz_c = np.nonzero(dc)
        n = dc[nz_t, nz_c]
    data = {
        "title": title, "n_docs": counts.n_docs, "ratings": ratings,
        "classes": [_label(c) for c in counts.classes],
        "class_sizes": counts.class_sizes.tolist(), "multilabel": counts.multilabel,
        "df": counts.df[sel].tolist(),
        "method": method, "cap": cap, "k": min(k, cap), "top": top, "snippet_top": snippet_top,
        "terms": [str(t) for t in terms],
        "counts": {"ptr": np.r_[0, np.cumsum(np.bincount(nz_t, minlength=len(sel)))].tolist(),
                   "cls": nz_c.tolist(), "n": np.asarray(n).tolist()},
        "methods": [{"name": m, "kind": REGISTRY[m].kind, "summary": REGISTRY[m].summary,
                     "label": REGISTRY[m].label, "default": REGISTRY[m].default_aggregate,
                     "per_class": m in per_class,
                     "policies": list(views[m]["p"])}
                    for m in names],
        "views": {m: _encode(v, page_id) for m, v in views.items()},
        "snippets": {},
    }
    if not many:  # p, q and the log ratio of each class's first terms
        data["evidence"] = class_evidence(counts, views, page_id, min(cap, EVIDENCE_TOP),
                                          rounded, **significance)
    if ratings:
        data["rank_stats"] = _rank_numbers(counts, sel)
    return data


def _snippets(counts: Counts, views: dict, sel: np.ndarray, documents, opts, snippet_top: int,
              terms: np.ndarray) -> dict:
    """The embedded snippets: per term and class, the quota of :func:`_quota`."""
    quota = _quota(counts, views, sel, snippet_top, SNIPPETS // 2)
    rows = np.flatnonzero(quota.sum(axis=1))
    index = {_label(c): i for i, c in enumerate(counts.classes)}
    found = find_snippets(documents, terms[rows], index, quota[rows], opts)
    return {str(int(r)): [[c, s] for c, s in enumerate(per) if s]
            for r, per in zip(rows, found, strict=True) if any(per)}


def _encode(views: dict, page_id: np.ndarray) -> dict:
    def pair(view):
        return None if view is None else [page_id[view[0]].tolist(), rounded(view[1])]

    out = {"p": {agg: pair(v) for agg, v in views["p"].items()}}
    for key in ("c", "cu"):
        if key in views:
            out[key] = [pair(v) for v in views[key]]
    if "cd" in views:
        out["cd"] = views["cd"]
    return out


def _rank_numbers(counts: Counts, sel: np.ndarray) -> dict:
    """Mean rank, rank variance, IDF = ln(N/df), and NC(t, R(t)) with its rank R(t), as
    Var, Var*IDF and RR(NC*IDF) compute them (:mod:`textsift.scores.ordinal`); every
    embedded term occurs, so R(t) is always a rank."""
    st = rank_stats(counts.select_terms(sel))
    nc, best = nc_at_best(st)
    return {"mean": rounded(st.mean), "var": rounded(st.var),
            "idf": rounded(idf(st.df, counts.n_docs)), "nc": rounded(nc),
            "nc_rank": [_label(r) for r in st.scale[best]]}


def _label(value):
    value = value.item() if isinstance(value, np.generic) else value
    return int(value) if isinstance(value, float) and value.is_integer() else value
