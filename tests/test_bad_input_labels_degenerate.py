"""Issue 28's rows that had no test of their own: labels that cannot be what was meant warn
before the work (a label on every document; labels nearly unique per document), a
``MemoryError`` is one error line, a class with fewer documents than the folds is one warning
in textsift's words, and ``score --method all`` piped writes every term."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.errors import DataWarning
from textsift.experiment import parse_config
from textsift.experiment.folds import fold_indices
from textsift.reading.corpus import load_sample, sample_path

runner = CliRunner()


def test_a_label_on_every_document_warns_before_the_work(tmp_path):
    """'x' is on all 4 documents: no negative document, so chi2 is 0 for every term."""
    path = tmp_path / "ml.jsonl"
    path.write_text("".join(json.dumps({"text": t, "labels": ls}) + "\n" for t, ls in [
        ("alpha beta", ["x", "y"]), ("beta gamma", ["x"]), ("gamma delta", ["x", "z"]),
        ("delta", ["x"])]))
    with pytest.warns(DataWarning, match=r"ml.jsonl: every document has the label 'x', so it "
                                         r"has no negative document: .*check the label field "
                                         r"\('labels'\)"):
        counts = count_file(path, label_field="labels")
    assert counts.class_sizes.tolist() == [4, 1, 1]  # x, y, z


def test_labels_nearly_unique_per_document_warn_before_the_work(tmp_path):
    """200 documents, each its own class: 200 > max(100, 200 / 10) classes."""
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps({"text": f"word{i % 7} common", "id": f"d{i}"}) + "\n"
                            for i in range(200)))
    with pytest.warns(DataWarning, match=r"the labels \('id'\) are nearly unique per "
                                         r"document: 200 classes for 200 documents \(200 of "
                                         r"them with a single document\)"):
        count_file(path, label_field="id")
    path.write_text("".join(json.dumps({"text": f"word{i % 7} common", "id": f"c{i % 100}"})
                            + "\n" for i in range(200)))  # 100 classes: at the floor, quiet
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        count_file(path, label_field="id")


def test_a_memory_error_is_one_error_line(monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 5.48 GiB for an array")

    monkeypatch.setattr(Counts, "from_texts", out_of_memory)
    monkeypatch.setattr("textsift.engines.count_file", out_of_memory)
    res = runner.invoke(app, ["score", str(sample_path("20ng"))])
    assert res.exit_code == 2 and res.stderr.splitlines() == [
        "error: not enough memory (Unable to allocate 5.48 GiB for an array); the tables grow "
        "with the terms and the classes: check the label field (--label-field), raise "
        "--min-df, or run on a machine with more memory (or a higher ulimit -v)"]


def test_a_class_with_fewer_documents_than_the_folds_is_one_warning_in_textsifts_words():
    """3 classes of 30, 30 and 4 documents, 5 folds: scikit-learn's own UserWarning ("The
    least populated class ...") no longer reaches the user; ours names the class and the fix."""
    exp = parse_config({"experiment": {"name": "f"}, "corpus": {"sample": "20ng"},
                        "evaluation": {"protocol": "cv", "folds": 5},
                        "selection": {"methods": ["chi2"], "sizes": [5]},
                        "learners": [{"name": "nb"}]})
    labels = np.array(["a"] * 30 + ["b"] * 30 + ["rare"] * 4)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        folds = fold_indices(exp, labels, None)
    assert len(folds) == 5
    assert [w.category for w in seen] == [DataWarning]
    assert str(seen[0].message).startswith(
        "<config>: 1 class(es) have fewer documents than the 5 folds ('rare' (4)), so some "
        "folds' test parts have none of them; use at most 4 folds")


def test_method_all_piped_writes_every_term():
    """Off a terminal (a pipe, a file) every term of the vocabulary, a column per method:
    it was the union of each method's top 20."""
    res = runner.invoke(app, ["score", str(sample_path("20ng")), "--method", "all", "-f", "csv",
                              "--min-df", "5"])
    assert res.exit_code == 0, res.stderr
    sample = load_sample("20ng")
    n_terms = Counts.from_texts(sample.texts, sample.labels, min_df=5).n_terms
    assert len(res.stdout.splitlines()) == 1 + n_terms and n_terms > 1000
    assert res.stderr == ""  # nothing left out, so nothing to say
