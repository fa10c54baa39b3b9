"""The typer application shared by the command modules, and helpers they all use."""

from __future__ import annotations

import json
import math
import sys

import typer
from rich.console import Console
from rich.markup import escape

app = typer.Typer(
    name="textsift",
    help="Score, rank and select the terms that matter for text classification.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)  # messages and progress; results go to stdout


def stdout_console(min_width: int = 100) -> Console:
    """A console on the current stdout for result tables."""
    return Console(file=sys.stdout, width=max(min_width, console.width))


def fail(message: str, code: int = 2):
    """Print a one-line error (no traceback) and exit."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def json_number(x):
    """JSON has no infinities: +/-inf are written as the strings "inf" / "-inf"."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n")


def main():  # console-script entry point
    app()
