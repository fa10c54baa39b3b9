"""Word n-grams, character n-grams, languages and tokenizers: the vocabulary, order and matrix of
scikit-learn's ``CountVectorizer`` with the same options, in every engine.

The reference is ``build_vectorizer(opts)`` -- ``CountVectorizer`` itself, with
``ngram_range``, ``analyzer``, stop words and tokenizer passed through (stemming is a callable
analyzer that stems between scikit-learn's steps). The fast path (``textsift.text.tokens``,
``textsift.text.chars``) must equal it entry for entry.
"""

import gzip
import json
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from identity import assert_identical, reference
from typer.testing import CliRunner

import textsift.text.chars as tc
import textsift.text.ngrams as tn
import textsift.text.tokens as tt
import textsift.text.vectorize as tv
from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.errors import TextsiftError
from textsift.reading.corpus import load_sample, sample_path
from textsift.text.languages import LANGUAGES, stop_list
from textsift.text.vectorize import VectorizerOptions, build_vectorizer, vectorize

runner = CliRunner()
KOREAN = Path(__file__).parent / "data" / "nsmc_sample.jsonl.gz"  # 402 NSMC reviews (CC0)


def korean_texts():
    with gzip.open(KOREAN, "rt", encoding="utf-8") as fh:
        return [json.loads(line)["text"] for line in fh]


# --------------------------------------------------------------------- worked examples
def test_bigrams_are_formed_after_stop_words_go():
    """scikit-learn drops stop words first, then pairs the words left: with its list ("not"
    and "the" are in it) "not the best movie" pairs only "best movie", and "really the best
    movie" gives "really best", a pair that is not in the text."""
    X, names, _ = vectorize(["not the best movie", "the best"],
                            ngram_range=(1, 2), stop_words="english")
    assert names.tolist() == ["best", "best movie", "movie"]  # "not" is a stop word too
    X, names, _ = vectorize(["really the best movie"], ngram_range=(2, 2),
                            stop_words="english")
    assert names.tolist() == ["best movie", "really best"]


def test_char_wb_pads_words_and_counts_a_short_word_once():
    """' a ' (3 characters) is counted once whole for n = 3 and 4 alike; 'abc' padded is
    ' abc ' with 3 trigrams; a run of white space is one space, a lone tab stays a tab."""
    X, names, _ = vectorize(["a abc"], analyzer="char_wb", ngram_range=(3, 4))
    assert names.tolist() == [" a ", " ab", " abc", "abc", "abc ", "bc "]
    X, names, _ = vectorize(["ab\tc  d"], analyzer="char", ngram_range=(2, 2))
    assert names.tolist() == ["\tc", " d", "ab", "b\t", "c "]  # a tab sorts before a space
    assert_identical(["ab\tc  d", "a\n\n\nb \x1c c"], VectorizerOptions(analyzer="char",
                                                                         ngram_range=(1, 3)))


# --------------------------------------------------------------------- hypothesis
ALPHABET = ("abcXYZ09_'’ .,-é\u0301\u0308ΣσςİßΩ中文字²½٣\u200d😀\x00"
            "한국어영화재밌다ㅋㅎ\u1100\u1161\u11a8"  # Hangul syllables and conjoining jamo
            " \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000")  # every kind of white space


@st.composite
def ngram_options(draw):
    analyzer = draw(st.sampled_from(["word", "char", "char_wb"]))
    low = draw(st.integers(1, 3))
    high = draw(st.integers(low, 4))
    word = analyzer == "word"
    return VectorizerOptions(
        analyzer=analyzer, ngram_range=(low, high), lowercase=draw(st.booleans()),
        binary=draw(st.booleans()), min_df=draw(st.sampled_from([1, 2, 0.3])),
        max_features=draw(st.sampled_from([None, 5])),
        stop_words=draw(st.sampled_from([None, "english"])) if word else None,
        stem=draw(st.booleans()) if word else False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=40), min_size=1, max_size=10),
       ngram_options())
