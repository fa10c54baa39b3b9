"""A run killed mid-way resumes from its finished trials and ends with the same table as an
uninterrupted run (the store writes each trial atomically as soon as it finishes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from textsift.experiment import load_config, run_experiment
from textsift.reading.corpus import load_sample

CONFIG = """
[experiment]
name = "resume"
seed = 7
n_jobs = 1

[corpus]
path = "corpus.jsonl"

[preprocessing]
stop_words = "english"
min_df = 2

[selection]
methods = ["ig", "bns", "rc", "dia"]
sizes = [20, 100, 300, 1000]

[evaluation]
metrics = ["accuracy", "macro_f1"]

[[learners]]
name = "nb"

[[learners]]
name = "linear_svm"
"""
N_TRIALS = 4 * 4 * 2


def _cli(*args) -> list[str]:
    return [sys.executable, "-c", "from textsift.cli import main; main()", *args]


@pytest.mark.slow
def test_killed_run_resumes_to_the_identical_table(tmp_path):
    sample = load_sample("20ng").frame
    sample[sample["label"].isin(sorted(sample["label"].unique())[:8])].to_json(
        tmp_path / "corpus.jsonl", orient="records", lines=True)  # 8 newsgroups, 1,120 posts
    config = tmp_path / "resume.toml"
    config.write_text(CONFIG)
    out = tmp_path / "killed"
    proc = subprocess.Popen(_cli("run", str(config), "--out", str(out), "--no-report"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    trials = out / "trials"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if trials.is_dir() and len(list(trials.glob("*.json"))) >= 4:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)  # no clean-up of any kind: as if the machine died
    proc.wait()
    before = {p.name: p.read_bytes() for p in trials.glob("*.json")}
    assert proc.returncode == -signal.SIGKILL
    assert 4 <= len(before) < N_TRIALS, "the run should have been killed mid-way"
    assert not (out / "results.csv").exists()

    refused = subprocess.run(_cli("run", str(config), "--out", str(out)), capture_output=True,
                             text=True)
    assert refused.returncode == 2 and "pass --resume" in refused.stderr

    resumed = subprocess.run(_cli("run", str(config), "--out", str(out), "--resume",
                                  "--no-report"), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {len(before)} of {N_TRIALS} trials already done" in \
        " ".join(resumed.stderr.split())
    assert not list(out.rglob("*.tmp"))  # partial writes of the killed run are cleared
    # finished trials were not redone
    assert all((trials / name).read_bytes() == data for name, data in before.items())

    clean = run_experiment(load_config(config), tmp_path / "clean")
    assert clean.n_run == N_TRIALS
    assert (out / "results.csv").read_bytes() == (tmp_path / "clean" / "results.csv").read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), clean.results)
