"""Snippets of word n-grams and character n-grams: a term is shown where the vectorizer formed
it (textsift.report.snippets), for every analyzer."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.report.snippets import find_snippets
from textsift.text.vectorize import VectorizerOptions, build_vectorizer, count_terms


def _one(docs, terms, opts, words=2):
    return find_snippets([(d, "x") for d in docs], terms, {"x": 0},
                         np.ones((len(terms), 1), dtype=int), opts, words=words)


def test_a_word_pair_spans_the_stop_words_dropped_between_its_words():
    # with English stop words "was" and "not" are dropped before the pairs are formed, so
    # "film good" is a pair of this text, shown from its first word to its last
    opts = VectorizerOptions(ngram_range=(1, 2), stop_words="english")
    _, names = count_terms(["The film was not good, sadly"], opts)
    assert "film good" in names
    assert _one(["The film was not good, sadly"], ["film good", "sadly"], opts, words=1) == [
        [[("The ", "film was not good", ", sadly")]], [[("good, ", "sadly", "")]]]


def test_a_stemmed_pair_is_shown_as_written():
    opts = VectorizerOptions(ngram_range=(2, 2), stem=True)
    assert _one(["Dogs were running home"], ["were run"], opts) == [
        [[("Dogs ", "were running", " home")]]]


def test_char_wb_ngrams_are_found_within_their_words():
    # " go" is "go" at the start of a word: found in "good", not in "ago"; the context is a
    # token of the default pattern on each side (which skips the one-letter "a")
    opts = VectorizerOptions(analyzer="char_wb", ngram_range=(3, 3))
    out = _one(["It was ago, a good one"], [" go", "od "], opts, words=1)
    assert out == [[[("ago, a ", "go", "od one")]], [[("ago, a go", "od", " one")]]]


def test_char_ngrams_keep_a_single_tab_and_fold_runs_of_white_space():
    # scikit-learn's char analyzer turns runs of two or more white-space characters into
    # one space and leaves a single tab as it is
    opts = VectorizerOptions(analyzer="char", ngram_range=(3, 3))
    out = _one(["ab\tcd", "ef  \n gh"], ["b\tc", "f g"], opts, words=0)
    assert out == [[[("a", "b c", "d")]], [[("e", "f g", "h")]]]


def test_tokens_of_a_tokenizer_are_looked_for_in_order():
    # a tokenizer gives no offsets: each token is found after the one before it, and a token
    # that is not a substring of the text (here "were" for "was") has no place
    def tokenize(text):
        return ["was" if w == "wuz" else w for w in text.split()]

    opts = VectorizerOptions(tokenizer=tokenize, ngram_range=(1, 2))
    out = _one(["the cat wuz here the cat"], ["the cat", "cat was", "here"], opts, words=1)
    assert out == [[[("", "the cat", " wuz")]], [[]], [[("wuz ", "here", " the")]]]


TEXT = st.text(st.sampled_from("abcAB  \t\n.,éΣσ가나"), max_size=40)
OPTIONS = st.one_of(
    st.builds(VectorizerOptions, ngram_range=st.sampled_from([(1, 1), (1, 2), (2, 3)]),
              stop_words=st.sampled_from([None, "english"]), stem=st.booleans(),
              token_pattern=st.sampled_from([r"(?u)\b\w\w+\b", r"(?u)\b\w+\b"])),
    st.builds(VectorizerOptions, analyzer=st.sampled_from(["char", "char_wb"]),
              ngram_range=st.sampled_from([(1, 1), (2, 3), (1, 4)])))


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=6), OPTIONS)
def test_every_term_of_the_counts_has_a_snippet_that_forms_it(docs, opts):
    # invariant: each term the counts found (but a term of white space alone, which has
    # nothing to highlight) gets a snippet, whose highlighted text forms the term again
    _, names = count_terms(docs, opts)
    terms = [t for t in names if t.strip()]
    out = _one(docs, terms, opts)
    analyze = build_vectorizer(opts).build_analyzer()
    for term, [found] in zip(terms, out, strict=True):
        assert len(found) == 1, (term, docs)
        middle = found[0][1]
        if opts.analyzer == "word":
            assert term in analyze(middle), (term, middle)
        else:
            assert middle.casefold() == re.sub(r"\s+", " ", term.strip()).casefold(), (term, middle)