@example(["ab  cd", "x"], VectorizerOptions(analyzer="char_wb", ngram_range=(4, 5)))
@example(["a\x00b a\x00"], VectorizerOptions(analyzer="char", ngram_range=(1, 3)))
def test_identical_to_countvectorizer_on_unicode_text(texts, opts):
    try:
        reference(texts, opts)
    except ValueError:  # scikit-learn finds no vocabulary: so must textsift
        with pytest.raises(TextsiftError, match="vocabulary is empty"):
            vectorize(texts, opts)
        return
    assert_identical(texts, opts)


# --------------------------------------------------------------------- the corpora
CORPORA = ["20newsgroups/train.jsonl.gz", "imdb/train.jsonl.gz", "pang_lee_scale/all.jsonl.gz",
           "womens_clothing_reviews/all.jsonl.gz", "amazon_alexa/all.jsonl.gz",
           "amazon_multidomain/all.jsonl.gz", "goemotions/train.jsonl.gz",
           "nsmc_korean/all.jsonl.gz"]
SETTINGS = [dict(ngram_range=(1, 2)), dict(ngram_range=(2, 3), stop_words="english"),
            dict(ngram_range=(1, 3), stem=True), dict(analyzer="char", ngram_range=(2, 3)),
            dict(analyzer="char", ngram_range=(1, 5)), dict(analyzer="char_wb",
                                                            ngram_range=(1, 3)),
            dict(analyzer="char_wb", ngram_range=(2, 5))]


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize("name", CORPORA)
def test_identical_to_countvectorizer_on_a_slice_of_every_shared_corpus(real_data, name):
    """The first 100,000 characters of each corpus (a slice: CountVectorizer's character
    n-grams take minutes on a whole corpus), every analyzer and several ranges."""
    texts, size = [], 0
    with gzip.open(real_data / name, "rt", encoding="utf-8") as fh:
        for line in fh:
            texts.append(json.loads(line)["text"])
            size += len(texts[-1])
            if size > 100_000:
                break
    for kw in SETTINGS:
        assert_identical(texts, VectorizerOptions(**kw))


# --------------------------------------------------------------------- the paths inside
def test_blocks_and_parts_are_merged_exactly(monkeypatch):
    """Many blocks (vocabularies merged), many tally parts and character blocks give the
    one-block counts."""
    texts = load_sample("20ng").texts[:60] + korean_texts()[:60]
    monkeypatch.setattr(tt, "MAX_BLOCK_CHARS", 3000)
    monkeypatch.setattr(tn, "MAX_PAIRS", 500)
    monkeypatch.setattr(tc, "CHAR_BLOCK", 2000)
    for kw in SETTINGS:
        assert_identical(texts, VectorizerOptions(**kw))


def test_ngrams_too_long_to_pack_are_countvectorizers(monkeypatch):
    """2,000 distinct words take 11 bits: 6-grams (66 bits) do not pack, so CountVectorizer
    counts them -- the same result, by the reference itself."""
    words = [f"w{i}" for i in range(2000)]
    texts = [" ".join(words[i:i + 30]) for i in range(0, 2000, 7)]
    calls = []
    real = tv.build_vectorizer
    monkeypatch.setattr(tv, "build_vectorizer", lambda *a, **k: calls.append(1) or real(*a, **k))
    vectorize(texts, ngram_range=(1, 6))
    assert calls  # the fallback was taken
    assert_identical(texts, VectorizerOptions(ngram_range=(1, 6)))


def test_a_tokenizer_callable_is_counted_on_the_fast_path():
    def split_dots(text):
        return text.split(".")

    texts = ["a.b.c.a", "b.c", "..x"]
    assert_identical(texts, VectorizerOptions(tokenizer=split_dots, ngram_range=(1, 2)))
    X, names, _ = vectorize(texts, tokenizer=split_dots)
    assert names.tolist() == ["", "a", "b", "c", "x"]  # the tokenizer's tokens, as given


