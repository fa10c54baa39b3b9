"""The ordinal and ordinal-eval commands (ordinal-eval runs the harness ordinal experiment)."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.experiment import COLUMNS

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


def eval_args(corpus, out, *extra):
    return ["ordinal-eval", str(corpus), "--label-field", "stars", "--split-field", "split",
            "--methods", "rr_nc_idf,prp", "--ratios", "0.1,1", "--a-grid", "1,4",
            "--c-grid", "1", "--out", str(out), *extra]


def test_ordinal_eval_rows_baselines_and_resume(corpus, tmp_path):
    """`textsift ordinal-eval` is the harness's ordinal experiment: Triv, FFS, every method at
    every ratio, a (IDF methods) and C tuned on validation; a killed run resumes to the same
    table."""
    res = runner.invoke(app, eval_args(corpus, tmp_path))
    assert res.exit_code == 0, res.output
    r = pd.read_csv(tmp_path / "results.csv")
    assert list(r.columns[:9]) == [*COLUMNS, "ratio"] and {"a", "C"} <= set(r.columns)
    mae = r[r.metric == "mae_macro"]
    assert len(mae) == 1 + 3 + 2  # triv; ffs, rr_nc_idf and prp at "all"; both at 0.1
    assert np.allclose(mae[mae.method == "triv"].value, 1.2)  # every rank in the test set
    at_one = mae[mae.ratio == 1.0]
    assert at_one.value.nunique() == 1 and set(at_one.method) == {"ffs", "rr_nc_idf", "prp"}
    tuned = mae[(mae.method == "rr_nc_idf") & (mae.ratio == 0.1)]
    assert tuned.a.item() in (1.0, 4.0) and tuned.n_features.item() == 5  # ceil(0.1 * 45)
    assert tuned.value.item() < 0.6  # the cue words carry the rank: far better than Triv
    assert (tmp_path / "report.html").exists() and (tmp_path / "figures").is_dir()
    assert "dropped 1 documents with an empty text" in res.output
    # resume: drop a finished trial as if the run had been killed; re-running restores it
    sorted((tmp_path / "trials").glob("*.json"))[-1].unlink()
    again = runner.invoke(app, eval_args(corpus, tmp_path))
    assert again.exit_code == 0, again.output
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "results.csv"), r)
    # another tuning grid changes every tuned trial: refused, with the reason
    other = runner.invoke(app, eval_args(corpus, tmp_path, "--c-grid", "3"))
    said = " ".join(other.output.split())
    assert other.exit_code == 2 and "is not valid under this experiment (tuning.grid: " in said
    assert "the experiment changed: tuning.grids: " in said


@pytest.mark.parametrize("args, message", [
    (["--label-field", "text"], "not a number; ranks are numbers"),
    (["--label-field", "stars", "--ranks", "1,2,3"], "outside the declared scale"),
    (["--label-field", "stars", "--split-field", "fold"], "'fold' is not among"),
    (["--label-field", "stars", "--methods", "chi2"], "not an ordinal method"),
])
def test_ordinal_eval_errors(corpus, tmp_path, args, message):
    out = runner.invoke(app, ["ordinal-eval", str(corpus), *args, "--out", str(tmp_path)])
    assert out.exit_code == 2, out.output
    assert message in " ".join(out.output.split())


def test_cli_ordinal_json_shape(corpus):
    out = runner.invoke(app, ["ordinal", str(corpus), "--label-field", "stars", "--method",
                              "rr_nc_idf", "--k", "5", "--format", "json", "--a", "4"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert [set(r) for r in rows] == [{"position", "term", "score", "rank"}] * 5
    # each rank's cue word heads its own list; ranks take turns 1..5
    assert [(r["term"], r["rank"]) for r in rows] == [
        (f"cue{j}", j) for j in range(1, 6)]
    out = runner.invoke(app, ["ordinal", str(corpus), "--label-field", "stars", "--method",
                              "prp", "--ratio", "0.05", "--top", "2", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert [set(r) for r in json.loads(out.stdout)] == [
        {"position", "term", "score", "provisional"}] * 2
    out = runner.invoke(app, ["ordinal", str(corpus), "--label-field", "stars", "--method",
                              "prp", "--k", "3", "--format", "csv"])
    assert out.stdout.splitlines()[0] == "position,term,score,provisional"


@pytest.mark.parametrize("args, message", [
    (["--label-field", "text", "--k", "3"], "not a number; ranks are numbers"),
    (["--label-field", "stars", "--k", "3", "--ratio", "0.1"], "give one of -k"),
    (["--label-field", "stars", "--k", "3", "--method", "bns"], "not an ordinal method"),
    (["--label-field", "stars", "--k", "3", "--ranks", "1,2"], "not among the declared"),
    (["--label-field", "stars", "--k", "3", "--method", "var_idf", "--a", "-1"], "positive"),
])
def test_cli_ordinal_errors(corpus, args, message):
    out = runner.invoke(app, ["ordinal", str(corpus), *args])
    assert out.exit_code == 2
    assert message in " ".join(out.output.split())


def test_cli_ordinal_eval_plain_learner_without_idf_methods(corpus, tmp_path):
    out = runner.invoke(app, ["ordinal-eval", str(corpus), "--label-field", "stars",
                              "--split-field", "split", "--methods", "rr_var,var",
                              "--ratios", "0.1,1", "--learner", "svr", "--c-grid", "1",
                              "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    res = pd.read_csv(tmp_path / "results.csv")
    assert set(res.method) == {"triv", "ffs", "rr_var", "var"} and set(res.learner) == {"svr"}
    assert "a" not in res.columns  # no method here has an IDF exponent to tune
    assert (tmp_path / "figures" / "mae_macro.png").exists()
    bad = runner.invoke(app, ["ordinal-eval", str(corpus), "--label-field", "stars",
                              "--methods", "rr_var,nope", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "unknown method 'nope'" in bad.output


@pytest.mark.real_data
def test_multidomain_declared_scale_gives_rank_3_a_turn(real_data):
    path = real_data / "amazon_multidomain" / "all.jsonl.gz"
    out = runner.invoke(app, ["ordinal", str(path), "--label-field", "rating", "--method",
                              "rr_var", "--k", "10", "--ranks", "1,2,3,4,5", "--format",
                              "json", "--split-field", "split", "--split", "train"])
    assert out.exit_code == 0, out.output
    # stars 3 never occur, yet terms whose mean rank is nearest 3 form rank 3's list (our
    # rule: a declared rank without documents keeps its turn)
    assert [r["rank"] for r in json.loads(out.stdout)] == [1, 2, 3, 4, 5] * 2


def test_cli_ordinal_options_are_the_registrys_parameters(corpus):
    """Every parameter of an ordinal method is an option (PRP's s too); an option of another
    method is refused by name."""
    from textsift.scores import REGISTRY

    names = {p for m in REGISTRY.values() if m.kind == "ordinal" for p in m.params}
    help_text = runner.invoke(app, ["ordinal", "-h"]).output
    assert names == {"a", "eps", "idf", "s", "base", "balanced"}
    assert all(f"--{p}" in help_text for p in names)
    args = ["ordinal", str(corpus), "--label-field", "stars", "--method", "prp", "--k", "5",
            "--format", "json"]
    runs = [runner.invoke(app, [*args, *extra]) for extra in ([], ["--s", "0.5"], ["--s", "0"])]
    assert all(r.exit_code == 0 for r in runs), runs[-1].output
    scores = [[row["score"] for row in json.loads(r.stdout)] for r in runs]
    assert scores[0] == scores[1] and scores[2] != scores[0]  # s = 0: no redistribution
    bad = runner.invoke(app, [*args[:5], "rr_nc_idf", "--k", "5", "--s", "0.2"])
    assert bad.exit_code == 2
    assert "--s is a parameter of prp, not of rr_nc_idf" in " ".join(bad.output.split())
    # the rank-balanced variant is a flag, refused by the methods without it
    flag = runner.invoke(app, [*args[:5], "rr_var", "--k", "5", "--balanced"])
    assert flag.exit_code == 0, flag.output
    bad = runner.invoke(app, [*args[:5], "rr_igor", "--k", "5", "--balanced"])
    assert bad.exit_code == 2
    assert ("--balanced is a parameter of prp, rr_nc_idf, rr_var, rr_var_idf, not of rr_igor"
            in " ".join(bad.output.split()))


def test_ordinal_eval_fills_the_experiment_with_every_preprocessing_option(corpus, tmp_path,
                                                                          monkeypatch):
    """`ordinal-eval` gives the harness the corpus options' VectorizerOptions whole, so an
    option added to it later (here a made-up one) reaches the experiment, and its
    fingerprint, without a change to the command."""
    import dataclasses

    from textsift.cli import experiment as cli_experiment
    from textsift.cli.options import CorpusOptions
    from textsift.text.vectorize import VectorizerOptions

    @dataclasses.dataclass(frozen=True)
    class Later(VectorizerOptions):
        later_option: int = 1

    given = CorpusOptions.vectorizer
    monkeypatch.setattr(CorpusOptions, "vectorizer",
                        lambda self, **kw: Later(**dataclasses.asdict(given(self, **kw)),
                                                 later_option=7))
    seen = []

    def run(exp, *args, **kw):
        seen.append(exp)
        raise SystemExit(0)

    monkeypatch.setattr(cli_experiment, "run_with_progress", run)
    runner.invoke(app, eval_args(corpus, tmp_path, "--min-df", "2", "--stem"))
    (exp,) = seen
    assert exp.preprocessing == Later(min_df=2, stem=True, later_option=7)
    at_default = dataclasses.replace(exp, preprocessing=Later(min_df=2, stem=True))
    assert exp.fingerprint != at_default.fingerprint
    # at its default too: every option is part of the fingerprint (a directory written before
    # an option existed is refused, not resumed)
    assert at_default.fingerprint != dataclasses.replace(
        exp, preprocessing=VectorizerOptions(min_df=2, stem=True)).fingerprint


def test_ordinal_eval_learners_are_the_registry_s_learners_of_ranks():
    """--learner reads the learner registry: every learner serving ranks, and NAME-balanced
    for one with a balanced parameter (svr's rank-balanced loss); no list of its own."""
    from textsift.cli.ordinal import _learner
    from textsift.errors import TextsiftError
    from textsift.learners import LEARNERS

    for name, learner in LEARNERS.items():
        if "ordinal" in learner.label_kinds:
            assert _learner(name) == {"name": name, "label": name}
        else:
            with pytest.raises(TextsiftError, match="not a learner of ranks"):
                _learner(name)
    assert _learner("svr-balanced") == {"name": "svr", "label": "svr-balanced",
                                        "balanced": True}
    with pytest.raises(TextsiftError, match=r"'svm' is not a learner of ranks \(did you mean"):
        _learner("svm")
