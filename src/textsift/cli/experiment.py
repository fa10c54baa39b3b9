"""``textsift run`` and ``textsift report``: declarative experiments and their reports."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, console, fail


@app.command()
def run(
    config: Path = typer.Argument(..., help="Experiment file (TOML); see examples/*.toml"),
    out: Path = typer.Option(..., "--out", help="Directory for the results (created)"),
    resume: bool = typer.Option(False, "--resume", help="Continue a run interrupted in --out"),
    n_jobs: int = typer.Option(None, "--n-jobs", help="Parallel workers (default: the file's)"),
    report: bool = typer.Option(True, "--report/--no-report", help="Write OUT/report.html"),
):
    """Run an experiment: every (fold, method, policy, size, learner) cell, resumable."""
    from ..corpus import CorpusError
    from ..experiment import ConfigError, StoreError, load_config, run_experiment

    try:
        exp = load_config(config)
        summary = run_experiment(exp, out, resume=resume, n_jobs=n_jobs, console=console)
    except (ConfigError, StoreError, CorpusError) as exc:
        fail(str(exc))  # fail() escapes: messages name TOML tables, e.g. [corpus]
    console.print(f"{summary.n_run} of {summary.n_cells} cells run in {summary.wall_s:.1f} s; "
                  f"results: {out / 'results.csv'}", highlight=False)
    if report:
        _report(out)


def _report(directory: Path) -> Path:
    from ..experiment import StoreError
    from ..report.html import write_report

    try:
        path = write_report(directory)
    except StoreError as exc:
        fail(str(exc))
    print(path)
    return path


@app.command("report")
def report_cmd(directory: Path = typer.Argument(..., help="An experiment's --out directory")):
    """Write DIR/report.html (self-contained) and the figures beside it."""
    _report(directory)
