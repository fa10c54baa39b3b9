"""``textsift demo``: the main job of the tool on the bundled 20 Newsgroups sample.

Runs a small experiment through the harness (six methods, seven sizes, naive Bayes and a
linear SVM, on the sample's own train/test split) and writes the HTML report and the explore
page of the sample's training split (``explore.html``); prints where they are. Re-running it
in the same directory reuses the finished cells.
"""

from __future__ import annotations

from pathlib import Path

from ._app import app, console
from .options import OutDir

#: The demo experiment, in the TOML schema of ``textsift run`` (see examples/*.toml); the
#: schema's defaults for the rest (the sample's own train/test split, seed 0).
DEMO = {
    "experiment": {"name": "textsift demo: 20 Newsgroups sample", "n_jobs": 2},
    "corpus": {"sample": "20ng", "dataset": "20ng-sample"},
    "evaluation": {"metrics": ["accuracy", "macro_f1"]},
    "preprocessing": {"stop_words": "english", "strip_headers": True, "min_df": 2},
    "selection": {"methods": ["rc", "ig", "chi2", "bns", "mi", "dia"], "aggregates": ["max"],
                  "sizes": [50, 100, 200, 500, 1000, 2000, "all"]},
    "learners": [{"name": "nb"}, {"name": "linear_svm"}],
}


@app.command()
def demo(out: OutDir = Path("textsift-demo")):
    """Compare six selection methods on the bundled 20 Newsgroups sample; write a report and
    an explore page. Re-running it in the same directory reuses the finished cells.

    The pages' paths go to stdout, progress and the accuracies to stderr.

    Example: textsift demo --out textsift-demo
    """
    from ..experiment import parse_config
    from ..report.html import write_report
    from .experiment import run_with_progress

    exp = parse_config(DEMO, src="textsift demo")
    summary = run_with_progress(exp, out, resume=True)
    report = write_report(out)
    svm = summary.results.query("metric == 'accuracy' and learner == 'linear_svm'")
    full = svm["n_features"].max()
    for n in (500, full):
        part = svm[svm["n_features"] == n].sort_values("value", ascending=False)
        what = f"{n} terms" if n != full else f"all {n:,} terms"
        console.print(f"linear-SVM accuracy with {what}: " + ", ".join(
            f"{m} {v:.3f}" for m, v in zip(part["method"], part["value"], strict=True)),
            highlight=False)
    page = _explore_page(out, exp)
    print(f"explore: {page.resolve()}")
    print(f"report: {report.resolve()}")


def _explore_page(out: Path, exp) -> Path:
    """``out/explore.html``: the explore page of the sample's training split, from the run's
    own reading of the corpus and its counts of fold 0 (the training split), with the
    experiment's preprocessing."""
    from ..experiment import Store
    from ..experiment.folds import fold_paths, load_fold, read_documents
    from ..report.explore import explore

    texts, labels, is_test = read_documents(exp)
    counts = load_fold(fold_paths(exp, Store(out).cache)[0]).counts
    docs = ((t, y) for t, y, test in zip(texts, labels, is_test, strict=True) if not test)
    with console.status("writing the explore page") as status:
        return explore(counts, Path(out) / "explore.html", docs, opts=exp.preprocessing,
                       title="textsift demo: 20 Newsgroups sample (train)",
                       progress=status.update)
