"""A chosen reference (issue 29 item 6): a class against another, a corpus against another."""

import json

import numpy as np
import pytest
import scipy.stats as ss
from typer.testing import CliRunner

from textsift import Counts, rank
from textsift.cli import app
from textsift.errors import TextsiftError
from textsift.evidence.reference import against, against_corpus, count_reference
from textsift.scores import pvalues
from textsift.text.vectorize import VectorizerOptions

DOCS = ["rocket orbit", "rocket", "orbit launch", "doctor pill", "pill", "doctor rocket",
        "game score", "score"]
LABELS = ["space", "space", "space", "med", "med", "med", "sport", "sport"]


@pytest.fixture(scope="module")
def counts():
    return Counts.from_texts(DOCS, LABELS)


def test_a_class_against_another_is_the_table_of_their_documents(counts):
    """space (3 docs) against med (3): rocket is in 2 and 1 -- (A, B, C, D) = (2, 1, 1, 2);
    sport's documents are in neither group. Fisher's p is fisher_exact's of that table."""
    two = against(counts, "space", "med")
    assert two.classes.tolist() == ["space", "med"] and two.n_docs == 6
    t = two.feature_names.tolist().index("rocket")
    p = pvalues(two, "fisher").values[t, 0]
    assert p == pytest.approx(ss.fisher_exact([[2, 1], [1, 2]], "greater").pvalue, rel=1e-12)
    assert "score" not in rank(two, "chi2", class_label="space", direction="over").terms[:3]


@pytest.mark.parametrize("target, reference, message", [
    ("space", "space", "is the target class"),
    ("space", "politics", "not a class of the counts"),
])
def test_bad_reference_classes_are_refused(counts, target, reference, message):
    with pytest.raises(TextsiftError, match=message):
        against(counts, target, reference)


def test_a_reference_class_with_no_documents_is_refused():
    counts = Counts.from_texts(DOCS, LABELS, classes=["med", "space", "sport", "tech"])
    with pytest.raises(TextsiftError, match="'tech' has no documents"):
        against(counts, "space", "tech")


def test_label_sets_cannot_be_set_against_each_other():
    counts = Counts.from_matrix(np.array([[1, 0], [0, 1]]), [["a", "b"], ["b"]])
    with pytest.raises(TextsiftError, match="do not overlap"):
        against(counts, "a", "b")


def test_a_reference_corpus_is_counted_with_the_targets_vocabulary(counts):
    """The reference "rocket rocket pill", "news": rocket in 1 of its 2 documents, pill in
    1, "news" is not a term of the target's (not counted)."""
    ref = count_reference(["rocket rocket pill", "news"], counts)
    assert ref.n_docs == 2 and "news" not in ref.feature_names.tolist()
    two = against_corpus(counts, ref, "space")
    t = two.feature_names.tolist().index("rocket")
    assert two.doc_counts[t].tolist() == [2, 1] and two.class_sizes.tolist() == [3, 2]
    whole = against_corpus(counts, ref)
    assert whole.class_sizes.tolist() == [8, 2] and whole.doc_counts[t].tolist() == [3, 1]


def test_a_reference_corpus_with_no_term_in_common_or_another_vocabulary_is_refused(counts):
    with pytest.raises(TextsiftError, match="no term in common"):
        against_corpus(counts, count_reference(["nothing shared here"], counts))
    other = Counts.from_texts(["Rocket Orbit"], ["x"], VectorizerOptions(lowercase=False))
    with pytest.raises(TextsiftError, match="another vocabulary"):
        against_corpus(counts, other)


def _write(path, docs, labels):
    path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n"
                            for t, y in zip(docs, labels, strict=True)))
    return str(path)


def test_cli_reference_class_and_corpus(tmp_path):
    data = _write(tmp_path / "d.jsonl", DOCS, LABELS)
    ref = _write(tmp_path / "r.jsonl", ["rocket rocket pill", "news"], ["?", "?"])
    res = CliRunner().invoke(app, ["score", data, "--class", "space", "--reference", "med",
                                   "--method", "fisher", "--evidence", "-f", "json"])
    assert res.exit_code == 0, res.stderr
    row = {r["term"]: r for r in json.loads(res.stdout)}["rocket"]
    assert (row["A"], row["B"], row["C"], row["D"]) == (2, 1, 1, 2)
    res = CliRunner().invoke(app, ["score", data, "--reference-corpus", ref, "--method", "g2",
                                   "--evidence", "-f", "json"])
    assert res.exit_code == 0, res.stderr
    row = {r["term"]: r for r in json.loads(res.stdout)}["rocket"]
    assert (row["A"], row["B"], row["C"], row["D"]) == (3, 1, 5, 1)


@pytest.mark.parametrize("args, message", [
    (("--reference", "med"), "give the target class with --class"),
    (("--class", "space", "--reference", "space"), "is the target class"),
    (("--per-class", "--reference", "med"), "give --class instead of --per-class"),
])
def test_cli_bad_references_are_one_error_line(tmp_path, args, message):
    data = _write(tmp_path / "d.jsonl", DOCS, LABELS)
    res = CliRunner().invoke(app, ["score", data, *args])
    assert res.exit_code == 2 and message in res.stderr and res.stdout == ""