def test_words_holding_spaces_are_sorted_as_strings():
    """A tokenizer may give a token holding a space (or a character below it): then the
    joined n-grams no longer sort as their words do, and are sorted as strings."""
    texts = ["a|a b|c", "a b|a", "a\x01|b"]
    assert_identical(texts, VectorizerOptions(tokenizer=lambda t: t.split("|"),
                                              ngram_range=(1, 2)))


def test_a_word_holding_a_space_and_the_pair_of_its_words_are_one_term():
    """CountVectorizer counts strings: the tokenizer's word "new york" and the pair of the
    words "new", "york" are the one term "new york" (the issue's case: it was twice in the
    vocabulary, its counts split, and lost under min_df=2). Kiwi gives such words (316
    forms with a space on the Korean sample)."""
    texts = ["new york/city", "new/york/city"]
    X, names, _ = vectorize(texts, tokenizer=lambda t: t.split("/"), ngram_range=(1, 2))
    assert names.tolist() == ["city", "new", "new york", "new york city", "york", "york city"]
    assert X.toarray()[:, 2].tolist() == [1, 1]
    X, names, _ = vectorize(texts, tokenizer=lambda t: t.split("/"), ngram_range=(1, 2),
                            min_df=2)
    assert names.tolist() == ["city", "new york"] and X.toarray().tolist() == [[1, 1], [1, 1]]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "a b", "b a", "a b a", " a", "c "]),
                         max_size=6), min_size=1, max_size=6),
       st.sampled_from([(1, 2), (1, 3), (2, 3)]))
def test_words_holding_spaces_count_as_countvectorizer_counts(docs, ngram_range):
    """Any mix of words with and without spaces, in any n-gram range: CountVectorizer's
    vocabulary, order and matrix."""
    texts = ["/".join(d) for d in docs] + ["a/b/a"]  # a term in every n-gram range
    assert_identical(texts, VectorizerOptions(tokenizer=lambda t: t.split("/"),
                                              ngram_range=ngram_range))


# --------------------------------------------------------------------- engines
@pytest.mark.parametrize("kw", [dict(ngram_range=(1, 2), min_df=2),
                                dict(analyzer="char_wb", ngram_range=(1, 3), max_df=0.5),
                                dict(analyzer="char", ngram_range=(2, 3), max_features=300)])
def test_every_engine_counts_ngrams_alike(tmp_path, kw):
    opts = VectorizerOptions(**kw)
    corpus = load_sample("reviews")
    memory = Counts.from_texts(corpus.texts, corpus.labels, opts)
    path = sample_path("reviews")
    streamed = count_file(path, label_field="rating", opts=opts, engine="stream", chunk_size=700)
    in_memory = count_file(path, label_field="rating", opts=opts, engine="memory")
    assert streamed.equals(memory) and in_memory.equals(memory)


def test_dask_counts_ngrams_as_in_memory(tmp_path):
    distributed = pytest.importorskip("distributed")
    from textsift.engines import file_parts
    from textsift.engines.dask import count_dask

    lines = gzip.open(KOREAN, "rt", encoding="utf-8").read().splitlines()
    for i in range(3):
        (tmp_path / f"part{i}.jsonl").write_text("\n".join(lines[i::3]) + "\n", "utf-8")
    opts = VectorizerOptions(analyzer="char_wb", ngram_range=(1, 3), min_df=2)
    memory = count_file(tmp_path, label_field="sentiment", opts=opts, engine="memory")
    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                   dashboard_address=None) as cluster,
          distributed.Client(cluster, set_as_default=False) as client):
        counted = count_dask(file_parts(tmp_path, label_field="sentiment", chunk_size=50),
                             opts, client)
    assert counted.equals(memory)


