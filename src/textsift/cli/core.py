"""``textsift methods`` and ``textsift score`` (what ``score`` reads beyond the counts:
``textsift.cli._score_documents``)."""

from __future__ import annotations

import typer

from .._bounds import POSITIVE
from .._choices import AGGREGATES, CORRECTION, FAMILY
from ..errors import TextsiftError
from . import _catalog
from ._app import app, console, print_note
from ._groups import option_group
from ._output import emit, emit_rows, plain
from ._score_documents import documents_of, permuted, referenced, unlabelled_counts
from ._score_groups import (
    REFERENCE,
    SIGNIFICANCE,
    EvidenceSettings,
    Reference,
    Significance,
    reference_options,
    significance_options,
)
from .options import (
    CorpusOptions,
    Direction,
    FormatOption,
    K,
    Top,
    choices,
    corpus_options,
)

Aggregate = choices("Aggregate", AGGREGATES)
#: How many terms ``score`` prints unless told (without -k).
TOP = 20
#: Up to this many classes ``--per-class`` prints a column per class (table, tsv); beyond, a
#: row per class and position, as csv and json always do.
WIDE = 30


@app.command()
def methods(fmt: FormatOption = None):
    """List the scoring methods, one line each: name (as the other commands take it), kind,
    default policy and what it measures (a table on stdout; JSON gives every field:
    parameters, policies, whether the scores are signed, requirements and the paper).

    Example: textsift methods --format json
    """
    entries = _catalog.methods()
    if fmt == "json":
        emit_rows(["name", *next(iter(entries.values()))],
                  [[name, *m.values()] for name, m in entries.items()], fmt, "")
        return
    emit_rows(["name", "kind", "policy", "summary"],
              [[n, m["kind"], m["default_aggregate"],
                ("provisional: " if m["provisional"] else "") + m["summary"]]
               for n, m in entries.items()], fmt, "textsift methods")


@app.command()
@corpus_options()
@option_group("significance", SIGNIFICANCE, significance_options)
@option_group("reference", REFERENCE, reference_options)
def score(
    corpus: CorpusOptions,
    method: str = typer.Option("chi2", "--method", "-m",
                               help="A method of `textsift methods`, or 'all' (one column each)"),
    aggregate: Aggregate = typer.Option(None, "--aggregate", "-a", show_default=False,
                                        help="How per-class scores make one ranking "
                                             "(default: the method's)"),
    class_label: str = typer.Option(None, "--class", show_default=False,
                                    help="Rank by this class's one-vs-rest scores"),
    per_class: bool = typer.Option(
        False, "--per-class", help="The top terms of every class side by side, one column "
        "per class (per label for label sets), each by its own one-vs-rest scores; csv and "
        "json (and any format beyond 30 classes) give one row per class and position, with "
        "its score"),
    direction: Direction = None,
    significance: Significance = None,
    reference: Reference = None,
    k: K = None,
    top: Top = None,
    fmt: FormatOption = None,
):
    """Rank the terms of a labelled corpus by a scoring method.

    -k selects terms as a selector would keep them: the first k of the ranking (all of them,
    with a note, when k is larger than the vocabulary); the selected terms are printed, and
    stderr says how many were selected. Without -k, the ranking's best --top terms (20) are
    printed and nothing is selected. A class's terms (with --class, and each class's, one
    column per class) are those over-represented in it (--direction both adds the
    under-represented ones, marked); the ranking of all classes is two-sided, as a
    selector's is. The terms go to stdout (a
    table on a terminal, tab-separated values when piped, or CSV or JSON), messages to
    stderr.

    --evidence adds each term's counts, p-value, adjusted p-value and effect sizes (with
    each class's terms, the number of them that pass).

    --reference B compares --class A with class B only, --reference-corpus FILE the corpus
    (or --class A) with another corpus, as keyness is measured in corpus linguistics.

    Example: textsift score reviews.jsonl.gz --label-field rating --method ig -k 30
    """
    from ..labels import check_class, check_requirement
    from ..reading.sources import describe
    from ..scores import get_method

    agg = aggregate.value if aggregate else None
    from ..selection.ranking import shown_direction

    view = shown_direction(direction.value if direction else None, class_label, per_class)
    _check_score(significance)
    ev = significance.evidence_settings()
    m = None if method == "all" else get_method(method)  # before counting: fails at once
    unlabelled = reference.corpus is not None and class_label is None
    wants_docs = ev is not None and m is not None and not per_class
    # the dispersion and the permutations read the documents: the memory engine keeps the
    # matrix it counted for them
    documents = [] if ev is not None and (wants_docs or ev.permutations is not None) and (
        corpus.engine == "memory") and not unlabelled else None
    if unlabelled:  # the whole corpus is the target: its labels are not read
        counts = unlabelled_counts(corpus)
    else:
        counts = corpus.count(ranks=m is not None and "ranks" in m.requires,  # CSV 04: 4
                              documents=documents)
    source = describe(corpus.source)
    if m is not None and not unlabelled:
        check_requirement(m.requires, counts, m.name, source)  # the message names the corpus
    if class_label is not None:
        check_class(counts, class_label, source)
    docs = None
    if wants_docs:
        docs = documents_of(corpus, counts, ranks="ranks" in m.requires, labels=not unlabelled,
                          matrix=documents)
    if reference:
        counts, class_label, docs = referenced(corpus, counts, m, class_label, reference,
                                                docs)
    if m is None:
        _all_methods(counts, agg, class_label, top, fmt, view)
    elif per_class:
        _per_class(counts, m, top or TOP, fmt, view, ev, significance.params)
    elif ev is not None:
        _ranked(counts, m, agg, class_label, k, top, fmt, view, ev, significance.params,
                permuted(ev, m, corpus, counts, documents), docs)
    elif significance.alpha is not None and ev is None:
        by_significance(counts, m, class_label, significance.alpha, significance.correction,
                        significance.family, view, top, fmt, significance.params)
    else:
        _ranked(counts, m, agg, class_label, k, top, fmt, view, ev, significance.params)


