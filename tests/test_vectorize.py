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
from textsift.text.tokens import _kernel, count_tokens
from textsift.text.unicode import unicode_tables
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


def test_unicode_tables_are_pythons_on_every_code_point():
    """The kernel's tables equal re's \\w and \\s and str.lower, code point by code point
    (surrogates: none of them, and lowercase to themselves)."""
    flags, lower, expansions = unicode_tables()
    chars = [chr(c) for c in range(0x110000)]
    surrogate = np.zeros(0x110000, bool)
    surrogate[0xD800:0xE000] = True
    word = np.array([bool(re.match(r"\w", c)) for c in chars]) & ~surrogate
    space = np.array([c.isspace() for c in chars]) & ~surrogate
    np.testing.assert_array_equal(flags & 1 > 0, word)
    np.testing.assert_array_equal(flags & 2 > 0, space)
    for c in range(0x110000):
        want = chars[c].lower()
        k = lower[c]
        got = chr(k) if k >= 0 else "".join(
            map(chr, expansions[-k:-k + int(expansions[-k - 1])]))
        assert got == want, hex(c)
    assert lower[0x130] < 0 and expansions[-lower[0x130] - 1] == 2  # "İ".lower() == "i̇"


def _every_character(step=1):
    return "".join(chr(c) for c in range(0, 0x110000, step) if not 0xD800 <= c < 0xE000)


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_kernel_tokens_of_every_code_point_are_pythons(threads):
    """Every code point in one text, and cut into many (each character once, in order, and
    between repeated pieces so that each one both starts and ends words): the kernel's
    words are re.findall of the default pattern on str.lower, its str.split words those of
    str.split -- the counts of each."""
    text = _every_character()
    texts = [text, *(text[i:i + 997] + " " + text[i:i + 997] for i in range(0, len(text), 997))]
    for split, tokens in (("words", lambda t: re.findall(r"(?u)\b\w\w+\b", t.lower())),
                          ("spaces", lambda t: t.lower().split())):
        X, names = count_tokens(texts, str.lower, n_threads=threads, split=split)
        want = sorted({w for t in texts for w in tokens(t)})
        assert names.tolist() == want
        for row in (0, 1, len(texts) - 1):
            counts = dict(zip(names[X[row].indices], X[row].data.tolist(), strict=True))
            expected = {}
            for w in tokens(texts[row]):
                expected[w] = expected.get(w, 0) + 1
            assert counts == expected


def test_final_sigma_follows_str_lower():
    """Σ lowercases to ς at the end of a cased word, case-ignorable characters (the
    apostrophe, combining marks) skipped either way, as str.lower does."""
    texts = ["ΟΔΟΣ", "ΟΔΟΣ'", "ΟΔΟΣ'Α", "ΑΣ\u0301 ΑΣ\u0301Β", "'Σ ΣΣ Σ", "Α\u0345Σ x"]
    for t in texts:
        X, names = count_tokens([t], str.lower)
        assert names.tolist() == sorted(set(re.findall(r"(?u)\b\w\w+\b", t.lower())))
    assert_identical(texts)


def test_no_text_and_texts_without_tokens_give_no_column():
    for texts, rows in (([], 0), (["", "a", "  \t", "\ud800"], 4)):
        for split in ("words", "spaces"):
            X, names = count_tokens(texts, str.lower, n_threads=2, split=split)
            if split == "spaces" and rows:
                assert names.tolist() == ["a", "\ud800"]  # str.split's words
                assert X.toarray().tolist() == [[0, 0], [1, 0], [0, 0], [0, 1]]
            else:
                assert X.shape == (rows, 0) and names.tolist() == []


def test_kernel_refuses_what_is_not_a_list_of_str():
    with pytest.raises(TypeError, match="text 1 is bytes"):
        _kernel().count(["a", b"b"], True, False, 1, False)


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


