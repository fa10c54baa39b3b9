"""The ``textsift`` command line (typer + rich). Commands compose the library; they compute
nothing of their own. Each family of commands lives in its own module and registers on ``app``
(``application()``), which is built when first asked for: ``textsift --version`` needs none
of it.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def application():
    """The typer application with every command registered (the docs' CLI reference shows
    it)."""
    from . import adabag, core, demo, experiment, explore, ordinal  # noqa: F401  (they register)
    from ._app import app

    return app


def print_version() -> None:
    from .. import __version__

    print(f"textsift {__version__}")


def main() -> None:
    """The ``textsift`` console script: run the command line. ``textsift --version`` alone is
    answered before the command line is built (typer and rich are most of its start-up)."""
    if sys.argv[1:] == ["--version"]:
        print_version()
        return
    from ._signals import CONSOLE_SCRIPT, finish, stop_at_once

    CONSOLE_SCRIPT.append(True)
    stop_at_once()  # until the command's body starts, and once it has ended
    try:
        application()()
    finally:
        finish()


def __getattr__(name: str):
    if name == "app":
        return application()
    raise AttributeError(f"module 'textsift.cli' has no attribute {name!r}")
