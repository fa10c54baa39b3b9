"""A table in memory as a corpus: ``read_corpus`` and ``count_file`` of a pandas or Polars
DataFrame read its rows as a file's records, with the same checks (issue 38 item 4)."""

import json

import numpy as np
import pandas as pd
import polars as pl
import pytest

from textsift.engines import count_file
from textsift.errors import CorpusError, TextsiftError
from textsift.reading.corpus import load_sample, read_corpus


@pytest.fixture(scope="module")
def table():
    sample = load_sample("20ng")
    n = len(sample.texts)
    return pd.DataFrame({"text": sample.texts, "label": sample.labels,
                         "split": np.where(np.arange(n) % 4 == 0, "test", "train")})


@pytest.fixture(scope="module")
def file(table, tmp_path_factory):
    path = tmp_path_factory.mktemp("tables") / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in table.to_dict("records")))
    return path


@pytest.mark.parametrize("convert", [lambda f: f, pl.from_pandas])
def test_a_dataframe_reads_as_the_file_of_its_rows(table, file, convert):
    got = read_corpus(convert(table), split="test")
    expected = read_corpus(file, split="test")
    assert got.texts == expected.texts
    assert got.labels.tolist() == expected.labels.tolist()
    assert count_file(convert(table), engine="memory").equals(count_file(file, engine="memory"))


@pytest.mark.parametrize("call, error, message", [
    (lambda t: read_corpus(t.rename(columns={"text": "body"})), CorpusError,
     "the DataFrame: no field 'text' (the text field); the records have the fields ['body'"),
    (lambda t: read_corpus(t, split="dev"), CorpusError,
     "no record has split = 'dev' (an empty split); the values of 'split' are 'test', "
     "'train'"),
    (lambda t: read_corpus(t.assign(text=[1] * len(t))), CorpusError,
     "the DataFrame, row 0: the text field 'text' holds"),
    (lambda t: read_corpus(t, encoding="latin-1"), CorpusError,
     "--encoding and --sep are for files"),
    (lambda t: count_file(t, engine="stream"), TextsiftError,
     "a DataFrame is in memory already: count it with engine='memory'"),
])
def test_a_bad_table_names_the_fix(table, call, error, message):
    with pytest.raises(error) as info:
        call(table)
    assert message in str(info.value), str(info.value)
