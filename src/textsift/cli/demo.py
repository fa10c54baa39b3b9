"""``textsift demo``: the main job of the tool on the bundled 20 Newsgroups sample.

Runs a small experiment through the harness (six methods, seven sizes, naive Bayes and a
linear SVM, on the sample's own train/test split) and writes the HTML report; prints where
the report is. Re-running it in the same directory reuses the finished cells.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, console

#: The demo experiment, in the TOML schema of ``textsift run`` (see examples/*.toml).
DEMO = {
    "experiment": {"name": "textsift demo: 20 Newsgroups sample", "seed": 0, "n_jobs": 2},
    "corpus": {"sample": "20ng", "dataset": "20ng-sample"},
    "evaluation": {"protocol": "split", "metrics": ["accuracy", "macro_f1"]},
    "preprocessing": {"stop_words": "english", "strip_headers": True, "min_df": 2},
    "selection": {"methods": ["rc", "ig", "chi2", "bns", "mi", "dia"], "aggregates": ["max"],
                  "sizes": [50, 100, 200, 500, 1000, 2000, "all"]},
    "learners": [{"name": "nb"}, {"name": "linear_svm"}],
}


@app.command()
def demo(
    out: Path = typer.Option(Path("textsift-demo"), "--out",
                             help="Directory for the results and report.html"),
):
    """Compare six selection methods on the bundled 20 Newsgroups sample; write a report."""
    from ..experiment import parse_config, run_experiment
    from ..report.html import write_report

    exp = parse_config(DEMO, src="textsift demo")
    summary = run_experiment(exp, out, resume=True, console=console)
    report = write_report(out)
    best = summary.results.query("metric == 'accuracy' and learner == 'linear_svm'")
    top = best.loc[best["value"].idxmax()]
    console.print(f"best linear-SVM accuracy: {top['value']:.3f} ({top['method']}, "
                  f"{top['n_features']} terms)", highlight=False)
    print(f"report: {report.resolve()}")