SPECIAL = "İßΣσςǅŉΐﬁẞ_0٣²½\u0301\u0345\u200d'’ \t\n\u3000"
fuzzed_char_st = st.one_of(st.characters(exclude_categories=("Cs",)),
                           st.sampled_from(SPECIAL), st.characters(max_codepoint=0x24F))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(fuzzed_char_st, max_size=80), min_size=1, max_size=10),
       st.sampled_from([1, 2, 3]), st.booleans())
def test_identical_on_fuzzed_unicode_text(texts, threads, lowercase):
    """Text from all of Unicode (surrogates excluded), weighted towards the characters whose
    case or word-ness is special (İ, ß, final sigma, combining marks, digits of other
    scripts, underscores): the vocabulary, its order and the matrix are CountVectorizer's,
    on any number of threads."""
    opts = VectorizerOptions(lowercase=lowercase)
    try:
        Y, want = reference(texts, opts)
    except ValueError:  # no token at all: textsift says so too
        with pytest.raises(TextsiftError, match="vocabulary is empty"):
            vectorize(texts, opts)
        return
    X, names = tv.count_terms(texts, opts, n_threads=threads)
    assert names.tolist() == want
    assert X.dtype == Y.dtype == np.int32 and X.shape == Y.shape
    np.testing.assert_array_equal(X.indptr, Y.indptr)
    np.testing.assert_array_equal(X.indices, Y.indices)
    np.testing.assert_array_equal(X.data, Y.data)


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


@pytest.mark.parametrize("threads", [2, 3, 7, 64])
def test_threads_are_merged_exactly(threads):
    """The documents cut among threads (vocabularies merged once, terms renumbered) give
    the one-thread result, and CountVectorizer's."""
    texts = [f"w{i % 7} common text{i % 3} {'rare' if i == 5 else ''} É{i}" for i in range(50)]
    one = tv.count_terms(texts, n_threads=1)
    many = tv.count_terms(texts, n_threads=threads)
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


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_inside_the_kernel_stops_it_and_the_next_count_is_exact(threads):
    """The kernel runs Python's signal handlers every 2,048 documents of the calling thread: a
    SIGINT sent while the main thread is inside ``_kernel().count`` (seen from a watcher
    thread through ``sys._current_frames``, as the kernel runs without the GIL) ends the call
    with KeyboardInterrupt -- every thread stopped, every buffer freed -- and the next count is
    CountVectorizer's."""
    import os
    import signal
    import sys
    import threading

    texts = [f"w{i % 9973} alpha Beta γάμμα {i}" for i in range(400_000)]
    main = threading.main_thread().ident
    seen = []

    def watch():
        for _ in range(20_000):
            frame = sys._current_frames().get(main)
            if frame is not None and frame.f_code.co_name == "_kernel_counts":
                seen.append(True)
                os.kill(os.getpid(), signal.SIGINT)
                return
            threading.Event().wait(0.0005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tv.count_terms(texts, n_threads=threads)
    finally:
        watcher.join()
    assert seen == [True]
    few = texts[:3000] + ["ΟΔΟΣ straße İstanbul"]
    X, names = tv.count_terms(few, n_threads=threads)
    Y, want = reference(few, VectorizerOptions())
    assert names.tolist() == want and (X != Y).nnz == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 30), st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_column_totals_equal_scipys_in_any_chunks(n_docs, n_terms, chunk, seed):
    """``column_totals`` reads the entries ``chunk`` at a time (so that no int64 copy of a
    large matrix is made); whatever the chunk, its document frequencies are scipy's
    ``getnnz(axis=0)`` and its totals ``X.sum(axis=0)``, exactly (integers)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=0.3, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.integers(1, 2**20, k)).astype(np.int32)
    df, total = tv.column_totals(X, chunk=chunk)
    assert df.dtype == total.dtype == np.int64
    np.testing.assert_array_equal(df, X.getnnz(axis=0))
    np.testing.assert_array_equal(total, np.asarray(X.sum(axis=0, dtype=np.int64)).ravel())
