"""The typer application shared by the command modules, and helpers they all use (how they
print their results: :mod:`textsift.cli._output`; how they draw their progress:
:mod:`textsift.cli._progress`).

Start-up is part of the interface: this module and the command modules import only typer,
rich and light modules of the library at the top (:mod:`textsift._choices`, the method
catalogue); each command imports what it computes with inside its body, so that ``textsift
-h`` or ``--version`` does not load numpy, scikit-learn or pandas."""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from contextlib import contextmanager
from enum import Enum

import typer
from rich.console import Console
from rich.markup import escape
from typer._click import Context  # typer vendors its own click (the version pyproject pins)
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer.core import TyperCommand, TyperGroup

from ..errors import DataWarning, TextsiftError


class _Commands(TyperGroup):
    """The command group: bad input -- a :class:`~textsift.errors.TextsiftError` raised
    anywhere in a command, an option click refuses (a missing argument, a value out of
    range, an unknown option or command), or an error of the operating system the user can
    fix (a read-only file system, a full disk, too many open files:
    ``textsift._io.os_error``; running out of memory) -- becomes one ``error: ...`` line and
    exit code 2; any
    other exception is a bug and keeps its traceback (exit code 1). A
    :class:`~textsift.errors.DataWarning` (data that are probably wrong) is one ``warning:
    ...`` line, each message once. Ctrl-C is one ``interrupted`` line and exit code 130;
    ``kill`` (SIGTERM) is one ``terminated`` line and exit code 143, after the same clean-up
    (a run's workers stopped, its lock released).

    The help is tidied once for every command (:func:`_tidy`): paragraphs re-flowed, and no
    type placeholder after a flag; :mod:`._help` draws it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for command in [self, *self.commands.values()]:
            _tidy(command)

    def format_help(self, ctx, formatter):
        from ._help import format_help

        format_help(self, ctx, formatter)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            _usage_error(exc)

    def invoke(self, ctx):
        from . import _signals

        script = bool(_signals.CONSOLE_SCRIPT)
        try:
            if script:
                _signals.command_body()
            with _warning_lines(), _terminate_as_interrupt():
                try:
                    result = super().invoke(ctx)
                finally:
                    _end_workers()  # here, where a Ctrl-C meanwhile is one line
                if script and _signals.interrupted_in_body():  # one Python swallowed
                    raise KeyboardInterrupt
                return result
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            _usage_error(exc)
        except TextsiftError as exc:
            fail(str(exc))
        except Terminated:
            interrupted("terminated")
            raise typer.Exit(128 + 15) from None
        except KeyboardInterrupt:
            interrupted()
            raise typer.Exit(130) from None
        except OSError as exc:
            from .._io import os_error

            error = os_error(exc)
            if error is None:
                raise
            fail(str(error))
        except MemoryError as exc:
            fail(f"not enough memory ({str(exc) or 'MemoryError'}); the tables grow with the "
                 "terms and the classes: check the label field (--label-field), raise --min-df, "
                 "or run on a machine with more memory (or a higher ulimit -v)")
        finally:
            if script:
                _signals.stop_at_once()  # the command has ended: its last moments


class _Command(TyperCommand):
    """A command whose help :mod:`._help` draws, and whose options given where they do not
    apply are refused before it starts (:func:`._applies.check`)."""

    def invoke(self, ctx):
        from ._applies import check

        check(ctx)
        return super().invoke(ctx)

    def format_help(self, ctx, formatter):
        from ._help import format_help

        format_help(self, ctx, formatter)


class _Typer(typer.Typer):
    """The application: its commands are :class:`_Command`."""

    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or _Command, **kwargs)


def reflow(text: str | None) -> str | None:
    """A docstring's paragraphs each on one line (the help wraps them at the terminal's
    width); a paragraph starting with ``\\b`` is kept as written, as click keeps it."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


def _tidy(command) -> None:
    """Re-flow the help of ``command``, drop the type placeholder (``<bool>``) of its flags,
    the help option's included, and spare its absent options typer's coercion
    (:class:`_LightCoercion`)."""
    command.help = reflow(command.help)
    help_option = command.get_help_option(Context(command, help_option_names=HELP_OPTIONS))
    if help_option is not None and help_option.default is None:
        help_option.default = False  # a bool flag's False is not coerced (None would be)
    for param in [*command.params, help_option]:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""  # typer shows a flag's metavar instead of its type
        if getattr(param, "_runtime_param", False) is None:
            param._runtime_param = _LightCoercion()


