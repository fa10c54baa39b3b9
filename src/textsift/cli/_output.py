"""How a command prints its results on stdout (``--format``): a rich table on a terminal,
tab-separated values in a pipe, CSV, JSON records (infinities as strings, NaN as null) or one
Parquet file -- every table of every command through :func:`emit_rows`. Imports only rich
at the top (the command line's start-up: :mod:`textsift.cli._app`)."""

from __future__ import annotations

import json
import math
import sys
from enum import StrEnum

from rich.console import Console


def json_number(x):
    """JSON has no infinities: +/-inf are written as the strings "inf" / "-inf"; NaN (no
    value: an effect size of an empty group) as null."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return None if math.isnan(x) else x


def print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n")


class Format(StrEnum):
    """How a command prints its results on stdout (``--format``)."""

    table = "table"
    tsv = "tsv"
    csv = "csv"
    json = "json"
    parquet = "parquet"


def plain(value):
    """A numpy scalar as the Python value JSON can write; an integral float group label (a
    rank such as 4.0) as an int."""
    value = value.item() if hasattr(value, "item") and hasattr(value, "dtype") else value
    return int(value) if isinstance(value, float) and value.is_integer() else value


def emit(frame, fmt: Format | None, title: str) -> None:
    """Print a table of results (a DataFrame) on stdout: :func:`emit_rows`."""
    emit_rows(list(frame.columns), frame.itertuples(index=False, name=None), fmt, title)


def emit_rows(columns: list, rows, fmt: Format | None, title: str) -> None:
    """Print a table of results on stdout: a rich table (``title`` above it), tab-separated
    values, CSV, or a JSON array of records (one object per row, float columns through
    :func:`json_number`). ``fmt=None`` is a table on a terminal and TSV otherwise (a pipe, a
    file), so that ``cut``, ``sort`` or a spreadsheet read what was printed. Nothing is ever
    cut short: a table wider than the terminal is printed whole, and the terminal wraps
    it. Missing cells (``None``) are empty. ``parquet``: one Parquet file (:func:`write_parquet`)
    on stdout, which must then be a file or a pipe."""
    fmt = fmt or (Format.table if sys.stdout.isatty() else Format.tsv)
    if fmt is Format.parquet:
        write_parquet(columns, rows)
    elif fmt is Format.json:
        print_json([{str(c): json_number(v) if isinstance(v, float) else plain(v)
                     for c, v in zip(columns, r, strict=True)} for r in rows])
    elif fmt is Format.csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(["" if v is None else v for v in r] for r in rows)
    elif fmt is Format.tsv:
        for r in [columns, *rows]:
            sys.stdout.write("\t".join(_cell(v) for v in r) + "\n")
    else:
        _print_table(columns, rows, title)


def write_parquet(columns: list, rows) -> None:
    """The table as one Parquet file on stdout (``--format parquet``): a column per column,
    typed by pyarrow from its values (numbers stay numbers, infinities stay infinite, missing
    cells are nulls; a column mixing numbers and text is written as text). The file is made
    whole in memory and written at once, so that an error leaves nothing half-written;
    refused on a terminal, which binary data would garble."""
    import io

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..errors import TextsiftError

    if sys.stdout.isatty():
        raise TextsiftError("--format parquet writes binary data: redirect stdout to a file "
                            "(> terms.parquet) or a pipe")
    frame = pd.DataFrame.from_records([tuple(plain(v) for v in r) for r in rows],
                                      columns=[str(c) for c in columns])
    for c in frame.columns:
        if frame[c].dtype == object:
            try:
                pa.array(frame[c].tolist())
            except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed: numbers and text
                frame[c] = [None if v is None else str(v) for v in frame[c]]
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buffer)
    out = getattr(sys.stdout, "buffer", None)
    if out is None:
        raise TextsiftError("--format parquet needs a binary standard output")
    sys.stdout.flush()
    out.write(buffer.getvalue())
    out.flush()


def _cell(value) -> str:
    """A value as one TSV cell (a tab or a line break in it becomes a space)."""
    text = "" if value is None else str(value)
    return text.replace("\t", " ").replace("\n", " ") if "\t" in text or "\n" in text else text


def _print_table(columns, rows, title: str) -> None:
    """A rich table whose cells are never cut: numbers right-aligned, text left-aligned."""
    from numbers import Number

    from rich.table import Table

    rows = list(rows)
    table = Table(title=title)
    for j, c in enumerate(columns):
        numeric = bool(rows) and isinstance(rows[0][j], Number)
        table.add_column(str(c), justify="right" if numeric else "left", no_wrap=True)
    for r in rows:
        table.add_row(*("" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v)
                        for v in r))
    out = Console(file=sys.stdout)
    # measured without the console's width, which a measurement never exceeds
    needed = out.measure(table, options=out.options.update_width(1_000_000)).maximum
    if needed > out.width:  # whole terms, always: the terminal wraps the long lines
        out = Console(file=sys.stdout, width=needed)
    out.print(table)
