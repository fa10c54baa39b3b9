"""``textsift demo`` runs a comparison through the harness, ends with the report's path, and
the report is a self-contained page (optionally rendered with headless Chromium)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from test_report import check_self_contained

pytestmark = pytest.mark.slow  # the whole demo, end to end (.ci/run runs it; make test does not)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "demo"
    proc = subprocess.run([sys.executable, "-c", "from textsift.cli import main; main()",
                           "demo", "--out", str(out)], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"})  # an 80-column terminal
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_demo_summary_is_a_table_that_fits_80_columns(demo_run):
    """The accuracies with 500 terms: a row per method, best first with the linear SVM, as
    results.csv has them; one line for all terms (where every method ties); no line of the
    terminal output wraps."""
    out, proc = demo_run
    lines = proc.stderr.splitlines()
    assert max(map(len, lines)) <= 80, [x for x in lines if len(x) > 80]
    acc = pd.read_csv(out / "results.csv").query("metric == 'accuracy'")
    at = acc[acc["n_features"] == 500].pivot(index="method", columns="learner", values="value")
    rows = [[c.strip() for c in x.strip("│").split("│")] for x in lines if x.startswith("│")]
    assert [r[0] for r in rows] == list(at.sort_values("linear_svm", ascending=False).index)
    assert all(r[1:] == [f"{at.loc[r[0], 'nb']:.3f}", f"{at.loc[r[0], 'linear_svm']:.3f}"]
               for r in rows)
    full = acc[acc["n_features"] == acc["n_features"].max()]
    assert full.groupby("learner")["value"].nunique().eq(1).all()  # every method ties
    assert f"with all {full['n_features'].iloc[0]:,} terms, every method: naive Bayes" in (
        proc.stderr)


def test_demo_ends_with_the_report_path(demo_run):
    out, proc = demo_run
    last = proc.stdout.strip().splitlines()[-1]
    assert last == f"report: {(out / 'report.html').resolve()}"


def test_demo_report_embeds_every_image(demo_run):
    out, _ = demo_run
    html = (out / "report.html").read_text(encoding="utf-8")
    assert len(check_self_contained(html, out)) == 2  # accuracy, macro_f1 (learners side by side)


def test_demo_compares_six_methods_at_seven_sizes(demo_run):
    results = pd.read_csv(demo_run[0] / "results.csv")
    assert sorted(results["method"].unique()) == ["bns", "chi2", "dia", "ig", "mi", "rc"]
    assert results["n_features"].nunique() == 7
    # 20 balanced newsgroups: chance is 0.05; a linear SVM on the full vocabulary is far above
    full = results.query("learner == 'linear_svm' and metric == 'accuracy' and "
                         "n_features == n_features.max()")
    assert (full["value"] > 0.5).all()


CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium installed")
def test_demo_report_renders_in_headless_chromium(demo_run, tmp_path):
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}",
                    f"--screenshot={shot}", "--window-size=1200,2000",
                    Path(demo_run[0] / "report.html").resolve().as_uri()],
                   capture_output=True, timeout=60, check=True)
    assert shot.stat().st_size > 10_000


def test_demo_writes_the_explore_page_of_the_sample(demo_run):
    out, proc = demo_run
    page = out / "explore.html"
    assert f"explore: {page.resolve()}" in proc.stdout.splitlines()
    html = page.read_text(encoding="utf-8")
    assert "textsift demo: 20 Newsgroups sample (train)" in html and 'id="textsift-data"' in html
