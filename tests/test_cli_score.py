"""`textsift methods` and `textsift score`."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift import Counts, rank
from textsift.cli import app
from textsift.reading.corpus import load_sample, sample_path
from textsift.text.vectorize import VectorizerOptions

runner = CliRunner()
SAMPLE = str(sample_path("20ng"))


def invoke(*args):
    result = runner.invoke(app, list(args))
    return result


def test_methods_lists_every_core_method():
    out = invoke("methods").stdout  # not a terminal: tab-separated values
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0] == ["name", "kind", "policy", "summary"]
    for name in ("df", "acc", "acc_ratio", "prob_ratio", "odds_ratio", "odds_numerator", "f1",
                 "ig", "chi2", "bns", "mi", "dia", "am", "rc", "ig_multi", "pow"):
        assert name in [r[0] for r in rows], name


def test_score_json_shape_and_values():
    res = invoke("score", SAMPLE, "--method", "bns", "--top", "5", "--format", "json",
                 "--min-df", "2")
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [r["position"] for r in rows] == [1, 2, 3, 4, 5]
    assert set(rows[0]) == {"position", "term", "score"}
    corpus = load_sample("20ng")
    counts = Counts.from_texts(corpus.texts, corpus.labels, VectorizerOptions(min_df=2))
    expected = rank(counts, "bns", top=5)
    assert [r["term"] for r in rows] == list(expected.terms)
    np.testing.assert_allclose([r["score"] for r in rows], expected.scores, rtol=1e-12)


def test_score_class_gives_that_class_one_vs_rest():
    res = invoke("score", SAMPLE, "--method", "chi2", "--class", "sci.space", "--top", "3",
                 "-f", "json")
    assert res.exit_code == 0, res.stderr
    assert "space" in [r["term"] for r in json.loads(res.stdout)]


def test_score_rr_json_names_the_group():
    res = invoke("score", SAMPLE, "--method", "ig", "--aggregate", "rr", "--top", "20",
                 "-f", "json")
    rows = json.loads(res.stdout)
    assert len({r["group"] for r in rows}) == 20


def test_score_infinite_values_are_json_strings():
    res = invoke("score", SAMPLE, "--method", "prob_ratio", "--top", "2", "-f", "json")
    assert json.loads(res.stdout)[0]["score"] == "inf"


def test_score_all_csv_has_a_column_per_method():
    res = invoke("score", SAMPLE, "--method", "all", "--top", "3", "-f", "csv", "--min-df", "5")
    assert res.exit_code == 0, res.stderr
    df = pd.read_csv(io.StringIO(res.stdout))
    assert {"term", "chi2", "bns", "rc", "ig_multi", "am"} <= set(df.columns)
    assert len(df) >= 3


def test_score_all_for_one_class_and_rr_refused():
    res = invoke("score", SAMPLE, "--method", "all", "--class", "sci.space", "--top", "2",
                 "-f", "csv", "--min-df", "5")
    assert res.exit_code == 0, res.stderr
    df = pd.read_csv(io.StringIO(res.stdout))
    assert "space" in set(df["term"])
    res = invoke("score", SAMPLE, "--method", "all", "--aggregate", "rr", "-f", "csv")
    assert res.exit_code == 2 and "round robin gives an order" in " ".join(res.stderr.split())


def test_score_table_prints_terms():
    res = invoke("score", SAMPLE, "--method", "rc", "--top", "3")
    assert res.exit_code == 0 and "term" in res.stdout


@pytest.mark.parametrize(
    "args, message",
    [(["--method", "chi3"], "did you mean 'chi2'?"),
     (["--top", "0"], "Invalid value for '--top': must be at least 1, got 0"),
     (["--label-field", "stars"], "no field 'stars'"),
     (["--min-df", "5000"], "vocabulary is empty"),
     (["--class", "nope"], "no document has the class 'nope' (--class); the classes with "
                           "documents are alt.atheism, comp.graphics")],
)
def test_score_bad_input_exits_with_a_message(args, message):
    res = invoke("score", SAMPLE, *args)
    assert res.exit_code == 2
    assert message in " ".join(res.stderr.split())


def test_score_missing_file():
    res = invoke("score", "no/such/file.jsonl")
    assert res.exit_code == 2 and "no such file" in res.stderr


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_skip_bad_lines_counts_them_and_scores_the_rest(tmp_path, engine):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "good film", "label": "pos"}\n{"text": oops\n'
                    '{"text": "bad film", "label": "neg"}\n', encoding="utf-8")
    res = invoke("score", str(path), "-f", "json", "--engine", engine)
    assert res.exit_code == 2 and "line 2: malformed JSON" in " ".join(res.stderr.split())
    res = invoke("score", str(path), "-f", "json", "--engine", engine, "--skip-bad-lines")
    assert res.exit_code == 0, res.stderr
    assert f"skipped 1 malformed line(s) (first: {path} line 2)\n" in res.stderr
    assert {r["term"] for r in json.loads(res.stdout)} == {"good", "bad", "film"}


def test_bad_input_anywhere_in_a_command_is_one_error_line_with_exit_2():
    """A TextsiftError raised inside any command (not only where a command calls fail()) is
    printed as one `error:` line on stderr, exit code 2, no traceback."""
    import typer

    from textsift.cli._app import _Commands
    from textsift.errors import TextsiftError

    probe = typer.Typer(cls=_Commands)

    @probe.command("boom")
    def boom():
        raise TextsiftError("data.jsonl, line 3: bad thing; fix it")

    @probe.command("other")
    def other():  # a second command, so typer keeps the group
        pass

    res = runner.invoke(probe, ["boom"])
    assert res.exit_code == 2
    assert res.stderr == "error: data.jsonl, line 3: bad thing; fix it\n"
    assert "Traceback" not in res.output
