"""``textsift explore``: write the interactive page of :mod:`textsift.report.explore`."""

from __future__ import annotations

from pathlib import Path

import typer

from .._choices import CORRECTION
from .._choices import EXPLORE_CAP as CAP
from .._choices import EXPLORE_SNIPPET_TOP as SNIPPET_TOP
from ._app import app, console, writes_out
from ._progress import step
from .options import Alpha, CorpusOptions, Correction, Family, corpus_options

#: The table's and the agreement sets' first size, unless -k says.
K = 50


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
    k: int = typer.Option(None, "-k", "--k", show_default=False,
                          help=f"How many terms the table and the agreement sets select at "
                               f"first (default {K})"),
    top: int = typer.Option(20, "--top", help="How many terms to label on the map"),
    cap: int = typer.Option(CAP, "--cap", help="Terms embedded per method and class or policy"),
    snippet_top: int = typer.Option(SNIPPET_TOP, "--snippet-top",
                                    help="Terms per method and view with snippets"),
    title: str = typer.Option(None, "--title", help="Page title (default: the file name)",
                              show_default=False),
    alpha: Alpha = None,
    correction: Correction = None,
    family: Family = None,
):
    """Write one self-contained HTML page to explore which terms matter: a term map per class,
    every method's ranking and their agreement, and the terms in context.

    The page's path goes to stdout, progress to stderr.

    With --alpha (instead of -k), a class's own ranking by a method with p-values starts
    with the terms whose p-value, adjusted by --correction (default bh) over --family
    (default class), passes alpha: those `textsift score --class C --alpha` selects, up to
    --cap; the other views (the policies, the methods that are not tests) keep the first
    -k terms.

    Example: textsift explore reviews.jsonl.gz --label-field rating --out reviews.html
    """
    from ..labels import check_requirement
    from ..reading.sources import describe
    from ..report.explore import check_out
    from ..report.explore import explore as write_page
    from ..scores import get_method

    check_out(out)  # before the long work
    names = [m.strip() for m in methods.split(",") if m.strip()] if methods else None
    opts = corpus.vectorizer()
    asked = dict.fromkeys([*(names or ()), *([method] if method else [])])
    ranks = any("ranks" in get_method(name).requires for name in asked)  # CSV's 04: rank 4
    counts = corpus.count(ranks=ranks)  # its progress drawn, whatever the engine
    for name in asked:
        check_requirement(get_method(name).requires, counts, name,
                          describe(corpus.source))  # e.g. ig_multi on label sets
    with step("scoring the terms") as status:
        page = write_page(counts, out, corpus.documents(ranks), opts=opts, methods=names,
                          method=method, k=K if k is None else k, top=top, cap=cap,
                          snippet_top=snippet_top,
                          title=title or f"textsift explore: {corpus.name}", alpha=alpha,
                          correction=getattr(correction, "value", correction) or CORRECTION,
                          family=getattr(family, "value", family) or "class",
                          progress=status)
    console.print(f"{counts.n_docs:,} documents, {counts.n_classes} "
                  f"{'labels' if counts.multilabel else 'classes'}; page of "
                  f"{page.stat().st_size / 1e6:.1f} MB", highlight=False)
    print(f"explore: {page.resolve()}")
