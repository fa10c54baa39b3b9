"""A result or cache file damaged after it was written -- a trial file or a fold cut short (a
copy interrupted, a full disk), or altered -- is found, named and computed again by a
resumed run, whose table is then the undamaged run's (it was a ``JSONDecodeError`` or a
``BadZipFile`` traceback)."""

from __future__ import annotations

import json
import warnings

import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.errors import DataWarning
from textsift.experiment import load_config, run_experiment
from textsift.experiment.store import DamagedFile, Store

CONFIG = """
[experiment]
name = "damaged"
seed = 3
n_jobs = 1

[corpus]
sample = "20ng"

[evaluation]
protocol = "cv"
folds = 2
metrics = ["accuracy"]

[selection]
methods = ["chi2", "ig"]
sizes = [50]

[[learners]]
name = "nb"
"""
N_TRIALS = 2 * 2  # 2 folds x 2 methods at one size, one learner


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run: its folder's files, byte for byte."""
    root = tmp_path_factory.mktemp("damaged")
    config = root / "exp.toml"
    config.write_text(CONFIG)
    out = root / "out"
    summary = run_experiment(load_config(config), out)
    assert summary.n_run == N_TRIALS
    return config, {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def _copy(finished, where):
    config, files = finished
    for rel, data in files.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_bytes(data)
    return config


def _resume(config, out):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = run_experiment(load_config(config), out, resume=True)
    said = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    return summary, said


def test_a_truncated_trial_file_is_named_and_computed_again(finished, tmp_path):
    config = _copy(finished, tmp_path)
    trial = sorted((tmp_path / "trials").glob("*.json"))[1]
    trial.write_bytes(trial.read_bytes()[:40])  # cut short
    with pytest.raises(DamagedFile, match="not readable JSON"):
        Store(tmp_path).read_trial(trial.name)
    summary, said = _resume(config, tmp_path)
    assert summary.n_run == 1  # that trial alone
    assert len(said) == 1 and said[0].startswith(f"{trial} is damaged (not readable JSON: ")
    assert said[0].endswith("); the trial is computed again")
    assert (tmp_path / "results.csv").read_bytes() == finished[1][
        (tmp_path / "results.csv").relative_to(tmp_path)]
    again, was = (json.loads(b) for b in (trial.read_bytes(),
                                          finished[1][trial.relative_to(tmp_path)]))
    assert again["rows"] == was["rows"]  # the same trial (its timing aside)


def test_an_altered_trial_file_fails_its_checksum(finished, tmp_path):
    """A trial that still parses but whose numbers changed (a flipped digit) is caught by
    the SHA-256 written inside it: 1 trial run again, the table unchanged."""
    config = _copy(finished, tmp_path)
    trial = sorted((tmp_path / "trials").glob("*.json"))[0]
    stored = json.loads(trial.read_text())
    stored["rows"][0]["value"] = 0.123
    trial.write_text(json.dumps(stored))
    summary, said = _resume(config, tmp_path)
    assert summary.n_run == 1
    assert said == [f"{trial} is damaged (its content does not match its SHA-256 checksum); "
                    "the trial is computed again"]
    assert (tmp_path / "results.csv").read_bytes() == finished[1][
        (tmp_path / "results.csv").relative_to(tmp_path)]


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_a_damaged_fold_cache_is_rebuilt(finished, tmp_path, damage):
    """A fold file cut short is no zip archive (its directory is at its end); a flipped byte
    in a member fails the member's CRC-32. Either is named and the fold rebuilt -- the same
    fold (same data and seed), so no trial is run again and the table is unchanged."""
    config = _copy(finished, tmp_path)
    fold = tmp_path / "cache" / "fold-1.npz"
    data = bytearray(fold.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
        reason = "not a whole zip archive: "
    else:
        data[200] ^= 0xFF  # inside the first member's data
        reason = "its member "
    fold.write_bytes(bytes(data))
    summary, said = _resume(config, tmp_path)
    assert summary.n_run == 0
    assert len(said) == 1 and said[0].startswith(f"{fold} is damaged ({reason}")
    assert said[0].endswith("; the fold is computed again")
    assert fold.read_bytes() == finished[1][fold.relative_to(tmp_path)]
    assert (tmp_path / "results.csv").read_bytes() == finished[1][
        (tmp_path / "results.csv").relative_to(tmp_path)]


def test_the_command_line_says_one_warning_line_per_damaged_file(finished, tmp_path):
    config = _copy(finished, tmp_path)
    fold = tmp_path / "cache" / "fold-0.npz"
    fold.write_bytes(fold.read_bytes()[:100])
    trial = sorted((tmp_path / "trials").glob("*.json"))[2]
    trial.write_text("")
    res = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path), "--resume",
                                   "--no-report"])
    assert res.exit_code == 0, res.output
    warned = [line for line in res.stderr.splitlines() if line.startswith("warning:")]
    assert warned == [
        f"warning: {trial} is damaged (not readable JSON: Expecting value: line 1 column 1 "
        "(char 0)); the trial is computed again",
        f"warning: {fold} is damaged (not a whole zip archive: File is not a zip file); the "
        "fold is computed again"]
    assert "Traceback" not in res.output
