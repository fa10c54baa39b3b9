"""The one error type textsift raises for bad input.

Every problem a user can fix -- a corpus that cannot be read or used, an option or parameter
out of range, an experiment file that does not validate, an output directory that cannot be
used (in use by another run, on a read-only or full file system) -- raises
:class:`TextsiftError` (or one of its subclasses, which only say which stage found the
problem), with a message that names the file, line or parameter and the fix.

It subclasses :class:`ValueError`, so code written against scikit-learn's convention
(``ValueError`` for invalid parameters and data) keeps working. Any other exception escaping
textsift is a bug. The command line prints a ``TextsiftError`` as one ``error: ...`` line on
stderr and exits with code 2; anything else keeps its traceback and exits with code 1.

Data that are readable but probably not what was meant (class labels that differ only by
white space or case, a test part whose classes the training part never has) are not errors:
the library warns with :class:`DataWarning` (``warnings.warn``; it never prints), and the
command line prints each such warning as one ``warning: ...`` line on stderr.
"""

from __future__ import annotations

__all__ = ["CorpusError", "DataWarning", "OutputError", "TextsiftError", "check_n_jobs",
           "did_you_mean", "lookup", "missing_path", "no_experiment"]


class TextsiftError(ValueError):
    """Bad input (data, options or configuration); the message says what and how to fix it."""


class CorpusError(TextsiftError):
    """A corpus cannot be read or used as asked; the message says why and what to do."""


class DataWarning(UserWarning):
    """The data are readable but probably wrong; the message says what and how to fix it.
    Turn it into an error with ``warnings.simplefilter("error", DataWarning)``."""


class OutputError(TextsiftError):
    """An output path cannot be written: a folder another run holds, a read-only or full
    file system, a file-size limit, no permission. ``errno`` is the operating system's error
    number when it reported one (``None`` for a folder in use)."""

    def __init__(self, message: str, errno: int | None = None):
        super().__init__(message)
        self.errno = errno


def check_n_jobs(n_jobs, name: str = "n_jobs") -> int:
    """A number of parallel workers: a positive count, or -1 for every core. joblib reads
    other negative values as "all cores but some" and silently clips them to one worker
    (``-7`` on a 2-core machine), and 0 is meaningless; both are errors here."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or (n_jobs < 1 and n_jobs != -1):
        raise TextsiftError(f"{name} must be a positive number of workers, or -1 for every "
                            f"core; got {n_jobs!r}")
    return n_jobs


def did_you_mean(value, options) -> str:
    """`` (did you mean 'x'?)`` for the option closest to ``value``, or ``""``."""
    import difflib  # only when a message is written (errors.py is imported at start-up)

    close = difflib.get_close_matches(str(value), list(options), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def choose(value, options, what: str, meaning: str = ""):
    """``value`` if it is one of ``options``; else a :class:`TextsiftError` naming the
    closest option and every one (``what``: ``"correction"``, ``"learner"``, ...), and what
    they mean when ``meaning`` says it."""
    if value in options:
        return value
    raise TextsiftError(f"unknown {what} {value!r}{did_you_mean(value, options)}; choose one "
                        f"of {', '.join(map(str, options))}"
                        + (f" ({meaning})" if meaning else ""))


def lookup(registry: dict, name, what: str):
    """``registry[name]``; an unknown name is a :class:`TextsiftError` naming the closest
    entry and every one (``what``: ``"learner"``, ``"measure"``, ...)."""
    return registry[choose(name, registry, what)]


def missing_path(path) -> CorpusError:
    """The error for a corpus path that does not exist (checked at once by the command line,
    before anything heavy is imported, and by :func:`textsift.reading.sources.data_files`). A
    symbolic link that leads nowhere says so: a loop of links (``a -> b -> a``: the system's
    "too many levels of symbolic links") or a link to a path that does not exist."""
    import errno
    import os

    if os.path.islink(path):
        target = os.readlink(path)
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return CorpusError(
                    f"{path}: a loop of symbolic links ({path} -> {target} leads back to "
                    f"itself); point the link at the data file (ln -sfn FILE {path})")
        return CorpusError(f"{path}: a symbolic link to {target}, which does not exist; "
                           f"point the link at the data file (ln -sfn FILE {path})")
    return CorpusError(f"{path}: no such file or directory; check the path")


def no_experiment(root) -> OutputError:
    """The error for a folder that holds no experiment (no ``experiment.json``)."""
    return OutputError(f"{root} holds no experiment (no experiment.json); run `textsift run "
                       "CONFIG.toml --out DIR` first")
