"""Many labels within a stated memory bound: ``score --per-class --evidence`` reads the p- and
q-values of the cells it shows, never the (V, labels) tables (ml100k's were 56.5 GiB each, and
the command advised Python calls); the explore page and that view are refused before the work,
with the bound and the fix, where the memory available cannot hold them (the kernel killed
explore at 24 GB, without a word)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import textsift.counting._tables as counting
from textsift import Counts
from textsift.cli import app
from textsift.scores import get_method, pvalues
from textsift.scores.significance import PValues


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    """400 documents with 1-3 of 120 labels (more than the explore page's 50)."""
    rng = np.random.default_rng(5)
    path = tmp_path_factory.mktemp("many") / "ml.jsonl"
    with path.open("w") as fh:
        for i in range(400):
            words = rng.choice(300, size=20, p=np.r_[np.full(30, 0.02), np.full(270, 0.4 / 270)])
            labels = {f"L{x}" for x in rng.choice(120, size=rng.integers(1, 4))} | {f"L{i % 120}"}
            fh.write(json.dumps({"text": " ".join(f"w{w}" for w in words),
                                 "labels": sorted(labels)}) + "\n")
    return path


def test_pvalues_at_cells_equal_the_table(labelled):
    from textsift.reading.corpus import read_corpus

    corpus = read_corpus(labelled, label_field="labels")
    counts = Counts.from_texts(corpus.texts, corpus.labels)
    p = pvalues(counts, get_method("g2"))
    q = p.adjusted("bh", "class", dense=False)
    rng = np.random.default_rng(0)
    terms = rng.integers(0, counts.n_terms, 500)
    groups = rng.integers(0, len(p.groups), 500)
    fresh = pvalues(counts, get_method("g2"))  # its (V, m) table not written yet
    np.testing.assert_array_equal(fresh.at(terms, groups), p.values[terms, groups])
    np.testing.assert_array_equal(q.at(terms, groups),
                                  p.adjusted("bh", "class")[terms, groups])
    assert "values" not in fresh.__dict__  # read at the cells alone


def test_per_class_evidence_never_writes_the_tables(labelled, monkeypatch):
    """Its p and q columns are read at the shown cells: with the (V, m) tables forbidden
    the command gives the same rows as with them."""
    args = ["score", str(labelled), "--label-field", "labels", "--per-class", "--evidence",
            "--method", "g2", "--top", "3", "-f", "csv"]
    before = CliRunner().invoke(app, args)
    assert before.exit_code == 0, before.output

    def forbidden(self):
        raise AssertionError("the (V, m) table of p-values was written")

    monkeypatch.setattr(PValues, "values", property(forbidden))
    after = CliRunner().invoke(app, args)
    assert after.exit_code == 0, after.output
    assert after.stdout == before.stdout
    assert len(after.stdout.splitlines()) == 1 + 120 * 3


@pytest.mark.parametrize("command", [
    ["explore", "{data}", "--label-field", "labels", "--out", "{out}/page.html"],
    ["score", "{data}", "--label-field", "labels", "--per-class", "--evidence", "-f", "csv"],
])
def test_views_of_many_labels_that_cannot_fit_are_refused_before_the_work(
        labelled, tmp_path, monkeypatch, command):
    """1 MiB available: one error line with the estimate (its sizes and bytes each) and the
    fix, nothing written; with ample memory the same command runs."""
    monkeypatch.setattr(counting, "available_memory", lambda: 2**20)
    argv = [a.format(data=labelled, out=tmp_path) for a in command]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2, res.output
    what = "the explore page" if command[0] == "explore" else "score --per-class --evidence"
    errors = [line for line in res.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and errors[0].startswith(
        f"error: {what} of 120 labels would need about "), res.stderr
    assert " (term, label) cells with documents at about 285 bytes each, and " in errors[0]
    assert errors[0].endswith(" distinct document frequencies x 120 labels at about 47 bytes "
                              "each), more than the 1 MiB available; raise --min-df (min_df; "
                              "fewer terms: fewer cells and document frequencies), keep fewer "
                              "labels in the data (those with more documents), or run on a "
                              "machine with more memory")
    assert res.stdout == "" and list(tmp_path.iterdir()) == []
    monkeypatch.setattr(counting, "available_memory", lambda: 2**40)
    assert CliRunner().invoke(app, argv).exit_code == 0


def test_the_estimate_grows_with_the_cells_and_the_grid(labelled):
    """bytes = base + 285 x cells + 47 x (distinct df x labels), the measured rates."""
    from textsift.reading.corpus import read_corpus

    corpus = read_corpus(labelled, label_field="labels")
    counts = Counts.from_texts(corpus.texts, corpus.labels)
    need, cells, grid = counting.many_label_bytes(counts)
    docs = counts.doc_counts
    assert cells == np.count_nonzero(docs.toarray() if hasattr(docs, "toarray") else docs)
    assert grid == len(counts.cells.df_values) * 120
    assert need == 210 * 2**20 + 285 * cells + 47 * grid
