"""The ordinal experiment (textsift.ordinal_eval) and the ordinal / ordinal-eval commands."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.ordinal_eval import COLUMNS, Settings, load_ordinal, run

runner = CliRunner()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """240 short reviews, ranks 1-5 equally often; rank r's documents use the cue word
    ``cue{r}`` (or a neighbour's), plus filler words; one record in four is a test record."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(240):
        r = i % 5 + 1
        cue = int(np.clip(r + rng.choice([-1, 0, 0, 0, 1]), 1, 5))
        words = [f"cue{cue}"] + [f"filler{k}" for k in rng.integers(0, 40, 6)]
        rows.append({"text": " ".join(words), "stars": r, "kind": str(r),
                     "split": "test" if i % 4 == 0 else "train"})
    rows.append({"text": "   ", "stars": 3, "kind": "3", "split": "train"})  # dropped
    path = tmp_path_factory.mktemp("ordinal") / "reviews.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    return path


SMALL = Settings(methods=("rr_nc_idf", "prp"), ratios=(0.1, 1.0), a_grid=(1.0, 4.0),
                 c_grid=(1.0,))


def test_run_rows_baselines_and_resume(corpus, tmp_path):
    data = load_ordinal(corpus, "stars")
    assert data.n_dropped == 1 and len(data.y_test) == 60
    res = run(data, tmp_path, SMALL)
    assert list(res.columns) == COLUMNS
    assert len(res) == 2 * (2 + 2 * 2)  # learners x (triv, ffs, methods x ratios)
    triv = res[res.method == "triv"]
    assert np.allclose(triv.mae_macro, 1.2)  # every rank in the test set (§A.8)
    ffs = res[res.method == "ffs"].set_index("learner")
    at_one = res[(res.ratio == 1.0) & ~res.method.isin(["ffs", "triv"])]
    for _, row in at_one.iterrows():  # keeping every term is the FFS result
        assert row.mae_macro == ffs.loc[row.learner, "mae_macro"]
    assert "prp (provisional)" in set(res.method)
    tuned = res[(res.method == "rr_nc_idf") & (res.ratio == 0.1)]
    assert set(tuned.a) <= {1.0, 4.0} and (tuned.n_features == 5).all()  # ceil(0.1 * 45)
    # the cue words carry the rank: the selected terms beat Triv by far
    assert (tuned.mae_macro < 0.6).all()
    assert (tmp_path / "mae_macro.png").stat().st_size > 0
    assert pd.read_parquet(tmp_path / "results.parquet").equals(pd.read_csv(
        tmp_path / "results.csv"))
    # resume: drop the last row as if the run had been killed; re-running restores it exactly
    pd.read_csv(tmp_path / "results.csv").iloc[:-1].to_csv(tmp_path / "results.csv", index=False)
    again = run(data, tmp_path, SMALL)
    pd.testing.assert_frame_equal(again, res)
    with pytest.raises(ValueError, match="other settings .*c_grid"):
        run(data, tmp_path, Settings(methods=SMALL.methods, ratios=SMALL.ratios,
                                     a_grid=SMALL.a_grid, c_grid=(3.0,)))


def test_settings_and_loader_errors(corpus):
    with pytest.raises(ValueError, match="not an ordinal method"):
        Settings(methods=("chi2",))
    with pytest.raises(ValueError, match="unknown learner"):
        Settings(learners=("svm",))
    with pytest.raises(ValueError, match="non-numeric"):
        load_ordinal(corpus, "text")
    with pytest.raises(ValueError, match="outside the declared scale"):
        load_ordinal(corpus, "stars", ranks=[1, 2, 3])
    with pytest.raises(ValueError, match="no split field"):
        load_ordinal(corpus, "stars", split_field="fold")


def test_cli_ordinal_json_shape(corpus):
    out = runner.invoke(app, ["ordinal", str(corpus), "--rating-field", "stars", "--method",
                              "rr_nc_idf", "--k", "5", "--format", "json", "--a", "4"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert [set(r) for r in rows] == [{"rank", "term", "score", "rank_assigned"}] * 5
    # each rank's cue word heads its own list; ranks take turns 1..5
    assert [(r["term"], r["rank_assigned"]) for r in rows] == [
        (f"cue{j}", j) for j in range(1, 6)]
    out = runner.invoke(app, ["ordinal", str(corpus), "--rating-field", "stars", "--method",
                              "prp", "--ratio", "0.05", "--top", "2", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert [set(r) for r in json.loads(out.stdout)] == [
        {"rank", "term", "score", "provisional"}] * 2
    out = runner.invoke(app, ["ordinal", str(corpus), "--rating-field", "stars", "--method",
                              "prp", "--k", "3", "--format", "csv"])
    assert out.stdout.splitlines()[0] == "rank,term,score,provisional"


@pytest.mark.parametrize("args, message", [
    (["--rating-field", "text", "--k", "3"], "numeric ratings"),
    (["--rating-field", "stars"], "exactly one of --k"),
    (["--rating-field", "stars", "--k", "3", "--ratio", "0.1"], "exactly one of --k"),
    (["--rating-field", "stars", "--k", "3", "--method", "bns"], "not an ordinal method"),
    (["--rating-field", "stars", "--k", "3", "--ranks", "1,2"], "outside the declared"),
    (["--rating-field", "stars", "--k", "3", "--method", "var_idf", "--a", "-1"], "positive"),
])
def test_cli_ordinal_errors(corpus, args, message):
    out = runner.invoke(app, ["ordinal", str(corpus), *args])
    assert out.exit_code == 2
    assert message in " ".join(out.output.split())


def test_cli_ordinal_eval_writes_results(corpus, tmp_path):
    out = runner.invoke(app, ["ordinal-eval", str(corpus), "--rating-field", "stars",
                              "--split-field", "split", "--methods", "rr_var,var",
                              "--ratios", "0.1,1", "--learner", "svr", "--c-grid", "1",
                              "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    res = pd.read_csv(tmp_path / "results.csv")
    assert list(res.columns[:5]) == ["method", "ratio", "n_features", "mae_macro", "mae_micro"]
    assert set(res.method) == {"triv", "ffs", "rr_var", "var"} and set(res.learner) == {"svr"}
    assert (tmp_path / "mae_macro.png").exists()
    bad = runner.invoke(app, ["ordinal-eval", str(corpus), "--rating-field", "stars",
                              "--methods", "rr_var,nope", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "unknown method 'nope'" in bad.output


@pytest.mark.real_data
def test_multidomain_declared_scale_gives_rank_3_a_turn(real_data):
    path = real_data / "amazon_multidomain" / "all.jsonl.gz"
    out = runner.invoke(app, ["ordinal", str(path), "--rating-field", "rating", "--method",
                              "rr_var", "--k", "10", "--ranks", "1,2,3,4,5", "--format",
                              "json", "--split-field", "split", "--split", "train"])
    assert out.exit_code == 0, out.output
    # stars 3 never occur, yet terms whose mean rank is nearest 3 form rank 3's list (§0.7)
    assert [r["rank_assigned"] for r in json.loads(out.stdout)] == [1, 2, 3, 4, 5] * 2
