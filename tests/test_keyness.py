"""``textsift.keyness``: one call from a DataFrame to the keyness table (issue 38 item 1)."""

import gzip
import json

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.stats as ss
from typer.testing import CliRunner

import textsift
from textsift.cli import app
from textsift.errors import TextsiftError
from textsift.reading.corpus import load_sample


@pytest.fixture(scope="module")
def frame():
    corpus = load_sample("20ng")
    return pd.DataFrame({"body": corpus.texts, "group": [str(x) for x in corpus.labels]})


@pytest.fixture(scope="module")
def jsonl(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("keyness") / "corpus.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for text, group in zip(frame["body"], frame["group"], strict=True):
            f.write(json.dumps({"text": text, "label": group}) + "\n")
    return path


def _cli(path, *args):
    res = CliRunner().invoke(app, ["score", str(path), "--min-df", "3", "--evidence",
                                   "--direction", "both", "--top", "100000", "-f", "json",
                                   *args])
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    out = pd.DataFrame(rows)
    for column in out.columns.difference(["term", "direction", "class"]):  # JSON has no inf
        out[column] = out[column].replace({"inf": np.inf, "-inf": -np.inf}).astype(float)
    return out.set_index("term")


def _same_columns(got: pd.DataFrame, cli: pd.DataFrame, statistic: str):
    """Every column of the CLI's table equals keyness's, term by term; the CLI's score is
    keyness's signed statistic."""
    got = got.set_index("feature")
    assert sorted(got.index) == sorted(cli.index)
    got = got.loc[cli.index]
    shared = [c for c in cli.columns if c in got.columns]
    assert len(shared) >= 30, shared  # counts, p, q, effects, dispersion, the tests
    for column in shared:
        a, b = got[column], cli[column]
        numeric = pd.api.types.is_numeric_dtype
        if not (numeric(a) and numeric(b)):
            assert a.fillna("").tolist() == b.fillna("").tolist(), column
        else:
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-15,
                                       atol=0, equal_nan=True, err_msg=column)
    stat = got[statistic].to_numpy(float)  # the score, negative for the reference's terms
    np.testing.assert_allclose(np.abs(stat), np.abs(cli["score"].to_numpy(float)), rtol=1e-15)
    assert ((stat < 0) == (got["direction"] == "under").to_numpy()).all()


def test_keyness_of_a_dataframe_equals_score_evidence_of_the_file(frame, jsonl):
    got = textsift.keyness("body", "group", data=frame, target="sci.space", min_df=3)
    _same_columns(got, _cli(jsonl, "--method", "g2", "--class", "sci.space"), "g2")
    # quanteda's layout first, sorted by the signed statistic
    assert list(got.columns[:5]) == ["feature", "g2", "p", "n_target", "n_reference"]
    assert (np.diff(got["g2"].to_numpy()) <= 0).all()
    assert (got.loc[got["g2"] < 0, "direction"] == "under").all()


def test_against_a_group_with_the_bootstrap_and_polars_equals_the_cli(frame, jsonl):
    data = pl.from_pandas(frame)
    got = textsift.keyness(data["body"], data["group"], target="sci.space",
                           reference="sci.med", method="fisher", correction="holm",
                           bootstrap=49, random_state=3, min_range=5, min_df=3,
                           output="polars")
    assert isinstance(got, pl.DataFrame)
    cli = _cli(jsonl, "--method", "fisher", "--class", "sci.space", "--reference", "sci.med",
               "--correction", "holm", "--bootstrap", "49", "--seed", "3", "--min-range",
               "5")
    _same_columns(got.to_pandas(), cli, "fisher")


def test_boolean_groups_are_the_target_against_the_rest(frame):
    flags = textsift.keyness(frame["body"], frame["group"] == "sci.med", min_df=3)
    named = textsift.keyness(frame["body"], frame["group"], target="sci.med", min_df=3)
    cols = ["feature", "g2", "p", "q", "A", "B", "dp_target", "p_wilcoxon"]
    pd.testing.assert_frame_equal(flags[cols], named[cols])


