"""The ``textsift`` command line (typer + rich). Commands compose the library; they compute
nothing of their own. Each family of commands lives in its own module and registers on ``app``.
"""

from ._app import app, main  # noqa: F401
from . import core  # noqa: F401,E402  (registers methods, score, demo)

__all__ = ["app", "main"]
