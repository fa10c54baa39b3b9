"""``textsift methods`` and ``textsift score``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from ..counts import Counts
from ..scores import REGISTRY, get_method
from ..selectors import rank, score_all
from ..vectorize import VectorizerOptions
from ._app import Format, app, console, emit, fail, stdout_console


class Engine(StrEnum):
    memory = "memory"
    stream = "stream"
    dask = "dask"


class Aggregate(StrEnum):
    max = "max"
    sum = "sum"
    wavg = "wavg"
    rr = "rr"


def vectorizer_options(min_df, max_df, stop_words, stem, strip_headers, binary=False):
    return VectorizerOptions(binary=binary, min_df=min_df, max_df=max_df,
                             stop_words=stop_words, stem=stem, strip_headers=strip_headers)


def load_counts(data, text_field, label_field, split_field, split, opts, classes=None,
                engine="memory", scheduler=None, chunk_size=None,
                skip_bad_lines=False) -> Counts:
    """Read a corpus and count it with one of the engines (:func:`textsift.engines.count_file`:
    the same source, checks and counts in each); skipped malformed lines are reported once,
    as a warning on stderr."""
    import warnings

    from ..engines import count_file

    bad: list = []
    with warnings.catch_warnings():  # reported below, once, for every engine
        warnings.simplefilter("ignore", UserWarning)
        counts = count_file(data, text_field=text_field, label_field=label_field,
                            split_field=split_field, split=split, opts=opts, engine=engine,
                            scheduler=scheduler, chunk_size=chunk_size,
                            on_bad_line="skip" if skip_bad_lines else "error", bad_lines=bad,
                            classes=classes)
    if bad:
        file, line = bad[0]
        console.print(f"[yellow]warning:[/] skipped {len(bad)} malformed line(s) (first: "
                      f"{escape(str(file))} line {line})", highlight=False, soft_wrap=True)
    return counts


@app.command()
def methods():
    """List the scoring methods, one line each."""
    table = Table(title="textsift methods", show_lines=False)
    for col in ("name", "kind", "default policy", "what it measures"):
        table.add_column(col)
    for name in sorted(REGISTRY):
        m = REGISTRY[name]
        table.add_row(m.label, m.kind, m.default_aggregate, m.summary)
    stdout_console().print(table)


@app.command()
def score(
    data: Path = typer.Argument(..., help="Corpus file (.jsonl[.gz], .csv, .parquet) or directory"),
    method: str = typer.Option("chi2", "--method", "-m", help="Method name, or 'all'"),
    aggregate: Aggregate = typer.Option(None, "--aggregate", "-a",
                                        help="max | sum | wavg | rr (default: the method's)"),
    class_label: str = typer.Option(None, "--class",
                                    help="Rank by this class's one-vs-rest scores"),
    top: int = typer.Option(20, "--top", "-k", help="Number of terms to print"),
    fmt: Format = typer.Option(Format.table, "--format", "-f"),
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
    """Rank the terms of a labelled corpus by a scoring method."""
    opts = vectorizer_options(min_df, max_df, stop_words, stem, strip_headers)
    if method != "all":
        try:
            get_method(method)
        except ValueError as exc:
            fail(str(exc))
    if top <= 0:
        fail(f"--top must be a positive number of terms, got {top}")
    counts = load_counts(data, text_field, label_field, split_field, split, opts,
                         engine=engine.value, scheduler=scheduler, chunk_size=chunk_size,
                         skip_bad_lines=skip_bad_lines)
    agg = aggregate.value if aggregate else None
    try:
        if method == "all":
            emit(score_all(counts, agg, class_label, top), fmt, "all methods")
            return
        ranked = rank(counts, method, aggregate=agg, class_label=class_label, top=top)
    except ValueError as exc:
        fail(str(exc))
    used = agg or get_method(method).default_aggregate
    extra = ("group",) if used == "rr" and class_label is None else ()
    cols = ["rank", "term", "score", *extra]
    title = f"{get_method(method).label} ({'class ' + class_label if class_label else used})"
    emit(ranked[cols], fmt, title)
