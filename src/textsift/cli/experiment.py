"""``textsift run`` and ``textsift report``: declarative experiments and their reports."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import typer
from rich.markup import escape

from ._app import app, console, print_note, writes_out
from .options import NJobs, OutDir


def run_with_progress(exp, out: Path, resume: bool = False, n_jobs: int | None = None):
    """:func:`textsift.experiment.run_experiment` with its news on stderr and its trials as a
    rich progress bar on a terminal, or as plain lines elsewhere (:func:`_trial_lines`: a log
    under nohup or CI); the library only calls back."""
    from ..experiment import run_experiment

    def log(message: str) -> None:
        note = message.startswith("note: ")
        console.print(("[yellow]note:[/] " if note else "") + escape(message[6:] if note
                                                                      else message),
                      highlight=False, soft_wrap=True)

    if not console.is_terminal:
        return run_experiment(exp, out, resume=resume, n_jobs=n_jobs, progress=_trial_lines(),
                              log=log)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = []

        def progress(done: int, total: int) -> None:
            if not task:
                task.append(bar.add_task(escape(exp.name), total=total, completed=done))
            bar.update(task[0], completed=done)

        return run_experiment(exp, out, resume=resume, n_jobs=n_jobs, progress=progress,
                              log=log)


def _trial_lines(steps: int = 20):
    """A ``progress(done, total)`` that prints a plain line on stderr -- ``trials: 12 of 54
    (22%), 0:00:14 so far, about 0:00:49 left`` -- for every trial of a run of at most
    ``steps`` trials, and for every ``1/steps`` of the trials (5%) of a longer one: what a
    log file shows (stderr not a terminal: nohup, CI, a pipe), where a bar draws nothing.
    The time is counted from the first call (the folds are built), and the time left from
    the trials run so far (not those a resumed run found done)."""
    import time
    from datetime import timedelta

    start, first, shown = 0.0, None, None

    def progress(done: int, total: int) -> None:
        nonlocal start, first, shown
        step = done * min(steps, total) // max(total, 1)
        if step == shown:
            return
        if first is None:
            start, first = time.monotonic(), done
        shown, spent, ran = step, time.monotonic() - start, done - first
        left = (f", about {timedelta(seconds=round(spent / ran * (total - done)))} left"
                if ran and done < total else "")
        console.print(f"trials: {done:,} of {total:,} ({done / max(total, 1):.0%}), "
                      f"{timedelta(seconds=round(spent))} so far{left}", highlight=False,
                      soft_wrap=True)

    return progress


@app.command()
@writes_out()
def run(
    config: Path = typer.Argument(..., help="Experiment file (TOML); see examples/*.toml",
                                  metavar="CONFIG", show_default=False),
    out: OutDir = ...,
    resume: bool = typer.Option(False, "--resume", help="Continue a run interrupted in --out"),
    n_jobs: NJobs = None,
    report: bool = typer.Option(True, "--report/--no-report", help="Write OUT/report.html"),
):
    """Run an experiment: every (fold, method, policy, size or alpha, learner) trial, resumable.
    Every check of the file and the data runs before anything is written to --out.

    The paths of the results table and the report go to stdout, progress to stderr.

    Example: textsift run examples/forman_20ng.toml --out forman-run --n-jobs 2
    """
    from ..errors import missing_path

    if not config.is_file():  # at once: before the experiment's imports
        raise missing_path(config)
    from ..experiment import load_config

    with _resumable():
        summary = run_with_progress(load_config(config), out, resume, n_jobs)
    console.print(f"{summary.n_run} of {summary.n_trials} trials run in {summary.wall_s:.1f} s",
                  highlight=False)
    print(out / "results.csv")
    if report:
        _report(out)


@contextmanager
def _resumable():
    """A run stopped by a full disk or a file-size limit (``textsift._io.os_error``) is told
    how to go on: ``run`` alone has --resume (the other commands' messages do not offer
    it)."""
    import errno

    from ..errors import OutputError

    try:
        yield
    except OutputError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise
        raise OutputError(f"{exc} with --resume, which keeps the finished trials",
                          exc.errno) from None


def _report(directory: Path, out: Path | None = None) -> Path:
    from ..report.html import write_report

    path = write_report(directory, out)
    print(path)
    return path


@app.command("report")
def report_cmd(directory: Path = typer.Argument(..., help="An experiment's --out directory",
                                                metavar="DIR", show_default=False),
               out: Path = typer.Option(None, "--out", "-o", show_default=False,
                                        help="Write the report there instead of in DIR "
                                             "(which may then be read-only)")):
    """Write DIR/report.html (self-contained) and the figures beside it, or in --out; the
    page's path goes to stdout.

    Example: textsift report forman-run
    """
    from .._lock import hold
    from ..errors import TextsiftError, missing_path, no_experiment

    if not directory.exists():
        raise missing_path(directory)
    if not directory.is_dir():  # not an --out to create: a run's folder, which exists
        raise TextsiftError(f"{directory} is a file, not an experiment's folder; give the "
                            "folder a run wrote (textsift run CONFIG.toml --out DIR, then "
                            "textsift report DIR)")
    target, what = (directory, "the folder") if out is None else (out, "--out")
    with hold(target, note=print_note, what=what):
        if not (directory / "experiment.json").is_file():  # before the report's imports
            raise no_experiment(directory)
        _report(directory, out)
