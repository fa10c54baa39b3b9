"""vectorize gives CountVectorizer's counts: the same vocabulary, order and matrix.

The reference in every test is scikit-learn's own ``CountVectorizer`` with the same options
(``build_vectorizer``); the fast path (``textsift.text.tokens``) must equal it entry for entry.
"""

import gzip
import json
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from identity import assert_identical, reference

import textsift.text.vectorize as tv
from textsift.errors import TextsiftError
from textsift.text.tokens import word_class
from textsift.text.vectorize import Vectorizer, VectorizerOptions, build_vectorizer, vectorize


# ----------------------------------------------------------------------------- where engines differ
def test_word_characters_are_pythons_not_rusts():
    """Rust's Unicode \\w counts combining marks, connector punctuation and ZWJ as word
    characters and other numbers (No) not; Python's re does the opposite. Each text below
    tokenises differently under the two; the fast path must give Python's tokens."""
    texts = ["cafe\u0301s noe\u0308l",      # combining marks (Mn) split a word in Python
             "x\u203fy under\u203fscore",    # Pc other than "_" is no word character
             "a\u200db zw\u200dj",           # zero-width joiner
             "x²y km² ½kg",                  # No numbers are word characters in Python
             "Ⓐb ⓐⓑⓒ",                       # So with Other_Alphabetic: not in Python
             "ΣΑΣ ὈΔΥΣΣΕΎΣ",                 # final sigma when lowercased
             "İstanbul ǅemal ß",             # special case mappings of str.lower
             "𝔘𝔫𝔦 𐍈𐍈 😀😀 中文字"]            # non-BMP letters, emoji, CJK
    assert_identical(texts)
    X, names, _ = vectorize(texts)
    assert "cafe" in names and "x²y" in names and "ὀδυσσεύς" in names


def test_word_class_is_pythons_w_on_every_code_point():
    ranges = re.findall(r"\\x\{([0-9A-F]+)\}(?:-\\x\{([0-9A-F]+)\})?", word_class())
    inside = np.zeros(0x110000, dtype=bool)
    for lo, hi in ranges:
        inside[int(lo, 16):int(hi or lo, 16) + 1] = True
    python = np.array([bool(re.match(r"\w", chr(c))) if not 0xD800 <= c < 0xE000 else False
                       for c in range(0x110000)])
    np.testing.assert_array_equal(inside, python)


# ----------------------------------------------------------------------------- hypothesis
ALPHABET = ("abcXYZ019_'’ \t\n.,-é\u0301\u0308ΣσςİßǅŉΐﬁΩ中文字²½Ⅻ٣\u200d\u203fⒶ𝔘𐍈😀"
            "\U0001f3fb\ud800")

texts_st = st.lists(st.text(alphabet=ALPHABET, max_size=40), min_size=1, max_size=12)
options_st = st.builds(
    VectorizerOptions,
    binary=st.booleans(),
    min_df=st.sampled_from([1, 2, 0.0, 0.3]),
    max_df=st.sampled_from([1.0, 0.8, 3]),
    lowercase=st.booleans(),
    stop_words=st.sampled_from([None, "english"]),
    stem=st.booleans(),
    strip_headers=st.booleans(),
    max_features=st.sampled_from([None, 1, 3]),
)


@settings(max_examples=300, deadline=None)
@given(texts_st, options_st)
@example(["ΣΑΣ σας", "A\u0301B"], VectorizerOptions())
@example(["ab\ud800cd"], VectorizerOptions())
def test_identical_to_countvectorizer_on_unicode_text(texts, opts):
    try:
        Y, want = reference(texts, opts)
    except ValueError as exc:  # scikit-learn finds no vocabulary: so must textsift
        with pytest.raises(TextsiftError, match="vocabulary is empty"):
            vectorize(texts, opts)
        assert "vocabulary" in str(exc) or "terms remain" in str(exc) or "max_df" in str(exc)
        return
    assert_identical(texts, opts)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=60), min_size=1, max_size=8))
def test_identical_on_any_unicode_text(texts):
    """Any code point hypothesis draws (every category but surrogates)."""
    try:
        reference(texts, VectorizerOptions())
    except ValueError:
        return
    assert_identical(texts)


