"""Bad input to the commands that write results (`run`, `demo`, `ordinal-eval`): one `error:`
line, exit code 2, no traceback -- and --out exactly as it was before the command: every check
of the data and the configuration runs before the first file is written."""

import json
import os

import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.errors import TextsiftError, check_n_jobs

runner = CliRunner()


def write_corpus(path, labels, n=60):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta"]
    recs = [{"text": f"{words[i % 7]} {words[(i * 3) % 7]} common term{i % 5}",
             "label": labels[i % len(labels)], "rating": 1 + i % 5,
             "split": "test" if i % 4 == 0 else "train"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def write_toml(tmp_path, corpus, learner='name = "nb"', extra="", preprocessing=""):
    path = tmp_path / "exp.toml"
    path.write_text(f'[experiment]\nname = "t"\n{extra}\n[corpus]\npath = "{corpus}"\n'
                    f"[preprocessing]\n{preprocessing}\n"
                    f'[selection]\nmethods = ["chi2"]\nsizes = [3]\n'
                    f"[[learners]]\n{learner}\n")
    return path


def snapshot(path):
    """Every file under ``path`` with its bytes (None: the path does not exist)."""
    if not path.exists():
        return None
    if path.is_file():
        return path.read_bytes()
    return {str(p.relative_to(path)): p.read_bytes() if p.is_file() else "dir"
            for p in sorted(path.rglob("*"))}


def assert_refused(args, out, message):
    before = snapshot(out)
    res = runner.invoke(app, [*args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()  # progress lines may come first, on stderr too
    assert lines[-1].startswith("error: ") and message in lines[-1], res.stderr
    assert sum(line.startswith("error") for line in lines) == 1 and res.stdout == ""
    assert "Traceback" not in res.output
    assert snapshot(out) == before, "--out changed"


@pytest.fixture(params=["absent", "empty"])
def out(request, tmp_path):
    """--out as a path that does not exist, or as an empty directory."""
    path = tmp_path / "out"
    if request.param == "empty":
        path.mkdir()
    return path


def test_one_class_corpus(tmp_path, out):
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a"]))
    assert_refused(["run", str(toml)], out,
                   "the training part has a single class ('a', 45 documents); classifying "
                   "needs two or more")


def test_learner_parameter_of_the_wrong_type(tmp_path, out):
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a", "b"]),
                      learner='name = "linear_svm"\nC = "one"')
    assert_refused(["run", str(toml)], out, "[[learners]] #1 (linear_svm): The 'C' parameter "
                                            "of LinearSVC must be a float")


@pytest.mark.parametrize("n_jobs", [-7, 0, -2])
def test_n_jobs_in_the_toml(tmp_path, out, n_jobs):
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a", "b"]),
                      extra=f"n_jobs = {n_jobs}")
    assert_refused(["run", str(toml)], out, "[experiment] n_jobs must be a positive number of "
                                            f"workers, or -1 for every core; got {n_jobs}")


@pytest.mark.parametrize("seed", [-1, 99999999999])
def test_a_seed_numpy_does_not_take_is_refused_when_the_file_is_read(tmp_path, out, seed):
    """A seed outside numpy RandomState's [0, 2**32 - 1], with scut (whose validation split
    takes it): one error line, --out as it was -- where scikit-learn's InvalidParameterError
    came as a traceback after cache/, trials/ and experiment.json were written."""
    from test_experiment_multilabel import corpus, write

    path = write(tmp_path, corpus(n=80))
    toml = tmp_path / "seed.toml"
    toml.write_text(f'[experiment]\nseed = {seed}\n[corpus]\npath = "{path}"\n'
                    'label_field = "labels"\n[evaluation]\nmetrics = ["micro_f1"]\n'
                    '[selection]\nmethods = ["chi2"]\nsizes = [3]\n'
                    '[[learners]]\nname = "nb"\nthreshold = "scut"\n')
    assert_refused(["run", str(toml)], out, "[experiment] seed must be an integer in "
                                            "[0, 2**32 - 1] (numpy's RandomState takes no "
                                            f"other), got {seed}; e.g. seed = 0")


@pytest.mark.parametrize("n_jobs", ["0", "-7"])
def test_n_jobs_on_the_command_line(tmp_path, out, n_jobs):
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a", "b"]))
    assert_refused(["run", str(toml), "--n-jobs", n_jobs], out,
                   f"Invalid value for '--n-jobs': a positive number of workers, or -1 for "
                   f"every core; got {n_jobs}")


def test_n_jobs_rule():
    assert check_n_jobs(1) == 1 and check_n_jobs(-1) == -1 and check_n_jobs(16) == 16
    for bad in (0, -2, -7, 1.5, True, "2"):
        with pytest.raises(TextsiftError, match="-1 for every core"):
            check_n_jobs(bad)


def test_empty_vocabulary(tmp_path, out):
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a", "b"]),
                      preprocessing="min_df = 1000")
    assert_refused(["run", str(toml)], out, "empty vocabulary")


def test_preprocessing_value_out_of_range(tmp_path, out):
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a", "b"]),
                      preprocessing="max_df = 0")
    assert_refused(["run", str(toml)], out, "[preprocessing] max_df must be a fraction in (0, 1]")


