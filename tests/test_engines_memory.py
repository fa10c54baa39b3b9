"""count_file(engine="memory"): the in-memory engine behind the CLI, equal to the others."""

import warnings

from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.reading.corpus import load_sample, sample_path
from textsift.text.vectorize import VectorizerOptions


def test_memory_engine_equals_counting_the_read_corpus_and_the_stream_engine():
    opts = VectorizerOptions(min_df=2)
    corpus = load_sample("reviews", split="train")
    direct = Counts.from_texts(corpus.texts, corpus.labels, opts)
    memory = count_file(sample_path("reviews"), label_field="rating", split_field="split",
                        split="train", opts=opts, engine="memory")
    stream = count_file(sample_path("reviews"), label_field="rating", split_field="split",
                        split="train", opts=opts, engine="stream", chunk_size=500)
    assert memory.equals(direct) and memory.equals(stream)


def test_memory_engine_skips_bad_lines_like_the_others(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "good fun", "label": "x"}\n{oops\n'
                    '{"text": "bad fun", "label": "y"}\n')
    bad: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        counts = count_file(path, engine="memory", on_bad_line="skip", bad_lines=bad)
    assert counts.n_docs == 2 and bad == [(str(path), 2)]
    assert any("skipped 1 malformed line(s)" in str(w.message) for w in caught)
