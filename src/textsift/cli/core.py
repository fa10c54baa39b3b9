"""``textsift methods`` and ``textsift score``."""

from __future__ import annotations

import typer
from rich.table import Table

from ..labels import check_class, check_requirement, method_requires
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
    if method != "all":
        get_method(method)
    counts = corpus.count()
    source = describe(corpus.source)
    if method != "all":
        check_requirement(method_requires(get_method(method)), counts, method, source)
    if class_label is not None:
        check_class(counts, class_label, source)
    agg = aggregate.value if aggregate else None
    if method == "all":
        emit(score_all(counts, agg, class_label, top), fmt, "all methods")
        return
    ranked = rank(counts, method, aggregate=agg, class_label=class_label, top=top)
    used = agg or get_method(method).default_aggregate
    extra = ("group",) if used == "rr" and class_label is None else ()
    cols = ["rank", "term", "score", *extra]
    title = f"{get_method(method).label} ({'class ' + class_label if class_label else used})"
    emit(ranked[cols], fmt, title)