# ----------------------------------------------------------------------------- fallbacks
def test_custom_token_pattern_goes_to_countvectorizer(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the fast path cannot honour a custom token pattern")

    monkeypatch.setattr(tv, "count_tokens", refuse)
    opts = VectorizerOptions(token_pattern=r"(?u)\b\w+\b")
    X, names, _ = vectorize(["a bb a", "c"], opts)
    assert names.tolist() == ["a", "bb", "c"]
    assert X.toarray().tolist() == [[2, 1, 0], [0, 0, 1]]


def test_bytes_documents_go_to_countvectorizer():
    assert_identical([b"caf\xc3\xa9 ol\xc3\xa9", "olé plain"])


def test_lone_surrogates_split_words_as_any_non_word_character():
    X, names, _ = vectorize(["ab\ud800cd ab", "x\udfffyz"])
    assert names.tolist() == ["ab", "cd", "yz"]
    assert X.toarray().tolist() == [[2, 1, 0], [0, 0, 1]]


def test_blocks_are_merged_exactly(monkeypatch):
    """Many small blocks (vocabularies merged, rows stacked) give the one-block result."""
    texts = [f"w{i % 7} common text{i % 3} {'rare' if i == 5 else ''}" for i in range(50)]
    one = vectorize(texts)
    monkeypatch.setattr("textsift.text.tokens.MAX_BLOCK_CHARS", 40)
    many = vectorize(texts)
    assert one[1].tolist() == many[1].tolist() and (one[0] != many[0]).nnz == 0
    assert_identical(texts)


def test_transform_equals_countvectorizer_transform():
    train = ["the cats sat", "dogs running fast", "cats and dogs"]
    test = ["cats cats zebra", "", "running dogs the"]
    for opts in (VectorizerOptions(), VectorizerOptions(stem=True, binary=True)):
        _, names, vec = vectorize(train, opts)
        ref = build_vectorizer(opts).fit(train)
        assert isinstance(vec, Vectorizer)
        np.testing.assert_array_equal(vec.transform(test).toarray(),
                                      ref.transform(test).toarray())


# ----------------------------------------------------------------------------- the corpora
CORPORA = ["20newsgroups/train.jsonl.gz", "20newsgroups/test.jsonl.gz", "imdb/train.jsonl.gz",
           "imdb/test.jsonl.gz", "pang_lee_scale/all.jsonl.gz",
           "womens_clothing_reviews/all.jsonl.gz", "amazon_alexa/all.jsonl.gz",
           "amazon_multidomain/all.jsonl.gz"]


def corpus_texts(root, name):
    with gzip.open(root / name, "rt", encoding="utf-8") as fh:
        return [json.loads(line)["text"] for line in fh]


@pytest.mark.real_data
@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
def test_identical_to_countvectorizer_on_every_shared_corpus(real_data, name):
    texts = corpus_texts(real_data, name)
    assert_identical(texts)
    if name == "20newsgroups/test.jsonl.gz":  # the RC paper's preprocessing
        assert_identical(texts, VectorizerOptions(stop_words="english", stem=True, min_df=2,
                                                  max_df=0.5, strip_headers=True))
    if name == "amazon_multidomain/all.jsonl.gz":
        assert_identical(texts, VectorizerOptions(binary=True, max_features=5000,
                                                  lowercase=False))


@pytest.mark.real_data
@pytest.mark.slow
def test_stems_are_snowballstemmers_on_every_word_type_of_the_shared_corpora(real_data):
    """PyStemmer (C Snowball) against the pure-Python snowballstemmer (imported from its
    module: the package itself hands out PyStemmer when it is installed)."""
    from snowballstemmer.english_stemmer import EnglishStemmer

    from textsift.text.tokens import stem_words

    words = set()
    for name in CORPORA:
        words.update(tv.count_terms(corpus_texts(real_data, name))[1].tolist())
    words = sorted(words)
    assert len(words) > 250_000
    assert stem_words(words) == EnglishStemmer().stemWords(words)
