"""What a file holds and a reader used to trip on, read alike in every engine (memory,
stream, dask): a Parquet label column of pandas ``category`` dtype, a lone surrogate in a
JSON string, and a first paragraph that ``--strip-headers`` took for a mail header. The CLI
gives a result (and a ``warning:`` line where the data are probably wrong), no traceback."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.errors import DataWarning
from textsift.reading.corpus import read_corpus, strip_header
from textsift.text.vectorize import vectorize

distributed = pytest.importorskip("distributed")
runner = CliRunner()
ENGINES = ["memory", "stream", "dask"]


def count(path, engine, client, **kw):
    extra = {"client": client, "chunk_size": 2} if engine == "dask" else (
        {"chunk_size": 2} if engine == "stream" else {})
    return count_file(path, engine=engine, **extra, **kw)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_category_column_is_its_values(tmp_path, client, engine):
    # what df.to_parquet() writes for a categorical column: a dictionary-encoded column that
    # pandas reads back as dtype category (it was "not enough values to unpack")
    texts = ["good film great", "bad film awful"] * 5
    frame = pd.DataFrame({"text": pd.Categorical(texts),
                          "label": pd.Categorical(["pos", "neg"] * 5)})
    frame.to_parquet(tmp_path / "c.parquet")
    assert isinstance(pd.read_parquet(tmp_path / "c.parquet")["label"].dtype,
                      pd.CategoricalDtype)
    expected = Counts.from_texts(texts, ["pos", "neg"] * 5)
    assert count(tmp_path / "c.parquet", engine, client).equals(expected)
    stars = frame.assign(label=pd.Categorical([1, 5] * 5))  # numeric categories: numbers
    stars.to_parquet(tmp_path / "s.parquet")
    assert count(tmp_path / "s.parquet", engine, client).classes.tolist() == [1, 5]


def test_a_parquet_category_column_in_the_cli(tmp_path):
    pd.DataFrame({"text": ["good film great", "bad film awful"] * 5,
                  "label": pd.Categorical(["pos", "neg"] * 5)}).to_parquet(tmp_path / "c.parquet")
    res = runner.invoke(app, ["score", str(tmp_path / "c.parquet"), "--top", "2", "-f", "csv"])
    assert res.exit_code == 0 and res.stdout.splitlines() == [
        "position,term,score", "1,awful,10.0", "2,bad,10.0"]  # chi2 = N = 10 for the pure terms


@pytest.mark.parametrize("engine", ENGINES)
def test_a_lone_surrogate_in_json_is_read_as_the_replacement_character(tmp_path, client,
                                                                      engine):
    # "\ud800" is valid JSON and no character; UTF-8 (Parquet, Arrow, the file) cannot hold
    # it: read as U+FFFD, with a warning naming the line; a surrogate pair is one character
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "ab\\ud800cd ok", "label": "x"}\n'
                    '{"text": "fine \\ud83d\\ude00 text", "label": "y"}\n')
    with pytest.warns(DataWarning, match=r"s.jsonl: 1 line\(s\) hold a lone surrogate, a "
                                         r"JSON escape such as \\ud800 .* \(the first at line "
                                         r"1\); each is read as U\+FFFD"):
        counts = count(path, engine, client)
        texts = read_corpus(path).texts
    assert texts == ["ab\ufffdcd ok", "fine \U0001f600 text"]
    assert counts.equals(Counts.from_texts(texts, ["x", "y"]))
    assert counts.feature_names.tolist() == ["ab", "cd", "fine", "ok", "text"]


def test_a_lone_surrogate_in_the_cli_is_a_warning_line_not_a_traceback(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "ab\\ud800cd ok", "label": "x"}\n'
                    '{"text": "fine text", "label": "y"}\n')
    res = runner.invoke(app, ["score", str(path), "-f", "csv"])
    assert res.exit_code == 0 and res.stdout.splitlines()[0] == "position,term,score"
    assert [line[:40] for line in res.stderr.splitlines()] == [
        f"warning: {path}: 1 line(s) hold a lone surrogate"[:40]]


def test_strip_headers_drops_only_a_header():
    # the first block is a header only when its lines are header fields (Name: value) or
    # their continuations; a first paragraph of text is kept
    assert strip_header("great movie loved it\n\nsecond para") == (
        "great movie loved it\n\nsecond para")
    assert strip_header("From: a@b.c\nSubject: Re: x\n  continued\n\nbody") == "body"
    assert strip_header(" cs.utexas.edu!uunet\nSubject: y\n\nbody") == "body"  # a folded Path:
    assert strip_header("Subject: y\n\nbody") == "body"
    assert strip_header("no blank line at all") == "no blank line at all"
    X, names, _ = vectorize(["great movie loved it\n\nsecond para", "From: a\n\nthird para"],
                            strip_headers=True)
    assert names.tolist() == ["great", "it", "loved", "movie", "para", "second", "third"]
    assert np.asarray(X.sum(axis=0)).ravel().tolist() == [1, 1, 1, 1, 2, 1, 1]


def test_strip_headers_keeps_every_20news_header_dropped(real_data):
    """On 20 Newsgroups (bydate, 18,846 messages) the rule drops the first block of every
    message, as scikit-learn's remove=("headers",) does."""
    import gzip

    kept = []
    for part in ("train", "test"):
        with gzip.open(real_data / "20newsgroups" / f"{part}.jsonl.gz", "rt") as fh:
            for line in fh:
                text = json.loads(line)["text"]
                _, blank, after = text.partition("\n\n")
                if blank and strip_header(text) == text:
                    kept.append(text[:60])
    assert kept == []


def test_a_csv_file_separated_by_semicolons_says_how_to_convert_it(tmp_path):
    """``text;label`` is one field to a CSV reader; the error said only "fields
    ['text;label']". It names the separator and the conversion now (textsift does not guess
    a separator: a comma inside a text would make another guess wrong)."""
    (tmp_path / "semi.csv").write_text("text;label\ngood film;a\nbad film;b\n")
    res = CliRunner().invoke(app, ["score", str(tmp_path / "semi.csv")])
    assert res.exit_code == 2 and res.stderr.splitlines() == [
        f"error: {tmp_path / 'semi.csv'}: no field 'text' (the text field); the records have "
        "the fields ['text;label']. The file looks separated by ';'; textsift reads "
        "comma-separated .csv and tab-separated .tsv files: convert it, e.g. pandas.read_csv("
        f"'{tmp_path / 'semi.csv'}', sep=';').to_csv('comma.csv', index=False)"]