@pytest.mark.parametrize("kw", [dict(ngram_range=(1, 2), stop_words="english"),
                                dict(analyzer="char_wb", ngram_range=(2, 4))])
def test_hashing_counts_ngrams_as_sklearns_hashing_vectorizer(kw):
    from sklearn.feature_extraction.text import HashingVectorizer

    from textsift.engines.stream import hashing_vectorizer

    opts = VectorizerOptions(**kw)
    texts = load_sample("reviews").texts[:300] + korean_texts()[:50]
    ours = hashing_vectorizer(opts, 2**12).transform(texts)
    ref = HashingVectorizer(analyzer=build_vectorizer(opts).build_analyzer(), n_features=2**12,
                            alternate_sign=False, norm=None).transform(texts)
    assert (ours != ref).nnz == 0


# --------------------------------------------------------------------- languages
def test_stop_lists():
    import stopwordsiso
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert stop_list("english") is ENGLISH_STOP_WORDS  # scikit-learn's, as it always was
    assert stop_list("german") == frozenset(stopwordsiso.stopwords("de"))
    assert VectorizerOptions(stop_words="de").stop_words == "german"
    assert len(stop_list("korean")) == 679


def test_every_pystemmer_algorithm_stems_like_the_reference():
    import Stemmer

    texts = ["Running runners ran quickly; les chanteuses chantaient, die Häuser",
             "Бегущие люди бежали, κάνοντας, corriendo rápidamente"]
    for algorithm in Stemmer.algorithms():
        assert algorithm in LANGUAGES
        assert_identical(texts, VectorizerOptions(stem=True, language=algorithm,
                                                  ngram_range=(1, 2)))
    X, names, _ = vectorize(["die Häuser häuser"], stem=True, language="german")
    assert names.tolist() == ["die", "haus"]


def test_korean_morphemes_are_countvectorizers_with_the_same_tokenizer():
    pytest.importorskip("kiwipiepy")
    texts = korean_texts()[:150]
    for kw in (dict(), dict(ngram_range=(1, 2), min_df=2)):
        assert_identical(texts, VectorizerOptions(tokenizer="korean", **kw))
    X, names, _ = vectorize(["이 영화 정말 재미없다!!"], tokenizer="korean")
    assert set(names) == {"이", "영화", "정말", "재미없", "다"}  # "!!" is punctuation


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw, message", [
    (dict(ngram_range=(3, 1)), r"ngram_range must be \(min_n, max_n\) with 1 <= min_n"),
    (dict(ngram_range=(0, 2)), r"ngram_range must be"),
    (dict(ngram_range=("a", "b")), r"ngram_range must be"),
    (dict(ngram_range=3), r"ngram_range must be"),
    (dict(analyzer="chr"), r"unknown analyzer 'chr' \(did you mean 'char'\?\)"),
    (dict(language="germn"), r"no stemmer or stop list has the language 'germn' \(did you "
                             r"mean 'german'\?\)"),
    (dict(language="korean", stem=True), r"there is no stemmer for korean"),
    (dict(stop_words="klingon"), r"no stop list for 'klingon'"),
    (dict(tokenizer="japanese"), r"unknown tokenizer 'japanese'"),
    (dict(analyzer="char", stem=True), r"analyzer 'char' counts character n-grams: stem "
                                       r"apply to words only"),
    (dict(analyzer="char_wb", token_pattern=r"\w+"), r"token_pattern apply to words only"),
    (dict(ngram_range=(1, 2), token_pattern=r"\w+ \w+"), r"cannot form word n-grams: its "
                                                          r"tokens can hold white space"),
    (dict(ngram_range=(1, 2), token_pattern=r"\w*"), r"cannot form word n-grams: it matches "
                                                      r"the empty string"),
    (dict(ngram_range=(1, 2), token_pattern=r"(\w)(\w)"), r"more than one capturing group"),
])
def test_bad_options_are_refused_where_they_are_set(kw, message):
    with pytest.raises(TextsiftError, match=message):
        VectorizerOptions(**kw)