def _check_score(significance: Significance) -> None:
    """Refuse ``score``'s option values that cannot be (the options that do not apply to
    the view asked are refused before, by their declarations: :mod:`._applies`)."""
    if significance.permutations is not None and significance.permutations not in POSITIVE:
        raise TextsiftError(f"--permutations must be at least 1 (999 is usual), got "
                            f"{significance.permutations}")
    if significance.bootstrap is not None and significance.bootstrap < 1:
        raise TextsiftError(f"--bootstrap must be at least 1 (999 is usual), got "
                            f"{significance.bootstrap}")
    if significance.min_range is not None and significance.min_range < 1:
        raise TextsiftError(f"--min-range must be a number of documents >= 1, got "
                            f"{significance.min_range}")


def _all_methods(counts, agg, class_label, top, fmt, view: str) -> None:
    """Every method's score of every term (``--top``: of the terms in some method's best
    ``top``), a column each; on a terminal, the best 20 unless told, and a note says how many
    of the terms are shown. The signed methods are left out of ``sum`` and ``wavg`` (unless
    ``view`` keeps one direction), said."""
    import sys

    from ..scores import SIGNED_POLICIES, policy_refusal
    from ..selection.ranking import score_all

    if top is None and fmt in (None, "table") and sys.stdout.isatty():
        top = TOP
    frame = score_all(counts, agg, class_label, top, view)
    if agg in SIGNED_POLICIES and class_label is None and view == "both":
        print_note(f"left out: {policy_refusal(agg)}")
    if top is not None:
        print_note(f"{len(frame):,} of {counts.n_terms:,} terms: those in some method's best "
                   f"{top:,} (--top); without --top a pipe or a file gets every term")
    emit(frame, fmt, "all methods")


def by_significance(counts, m, class_label, alpha: float, correction: str | None,
                    family: str | None, direction: str, top, fmt, params=None) -> None:
    """``--alpha`` without ``-k``: the terms whose p-value adjusted by ``correction``
    (default bh) over ``family`` (default class) passes alpha, as a selector keeps them
    (:func:`textsift.evidence.significant.significant_terms`; ``class_label``: that class's column
    of a per-class test). ``score --alpha`` and ``ordinal --alpha``."""
    import pandas as pd

    from ..evidence.significant import rule, significant_terms
    from ..scores import with_pvalues

    if m.pvalue is None:
        raise TextsiftError(f"--alpha selects by p-value, and {m.name} has none (it is not a "
                            f"statistical test); choose a test ({', '.join(with_pvalues())}), "
                            "or -k, or --evidence --permutations N for its p-values")
    corr, fam = correction or CORRECTION, family or FAMILY
    order, _ = significant_terms(counts, m, alpha, corr, fam, direction,
                                 class_label=class_label, **(params or {}))
    console.print(f"{_label(m, params)}: {len(order):,} terms selected of "
                  f"{counts.n_terms:,} ({corr} q {rule(corr)} {alpha:g})", highlight=False)
    if not len(order):
        print_note(f"no term passes alpha {alpha:g} after the {corr} correction; raise "
                   "--alpha, choose a milder correction, or rank with -k")
    shown = list(order)[: top or len(order)]
    names = counts.feature_names
    emit(pd.DataFrame({"position": range(1, len(shown) + 1),
                       "term": [names[t] for t in shown]}), fmt,
         f"{_label(m, params)}: terms with q passing {alpha:g} ({corr})")


