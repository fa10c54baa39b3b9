"""The click command behind the typer application, for ``sphinx-click``'s ``.. click::``
directive (the command-line reference is generated from the application itself)."""

import typer

from textsift.cli import app

cli = typer.main.get_command(app)