def test_the_korean_tokenizer_without_its_extra_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "kiwipiepy", None)  # import fails as if not installed
    with pytest.raises(TextsiftError, match=r'pip install "textsift\[korean\]"'):
        VectorizerOptions(tokenizer="korean")
    res = runner.invoke(app, ["score", str(KOREAN), "--tokenizer", "korean"])
    assert res.exit_code == 2
    assert res.stderr == ('error: the Korean tokenizer needs Kiwi: pip install '
                          '"textsift[korean]"\n')


@pytest.mark.parametrize("value, why", [
    ("3-1", "MIN-MAX with 1 <= MIN <= MAX, e.g. 1-2; got '3-1'"),
    ("0-2", "MIN-MAX with 1 <= MIN <= MAX, e.g. 1-2; got '0-2'"),
    ("a-b", "MIN-MAX, e.g. 1-2 for words and pairs of words; got 'a-b'"),
])
def test_bad_ngrams_on_the_command_line_are_one_line(value, why):
    res = runner.invoke(app, ["score", "no-such-file.jsonl", "--ngrams", value])
    assert res.exit_code == 2
    assert res.stderr == f"error: Invalid value for '--ngrams': {why} (see 'textsift score -h')\n"


def test_bad_language_on_the_command_line_is_one_line_before_reading():
    # (a corpus path that is not there is said first, before anything heavy is imported:
    # test_cli_startup)
    res = runner.invoke(app, ["score", str(sample_path("20ng")), "--language", "frnch",
                              "--stem"])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert res.stderr.startswith("error: no stemmer or stop list has the language 'frnch' "
                                 "(did you mean 'french'?)")


# --------------------------------------------------------------------- the command line
def test_score_prints_korean_character_ngrams():
    res = runner.invoke(app, ["score", str(KOREAN), "--label-field", "sentiment", "--split",
                              "train", "--analyzer", "char_wb", "--ngrams", "1-3", "--method",
                              "chi2", "--class", "neg", "--top", "20", "--format", "json"])
    assert res.exit_code == 0, res.stderr
    terms = [r["term"] for r in json.loads(res.stdout)]
    assert len(terms) == 20
    hangul = [t for t in terms if any("\uac00" <= c <= "\ud7a3" for c in t)]
    assert len(hangul) >= 15  # Korean n-grams, not fragments of Latin text
    counts = count_file(KOREAN, label_field="sentiment", split_field="split", split="train",
                        opts=VectorizerOptions(analyzer="char_wb", ngram_range=(1, 3)),
                        engine="memory")
    assert set(terms) <= set(counts.feature_names)


def test_stream_prefilter_drops_rare_ngrams_as_they_come_and_stays_exact(monkeypatch):
    """The light pass bounds each term's document frequency by its bucket's: the counting
    pass then never holds most of the pairs that min_df drops, and the counts are the same
    -- also when every bucket is shared by many terms (16 buckets)."""
    from functools import partial

    import textsift.engines.stream as stream
    from textsift.engines import iter_chunks

    source = partial(iter_chunks, sample_path("reviews"), label_field="rating", chunk_size=500)
    opts = VectorizerOptions(ngram_range=(1, 2), min_df=3)
    seen = {}

    class Spy(stream.TermTotals):
        def counts(self, n_rows=None):
            seen.setdefault("terms", []).append(self.n_terms)
            return super().counts(n_rows)

    monkeypatch.setattr(stream, "TermTotals", Spy)
    exact = stream.count_exact(source, opts, prefilter=False)
    filtered = stream.count_exact(source, opts)
    assert filtered.equals(exact)
    held_without, held_with = seen["terms"]
    assert held_with < held_without / 4  # most pairs occur in fewer than 3 reviews
    monkeypatch.setattr(stream, "PREFILTER_BUCKETS", 16)
    assert stream.count_exact(source, opts).equals(exact)
