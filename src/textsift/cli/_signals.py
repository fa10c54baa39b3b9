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

__all__ = ["CONSOLE_SCRIPT", "command_body", "finish", "interrupted_in_body", "said", "say",
           "stop_at_once"]

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


_BODY_SIGINT: list[bool] = []  # a SIGINT reached the command's body


def _interrupt(signum, frame) -> None:
    """The body's SIGINT: ``KeyboardInterrupt``, noted first. Python cannot raise it out of a
    weakref callback or a finaliser that the signal happens to land in: it prints "Exception
    ignored ..." and goes on. The note lets the command end as interrupted all the same
    (:func:`interrupted_in_body`), and :func:`_unraisable` keeps that report quiet."""
    _BODY_SIGINT.append(True)
    raise KeyboardInterrupt


def _unraisable(report, _default=sys.unraisablehook) -> None:
    if _BODY_SIGINT and issubclass(report.exc_type, KeyboardInterrupt):
        return  # the command says "interrupted" as it ends
    _default(report)


def interrupted_in_body() -> bool:
    """Whether a SIGINT reached the command's body (even one Python swallowed)."""
    return bool(_BODY_SIGINT)


def command_body() -> None:
    """A command's body starts: SIGINT raises ``KeyboardInterrupt`` (:func:`_interrupt`),
    so that the command's clean-up runs; SIGTERM is the command line's."""
    sys.unraisablehook = _unraisable
    signal.signal(signal.SIGINT, _interrupt)


def finish() -> None:
    """The console script ends: a SIGINT that reached the command's body and that Python
    swallowed after the command looked (in a finaliser as the command returned) still ends
    the process with its one line and exit code 130."""
    if _BODY_SIGINT and not _SAID:
        _stop(signal.SIGINT, None)