def _label(m, params) -> str:
    """The method's name in titles, with Yates' correction when asked (``--yates``)."""
    return m.label + (" with Yates' correction" if (params or {}).get("yates") else "")


def _no_pvalue(m, frame) -> None:
    """The warning of ``--evidence`` for a method without a p-value, saying what ``frame``
    (the evidence) shows: the class's counts and effect sizes where the ranking is a
    class's, else (one score per term: ``var``, the ordinal methods) each term's df alone."""
    import warnings

    from ..errors import DataWarning
    from ..scores import with_pvalues

    if "log_ratio" in frame.columns:
        shows = "its counts and effect sizes"
    elif "A" in frame.columns:
        shows = "its counts"
    else:
        shows = (f"each term's df alone ({m.name} has one score per term, with no class whose "
                 "counts and effect sizes it could show)")
    warnings.warn(f"{m.name} has no p-value (it is not a statistical test): --evidence shows "
                  f"{shows}; for p-values rank by a method that is a test "
                  f"({', '.join(with_pvalues())}), or add --permutations N for {m.name}'s by "
                  "permutations", DataWarning, stacklevel=2)


def _ranked(counts, m, agg, class_label, k, top, fmt, direction,
            ev: EvidenceSettings | None = None, params=None, permuted=None,
            docs=None) -> None:
    """The ranking's best ``top`` terms, or the ``k`` selected (at most ``top`` printed);
    ``params`` go to the method (``--yates``), ``permuted`` is ``--permutations``' test and
    ``docs`` the documents of the dispersion and the document-level tests."""
    import numpy as np

    from ..selection.policies import resolve_k, size_note
    from ..selection.ranking import rank

    n = None if k is None else resolve_k(counts.n_terms, int(counts.seen.sum()), k)
    shown = top or TOP if n is None else min(n, top or n)
    min_range = ev.min_range if ev is not None else None
    ranked = rank(counts, m, aggregate=agg or m.default_aggregate, class_label=class_label,
                  top=None if min_range else shown, direction=direction, **(params or {}))
    if min_range:
        from ..evidence.terms import keep_range

        ranked = keep_range(counts, ranked, m, min_range)
        ranked = ranked.head(int((ranked.scores > -np.inf).sum())).head(shown)
    if n is None and class_label is not None:  # a class's terms: none of the other direction
        ranked = ranked.head(int((ranked.scores > -np.inf).sum()))
    if n is not None:
        note = size_note(k, counts.n_terms, "-k")
        if note:
            print_note(note)
        console.print(f"{_label(m, params)}: {n:,} terms selected of {counts.n_terms:,}",
                      highlight=False)
    title = f"{_label(m, params)} ({'class ' + class_label if class_label else ranked.policy}" + (
        f", {direction}-represented)" if direction != "both" else ")")
    if ev is None:
        emit(ranked.to_frame(), fmt, title)
        return
    from ..evidence.terms import evidence

    frame = evidence(counts, ranked, m, ev.correction, ev.family, ev.level,
                     permuted=permuted, documents=docs,
                     bootstrap=ev.bootstrap if docs is not None else 0,
                     random_state=ev.seed, **(params or {}))
    if m.pvalue is None and ev.permutations is None:
        _no_pvalue(m, frame)
    emit(frame, fmt, title + f"; q: {ev.correction} over each "
         + ("class's terms" if ev.family == "class" else "term and class")
         + f"; intervals at {ev.level:g}")


