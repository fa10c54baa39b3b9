"""Streamed counting (textsift.engines): exact mode == in-memory counts, hashing invariants,
chunked readers and their bad input."""

import gzip
import json
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction import FeatureHasher
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import (
    Chunk,
    count_exact,
    count_file,
    count_hashed,
    iter_chunks,
    name_buckets,
    recover_terms,
)
from textsift.reading.corpus import CorpusError, load_sample, sample_path
from textsift.text.vectorize import VectorizerOptions

runner = CliRunner()


def chunked(texts, labels, size):
    """A source cutting in-memory documents into chunks of ``size``."""
    labels = np.asarray(labels)
    return lambda: (Chunk(list(texts[i:i + size]), labels[i:i + size])
                    for i in range(0, len(texts), size))


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def sample20():
    return load_sample("20ng")


# --------------------------------------------------------------------------- exact == memory
@pytest.mark.parametrize("opts", [
    VectorizerOptions(),
    VectorizerOptions(min_df=3, max_df=0.5, stop_words="english", strip_headers=True),
    VectorizerOptions(max_features=300, binary=True),
], ids=["default", "min_df-max_df-stop-headers", "max_features-binary"])
def test_stream_exact_equals_in_memory_on_sample(sample20, opts):
    # identity: every count is an integer, so chunked sums equal the one-matrix counts
    memory = Counts.from_texts(sample20.texts, sample20.labels, opts)
    streamed = count_file(sample_path("20ng"), opts=opts, chunk_size=700)
    assert streamed.n_terms == memory.n_terms
    assert streamed.equals(memory)


def test_stream_exact_with_stemming_on_reviews_sample():
    corpus = load_sample("reviews", split="test")
    opts = VectorizerOptions(stem=True, min_df=2)
    memory = Counts.from_texts(corpus.texts, corpus.labels, opts)
    streamed = count_file(sample_path("reviews"), label_field="rating", split="test",
                          opts=opts, chunk_size=250)
    assert streamed.equals(memory)
    assert list(streamed.classes) == [1, 2, 3, 4, 5]


def test_cli_score_output_identical_between_memory_and_stream():
    base = ["score", str(sample_path("20ng")), "--method", "ig", "--top", "30", "--format",
            "csv", "--min-df", "2", "--split", "train"]
    memory = runner.invoke(app, base)
    stream = runner.invoke(app, [*base, "--engine", "stream", "--chunk-size", "333"])
    assert memory.exit_code == 0 and stream.exit_code == 0, stream.stderr
    assert stream.stdout == memory.stdout
    assert len(memory.stdout.splitlines()) == 31  # header + 30 terms


words = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta", "x", "the"])
docs = st.lists(st.lists(words, max_size=6).map(" ".join), min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(docs=docs, data=st.data())
def test_exact_mode_matches_countvectorizer_pruning(docs, data):
    # property: for any corpus, chunking and min_df/max_df/max_features (ties included), the
    # streamed vocabulary and counts are CountVectorizer's, or both fail with the same message
    labels = data.draw(st.lists(st.sampled_from("pqr"), min_size=len(docs), max_size=len(docs)))
    opts = VectorizerOptions(
        min_df=data.draw(st.sampled_from([1, 2, 0.3])),
        max_df=data.draw(st.sampled_from([1.0, 0.7, 3])),
        max_features=data.draw(st.sampled_from([None, 1, 2, 3])),
        stop_words=data.draw(st.sampled_from([None, "english"])),
    )
    size = data.draw(st.integers(1, 8))
    try:
        memory = Counts.from_texts(docs, labels, opts)
    except ValueError as exc:
        with pytest.raises(ValueError) as streamed_exc:
            count_exact(chunked(docs, labels, size), opts)
        assert str(streamed_exc.value) == str(exc)
        return
    assert count_exact(chunked(docs, labels, size), opts).equals(memory)


def test_unseen_label_in_a_later_chunk_grows_the_classes():
    texts = ["red apple", "green apple", "red car", "blue car", "blue sky", "red sky"]
    labels = ["fruit", "fruit", "car", "car", "sky", "sky"]  # 'sky' first seen in chunk 3
    streamed = count_exact(chunked(texts, labels, 2))
    assert list(streamed.classes) == ["car", "fruit", "sky"]
    assert streamed.equals(Counts.from_texts(texts, labels))
    with pytest.raises(ValueError, match="not among the declared classes"):
        count_exact(chunked(texts, labels, 2), classes=["car", "fruit"])


def test_chunk_with_no_tokens_still_counts_its_documents():
    texts = ["a b", "c !", "good day", "bad day"]  # chunk 1 has no token of 2+ letters
    streamed = count_exact(chunked(texts, ["n", "p", "p", "n"], 2))
    assert streamed.n_docs == 4 and list(streamed.class_sizes) == [2, 2]
    assert streamed.equals(Counts.from_texts(texts, ["n", "p", "p", "n"]))


# --------------------------------------------------------------------------- readers
def test_csv_parquet_directory_and_glob_sources_equal_jsonl(tmp_path):
    # a CSV file's labels are strings: beside it, the Parquet file's are too (or, as ranks,
    # every file's are numbers)
    frame = load_sample("reviews").frame.iloc[:1200]
    frame = frame.assign(rating=frame["rating"].astype(str))
    frame.iloc[:500].to_csv(tmp_path / "a.csv", index=False)
    frame.iloc[500:].to_parquet(tmp_path / "b.parquet", row_group_size=300)
    memory = Counts.from_texts(frame["text"].tolist(), frame["rating"].to_numpy())
    assert count_file(tmp_path, label_field="rating", chunk_size=170).equals(memory)
    assert count_file(str(tmp_path / "*.*"), label_field="rating", chunk_size=400).equals(memory)
    ranks = Counts.from_texts(frame["text"].tolist(), frame["rating"].astype(int).to_numpy())
    assert count_file(tmp_path, label_field="rating", chunk_size=170, ranks=True).equals(ranks)


def test_split_that_empties_whole_chunks(tmp_path):
    # records sorted by split: with chunk_size 2 the first chunks hold no 'test' record
    recs = [{"text": f"word{i % 3} common", "label": "ab"[i % 2],
             "split": "train" if i < 6 else "test"} for i in range(9)]
    path = write_jsonl(tmp_path / "c.jsonl", recs)
    streamed = count_file(path, split="test", chunk_size=2)
    assert streamed.n_docs == 3
    test = [r for r in recs if r["split"] == "test"]
    assert streamed.equals(Counts.from_texts([r["text"] for r in test], [r["label"] for r in test]))
    with pytest.raises(CorpusError, match="no record has split = 'validation'.*'test', 'train'"):
        count_file(path, split="validation", chunk_size=2)


def test_malformed_line_mid_stream_names_file_and_line(tmp_path):
    recs = [{"text": f"term{i} shared", "label": "ab"[i % 2]} for i in range(10)]
    lines = [json.dumps(r) for r in recs]
    lines.insert(6, '{"text": "broken, "label": "a"}')  # line 7 of the file
    path = tmp_path / "bad.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(lines) + "\n")
    with pytest.raises(CorpusError, match=r"bad\.jsonl\.gz, line 7: malformed JSON"):
        count_file(path, chunk_size=3)
    bad: list = []
    with pytest.warns(UserWarning, match=r"skipped 1 malformed line\(s\): .*bad\.jsonl\.gz line 7"):
        streamed = count_file(path, chunk_size=3, on_bad_line="skip", bad_lines=bad)
    assert bad == [(str(path), 7)]  # once, though both passes met it
    good = Counts.from_texts([r["text"] for r in recs], [r["label"] for r in recs])
    assert streamed.equals(good)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), data=st.data())
def test_any_bad_line_is_named_or_skipped_and_counted(n, data):
    # property: wherever the malformed line falls relative to chunk borders, the error names
    # its line, and skipping it gives the counts of the other records
    import tempfile
    from pathlib import Path

    at = data.draw(st.integers(1, n + 1))  # 1-based line of the bad record
    size = data.draw(st.integers(1, 5))
    recs = [{"text": f"w{i % 4} tok{i}", "label": "xy"[i % 2]} for i in range(n)]
    lines = [json.dumps(r) for r in recs]
    lines.insert(at - 1, data.draw(st.sampled_from(['{"text": ', "[1, 2]", "nul\x00l", "{}}"])))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.jsonl"
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(CorpusError, match=rf"s\.jsonl, line {at}: malformed JSON"):
            count_file(path, chunk_size=size)
        bad: list = []
        with pytest.warns(UserWarning):
            got = count_file(path, chunk_size=size, on_bad_line="skip", bad_lines=bad)
    assert bad == [(str(path), at)]
    assert got.equals(Counts.from_texts([r["text"] for r in recs], [r["label"] for r in recs]))


def test_bad_arguments_and_fields_are_clear_errors(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [{"body": "some text", "label": "a"}])
    with pytest.raises(CorpusError, match="no field 'text'.*--text-field"):
        count_file(path)
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        count_file(path, text_field="body", engine="spark")
    with pytest.raises(ValueError, match="chunk_size must be a positive"):
        count_file(path, text_field="body", chunk_size=0)
    with pytest.raises(CorpusError, match="no such file"):
        count_file(tmp_path / "missing.jsonl")
    (tmp_path / "sub").mkdir()
    with pytest.raises(CorpusError, match="the directory is empty"):
        count_file(tmp_path / "sub")
    write_jsonl(tmp_path / "e.jsonl", [{"text": "x y", "label": None}])
    with pytest.raises(CorpusError, match="line 1: the record has no label"):
        count_file(tmp_path / "e.jsonl")


