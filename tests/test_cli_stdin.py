"""DATA ``-``: the corpus from standard input (issue 38 item 4)."""

import gzip
import io
import sys

import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.cli._data import from_stdin
from textsift.errors import TextsiftError
from textsift.reading.corpus import sample_path

SAMPLE = sample_path("20ng")
ARGS = ["--method", "chi2", "--class", "sci.space", "--top", "5", "-f", "csv"]


def _score(data, *args, stdin=None):
    res = CliRunner().invoke(app, ["score", str(data), *args], input=stdin)
    return res


@pytest.mark.parametrize("compressed", [True, False])
def test_standard_input_reads_as_the_file(compressed):
    raw = SAMPLE.read_bytes()
    piped = raw if compressed else gzip.decompress(raw)
    from_file = _score(SAMPLE, *ARGS)
    from_stdin = _score("-", *ARGS, stdin=piped)
    assert from_stdin.exit_code == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout and "space" in from_stdin.stdout


def test_a_csv_on_standard_input_with_its_options(tmp_path):
    rows = "".join(f"{t};{y}\n" for t, y in [("café au lait", "food"), ("télé", "tech"),
                                              ("café noir", "food"), ("radio", "tech")])
    data = ("text;label\n" + rows).encode("latin-1")
    res = _score("-", "--sep", ";", "--encoding", "latin-1", "--method", "chi2", "-f", "csv",
                 stdin=data)
    assert res.exit_code == 0, res.stderr
    assert "café" in res.stdout


@pytest.mark.parametrize("command, args, stdin, message", [
    ("score", ["-"], b"", "DATA - reads the corpus from standard input, and it is empty"),
    ("score", ["-", str(SAMPLE)], b"{}", "DATA - (standard input) is the whole corpus"),
    ("ordinal-eval", ["-", "--out", "run"], b"{}", "ordinal-eval keeps its corpus's path to "
     "resume the run, and standard input (-) has none"),
])
def test_bad_standard_input_is_one_error_line(tmp_path, monkeypatch, command, args, stdin,
                                               message):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, [command, *args], input=stdin)
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("error: " + message) and res.stderr.count("error:") == 1
    assert not (tmp_path / "run").exists()


def test_a_terminal_is_no_corpus(monkeypatch):
    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal(io.BytesIO(b"")))
    with pytest.raises(TextsiftError, match="none is piped: pipe it"):
        from_stdin(["-"], True, "score")
