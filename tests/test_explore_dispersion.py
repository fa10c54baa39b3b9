"""The explore page embeds, beside each class's evidence terms, their dispersion in the class
and in the rest (range, DP, DPnorm, CV), counted from the documents as the snippets read
them; the page shows them when a term is clicked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from textsift.counting.counts import Counts
from textsift.evidence.dispersion import DISPERSION_COLUMNS, Documents
from textsift.reading.corpus import load_sample
from textsift.report.explore import page_html
from textsift.report.explore_data import explore_data, rounded
from textsift.report.explore_dispersion import CHUNK, DISPERSION_FIELDS
from textsift.text.vectorize import VectorizerOptions, vectorize

FRUIT = [("apple apple pear", "a"), ("apple kiwi", "a"), ("apple", "a"),
         ("pear kiwi", "b"), ("pear", "b"), ("kiwi kiwi", "b")]


def _entry(data, c: int, term: str) -> dict:
    ids, *values = data["evidence"]["disp"][c]
    i = ids.index(data["terms"].index(term))
    return dict(zip(DISPERSION_FIELDS, (v[i] for v in values), strict=True))


def test_the_worked_example_of_the_fruit():
    texts, labels = zip(*FRUIT, strict=True)
    counts = Counts.from_texts(list(texts), list(labels))
    data = explore_data(counts, iter(FRUIT))
    apple = _entry(data, 0, "apple")
    # in a: 3 documents of 3, 2 and 1 tokens holding apple 2, 1 and 1 times: DP =
    # (|2/4 - 3/6| + |1/4 - 2/6| + |1/4 - 1/6|) / 2 = 1/12, DPnorm = DP / (1 - 1/6) = 0.1;
    # relative frequencies 2/3, 1/2, 1: CV = sqrt(7/162) / (13/18) = 0.2878
    assert apple == {"range_target": 3, "range_reference": 0, "dp_target": 0.0833,
                     "dp_reference": None, "dp_norm_target": 0.1, "dp_norm_reference": None,
                     "cv_target": 0.288, "cv_reference": None}
    assert math.sqrt(7 / 162) / (13 / 18) == pytest.approx(0.2878, abs=1e-4)


@pytest.fixture(scope="module")
def sample():
    corpus = load_sample("20ng")
    opts = VectorizerOptions(min_df=3, stop_words="english")
    counts = Counts.from_texts(corpus.texts, corpus.labels, opts=opts)
    # few snippets: their reading stops early, the dispersion's reads on to the end
    data = explore_data(counts, zip(corpus.texts, corpus.labels, strict=True), opts=opts,
                        snippet_top=2)
    return corpus, opts, counts, data


def test_every_document_is_counted_whatever_the_snippets_read(sample):
    corpus, _, counts, data = sample
    assert counts.n_docs > CHUNK  # several chunks
    for c, entry in enumerate(data["evidence"]["disp"]):
        ids = np.asarray(entry[0])
        terms = np.searchsorted(counts.feature_names, np.asarray(data["terms"])[ids])
        A = counts.tables_at(terms, c)[0]
        # the range in the class is A, in the rest df - A: every document was read
        assert entry[1] == A.tolist()
        assert entry[2] == (counts.df[terms] - A).tolist()


def test_the_page_dispersion_is_score_evidences(sample):
    """Each class's embedded terms' DP, DPnorm and CV equal those of the documents' matrix
    (:class:`~textsift.evidence.dispersion.Documents`, as ``textsift score --evidence``
    computes them), to the 3 digits the page writes."""
    corpus, opts, counts, data = sample
    X, names, _ = vectorize(corpus.texts, opts)
    assert list(names) == list(counts.feature_names)
    documents = Documents.of(X, corpus.labels, counts.classes)
    for c in (0, 7, len(counts.classes) - 1):
        ids, *values = data["evidence"]["disp"][c]
        terms = np.searchsorted(counts.feature_names, np.asarray(data["terms"])[ids])
        for group, d in zip(("target", "reference"), documents.dispersion(c), strict=True):
            for measure in DISPERSION_COLUMNS[1:]:
                got = values[DISPERSION_FIELDS.index(f"{measure}_{group}")]
                exact = getattr(d, measure)[terms]  # NaN: the term is absent there
                want = [None if math.isnan(v) else r
                        for v, r in zip(exact, rounded(exact, 3), strict=True)]
                assert got == want, (c, measure, group)


def test_the_page_shows_them_when_a_term_is_picked(sample):
    *_, data = sample
    page = page_html(data)
    assert "function evidenceBlock(id, c)" in page and "documents with it (range)" in page
