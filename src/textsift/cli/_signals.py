"""Ctrl-C (SIGINT) and ``kill`` (SIGTERM) outside a command's body, in the console script:
before the command starts (the interpreter's imports, click's parsing) and after it ends
(click's exit, the interpreter's clean-up), where a ``KeyboardInterrupt`` would be a
traceback, click's "Aborted!" or "Exception ignored ...". There the signal is one line,
``interrupted`` (``terminated``), and exit code 130 (143), at once: nothing is being
written (every result file is written atomically, and the command's clean-up has run) and
no worker is left (workers end with this process: ``textsift._lock.end_with``). Inside the
command's body the signal is a ``KeyboardInterrupt`` (:class:`._app.Terminated` for
SIGTERM), so that its clean-up runs (joblib's workers stopped, a Dask cluster closed, the
``--out`` lock released) before the same line and exit code. Light: imported by the console
script before anything else."""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["CONSOLE_SCRIPT", "command_body", "said", "say", "stop_at_once"]

#: Whether the command line runs as the console script (:func:`textsift.cli.main`), which
#: ends the process after its command; not in a test's ``CliRunner``.
CONSOLE_SCRIPT: list[bool] = []
_SAID: list[str] = []  # what this process said of a signal


def said() -> bool:
    """Whether this process said ``interrupted`` or ``terminated``."""
    return bool(_SAID)


def say(word: str, write=None) -> None:
    """Say ``word`` (``interrupted``, ``terminated``) on stderr, once per process: with
    ``write(word)`` (the command line's console) or as a plain line."""
    if _SAID:
        return
    _SAID.append(word)
    if write is not None:
        write(word)
    else:
        sys.stderr.write(word + "\n")


def _stop(signum, frame) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 (a closed pipe: nothing more to say)
            pass
    interrupt = signum == signal.SIGINT
    try:
        say("interrupted" if interrupt else "terminated")
        sys.stderr.flush()
    finally:
        os._exit(130 if interrupt else 128 + 15)


def stop_at_once() -> None:
    """From now on (until :func:`command_body`), SIGINT and SIGTERM end this process at once
    with their one line and exit code (main thread only; the console script's)."""
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)


def command_body() -> None:
    """A command's body starts: SIGINT raises ``KeyboardInterrupt`` (Python's own handler)
    again, so that the command's clean-up runs; SIGTERM is the command line's."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
