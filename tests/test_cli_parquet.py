"""``--format parquet``: the results as one Parquet file on stdout (issue 38 item 5)."""

import io
import json
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.cli._output import write_parquet
from textsift.errors import TextsiftError
from textsift.reading.corpus import sample_path

SAMPLE = str(sample_path("20ng"))


def _run(*args):
    res = CliRunner().invoke(app, [*args])
    assert res.exit_code == 0, res.stderr
    return res


def _parquet(res) -> pd.DataFrame:
    return pq.read_table(io.BytesIO(res.stdout_bytes)).to_pandas()


def test_parquet_holds_what_json_prints_typed():
    """The evidence of one ranking: the same rows and values as --format json, counts as
    integers, infinite effects as infinities (JSON's strings "inf")."""
    args = ["score", SAMPLE, "--min-df", "3", "--method", "g2", "--class", "sci.space",
            "--evidence", "--top", "15"]
    frame = _parquet(_run(*args, "-f", "parquet"))
    rows = pd.DataFrame(json.loads(_run(*args, "-f", "json").stdout))
    assert list(frame.columns) == list(rows.columns)
    assert frame["A"].dtype == np.int64 and frame["position"].tolist() == list(range(1, 16))
    for column in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[column]):
            expected = rows[column].replace({"inf": np.inf, "-inf": -np.inf}).astype(float)
            np.testing.assert_array_equal(frame[column].to_numpy(float), expected.to_numpy(),
                                          err_msg=column)
        else:
            assert frame[column].tolist() == rows[column].tolist(), column
    assert np.isinf(frame["log_ratio"]).any()  # prb: in no post of the rest


def test_per_class_parquet_is_one_row_per_class_and_position():
    frame = _parquet(_run("score", SAMPLE, "--min-df", "3", "--method", "chi2", "--per-class",
                          "--top", "3", "-f", "parquet"))
    assert list(frame.columns) == ["class", "position", "term", "score"]
    assert len(frame) == 20 * 3 and frame["score"].dtype == np.float64


def test_methods_as_parquet():
    frame = _parquet(_run("methods", "-f", "parquet"))
    assert {"chi2", "g2", "bns"} <= set(frame["name"])


def test_a_column_of_numbers_and_text_is_written_as_text(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO())
    monkeypatch.setattr(sys, "stdout", out)
    write_parquet(["group", "score"], [(4, 1.5), ("neutral", float("inf")), (None, 2.0)])
    out.flush()
    table = pq.read_table(io.BytesIO(out.buffer.getvalue()))
    assert table.column("group").to_pylist() == ["4", "neutral", None]
    assert table.column("score").to_pylist() == [1.5, float("inf"), 2.0]


def test_parquet_on_a_terminal_is_refused(monkeypatch):
    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdout", Terminal(io.BytesIO()))
    with pytest.raises(TextsiftError, match="binary data: redirect stdout to a file"):
        write_parquet(["a"], [(1,)])