def test_bad_corpus_file(tmp_path, out):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "alpha beta", "label": 1}\n{"text": "gamma", "label": "b"}\n')
    toml = write_toml(tmp_path, corpus)
    assert_refused(["run", str(toml)], out, "the label 'label' mixes types")


def test_positive_class_measures_on_other_labels(tmp_path, out):
    corpus = write_corpus(tmp_path / "c.jsonl", ["a", "b"])
    toml = tmp_path / "exp.toml"
    toml.write_text(f'[corpus]\npath = "{corpus}"\n[evaluation]\nmetrics = ["f1_pos"]\n'
                    '[selection]\nmethods = ["chi2"]\nsizes = [3]\n[[learners]]\nname = "nb"\n')
    assert_refused(["run", str(toml)], out, "f1_pos, precision_pos and recall_pos need binary")


def test_method_parameter_out_of_range(tmp_path, out):
    corpus = write_corpus(tmp_path / "c.jsonl", ["a", "b"])
    toml = tmp_path / "exp.toml"
    toml.write_text(f'[corpus]\npath = "{corpus}"\nlabel_kind = "ordinal"\nlabel_field = "rating"\n'
                    '[evaluation]\nmetrics = ["mae_macro"]\n[selection]\nmethods = ["var_idf"]\n'
                    "sizes = [3]\n[selection.method_params.var_idf]\na = -1\n"
                    '[[learners]]\nname = "svr"\n')
    assert_refused(["run", str(toml)], out, "[selection.method_params.var_idf]: the IDF "
                                            "exponent a must be positive")


def test_another_experiments_directory_is_left_alone(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    toml = write_toml(tmp_path, write_corpus(tmp_path / "c.jsonl", ["a", "b"]))
    assert_refused(["run", str(toml)], out, "is not empty and holds no experiment")


@pytest.mark.parametrize("command", [
    ["run", "{toml}"],
    ["demo"],
    ["ordinal-eval", "{corpus}", "--label-field", "rating"],
])
def test_out_that_is_a_file(tmp_path, command):
    corpus = write_corpus(tmp_path / "c.jsonl", ["a", "b"])
    toml = write_toml(tmp_path, corpus)
    out = tmp_path / "results"
    out.write_text("not a directory")
    args = [a.format(toml=toml, corpus=corpus) for a in command]
    assert_refused(args, out, f"--out {out} is a file, not a directory")
    assert_refused(args, out / "sub", f"--out {out / 'sub'}: {out} is a file, not a directory")


def test_a_failed_check_then_a_good_run(tmp_path):
    # the refused run left nothing behind, so the same --out serves the corrected run
    out = tmp_path / "out"
    corpus = write_corpus(tmp_path / "c.jsonl", ["a", "b"])
    toml = write_toml(tmp_path, corpus, preprocessing="min_df = 1000")
    assert runner.invoke(app, ["run", str(toml), "--out", str(out)]).exit_code == 2
    assert not out.exists()
    toml = write_toml(tmp_path, corpus)
    res = runner.invoke(app, ["run", str(toml), "--out", str(out), "--no-report"])
    assert res.exit_code == 0, res.output
    assert sorted(os.listdir(out)) == ["cache", "class_terms.csv", "experiment.json",
                                       "notes.json", "results.csv", "results.parquet",
                                       "run.json", "summary.csv", "summary.parquet",
                                       "term_evidence.csv", "terms.csv", "timings.csv",
                                       "trials"]


def test_report_of_a_file_says_it_is_not_a_runs_folder(tmp_path):
    """`report FILE`: the argument is a run's folder, which exists -- it said "(it is
    created if it does not exist)", the advice for an --out."""
    f = tmp_path / "results.csv"
    f.write_text("x\n")
    res = CliRunner().invoke(app, ["report", str(f)])
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [
        f"error: {f} is a file, not an experiment's folder; give the folder a run wrote "
        "(textsift run CONFIG.toml --out DIR, then textsift report DIR)"]
    assert f.read_text() == "x\n" and sorted(p.name for p in tmp_path.iterdir()) == [f.name]
