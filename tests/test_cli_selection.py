"""The command line as people expect it (issue 20, item 6): -k selects in every command that
selects, with one rule for a k above the vocabulary (a note, every term kept: as a TOML's
sizes, tests/test_experiment_runner.py); compute() of a list says to use compute_many; TSV when
stdout is not a terminal, whole terms in --format table at 80 columns; help re-flowed with no
type placeholder after a flag; score --per-class."""

import csv
import io
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.cli._app import reflow
from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.reading.corpus import load_sample, sample_path
from textsift.scores import compute
from textsift.selection.ranking import rank

runner = CliRunner()
NEWS = str(sample_path("20ng"))
REVIEWS = [str(sample_path("reviews")), "--label-field", "rating"]


def invoke(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


def tsv(stdout: str) -> list[list[str]]:
    return [line.split("\t") for line in stdout.splitlines()]


@pytest.fixture(scope="module")
def news_counts():
    sample = load_sample("20ng")
    return Counts.from_texts(sample.texts, sample.labels)


@pytest.mark.parametrize("command", [["score", NEWS], ["ordinal", *REVIEWS]])
def test_k_selects_and_stderr_says_how_many(command):
    res = invoke(*command, "-k", 7)
    assert res.exit_code == 0, res.output
    rows = tsv(res.stdout)
    assert rows[0][:3] == ["position", "term", "score"] and len(rows) == 1 + 7
    assert "7 terms selected of " in res.stderr


# the vocabularies: every word of the 20 Newsgroups sample; the reviews sample's words of at
# least 5 reviews (ordinal's default --min-df 5)
@pytest.mark.parametrize("command, vocabulary", [(["score", NEWS], 42_214),
                                                 (["ordinal", *REVIEWS], 1_960)])
def test_a_k_above_the_vocabulary_is_one_note_and_keeps_every_term(command, vocabulary):
    """The rule of a TOML's sizes: a note (one line, whatever the width), every term kept."""
    res = invoke(*command, "-k", 10_000_000, env={"COLUMNS": "60"})
    assert res.exit_code == 0, res.output
    assert len(tsv(res.stdout)) == 1 + vocabulary
    notes = [line for line in res.stderr.splitlines() if line.startswith("note:")]
    assert notes == [f"note: -k 10,000,000 is larger than the vocabulary ({vocabulary:,} "
                     'terms); it keeps every term, as "all" does']
    assert f"{vocabulary:,} terms selected of {vocabulary:,}" in res.stderr


def test_score_k_is_the_first_k_of_the_ranking(news_counts):
    res = invoke("score", NEWS, "--method", "bns", "-k", 12, "--format", "json")
    assert res.exit_code == 0, res.output
    expected = rank(news_counts, "bns", top=12)
    assert [r["term"] for r in json.loads(res.stdout)] == list(expected.terms)


def test_compute_of_a_list_points_to_compute_many(news_counts):
    with pytest.raises(TextsiftError, match=r"one method, got 2: chi2, ig; for several, "
                       r"compute_many\(counts, methods\)"):
        compute(news_counts, ["chi2", "ig"])


def test_tables_are_tab_separated_when_stdout_is_not_a_terminal():
    res = invoke("score", NEWS, "--top", 3)  # CliRunner's stdout is not a terminal
    assert res.exit_code == 0, res.output
    rows = tsv(res.stdout)
    assert rows[0] == ["position", "term", "score"] and [r[0] for r in rows[1:]] == [
        "1", "2", "3"]
    assert not any(ch in res.stdout for ch in "┃│━─")  # no box drawing


def test_a_table_at_80_columns_keeps_every_term_whole(tmp_path):
    long = ["internationalisation" * 3, "counterrevolutionaries" * 2, "electroencephalograph"]
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps({"text": f"{long[i % 3]} word{i}", "label": "ab"[i % 2]})
                            + "\n" for i in range(12)))
    res = invoke("score", path, "--method", "all", "--format", "table", env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    for term in long:
        assert term in res.stdout, term  # whole, never "inter..." or "t..."
    assert "…" not in res.stdout


def test_help_is_reflowed_and_flags_show_no_type():
    res = invoke("score", "-h", env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    # two lines of the docstring, one line of help at 200 columns: the hard break is gone
    assert any("the first k of the ranking (all of them, with a note, when k is larger than "
               "the vocabulary)" in line for line in res.stdout.splitlines())
    for placeholder in ("<bool>", "BOOLEAN", "<boolean>"):
        assert placeholder not in res.stdout
    flags = [line for line in res.stdout.splitlines() if "--per-class" in line or " -h" in line]
    assert flags and not any("<" in line for line in flags), flags


def test_reflow_joins_the_lines_of_a_paragraph_and_keeps_verbatim_ones():
    assert reflow("One\n    two.\n\n    \bkept\n    as is") == "One two.\n\n\bkept\nas is"
    assert reflow(None) is None


def test_per_class_puts_each_class_top_terms_side_by_side(news_counts):
    res = invoke("score", NEWS, "--per-class", "--top", 4)
    assert res.exit_code == 0, res.output
    rows = tsv(res.stdout)
    assert rows[0] == ["position", *map(str, news_counts.classes)] and len(rows) == 1 + 4
    for j, label in enumerate(news_counts.classes, 1):
        own = rank(news_counts, "chi2", class_label=label, top=4)
        assert [r[j] for r in rows[1:]] == list(own.terms), label
    res = invoke("score", NEWS, "--per-class", "--top", 2, "--format", "csv")
    records = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(records) == 2 * news_counts.n_classes
    first = rank(news_counts, "chi2", class_label=news_counts.classes[0], top=1)
    assert records[0]["term"] == first.terms[0]
    np.testing.assert_allclose(float(records[0]["score"]), first.scores[0], rtol=1e-12)


def test_per_class_with_k_is_one_error_line():
    res = invoke("score", NEWS, "--per-class", "-k", 5)
    assert res.exit_code == 2
    assert res.stderr.splitlines() == ["error: -k selects the terms of one ranking; --per-class "
                                       "prints one ranking per class: drop -k, and give --top "
                                       "to print more terms"]
