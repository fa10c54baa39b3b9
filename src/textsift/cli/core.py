"""``textsift methods`` and ``textsift score``."""

from __future__ import annotations

import typer
from rich.table import Table

from ..errors import TextsiftError
from ..labels import check_class, check_requirement
from ..policies import AGGREGATES
from ..scores import REGISTRY, get_method
from ..selectors import rank, score_all
from ..sources import describe
from ._app import Format, app, emit, stdout_console
from .options import CorpusOptions, Top, choices, corpus_options

Aggregate = choices("Aggregate", AGGREGATES)


@app.command()
def methods():
    """List the scoring methods, one line each (a table on stdout).

    Example: textsift methods
    """
    table = Table(title="textsift methods", show_lines=False)
    for col in ("name", "kind", "default policy", "what it measures"):
        table.add_column(col)
    for name in sorted(REGISTRY):
        m = REGISTRY[name]
        table.add_row(m.label, m.kind, m.default_aggregate, m.summary)
    stdout_console().print(table)


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
    top: Top = 20,
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="How to print the terms"),
):
    """Rank the terms of a labelled corpus by a scoring method.

    The ranked terms go to stdout (a table, CSV or JSON), messages to stderr.

    Example: textsift score reviews.jsonl.gz --label-field rating --method ig --top 30
    """
    agg = aggregate.value if aggregate else None
    if method == "all" and agg == "rr":
        raise TextsiftError("--method all prints a score per method; the round robin gives an "
                            "order, not a score: use --aggregate max, sum or wavg")
    m = None if method == "all" else get_method(method)  # before counting: fails at once
    counts = corpus.count()
    source = describe(corpus.source)
    if m is not None:
        check_requirement(m.requires, counts, m.name, source)  # the message names the corpus
    if class_label is not None:
        check_class(counts, class_label, source)
    if m is None:
        emit(score_all(counts, agg, class_label, top), fmt, "all methods")
        return
    ranked = rank(counts, m, aggregate=agg or m.default_aggregate, class_label=class_label,
                  top=top)
    title = f"{m.label} ({'class ' + class_label if class_label else ranked.policy})"
    emit(ranked.to_frame(), fmt, title)
