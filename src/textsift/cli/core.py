"""``textsift methods`` and ``textsift score``."""

from __future__ import annotations

import typer

from .._choices import AGGREGATES
from ..errors import TextsiftError
from . import _catalog
from ._app import app, console, emit, emit_rows, plain, print_note
from .options import CorpusOptions, FormatOption, K, Top, choices, corpus_options

Aggregate = choices("Aggregate", AGGREGATES)
#: How many terms ``score`` prints unless told (without -k).
TOP = 20


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
        "json give one row per class and rank, with its score"),
    k: K = None,
    top: Top = None,
    fmt: FormatOption = None,
):
    """Rank the terms of a labelled corpus by a scoring method.

    -k selects terms as a selector would keep them: the first k of the ranking (all of them,
    with a note, when k is larger than the vocabulary); the selected terms are printed, and
    stderr says how many were selected. Without -k, the ranking's best --top terms (20) are
    printed and nothing is selected. The terms go to stdout (a table on a terminal,
    tab-separated values when piped, or CSV or JSON), messages to stderr.

    Example: textsift score reviews.jsonl.gz --label-field rating --method ig -k 30
    """
    from ..labels import check_class, check_requirement
    from ..scores import get_method
    from ..sources import describe

    agg = aggregate.value if aggregate else None
    if method == "all" and agg == "rr":
        raise TextsiftError("--method all prints a score per method; the round robin gives an "
                            "order, not a score: use --aggregate max, sum or wavg")
    if k is not None and (method == "all" or per_class):
        what = ("--method all prints every method" if method == "all" else
                "--per-class prints one ranking per class")
        raise TextsiftError(f"-k selects the terms of one ranking; {what}: drop -k, and give "
                            "--top to print more terms")
    if per_class and (class_label is not None or agg is not None or method == "all"):
        raise TextsiftError("--per-class ranks every class by its own scores: drop --class, "
                            "--aggregate and --method all")
    m = None if method == "all" else get_method(method)  # before counting: fails at once
    counts = corpus.count(ranks=m is not None and "ranks" in m.requires)  # CSV's 04: rank 4
    source = describe(corpus.source)
    if m is not None:
        check_requirement(m.requires, counts, m.name, source)  # the message names the corpus
    if class_label is not None:
        check_class(counts, class_label, source)
    if m is None:
        _all_methods(counts, agg, class_label, top, fmt)
    elif per_class:
        _per_class(counts, m, top or TOP, fmt)
    else:
        _ranked(counts, m, agg, class_label, k, top, fmt)


def _all_methods(counts, agg, class_label, top, fmt) -> None:
    """Every method's score of every term (``--top``: of the terms in some method's best
    ``top``), a column each; on a terminal, the best 20 unless told, and a note says how many
    of the terms are shown. The signed methods are left out of ``sum`` and ``wavg``, said."""
    import sys

    from ..ranking import score_all
    from ..scores import SIGNED_POLICIES, policy_refusal

    if top is None and fmt in (None, "table") and sys.stdout.isatty():
        top = TOP
    frame = score_all(counts, agg, class_label, top)
    if agg in SIGNED_POLICIES and class_label is None:
        print_note(f"left out: {policy_refusal(agg)}")
    if top is not None:
        print_note(f"{len(frame):,} of {counts.n_terms:,} terms: those in some method's best "
                   f"{top:,} (--top); without --top a pipe or a file gets every term")
    emit(frame, fmt, "all methods")


def _ranked(counts, m, agg, class_label, k, top, fmt) -> None:
    """The ranking's best ``top`` terms, or the ``k`` selected (at most ``top`` printed)."""
    from ..policies import resolve_k, size_note
    from ..ranking import rank

    n = None if k is None else resolve_k(counts.n_terms, int(counts.seen.sum()), k)
    shown = top or TOP if n is None else min(n, top or n)
    ranked = rank(counts, m, aggregate=agg or m.default_aggregate, class_label=class_label,
                  top=shown)
    if n is not None:
        note = size_note(k, counts.n_terms, "-k")
        if note:
            print_note(note)
        console.print(f"{m.label}: {n:,} terms selected of {counts.n_terms:,}", highlight=False)
    title = f"{m.label} ({'class ' + class_label if class_label else ranked.policy})"
    emit(ranked.to_frame(), fmt, title)


def _per_class(counts, m, top: int, fmt) -> None:
    """Each class's best ``top`` terms: a column per class (table, tsv), or a row per class
    and rank with the score (csv, json)."""
    from ..ranking import rank_per_class

    rankings = rank_per_class(counts, m, top=top)
    if fmt in ("csv", "json"):
        emit_rows(["class", "rank", "term", "score"],
                  [(plain(r.class_label), i + 1, t, s) for r in rankings
                   for i, (t, s) in enumerate(zip(r.terms, r.scores, strict=True))], fmt, "")
        return
    depth = max((len(r) for r in rankings), default=0)
    columns = [r.terms for r in rankings]
    emit_rows(["rank", *(str(plain(r.class_label)) for r in rankings)],
              [(i + 1, *(c[i] if i < len(c) else None for c in columns))
               for i in range(depth)], fmt, f"top terms of every class by {m.label}")
