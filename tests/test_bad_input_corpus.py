"""Bad corpora: every engine (memory, stream, dask) reads the same sources and refuses the same
bad input with the same error, naming the file (and line or record) and the fix; the CLI
prints it as one `error:` line, exit code 2, no traceback."""

import codecs
import gzip
import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.errors import CorpusError, DataWarning, TextsiftError
from textsift.reading.corpus import read_corpus

distributed = pytest.importorskip("distributed")
runner = CliRunner()
ENGINES = ["memory", "stream", "dask"]


def count(path, engine, client, **kw):
    """count_file with a small chunk size (several chunks per file) on every engine."""
    extra = {"client": client} if engine == "dask" else {}
    if engine != "memory":
        extra["chunk_size"] = 2
    return count_file(path, engine=engine, **extra, **kw)


def jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


RECORDS = [{"text": f"alpha beta term{i}", "label": "ab"[i % 2]} for i in range(40)]
TWO = [{"text": "alpha beta", "label": "a"}, {"text": "gamma delta", "label": "b"}]


def _truncated(d):
    blob = gzip.compress(jsonl(RECORDS * 5))
    (d / "c.jsonl.gz").write_bytes(blob[: len(blob) // 2])
    return d / "c.jsonl.gz"


def _corrupt_gzip(d):
    blob = bytearray(gzip.compress(jsonl(RECORDS)))
    blob[-6] ^= 0xFF  # the stored length: the data decompresses, the check at its end fails
    (d / "c.jsonl.gz").write_bytes(bytes(blob))
    return d / "c.jsonl.gz"


def _write(name, data):
    def make(d):
        (d / name).write_bytes(data)
        return d / name
    return make


def _parquet(cut):
    def make(d):
        pd.DataFrame(RECORDS).to_parquet(d / "c.parquet")
        blob = (d / "c.parquet").read_bytes()
        (d / "c.parquet").write_bytes(blob[: len(blob) // 2] if cut else b"PAR1 not parquet")
        return d / "c.parquet"
    return make


def _link(name, target):
    def make(d):
        (d / name).symlink_to(target)
        return d / name
    return make


def _files(files):
    def make(d):
        for name, data in files.items():
            (d / name).parent.mkdir(exist_ok=True)
            (d / name).write_bytes(data)
        return d
    return make


CASES = {
    "truncated gzip": (_truncated, r"c\.jsonl\.gz: the gzip stream ends early.*truncated"),
    "corrupt gzip": (_corrupt_gzip, r"c\.jsonl\.gz: corrupt gzip data \(CRC check failed"),
    "plain text named .jsonl.gz": (_write("c.jsonl.gz", jsonl(RECORDS)),
                                   r"c\.jsonl\.gz: not a gzip file.*drop the \.gz"),
    "plain text named .csv.gz": (_write("c.csv.gz", b"text,label\na b,x\n"),
                                 r"c\.csv\.gz: not a gzip file"),
    "UTF-16 JSONL": (_write("c.jsonl", jsonl(TWO).decode().encode("utf-16")),
                     r"c\.jsonl: the file is encoded as UTF-16.*iconv"),
    "UTF-16 without BOM": (_write("c.jsonl", jsonl(TWO).decode().encode("utf-16-le")),
                           r"c\.jsonl: the file is encoded as UTF-16 or UTF-32"),
    "UTF-16 CSV": (_write("c.csv", "text,label\nalpha beta,a\n".encode("utf-16")),
                   r"c\.csv: the file is encoded as UTF-16"),
    "Latin-1 JSONL": (_write("c.jsonl", jsonl(TWO) + '{"text": "caf\xe9", "label": "a"}\n'
                             .encode("latin-1")), r"c\.jsonl, line 3: undecodable bytes"),
    "Latin-1 CSV": (_write("c.csv", "text,label\nalpha beta,a\ncaf\xe9 bar,b\n"
                           .encode("latin-1")), r"c\.csv, line 3: undecodable bytes.*UTF-8"),
    "malformed JSON line": (_write("c.jsonl", jsonl(TWO) + b'{"text": oops\n'),
                            r"c\.jsonl, line 3: malformed JSON"),
    "CSV that does not parse": (_write("c.csv", b'text,label\n"open quote,a\nb c,b\n'),
                                r"c\.csv: not valid CSV.*quoting"),
    "empty CSV": (_write("c.csv", b""), r"c\.csv: the file is empty \(no header line\)"),
    "corrupt Parquet": (_parquet(cut=False), r"c\.parquet: not a readable Parquet file"),
    "truncated Parquet": (_parquet(cut=True), r"c\.parquet: not a readable Parquet file"),
    "mixed label types": (_write("c.jsonl", jsonl([{"text": "alpha", "label": 1},
                                                   {"text": "beta", "label": "b"}])),
                          r"c\.jsonl: the label 'label' mixes types: the number 1 at line 1, "
                          r"the string 'b' at line 2"),
    "mixed label types across chunks": (
        _write("c.jsonl", jsonl([{"text": "alpha", "label": 1}] * 2
                                + [{"text": "beta", "label": "b"}] * 2)),
        r"the label 'label' mixes types.*number.*line 1.*string.*line 3"),
    "mixed label types across files": (
        _files({"a.jsonl": jsonl([{"text": "alpha", "label": 1}]),
                "b.jsonl": jsonl([{"text": "beta", "label": "b"}])}),
        r"the label 'label' mixes types: a number at .*a\.jsonl.*a string at .*b\.jsonl"),
    "a CSV file beside a file of numbers": (  # CSV labels are strings
        _files({"a.csv": b"text,label\nalpha,1\nbeta,2\n",
                "b.jsonl": jsonl([{"text": "gamma", "label": 1}])}),
        r"the label 'label' mixes types: a string at .*a\.csv(, record 1)?, a number at "
        r".*b\.jsonl(, line 1)?\. .*; a CSV file's labels are strings \(01 and 1 are two "
        r"classes\): write the other files' labels as strings too, or, for ratings, use an "
        r"ordinal method"),
    "label list holding numbers": (
        _write("c.jsonl", jsonl([{"text": "alpha", "label": [1, 2]}])),
        r"c\.jsonl, line 1: the label 'label' is the list \[1, 2\], which holds the number 1; "
        r"the labels in a list are strings"),
    "label that is an object": (_write("c.jsonl", jsonl(TWO + [{"text": "x y", "label": {}}])),
                                r"c\.jsonl, line 3: the label 'label' is the object \{\}"),
    "missing label": (_write("c.jsonl", jsonl(TWO + [{"text": "x y"}])),
                      r"c\.jsonl, line 3: the record has no label \('label' is missing"),
    "text that is a number": (_write("c.jsonl", jsonl(TWO + [{"text": 3, "label": "a"}])),
                              r"c\.jsonl, line 3: the text field 'text' holds the number 3, "
                              r"not a string.*--text-field"),
    "text that is a list": (_write("c.jsonl", jsonl([{"text": ["a"], "label": "a"}])),
                            r"c\.jsonl, line 1: the text field 'text' holds the list"),
    "no such text field": (_write("c.jsonl", jsonl([{"body": "alpha", "label": "a"}])),
                           r"c\.jsonl: no field 'text' \(the text field\); the records have "
                           r"the fields \['body', 'label'\].*--text-field"),
    "empty file": (_write("c.jsonl", b"\n\n"), r"c\.jsonl: the corpus is empty"),
    "directory mixing data and other files": (
        _files({"a.jsonl": jsonl(TWO), "notes.txt": b"x", "logo.png": b"\x89PNG"}),
        r"the directory mixes data files \(a\.jsonl\) with files textsift cannot read "
        r"\(logo\.png, notes\.txt\)"),
    "directory without data files": (_files({"notes.txt": b"x", "logo.png": b"\x89PNG"}),
                                     r"no data file in this directory"),
    "data files one level down": (_files({"2024/a.jsonl": jsonl(TWO)}),
                                  r"no data file directly in this directory, but its "
                                  r"subdirectories hold some \(a\.jsonl\); name them with a "
                                  r"quoted glob such as '.*/\*/\*\.jsonl'"),
    "unknown file type": (_write("c.xlsx", b"x"), r"c\.xlsx: unknown file type"),
    # each record read as one line, "malformed JSON (Extra data)" before: say CR and convert
    "CR line endings": (_write("c.jsonl", jsonl(TWO).replace(b"\n", b"\r")),
                        r"c\.jsonl, line 1: the file ends its lines with CR alone \(old Mac "
                        r"line endings\).*Convert the line endings, e\.g\. tr '\\r' '\\n' < "
                        r".*c\.jsonl > fixed\.jsonl$"),
    "CR line endings, gzipped": (_write("c.jsonl.gz", gzip.compress(
        jsonl(TWO).replace(b"\n", b"\r"))), r"c\.jsonl\.gz, line 1: the file ends its lines "
        r"with CR alone.*gunzip -c .*c\.jsonl\.gz \| tr '\\r' '\\n' \| gzip > fixed"),
    # "no such file or directory" before, for a path that is there
    "symbolic link loop": (_link("c.jsonl", "c.jsonl"),
                           r"c\.jsonl: a loop of symbolic links \(.*c\.jsonl -> c\.jsonl leads "
                           r"back to itself\); point the link at the data file"),
    "dangling symbolic link": (_link("c.jsonl", "gone.jsonl"),
                               r"c\.jsonl: a symbolic link to gone\.jsonl, which does not "
                               r"exist; point the link at the data file"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", list(CASES))
def test_every_engine_refuses_bad_input_alike(tmp_path, client, case, engine):
    make, message = CASES[case]
    path = make(tmp_path)
    with pytest.raises(CorpusError, match=message):
        count(path, engine, client)


@pytest.mark.parametrize("case", ["truncated gzip", "UTF-16 JSONL", "corrupt Parquet"])
def test_skipping_bad_lines_does_not_hide_a_broken_file(tmp_path, case):
    # a truncated stream or a wrong encoding is not a bad line: skipping would drop the rest
    make, message = CASES[case]
    with pytest.raises(CorpusError, match=message):
        read_corpus(make(tmp_path), on_bad_line="skip", bad_lines=[])


@pytest.mark.parametrize("case", list(CASES))
def test_cli_prints_one_error_line_with_exit_code_2(tmp_path, case):
    make, message = CASES[case]
    path = make(tmp_path)
    for engine in ("memory", "stream"):
        res = runner.invoke(app, ["score", str(path), "--engine", engine])
        assert res.exit_code == 2, (engine, res.output)
        assert res.stdout == ""
        assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, res.stderr
        assert "Traceback" not in res.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_missing_text_is_an_empty_document(tmp_path, client, engine):
    # the documented rule: null, an absent key or an empty CSV cell is a document without terms
    path = tmp_path / "c.jsonl"
    path.write_bytes(jsonl([{"text": None, "label": "a"}, {"label": "b"},
                            {"text": "alpha beta", "label": "a"}, {"text": "beta", "label": "b"}]))
    expected = Counts.from_texts(["", "", "alpha beta", "beta"], ["a", "b", "a", "b"])
    assert count(path, engine, client).equals(expected)


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_labels_are_the_strings_written_unless_they_must_be_ranks(tmp_path, client, engine):
    # CSV has no types: its labels are strings, in every chunk alike -- 01 and 1 are two
    # classes (said in a warning), 1 and b one type; as ranks (the ordinal methods) they are
    # numbers, 01 the rank 1
    path = tmp_path / "c.csv"
    path.write_text("text,label\nalpha beta,01\ngamma,1\nbeta,10\ndelta,2\nomega,b\n")
    with pytest.warns(DataWarning, match=r"c.csv: labels that write the same number count as "
                                         r"different classes: '01' and '1'\. Labels are the "
                                         r"strings written"):
        counts = count(path, engine, client)
        labels = read_corpus(path).labels
    assert counts.classes.tolist() == list(labels) == ["01", "1", "10", "2", "b"]
    path.write_text("text,label\nalpha beta,01\ngamma,1\nbeta,10\ndelta, 2\n")
    ranks = count(path, engine, client, ranks=True)
    assert ranks.classes.tolist() == [1, 2, 10] and ranks.class_sizes.tolist() == [2, 1, 1]
    assert list(read_corpus(path, ranks=True).labels) == [1, 1, 10, 2]


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    (tmp_path / "c.jsonl").write_bytes(codecs.BOM_UTF8 + jsonl(TWO))
    (tmp_path / "c.csv").write_bytes(codecs.BOM_UTF8 + b"text,label\nalpha beta,a\ngamma,b\n")
    for name in ("c.jsonl", "c.csv"):
        assert read_corpus(tmp_path / name).texts == ["alpha beta", "gamma" if "csv" in name
                                                      else "gamma delta"]


@pytest.mark.parametrize("engine", ENGINES)
def test_file_directory_and_glob_mean_the_same_in_every_engine(tmp_path, client, engine):
    # the engine contract: one file, a directory of data files, a quoted glob
    recs = [{"text": f"w{i % 5} shared tok{i % 3}", "label": "xyz"[i % 3]} for i in range(30)]
    (tmp_path / "all.jsonl").write_bytes(jsonl(recs))
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.jsonl").write_bytes(jsonl(recs[:10]))
    with gzip.open(shards / "b.jsonl.gz", "wb") as fh:
        fh.write(jsonl(recs[10:25]))
    pd.DataFrame(recs[25:]).to_parquet(shards / "c.parquet")
    (shards / ".hidden").write_text("ignored")
    expected = Counts.from_texts([r["text"] for r in recs], [r["label"] for r in recs])
    for source in (tmp_path / "all.jsonl", shards, str(shards / "*.*")):
        assert count(source, engine, client).equals(expected), source
    with pytest.raises(CorpusError, match=r"the pattern matches no file"):
        count(str(shards / "*.csv"), engine, client)
    with pytest.raises(CorpusError, match=r"the pattern also matches notes\.txt"):
        (shards / "notes.txt").write_text("x")
        count(str(shards / "*"), engine, client)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_20news_tree_reads_alike_in_every_engine(tmp_path, client, engine):
    for split, group, name in [("train", "sci.space", "10"), ("train", "rec.autos", "2"),
                               ("test", "sci.space", "7"), ("train", "sci.space", "3")]:
        d = tmp_path / f"20news-bydate-{split}" / group
        d.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes(f"Subject: x\n\norbit {group} m{name}".encode("latin-1"))
    train = count(tmp_path, engine, client, split="train")
    assert train.n_docs == 3 and list(train.classes) == ["rec.autos", "sci.space"]
    with pytest.raises(CorpusError, match="no newsgroup messages found.*20news-bydate-dev"):
        count(tmp_path, engine, client, split="dev")
    (tmp_path / "README").write_text("x")
    with pytest.raises(CorpusError, match=r"20news-bydate tree.*also holds README"):
        count(tmp_path, engine, client)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unmatched_split_names_the_values_there(tmp_path, client, engine):
    path = tmp_path / "c.jsonl"
    path.write_bytes(jsonl([{**r, "split": "train" if i % 3 else "test"}
                            for i, r in enumerate(RECORDS)]))
    with pytest.raises(CorpusError, match=r"no record has split = 'tets' \(an empty split\); "
                                          r"the values of 'split' are 'test', 'train'"):
        count(path, engine, client, split="tets")
    with pytest.raises(CorpusError, match=r"no split field 'part'.*--split-field"):
        count(path, engine, client, split="test", split_field="part")


def test_engine_options_that_do_not_apply_are_errors(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(jsonl(TWO))
    with pytest.raises(TextsiftError, match="memory engine reads the corpus whole"):
        count_file(path, engine="memory", chunk_size=100)
    with pytest.raises(TextsiftError, match=r"scheduler address \(--scheduler\) is for the dask"):
        count_file(path, engine="memory", scheduler="tcp://127.0.0.1:8786")
    with pytest.raises(TextsiftError, match="chunk_size must be a positive number"):
        count_file(path, engine="stream", chunk_size=-1)
    for args, message in ((["--chunk-size", "-1"], "--chunk-size"),
                          (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler")):
        res = runner.invoke(app, ["score", str(path), *args])
        assert res.exit_code == 2 and message in res.stderr, res.stderr


def test_a_malformed_scheduler_address_fails_at_once_and_cleanly(tmp_path):
    # before: the message, then a 20 s hang while the half-built Client closed itself, and
    # "Exception ignored ... TimeoutError" at exit; now no Client is built (stderr is exact)
    path = tmp_path / "c.jsonl"
    path.write_bytes(jsonl(TWO))
    res = subprocess.run([sys.executable, "-c", "from textsift.cli import main; main()",
                          "score", str(path), "--engine", "dask", "--scheduler", "notanaddress"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == ("error: 'notanaddress' is not a Dask scheduler address (missing port "
                          "number in address 'notanaddress'); write it as tcp://HOST:PORT, e.g. "
                          "tcp://10.0.0.5:8786\n")


def test_labels_of_mixed_types_are_an_error_in_counts_too():
    with pytest.raises(TextsiftError, match=r"the labels mix types \(int, str\)"):
        Counts.from_texts(["alpha", "beta"], np.array([1, "b"], dtype=object))


def test_a_truncated_gzip_names_the_last_whole_line(tmp_path):
    blob = gzip.compress(jsonl(RECORDS * 100))
    (tmp_path / "c.jsonl.gz").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(CorpusError, match=r"c\.jsonl\.gz: the gzip stream ends early after line "
                                          r"\d+ \(the file is truncated"):
        read_corpus(tmp_path / "c.jsonl.gz")


@pytest.mark.parametrize("options, message", [
    ({"max_df": 0}, r"max_df must be a fraction in \(0, 1\] or a number of documents >= 1, "
                    r"got 0$"),
    ({"max_df": 1.5}, r"max_df must be a fraction in \(0, 1\]"),
    ({"min_df": 0}, r"min_df must be a number of documents >= 1 or a fraction in \[0, 1\)"),
    ({"min_df": -2}, r"min_df must be"),
    ({"max_features": 0}, r"max_features must be a positive number of terms"),
    ({"stop_words": "klingon"}, r"no stop list for 'klingon'"),
    ({"token_pattern": "("}, r"token_pattern '\(' is not a regular expression"),
    ({"stem": "yes"}, r"stem must be true or false"),
])
def test_preprocessing_options_are_checked_where_they_are_set(options, message):
    from textsift.text.vectorize import VectorizerOptions

    with pytest.raises(TextsiftError, match=message):
        VectorizerOptions(**options)


def test_max_df_hints_name_the_right_option(tmp_path):
    # --max-df 0 is refused as such (it used to end in "lower min_df"); a max_df that the
    # corpus makes smaller than min_df says to lower one or raise the other
    res = runner.invoke(app, ["score", str(tmp_path / "x.jsonl"), "--max-df", "0"])
    assert res.exit_code == 2 and "lower min_df" not in res.stderr
    assert res.stderr == ("error: Invalid value for '--max-df': a fraction in (0, 1] or a whole "
                          "number of documents, got 0 (see 'textsift score -h')\n")
    path = tmp_path / "c.jsonl"
    path.write_bytes(jsonl(RECORDS))
    res = runner.invoke(app, ["score", str(path), "--min-df", "30", "--max-df", "0.5"])
    assert res.exit_code == 2
    assert "lower min_df or raise max_df" in res.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_a_file_named_twice_is_refused_in_every_engine(tmp_path, client, engine):
    # ok.jsonl ok.jsonl (or ok.jsonl and its directory) counted every document twice,
    # without a word: N was 4 for a corpus of 2 documents
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "ok.jsonl").write_bytes(jsonl(TWO))
    ok = tmp_path / "d" / "ok.jsonl"
    for sources, first, second in [
            ([ok, ok], ok, ok),
            ([tmp_path / "d", ok], tmp_path / "d", ok),
            ([ok, str(tmp_path / "d" / "*.jsonl")], ok, tmp_path / "d" / "*.jsonl"),
            ([ok, tmp_path / "d" / ".." / "d" / "ok.jsonl"], ok,
             tmp_path / "d" / ".." / "d" / "ok.jsonl")]:
        with pytest.raises(CorpusError, match=(
                rf"ok\.jsonl: the corpus names this file twice \({re.escape(str(first))} and "
                rf"{re.escape(str(second))}\), so each of its documents would count twice; "
                r"name each file once$")):
            count(sources, engine, client)
    (tmp_path / "link.jsonl").symlink_to(ok)  # the same file through a link
    with pytest.raises(CorpusError, match=r"names this file twice"):
        count([ok, tmp_path / "link.jsonl"], engine, client)
    assert count([ok], engine, client).n_docs == 2


def test_a_file_named_twice_in_the_cli(tmp_path):
    (tmp_path / "ok.jsonl").write_bytes(jsonl(RECORDS))
    ok = str(tmp_path / "ok.jsonl")
    for engine in ("memory", "stream"):
        res = runner.invoke(app, ["score", ok, ok, "--engine", engine])
        assert res.exit_code == 2 and res.stdout == ""
        assert res.stderr == (f"error: {ok}: the corpus names this file twice ({ok} and {ok}), "
                              "so each of its documents would count twice; name each file "
                              "once\n")


def test_a_directory_is_listed_in_one_pass(tmp_path, monkeypatch):
    # the files of a directory split into data files and others: testing each file's
    # membership in the list of data files compared paths n^2/2 times (5,000 files took
    # 21.5 s, against 12 s as a glob). Counted: no comparison of two paths for equality,
    # whatever the number of files; the files sorted by name
    from pathlib import PurePath

    from textsift.reading.sources import data_files

    names = [f"part-{i:04d}.jsonl" for i in range(300)]
    for name in reversed(names):
        (tmp_path / name).write_bytes(jsonl(TWO))
    (tmp_path / ".hidden").write_text("ignored")
    compared = [0]
    equal = PurePath.__eq__

    def counting(self, other):
        compared[0] += 1
        return equal(self, other)

    monkeypatch.setattr(PurePath, "__eq__", counting)
    files = data_files(tmp_path)
    monkeypatch.undo()
    assert [f.name for f in files] == names and compared[0] == 0
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(CorpusError, match=r"mixes data files \(part-0000\.jsonl, .* and 295 "
                                          r"more\) with files textsift cannot read \(notes\.txt\)"):
        data_files(tmp_path)
