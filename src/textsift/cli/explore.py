"""``textsift explore``: write the interactive page of :mod:`textsift.report.explore`."""

from __future__ import annotations

from pathlib import Path

import typer

from ..labels import check_one_label_each
from ..report.explore_data import CAP, SNIPPET_TOP
from ..sources import describe
from ._app import app, console, writes_out
from .options import CorpusOptions, corpus_options


@app.command()
@writes_out(folder=False)
@corpus_options()
def explore(
    corpus: CorpusOptions,
    out: Path = typer.Option(..., "--out", "-o", help="The page to write (PAGE.html)",
                             show_default=False),
    method: str = typer.Option(None, "--method", "-m", show_default=False,
                               help="Method shown first (default chi2)"),
    methods: str = typer.Option(None, "--methods", show_default=False,
                                help="Comma-separated methods to offer (default: every nominal "
                                     "one, and the ordinal ones when labels are ratings)"),
    k: int = typer.Option(50, "-k", "--k", help="How many terms the table and the agreement "
                                                 "sets select at first"),
    top: int = typer.Option(20, "--top", help="How many terms to label on the map"),
    cap: int = typer.Option(CAP, "--cap", help="Terms embedded per method and class or policy"),
    snippet_top: int = typer.Option(SNIPPET_TOP, "--snippet-top",
                                    help="Terms per method and view with snippets"),
    title: str = typer.Option(None, "--title", help="Page title (default: the file name)",
                              show_default=False),
):
    """Write one self-contained HTML page to explore which terms matter: a term map per class,
    every method's ranking and their agreement, and the terms in context.

    The page's path goes to stdout, progress to stderr.

    Example: textsift explore reviews.jsonl.gz --label-field rating --out reviews.html
    """
    from ..report.explore import check_out
    from ..report.explore import explore as write_page

    check_out(out)  # before the long work
    names = [m.strip() for m in methods.split(",") if m.strip()] if methods else None
    opts = corpus.vectorizer()
    with console.status("counting the corpus") as status:
        counts = corpus.count()
        check_one_label_each(counts.multilabel, describe(corpus.source), "textsift explore")
        page = write_page(counts, out, corpus.documents(), opts=opts, methods=names,
                          method=method, k=k, top=top, cap=cap, snippet_top=snippet_top,
                          title=title or f"textsift explore: {corpus.name}",
                          progress=status.update)
    console.print(f"{counts.n_docs:,} documents, {counts.n_classes} classes; page of "
                  f"{page.stat().st_size / 1e6:.1f} MB", highlight=False)
    print(f"explore: {page.resolve()}")
