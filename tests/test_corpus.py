"""Corpus readers and vectorization: formats, layouts and bad input."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from textsift.reading.corpus import CorpusError, iter_jsonl, load_sample, read_corpus, strip_header
from textsift.text.vectorize import VectorizerOptions, vectorize

ROWS = [
    {"text": "good film", "label": "pos", "split": "train"},
    {"text": "bad film", "label": "neg", "split": "train"},
    {"text": "great acting", "label": "pos", "split": "test"},
]


def write_jsonl(path, rows, gz=False):
    opener = gzip.open if gz else open
    with opener(path, "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    return path


@pytest.mark.parametrize("kind", ["jsonl", "jsonl.gz", "csv", "parquet"])
def test_formats_by_extension(tmp_path, kind):
    path = tmp_path / f"c.{kind}"
    if kind.startswith("jsonl"):
        write_jsonl(path, ROWS, gz=kind.endswith("gz"))
    elif kind == "csv":
        pd.DataFrame(ROWS).to_csv(path, index=False)
    else:
        pd.DataFrame(ROWS).to_parquet(path)
    c = read_corpus(path, split="train")
    assert c.texts == ["good film", "bad film"]
    assert list(c.labels) == ["pos", "neg"]


def test_aclimdb_layout(tmp_path):
    for split, label, name, text in [("train", "pos", "0_9.txt", "loved it<br />truly"),
                                     ("train", "neg", "1_2.txt", "hated it"),
                                     ("test", "pos", "2_10.txt", "superb")]:
        d = tmp_path / split / label
        d.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text, encoding="utf-8")
    c = read_corpus(tmp_path, split="train")
    assert sorted(c.texts) == ["hated it", "loved it\ntruly"]
    assert sorted(c.frame["rating"]) == [2, 9]
    c = read_corpus(tmp_path, label_field="rating")
    assert len(c) == 3


def test_20news_layout(tmp_path):
    for split, group, name in [("train", "sci.space", "10"), ("train", "rec.autos", "2"),
                               ("test", "sci.space", "7")]:
        d = tmp_path / f"20news-bydate-{split}" / group
        d.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes("Subject: x\n\ncaf\xe9 orbit".encode("latin-1"))
    c = read_corpus(tmp_path, split="train")
    assert sorted(c.labels) == ["rec.autos", "sci.space"]
    assert strip_header(c.texts[0]) == "caf\xe9 orbit"


def test_undecodable_bytes_name_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"text": "ok", "label": 1}\n{"text": "\xff\xfe", "label": 0}\n')
    with pytest.raises(CorpusError, match=r"bad.jsonl, line 2: undecodable"):
        read_corpus(path)
    bad = []
    assert len(list(iter_jsonl(path, on_bad_line="skip", bad_lines=bad))) == 1 and bad == [2]


def test_malformed_json_names_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        fh.write('{"text": "a", "label": 1}\n{"text": \n')
    with pytest.raises(CorpusError, match=r"line 2: malformed JSON"):
        read_corpus(path)


def test_undecodable_csv_names_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"text,label\nfine,1\n\xff,0\n")
    with pytest.raises(CorpusError, match="line 3"):
        read_corpus(path)


@pytest.mark.parametrize(
    "rows, kwargs, match",
    [([], {}, "empty"),
     (ROWS, {"split": "dev"}, "no record has split = 'dev'.*'test', 'train'"),
     (ROWS, {"label_field": "stars"}, "no field 'stars'.*--label-field"),
     ([{"text": "a", "label": 1}, {"text": "b"}], {}, "line 2: the record has no label")],
)
def test_bad_corpora(tmp_path, rows, kwargs, match):
    path = write_jsonl(tmp_path / "c.jsonl", rows)
    with pytest.raises(CorpusError, match=match):
        read_corpus(path, **kwargs)


def test_missing_file_and_unknown_type(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        read_corpus(tmp_path / "nope.jsonl")
    (tmp_path / "c.xlsx").write_text("x")
    with pytest.raises(CorpusError, match="unknown file type"):
        read_corpus(tmp_path / "c.xlsx")


def test_bundled_samples():
    ng = load_sample("20ng")
    assert len(ng) == 2800 and len(set(ng.labels)) == 20
    assert (ng.frame["split"] == "test").sum() == 800
    reviews = load_sample("reviews", split="train")
    assert set(reviews.labels) == {1, 2, 3, 4, 5}


def test_vectorize_options_and_empty_vocabulary():
    X, names, _ = vectorize(["Running runs", "the runner ran"], stem=True)
    assert "run" in set(names)
    with pytest.raises(ValueError, match="vocabulary is empty.*token pattern"):
        vectorize(["a b", "c d"], VectorizerOptions(min_df=1))  # one-letter tokens only
    with pytest.raises(ValueError, match="vocabulary is empty.*min_df"):
        vectorize(["alpha beta", "gamma delta"], min_df=2)
    with pytest.raises(ValueError, match="corpus is empty"):
        vectorize([])
    X, names, _ = vectorize(["From: x\n\nbody text", "Subject: y\n\nmore body"],
                            strip_headers=True)
    assert set(names) == {"body", "text", "more"}
    assert X.dtype == np.int32
