"""The bad input of keyness, each at the command line as one ``error:`` line that names the
fix (exit 2, nothing on stdout): a group field with one value, a target or a reference not
among the groups, an encoding that does not decode. The same inputs from Python -- and a
DataFrame without the named column, a reference frequency list with negative or
non-numeric counts -- are refused in ``test_keyness.py``, ``test_corpus_tables.py`` and
``test_experiment_tables.py``; standard input with nothing on it in ``test_cli_stdin.py``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from textsift.cli import app


def _jsonl(path, labels):
    texts = ["apple pear", "pear kiwi", "kiwi plum", "plum apple"]
    path.write_text("".join(json.dumps({"text": t, "label": lb}) + "\n"
                            for t, lb in zip(texts, labels, strict=True)), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("labels, args, message", [
    (["x"] * 4, ["--evidence"],
     "per-class scoring needs at least two classes with documents; got only one class "
     "(['x']). Check the label field."),
    (["x", "x", "y", "y"], ["--class", "z", "--evidence"],
     "no document has the class 'z' (--class); the classes with documents are x, y. Choose "
     "one of them"),
    (["x", "x", "y", "y"], ["--class", "x", "--reference", "z", "--evidence"],
     "the reference class 'z' is not a class of the counts; the classes are x, y: choose "
     "one of them"),
])
def test_bad_groups_are_one_error_line_naming_the_fix(tmp_path, labels, args, message):
    data = _jsonl(tmp_path / "d.jsonl", labels)
    res = CliRunner().invoke(app, ["score", data, "--method", "g2", *args])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    assert res.stderr.count("error:") == 1 and res.stderr.strip().count("\n") == 0
    assert message in res.stderr, res.stderr


@pytest.mark.parametrize("encoding, message", [
    (None, "line 2: undecodable bytes (not UTF-8); give the file's encoding (--encoding, "
     "e.g. latin-1)"),
    ("utf-16", "undecodable bytes (not utf-16)"),
    ("klingon", "unknown encoding 'klingon'"),
])
def test_an_encoding_that_does_not_decode_is_one_error_line(tmp_path, encoding, message):
    path = tmp_path / "c.csv"
    path.write_bytes("text;label\ncaf\xe9 au lait;food\nthe tea;drink\n".encode("latin-1"))
    extra = [] if encoding is None else ["--encoding", encoding]
    res = CliRunner().invoke(app, ["score", str(path), "--sep", ";", "--method", "g2",
                                   "--evidence", "--class", "food", *extra])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    assert res.stderr.startswith("error: ") and res.stderr.count("error:") == 1
    assert res.stderr.strip().count("\n") == 0
    assert message in res.stderr, res.stderr
