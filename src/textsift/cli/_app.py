"""The typer application shared by the command modules, and helpers they all use."""

from __future__ import annotations

import functools
import json
import math
import sys
import warnings
from contextlib import contextmanager
from enum import StrEnum

import numpy as np
import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from ..errors import DataWarning, TextsiftError

try:  # typer vendors its own click (typer._click) since 0.17; click's own classes otherwise
    from typer._click.exceptions import NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover
    from click.exceptions import NoArgsIsHelpError, UsageError


class _Commands(TyperGroup):
    """The command group: bad input -- a :class:`~textsift.errors.TextsiftError` raised
    anywhere in a command, an option click refuses (a missing argument, a value out of
    range, an unknown option or command), or an error of the operating system the user can
    fix (a read-only file system, a full disk, too many open files:
    ``textsift._io.os_error``) -- becomes one ``error: ...`` line and exit code 2; any
    other exception is a bug and keeps its traceback (exit code 1). A
    :class:`~textsift.errors.DataWarning` (data that are probably wrong) is one ``warning:
    ...`` line, each message once."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            _usage_error(exc)

    def invoke(self, ctx):
        try:
            with _warning_lines():
                return super().invoke(ctx)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            _usage_error(exc)
        except TextsiftError as exc:
            fail(str(exc))
        except OSError as exc:
            from .._io import os_error

            error = os_error(exc)
            if error is None:
                raise
            fail(str(error))


@contextmanager
def _warning_lines():
    """Print each :class:`~textsift.errors.DataWarning` as one ``warning:`` line on stderr
    (each message once); other warnings as Python shows them."""
    shown = warnings.showwarning
    said: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, DataWarning):
            return shown(message, category, filename, lineno, file, line)
        if str(message) not in said:
            said.add(str(message))
            console.print(f"[yellow]warning:[/] {escape(str(message))}", highlight=False,
                          soft_wrap=True)

    with warnings.catch_warnings():
        warnings.simplefilter("always", DataWarning)
        warnings.showwarning = show
        yield


def _usage_error(exc: UsageError):
    where = exc.ctx.command_path if exc.ctx is not None else "textsift"
    fail(f"{exc.format_message().rstrip('.')} (see '{where} -h')")


app = typer.Typer(
    cls=_Commands,
    name="textsift",
    help="Score, rank and select the terms that matter for text classification.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
console = Console(stderr=True)  # messages and progress; results go to stdout


def _version(value: bool):
    if value:
        from .. import __version__

        print(f"textsift {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", help="Print the version and exit",
                                       callback=_version, is_eager=True)):
    """Score, rank and select the terms that matter for text classification."""


def stdout_console(min_width: int = 100) -> Console:
    """A console on the current stdout for result tables."""
    return Console(file=sys.stdout, width=max(min_width, console.width))


def writes_out(param: str = "out", folder: bool = True, create: bool = True):
    """Decorate a command that writes to its ``param`` (a folder, or with ``folder=False`` a
    page): the command runs holding its lock -- one writer per --out
    (``textsift._lock.hold``, which also checks that it can be written, before any
    work) --; a lock taken over from a run that ended without releasing it is said on
    stderr."""
    def decorate(command):
        @functools.wraps(command)
        def held(*args, **kwargs):
            from .._lock import hold

            def note(message: str) -> None:
                console.print(f"[yellow]note:[/] {escape(message)}", highlight=False)

            what = "--out" if param == "out" else "the folder"
            with hold(kwargs[param], folder=folder, create=create, note=note, what=what):
                return command(*args, **kwargs)
        return held
    return decorate


def fail(message: str, code: int = 2):
    """Print the error as one line (never wrapped, whatever the terminal's width; no
    traceback) and exit."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def json_number(x):
    """JSON has no infinities: +/-inf are written as the strings "inf" / "-inf"."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n")


def main():
    """The ``textsift`` console script: run the command line."""
    app()


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def plain(value):
    """A numpy scalar as the Python value JSON can write; an integral float group label (a
    rank such as 4.0) as an int."""
    value = value.item() if isinstance(value, np.generic) else value
    return int(value) if isinstance(value, float) and value.is_integer() else value


def emit(df, fmt: Format, title: str) -> None:
    """Print a ranked table on stdout as a rich table, CSV, or a JSON array of records (one
    object per row; ``score`` and the other float columns through :func:`json_number`)."""
    if fmt is Format.json:
        print_json([{c: json_number(v) if c == "score" or isinstance(v, float) else plain(v)
                     for c, v in r.items()} for r in df.to_dict("records")])
    elif fmt is Format.csv:
        df.to_csv(sys.stdout, index=False)
    else:
        from rich.table import Table

        table = Table(title=title)
        for c in df.columns:
            table.add_column(str(c), justify="left" if c == "term" else "right")
        for r in df.itertuples(index=False):
            table.add_row(*(f"{v:.6g}" if isinstance(v, float) else str(v) for v in r))
        stdout_console().print(table)
