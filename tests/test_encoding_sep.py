"""``--encoding`` and ``--sep``: corpora in another encoding than UTF-8, CSV files separated
by another character (issue 38 item 4). Read in every engine and in experiments alike."""

import gzip
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.engines import count_file
from textsift.errors import CorpusError
from textsift.reading.corpus import read_corpus

ROWS = [("café crème et thé", "food"), ("télé à écran plat", "tech"),
        ("crème brûlée, café", "food"), ("ordinateur et télé", "tech"),
        ("naïve façade; déjà vu", "other")]


@pytest.fixture()
def files(tmp_path):
    """The same records as UTF-8 JSON Lines (the reference), Latin-1 CSV separated by ';',
    cp1252 gzipped JSON Lines and UTF-16 JSON Lines."""
    out = {}
    utf8 = tmp_path / "utf8.jsonl"
    utf8.write_text("".join(json.dumps({"text": t, "label": y}, ensure_ascii=False) + "\n"
                            for t, y in ROWS), encoding="utf-8")
    out["utf8"] = (utf8, {})
    csv = tmp_path / "latin1.csv"
    csv.write_bytes(("text;label\n" + "".join(f'"{t}";{y}\n' for t, y in ROWS))
                    .encode("latin-1"))
    out["latin1"] = (csv, {"encoding": "latin-1", "sep": ";"})
    cp = tmp_path / "cp1252.jsonl.gz"
    with gzip.open(cp, "wb") as f:
        f.write("".join(json.dumps({"text": t, "label": y}, ensure_ascii=False) + "\n"
                        for t, y in ROWS).encode("cp1252"))
    out["cp1252"] = (cp, {"encoding": "cp1252"})
    u16 = tmp_path / "utf16.jsonl"
    u16.write_text("".join(json.dumps({"text": t, "label": y}, ensure_ascii=False) + "\n"
                           for t, y in ROWS), encoding="utf-16")
    out["utf16"] = (u16, {"encoding": "utf-16"})
    return out


@pytest.mark.parametrize("name", ["latin1", "cp1252", "utf16"])
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_a_corpus_in_another_encoding_reads_as_its_utf8_twin(files, name, engine):
    path, kw = files[name]
    reference = count_file(files["utf8"][0], engine=engine)
    got = count_file(path, engine=engine, chunk_size=2 if engine == "stream" else None, **kw)
    assert got.equals(reference)
    assert "café" in set(got.feature_names) and "déjà" in set(got.feature_names)
    texts = read_corpus(path, **kw).texts
    assert list(texts) == [t for t, _ in ROWS]


def test_the_command_line_reads_them(files):
    path, _ = files["latin1"]
    res = CliRunner().invoke(app, ["score", str(path), "--encoding", "latin-1", "--sep", ";",
                                   "--method", "chi2", "--class", "food", "-f", "json"])
    assert res.exit_code == 0, res.stderr
    assert {"café", "crème"} <= {r["term"] for r in json.loads(res.stdout)}


@pytest.mark.parametrize("name, kw, message", [
    ("latin1", {"sep": ";"}, "line 2: undecodable bytes (not UTF-8); give the file's "
     "encoding (--encoding, e.g. latin-1)"),
    ("cp1252", {"encoding": "ascii"}, "undecodable bytes (not ascii"),
    ("utf16", {}, "the file is encoded as UTF-16; textsift reads UTF-8 unless told: give "
     "--encoding utf-16"),
    ("latin1", {"encoding": "utf-16", "sep": ";"}, "undecodable bytes (not utf-16)"),
    ("cp1252", {"encoding": "utf-16"}, "do not decode as utf-16"),
    ("utf8", {"sep": ";"}, "--sep separates the fields of a CSV file, and this is a JSON "
     "Lines file; drop --sep"),
    ("utf8", {"encoding": "klingon"}, "unknown encoding 'klingon'"),
    ("latin1", {"encoding": "latin-1", "sep": ";;"}, "must be one character"),
])
def test_an_encoding_that_does_not_decode_or_a_misplaced_option_names_the_fix(
        files, name, kw, message):
    path, _ = files[name]
    with pytest.raises(CorpusError) as info:
        read_corpus(path, **kw)
    assert message in str(info.value), str(info.value)


def test_encoding_is_refused_for_parquet(tmp_path):
    import pandas as pd

    path = tmp_path / "c.parquet"
    pd.DataFrame({"text": ["a b", "c d"], "label": ["x", "y"]}).to_parquet(path)
    with pytest.raises(CorpusError, match="Parquet stores UTF-8; drop --encoding"):
        read_corpus(path, encoding="latin-1")


def test_an_experiment_reads_its_corpus_with_them(files, tmp_path):
    from textsift.experiment.config import parse_config
    from textsift.experiment.folds import read_documents

    path, _ = files["latin1"]
    table = {"corpus": {"path": str(path), "encoding": "latin-1", "sep": ";"},
             "selection": {"methods": ["chi2"], "sizes": [2]},
             "learners": [{"name": "nb"}],
             "evaluation": {"protocol": "cv", "folds": 2, "stratified": False}}
    exp = parse_config(table, tmp_path)
    assert (exp.corpus.encoding, exp.corpus.sep) == ("latin-1", ";")
    docs = read_documents(exp)
    assert "café crème et thé" in list(docs[0])
    bad = {**table, "corpus": {**table["corpus"], "encoding": "klingon"}}
    from textsift.experiment._keys import ConfigError

    with pytest.raises(ConfigError, match=r"\[corpus\] unknown encoding 'klingon'"):
        parse_config(bad, tmp_path)


def test_counts_do_not_depend_on_the_chunks(files):
    path, kw = files["utf16"]
    a = count_file(path, engine="stream", chunk_size=1, **kw)
    b = count_file(path, engine="memory", **kw)
    np.testing.assert_array_equal(a.df, b.df)