class _LightCoercion:
    """What coerces a parameter's value until a value needs typer's own coercion. typer
    (0.2x) coerces every parameter through a pydantic ``TypeAdapter`` built at its first
    value, given or not, and importing pydantic for it costs about 0.1 s -- as much as the
    rest of ``textsift methods``. Two kinds of value need none of it, and are returned as
    typer returns them: an absent one (``None``, the default of most options) and one of a
    choice's values (``--format json`` -> ``Format.json``). Any other value builds typer's
    coercion (``get_runtime_param``), which takes over -- for its checks and its messages,
    a choice's unknown value included.

    It reads typer's private parameter hooks (``_runtime_param``, ``get_runtime_param``,
    ``type_descriptor``: typer's ``parser=`` still builds a pydantic adapter, and there is no
    public way to skip it), so pyproject pins typer to the minor release it is written for;
    a typer without the hooks leaves every parameter to typer's own coercion (slower, not
    wrong), which ``tests/test_cli_startup.py`` reports as pydantic loaded at start-up."""

    def coerce(self, value, param, ctx):
        if value is None and not (param.multiple or param.nargs == -1):
            return None
        kind = param.type_descriptor.annotation
        if (isinstance(value, str) and isinstance(kind, type) and issubclass(kind, Enum)
                and value in kind._value2member_map_):
            return kind(value)
        param._runtime_param = None
        return param.get_runtime_param().coerce(value, param=param, ctx=ctx)


def interrupted(word: str = "interrupted") -> None:
    """Say ``interrupted`` (or ``terminated``) on stderr, once per process."""
    from ._signals import say

    say(word, lambda text: console.print(text, highlight=False))


def _end_workers() -> None:
    """Shut down the worker processes joblib kept for reuse (loky's reusable executor), as
    the command ends rather than at the interpreter's exit: there, a Ctrl-C while joblib
    joined them was "Exception ignored ... KeyboardInterrupt" and exit code 0. Idle
    workers are ended at once (``kill_workers``): their work is done."""
    loky = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(loky, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a job scheduler stopping the job), raised in the main thread as
    Ctrl-C is, so that the same clean-up runs: joblib stops the workers of a run, a local
    Dask cluster is closed, the ``--out`` lock is released."""


@contextmanager
def _terminate_as_interrupt():
    """Raise :class:`Terminated` on SIGTERM inside the block (in the main thread only)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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


HELP_OPTIONS = ["-h", "--help"]
app = _Typer(
    cls=_Commands,
    name="textsift",
    help="Score, rank and select the terms that matter for text classification.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": HELP_OPTIONS},
)
class _Messages(Console):
    """The console of messages and progress (stderr). Where stderr is not a terminal (a log,
    a pipe), each message is one line, whatever its length: rich would wrap it at 80
    columns, breaking a path or a command in two for ``grep`` and for whoever reads the log.
    On a terminal, rich wraps it at the terminal's width, as ever."""

    def print(self, *objects, soft_wrap: bool | None = None, **kwargs) -> None:
        if soft_wrap is None:
            soft_wrap = not self.is_terminal
        super().print(*objects, soft_wrap=soft_wrap, **kwargs)


console = _Messages(stderr=True)  # messages and progress; results go to stdout


def _version(value: bool):
    if value:
        from . import print_version

        print_version()
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", help="Print the version and exit",
                                       callback=_version, is_eager=True)):
    """Score, rank and select the terms that matter for text classification."""


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

            what = "--out" if param == "out" else "the folder"
            with hold(kwargs[param], folder=folder, create=create, note=print_note, what=what):
                return command(*args, **kwargs)
        return held
    return decorate


def print_note(message: str) -> None:
    """Print ``note: message`` on stderr as one line (never wrapped, as ``error:`` lines)."""
    console.print(f"[yellow]note:[/] {escape(message)}", highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2):
    """Print the error as one line (never wrapped, whatever the terminal's width; no
    traceback) and exit."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
