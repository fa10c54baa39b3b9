"""``textsift demo``: the main job of the tool on the bundled 20 Newsgroups sample.

Runs a small experiment through the harness (six methods, seven sizes, naive Bayes and a
linear SVM, on the sample's own train/test split) and writes the HTML report and the explore
page of the sample's training split (``explore.html``); prints where they are. Re-running it
in the same directory reuses the finished trials.
"""

from __future__ import annotations

from pathlib import Path

from ._app import app, console, writes_out
from ._progress import step
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
@writes_out()
def demo(out: OutDir = Path("textsift-demo")):
    """Compare six selection methods on the bundled 20 Newsgroups sample; write a report and
    an explore page. Re-running it in the same directory reuses the finished trials.

    The pages' paths go to stdout, progress and the accuracies (a small table) to stderr.

    Example: textsift demo --out textsift-demo
    """
    from ..experiment import parse_config
    from ..report.html import write_report
    from .experiment import run_with_progress

    exp = parse_config(DEMO, src="textsift demo")
    summary = run_with_progress(exp, out, resume=True)
    report = write_report(out)
    table, full = _accuracy_table(summary.results)
    console.print(table, full, highlight=False)
    page = _explore_page(out, exp)
    print(f"explore: {page.resolve()}")
    print(f"report: {report.resolve()}")


def _accuracy_table(results):
    """The accuracies with 500 terms as a small table (a row per method, best first with the
    linear SVM; 38 columns wide), and a line for all terms, where every method keeps every
    term and so they tie."""
    from rich.table import Table

    acc = results[results["metric"] == "accuracy"].pivot_table(
        index="method", columns=["learner", "n_features"], values="value")
    acc = acc.sort_values(("linear_svm", 500), ascending=False)
    table = Table(title="accuracy with 500 terms", title_justify="left")
    for head in ("method", "naive Bayes", "linear SVM"):
        table.add_column(head, justify="left" if head == "method" else "right")
    for method, row in acc.iterrows():
        table.add_row(method, f"{row['nb', 500]:.3f}", f"{row['linear_svm', 500]:.3f}")
    n = int(results["n_features"].max())
    full = (f"with all {n:,} terms, every method: naive Bayes {acc['nb', n].iloc[0]:.3f}, "
            f"linear SVM {acc['linear_svm', n].iloc[0]:.3f}")
    return table, full


def _explore_page(out: Path, exp) -> Path:
    """``out/explore.html``: the explore page of the sample's training split, from the run's
    own reading of the corpus and its counts of fold 0 (the training split), with the
    experiment's preprocessing."""
    from ..experiment import Store
    from ..experiment.folds import fold_paths, read_documents
    from ..experiment.loaded import open_fold
    from ..experiment.specs import FoldRef
    from ..report.explore import explore

    texts, labels, is_test = read_documents(exp)
    # fold 0 as the run left it open in this process (its file is read only if it is not)
    counts = open_fold(FoldRef.of(fold_paths(exp, Store(out).cache)[0])).data.counts
    docs = ((t, y) for t, y, test in zip(texts, labels, is_test, strict=True) if not test)
    with step("writing the explore page") as news:  # a spinner, or lines in a log
        return explore(counts, Path(out) / "explore.html", docs, opts=exp.preprocessing,
                       title="textsift demo: 20 Newsgroups sample (train)", progress=news)