def _per_class(counts, m, top: int, fmt, direction: str, ev=None, params=None) -> None:
    """Each class's best ``top`` terms: a column per class (table, tsv, up to :data:`WIDE`
    classes), or a row per class and position with the score (csv, json, and any format beyond
    :data:`WIDE` classes: tags, headings); with both directions, each term marked (``+``
    over-, ``-`` under-represented; a ``direction`` column in csv and json)."""
    from .._choices import EXPLORE_MANY
    from ..counting._tables import check_many_labels
    from ..report.explore_data import MANY_FIX
    from ..selection.ranking import direction_words, rank_per_class

    if ev is not None and counts.n_classes > EXPLORE_MANY:  # before the work
        check_many_labels(counts, "score --per-class --evidence", MANY_FIX)
    params = params or {}
    rankings = rank_per_class(counts, m, top=top, direction=direction, **params)
    marked = direction == "both" and all(r.signs is not None for r in rankings)
    if ev is not None and m.pvalue is not None:
        _per_class_evidence(counts, m, rankings, fmt, direction, ev, params)
        return
    if fmt in ("csv", "json", "parquet") or len(rankings) > WIDE:
        extra = ["direction"] if marked else []
        emit_rows(["class", "position", "term", "score", *extra],
                  [(plain(r.class_label), i + 1, t, s, *([d] if marked else []))
                   for r in rankings
                   for i, (t, s, d) in enumerate(zip(
                       r.terms, r.scores, direction_words(r.signs) if marked else r.terms,
                       strict=True))], fmt, "")
        return
    depth = max((len(r) for r in rankings), default=0)
    columns = [r.terms if not marked else
               [f"{t} {'+' if s > 0 else '-' if s < 0 else ''}".rstrip()
                for t, s in zip(r.terms, r.signs, strict=True)] for r in rankings]
    emit_rows(["position", *(str(plain(r.class_label)) for r in rankings)],
              [(i + 1, *(c[i] if i < len(c) else None for c in columns))
               for i in range(depth)], fmt, f"top terms of every class by {_label(m, params)}"
              + {"over": " (over-represented)", "under": " (under-represented)",
                 "both": " (+ over-, - under-represented)"}[direction])


def _per_class_evidence(counts, m, rankings, fmt, direction: str, ev, params) -> None:
    """Each class's top terms with their p and q (a row per class and position), and each
    class's number of terms whose q passes alpha (``q <= alpha`` after bh or by, ``q < alpha``
    otherwise: :func:`textsift.evidence.significant.passes`; a last row of the table; a column of
    csv and json)."""
    import numpy as np

    from ..evidence.significant import significant_counts
    from ..labels import group_index
    from ..scores import pvalues

    p = pvalues(counts, m, **params)
    adjusted = p.adjusted(ev.correction, ev.family, dense=False)
    groups = [str(g) for g in p.groups]
    passing = significant_counts(counts, m, ev.alpha, ev.correction, ev.family,
                                 direction, adjusted=adjusted, **params)
    head = str(passing.name)
    if fmt in ("csv", "json", "parquet"):
        # the shown cells alone: the (V, m) tables of p and q are never written (ml100k's
        # would be 56.5 GiB each)
        column = [group_index(groups, r.class_label) if len(groups) > 1 else 0
                  for r in rankings]
        terms = np.concatenate([np.asarray(r.index, dtype=np.intp) for r in rankings] or
                               [np.empty(0, np.intp)])
        cols = np.repeat(column, [len(r.index) for r in rankings]).astype(np.intp)
        ps, qs = p.at(terms, cols), adjusted.at(terms, cols)
        rows, at = [], 0
        for r, j in zip(rankings, column, strict=True):
            for i, (t, s) in enumerate(zip(r.terms, r.scores, strict=True)):
                rows.append((plain(r.class_label), i + 1, t, s, ps[at], qs[at],
                             int(passing.iloc[j])))
                at += 1
        emit_rows(["class", "position", "term", "score", "p", "q", f"terms with {head}"],
                  rows, fmt, "")
        return
    depth = max((len(r) for r in rankings), default=0)
    columns = [r.terms for r in rankings]
    rows = [(i + 1, *(c[i] if i < len(c) else None for c in columns)) for i in range(depth)]
    rows.append((f"terms with {head}",
                 *(int(passing.iloc[group_index(groups, r.class_label)]) if len(groups) > 1
                   else int(passing.iloc[0]) for r in rankings)))
    emit_rows(["position", *(str(plain(r.class_label)) for r in rankings)], rows, fmt,
              f"top terms of every class by {_label(m, params)}; {head} ({ev.correction})")
