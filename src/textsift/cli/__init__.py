"""The ``textsift`` command line (typer + rich). Commands compose the library; they compute
nothing of their own. Each family of commands lives in its own module and registers on ``app``.
"""

from . import adabag, core, demo, experiment, explore, ordinal  # noqa: F401  (each module registers its commands)
from ._app import app as app  # the typer application (the docs' CLI reference shows it)
from ._app import main

__all__ = ["main"]
