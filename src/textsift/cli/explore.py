"""``textsift explore``: write the interactive page of :mod:`textsift.report.explore`."""

from __future__ import annotations

from pathlib import Path

import typer

from ..report.explore_data import CAP, SNIPPET_TOP
from ._app import app, console
from .core import Engine, load_counts, vectorizer_options


def _documents(data: Path, text_field, label_field, split_field, split, skip_bad_lines):
    """The corpus's ``(text, label)`` pairs, streamed: the snippet pass reads the corpus once
    more (the counts keep no text) and tokenises only the documents it needs."""
    from ..engines.readers import iter_chunks

    for chunk in iter_chunks(data, text_field, label_field, split_field, split,
                             on_bad_line="skip" if skip_bad_lines else "error"):
        yield from zip(chunk.texts, chunk.labels, strict=True)


@app.command()
def explore(
    data: Path = typer.Argument(..., help="Corpus file (.jsonl[.gz], .csv, .parquet) or directory"),
    out: Path = typer.Option(..., "--out", "-o", help="The page to write (PAGE.html)"),
    method: str = typer.Option(None, "--method", "-m", help="Method shown first (default chi2)"),
    methods: str = typer.Option(None, "--methods",
                                help="Comma-separated methods to offer (default: every nominal "
                                     "one, and the ordinal ones when labels are ratings)"),
    k: int = typer.Option(50, "--k", "-k", help="Terms in the table and agreement sets at first"),
    top: int = typer.Option(20, "--top", help="Terms labelled on the map"),
    cap: int = typer.Option(CAP, "--cap", help="Terms embedded per method and class or policy"),
    snippet_top: int = typer.Option(SNIPPET_TOP, "--snippet-top",
                                    help="Terms per method and view with snippets"),
    title: str = typer.Option(None, "--title", help="Page title (default: the file name)"),
    min_df: int = typer.Option(1, "--min-df", help="Drop terms in fewer documents"),
    max_df: float = typer.Option(1.0, "--max-df", help="Drop terms in more than this fraction"),
    stop_words: str = typer.Option(None, "--stop-words", help="'english' for sklearn's list"),
    stem: bool = typer.Option(False, "--stem", help="Snowball (Porter 2) stemming"),
    strip_headers: bool = typer.Option(False, "--strip-headers", help="Drop e-mail headers"),
    text_field: str = typer.Option("text", "--text-field"),
    label_field: str = typer.Option("label", "--label-field"),
    split_field: str = typer.Option(None, "--split-field"),
    split: str = typer.Option(None, "--split", help="Keep only this split (e.g. train)"),
    engine: Engine = typer.Option(Engine.memory, "--engine",
                                  help="memory | stream (chunked, bounded memory) | dask"),
    scheduler: str = typer.Option(None, "--scheduler", help="Dask scheduler address"),
    chunk_size: int = typer.Option(None, "--chunk-size",
                                   help="Documents per chunk (stream, dask; default 10,000)"),
    skip_bad_lines: bool = typer.Option(False, "--skip-bad-lines",
                                        help="Skip (and count) malformed JSONL lines"),
):
    """Write one self-contained HTML page to explore which terms matter: a term map per class,
    every method's ranking and their agreement, and the terms in context."""
    from ..report.explore import check_out
    from ..report.explore import explore as write_page

    check_out(out)  # before the long work
    names = [m.strip() for m in methods.split(",") if m.strip()] if methods else None
    opts = vectorizer_options(min_df, max_df, stop_words, stem, strip_headers)
    with console.status("counting the corpus") as status:
        counts = load_counts(data, text_field, label_field, split_field, split, opts,
                             engine=engine.value, scheduler=scheduler, chunk_size=chunk_size,
                             skip_bad_lines=skip_bad_lines)
        docs = _documents(data, text_field, label_field, split_field, split, skip_bad_lines)
        page = write_page(counts, out, docs, opts=opts, methods=names, method=method, k=k,
                          top=top, cap=cap, snippet_top=snippet_top,
                          title=title or f"textsift explore: {data.name}",
                          progress=status.update)
    console.print(f"{counts.n_docs:,} documents, {counts.n_classes} classes; page of "
                  f"{page.stat().st_size / 1e6:.1f} MB", highlight=False)
    print(f"explore: {page.resolve()}")