def test_a_frequency_list_is_compared_token_by_token(frame):
    """A = the term's tokens in the target, B = the list's count, C and D the other tokens:
    G2 of that 2 x 2 table (scipy's log-likelihood ratio, without Yates' correction)."""
    space = frame.loc[frame["group"] == "sci.space", "body"]
    freq = {"space": 40, "the": 90_000, "orbit": 2, "of": 50_000, "not_in_target": 10}
    got = textsift.keyness(space, reference=freq, min_df=2).set_index("feature")
    total_ref = sum(freq.values())
    total_target = int(got.loc["space", "A"] + got.loc["space", "C"])
    for term in ("space", "the", "orbit"):
        a, b = got.loc[term, "A"], got.loc[term, "B"]
        assert b == freq[term] and got.loc[term, "n_reference"] == freq[term]
        assert got.loc[term, "D"] == total_ref - freq[term]
        table = [[a, b], [total_target - a, total_ref - b]]
        g2 = ss.chi2_contingency(table, correction=False, lambda_="log-likelihood")[0]
        assert abs(got.loc[term, "g2"]) == pytest.approx(g2, rel=1e-10)
    assert got.loc["the", "g2"] < 0 < got.loc["space", "g2"]
    few = textsift.keyness(space, reference=freq, min_df=2, min_range=30)
    assert (few["range_target"] >= 30).all() and 0 < len(few) < len(got)
    assert np.isnan(got.loc["space", "p_wilcoxon"])  # a list has no documents


def test_a_reference_corpus_of_texts(frame):
    space = frame.loc[frame["group"] == "sci.space", "body"].tolist()
    med = frame.loc[frame["group"] == "sci.med", "body"].tolist()
    got = textsift.keyness(space, reference=med, min_df=3).set_index("feature")
    assert got.loc["space", "A"] + got.loc["space", "C"] == len(space)
    assert got.loc["space", "B"] + got.loc["space", "D"] == len(med)
    assert got["p_wilcoxon"].notna().any() and got["dp_reference"].notna().any()


@pytest.mark.parametrize("call, message", [
    (lambda f: textsift.keyness("text", "group", data=f, target="sci.space"),
     "no column 'text' (the texts); its columns are body, group"),
    (lambda f: textsift.keyness("body", "party", data=f, target="x"),
     "no column 'party' (the groups)"),
    (lambda f: textsift.keyness(f["body"], ["a"] * len(f), target="a"),
     "the groups have one value ('a')"),
    (lambda f: textsift.keyness(f["body"], f["group"], target="sci.spice"),
     "the target 'sci.spice' is not among the groups"),
    (lambda f: textsift.keyness(f["body"], f["group"]), "give the target group"),
    (lambda f: textsift.keyness(f["body"], reference={"space": -3}),
     "gives 'space' the count -3: counts must be non-negative numbers"),
    (lambda f: textsift.keyness(f["body"], reference={"space": "many"}),
     "gives 'space' the count 'many'"),
    (lambda f: textsift.keyness(f["body"], reference=pd.Series({"space": np.nan})),
     "counts must be non-negative numbers"),
    (lambda f: textsift.keyness(f["body"], reference={"SPACE": 3}), "shares no term"),
    (lambda f: textsift.keyness(f["body"]), "without groups every text is the target"),
    (lambda f: textsift.keyness(f["body"], f["group"], target="sci.space", method="rr_igor"),
     "choose a nominal method"),
    (lambda f: textsift.keyness(f["body"], f["group"], target="sci.space", output="arrow"),
     "output must be 'pandas' or 'polars'"),
    (lambda f: textsift.keyness([*f["body"][:-1], None], f["group"], target="sci.space"),
     "the texts must be strings"),
    (lambda f: textsift.keyness(f["body"], [["a", "b"]] * len(f), target="a"),
     "the groups are label sets"),
    (lambda f: textsift.keyness(f["body"], f["group"] == "sci.space", target="x"),
     "drop target (True marks the target)"),
    (lambda f: textsift.keyness(f["body"], f["group"], target="sci.space", min_range=0),
     "min_range must be a number of documents >= 1"),
])
def test_bad_input_names_the_fix(frame, call, message):
    with pytest.raises(TextsiftError, match=None) as info:
        call(frame)
    assert message in str(info.value)


def test_importing_the_module_does_not_shadow_the_function():
    import importlib

    importlib.import_module("textsift.evidence.keywords")
    assert callable(textsift.keyness) and textsift.keyness.__name__ == "keyness"


def test_a_table_with_column_names_as_a_dataset_has_them(frame):
    """A Hugging Face ``Dataset`` names its columns ``column_names`` and gives a column as a
    sequence: a stand-in with that interface (``datasets`` is not a dependency)."""

    class Dataset:
        column_names = ["body", "group"]

        def __getitem__(self, name):
            return frame[name].tolist()

    got = textsift.keyness("body", "group", data=Dataset(), target="sci.space", min_df=3)
    expected = textsift.keyness("body", "group", data=frame, target="sci.space", min_df=3)
    pd.testing.assert_frame_equal(got, expected)
    with pytest.raises(TextsiftError, match="its columns are body, group"):
        textsift.keyness("text", "group", data=Dataset(), target="sci.space")
