"""``textsift demo``: the main job on the bundled sample."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import typer
from rich.table import Table

from ..corpus import load_sample
from ..vectorize import VectorizerOptions
from ._app import app, console


@app.command()
def demo(
    out: Path = typer.Option(None, "--out", help="Also write the ranked terms here (CSV)"),
):
    """Score and select terms on the bundled 20 Newsgroups sample."""
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.svm import LinearSVC

    from ..selectors import TermSelector
    from ..vectorize import vectorize

    train, test = load_sample("20ng", "train"), load_sample("20ng", "test")
    X, names, vec = vectorize(train.texts, VectorizerOptions(min_df=2, strip_headers=True,
                                                             stop_words="english"))
    Xt = vec.transform(test.texts)
    rows = []
    for method in ("chi2", "ig", "bns", "rc", "mi", "dia"):
        sel = TermSelector(method, k=500).fit(X, train.labels)
        clf = LinearSVC().fit(sel.transform(X), train.labels)
        pred = clf.predict(sel.transform(Xt))
        top = ", ".join(names[sel.selected_[:6]])
        rows.append((method, accuracy_score(test.labels, pred),
                     f1_score(test.labels, pred, average="macro"), top))
    table = Table(title="bundled 20NG sample: linear SVM on 500 selected terms")
    for c in ("method", "accuracy", "macro-F1", "top terms"):
        table.add_column(c)
    for m, a, f, t in rows:
        table.add_row(m, f"{a:.3f}", f"{f:.3f}", t)
    console.__class__(file=sys.stdout, width=120).print(table)
    if out:
        pd.DataFrame(rows, columns=["method", "accuracy", "macro_f1", "top_terms"]).to_csv(out, index=False)