def test_iter_chunks_sizes(sample20):
    sizes = [len(c) for c in iter_chunks(sample_path("20ng"), chunk_size=1000)]
    assert sizes == [1000, 1000, 800]  # 2,800 documents


# --------------------------------------------------------------------------- hashing mode
def test_hashing_counts_are_exact_counts_pooled_by_bucket():
    corpus = load_sample("reviews")
    src = partial(iter_chunks, sample_path("reviews"), label_field="rating", chunk_size=1000)
    n = 2**12  # small on purpose: many collisions
    hashed = count_hashed(src, n_features=n)
    exact = Counts.from_texts(corpus.texts, corpus.labels)
    bucket = FeatureHasher(n, input_type="string", alternate_sign=False).transform(
        [[t] for t in exact.feature_names]).indices
    # term frequencies add exactly; presence of a bucket lies between max and sum of its terms'
    pooled_tf = np.zeros((n, exact.n_classes))
    np.add.at(pooled_tf, bucket, exact.term_freq)
    np.testing.assert_array_equal(hashed.term_freq, pooled_tf)
    pooled_dc = np.zeros((n, exact.n_classes), dtype=np.int64)
    np.add.at(pooled_dc, bucket, exact.doc_counts)
    max_dc = np.zeros_like(pooled_dc)
    np.maximum.at(max_dc, bucket, exact.doc_counts)
    assert np.all(hashed.doc_counts <= pooled_dc) and np.all(hashed.doc_counts >= max_dc)
    single = np.bincount(bucket, minlength=n) == 1
    np.testing.assert_array_equal(hashed.doc_counts[single], pooled_dc[single])
    # the light second pass finds exactly the corpus terms of the asked buckets
    asked = [int(bucket[list(exact.feature_names).index("dress")]), int(np.flatnonzero(single)[0])]
    found = recover_terms(src, asked, n_features=n)
    for b in asked:
        assert sorted(found[b]) == sorted(exact.feature_names[bucket == b])
    named = name_buckets(hashed, found)
    assert "dress" in named.feature_names[asked[0]].split("|") and named.feature_names[1] == "#1"


def test_hashing_refuses_vocabulary_pruning():
    with pytest.raises(ValueError, match="min_df, max_df and max_features apply to the exact"):
        count_hashed(chunked(["a b"], ["x"], 1), VectorizerOptions(min_df=2))


def test_streamed_frame_records_match_read_corpus(tmp_path, sample20):
    # the readers apply read_corpus's rules: missing text -> "", labels as stored
    recs = [{"text": None, "label": 3}, {"text": "fine words", "label": 4}]
    path = write_jsonl(tmp_path / "f.jsonl", recs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chunks = list(iter_chunks(path, chunk_size=5))
    assert chunks[0].texts == ["", "fine words"]
    assert list(chunks[0].labels) == [3, 4]
    assert pd.api.types.is_integer_dtype(chunks[0].labels)


# --------------------------------------------------------------------------- 20 Newsgroups
@pytest.mark.real_data
def test_stream_exact_equals_in_memory_on_20ng(real_data):
    from textsift.reading.corpus import read_corpus

    path = real_data / "20newsgroups" / "test.jsonl.gz"  # 7,532 messages, 20 newsgroups
    opts = VectorizerOptions(min_df=2)
    corpus = read_corpus(path)
    memory = Counts.from_texts(corpus.texts, corpus.labels, opts)
    streamed = count_file(path, opts=opts, chunk_size=2000)
    assert streamed.n_docs == 7532 and streamed.n_classes == 20
    assert streamed.equals(memory)
    base = ["score", str(path), "--method", "bns", "--aggregate", "rr", "--top", "40",
            "--format", "json", "--min-df", "2"]
    cli_memory = runner.invoke(app, base)
    cli_stream = runner.invoke(app, [*base, "--engine", "stream", "--chunk-size", "1500"])
    assert cli_memory.exit_code == 0 and cli_stream.exit_code == 0, cli_stream.stderr
    assert cli_stream.stdout == cli_memory.stdout
    assert len(json.loads(cli_memory.stdout)) == 40


@pytest.mark.parametrize("opts", [VectorizerOptions(), VectorizerOptions(binary=True, stem=True)])
def test_hashing_counts_equal_sklearns_hashing_vectorizer(opts):
    """Each chunk's distinct terms hashed once and their counts pooled: the matrix of
    scikit-learn's HashingVectorizer over the same tokens, entry for entry."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from textsift.engines.stream import hashing_vectorizer
    from textsift.text.vectorize import build_vectorizer

    texts = load_sample("reviews").texts[:500] + ["", "Ünïcode wörds ΣΑΣ"]
    ours = hashing_vectorizer(opts, 2**10).transform(texts)
    ref = HashingVectorizer(analyzer=build_vectorizer(opts).build_analyzer(), n_features=2**10,
                            alternate_sign=False, norm=None, binary=opts.binary).transform(texts)
    assert ours.dtype == ref.dtype and (ours != ref).nnz == 0
