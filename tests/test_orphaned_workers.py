"""A run killed with ``kill -TERM`` or ``kill -KILL`` leaves no worker behind: its worker
processes end with it (``textsift._lock.end_with``) and write a trial only while their run
holds the ``--out`` lock (``textsift._lock.check_held``). Before, the workers of a killed run
went on for minutes and re-created a folder the user had removed, with stale trials that made
the next run refuse it. Two real processes (the run and its workers) and a real ``kill``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _procs import PARENT, live

from textsift._lock import _running, check_held, hold
from textsift.errors import OutputError
from textsift.reading.corpus import load_sample

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="finds the workers in /proc")

CONFIG = """
[experiment]
name = "orphans"
n_jobs = 2

[corpus]
path = "corpus.jsonl"

[preprocessing]
min_df = 2

[evaluation]
protocol = "cv"
folds = 3

[selection]
methods = ["ig", "chi2", "bns"]
sizes = [20, 50, 100, 200, 400, 800]

[[learners]]
name = "logreg"
"""


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    """54 trials of 3 folds of 840 newsgroup posts (6 groups): many seconds of work for two
    workers, so that a kill after the first trial finds both busy."""
    root = tmp_path_factory.mktemp("orphans")
    sample = load_sample("20ng").frame
    sample[sample["label"].isin(sorted(sample["label"].unique())[:6])].to_json(
        root / "corpus.jsonl", orient="records", lines=True)
    (root / "orphans.toml").write_text(CONFIG)
    return root / "orphans.toml"


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    return live(PARENT, pid)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_workers_of_a_killed_run_end_with_it_and_write_nothing(config, tmp_path, sig):
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-c", "from textsift.cli import main; main()",
                            "run", str(config), "--out", str(out), "--no-report"],
                           cwd=config.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        deadline = time.monotonic() + 300
        while not list((out / "trials").glob("*.json")):  # the workers are computing trials
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "no trial finished"
            time.sleep(0.02)
        workers = _children(run.pid)
        assert len(workers) >= 2  # joblib's two workers (and its resource tracker)
        os.kill(run.pid, sig)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    killed = time.monotonic()
    shutil.rmtree(out)  # the user removes the folder of the killed run
    while any(map(_running, workers)):
        assert time.monotonic() - killed < 5, f"workers left running: {workers}"
        time.sleep(0.05)
    time.sleep(1.0)
    assert not out.exists()  # no worker re-created it with a stale trial
    if sig == signal.SIGTERM:  # the command's own clean-up, then one line
        assert (run.returncode, err.splitlines()[-1]) == (143, "terminated")
    else:
        assert run.returncode == -signal.SIGKILL


def test_a_trial_is_written_only_while_its_run_holds_the_folder(tmp_path):
    out = tmp_path / "out"
    with hold(out):
        check_held(out, os.getpid())  # this process holds it: a write may go ahead
        with pytest.raises(OutputError, match=r"no longer held by the run \(pid 1\)"):
            check_held(out, 1)  # another run's worker
    with pytest.raises(OutputError, match=r"its lock \(\.textsift\.lock\) is gone"):
        check_held(out, os.getpid())  # released and removed: the run has ended
    out.mkdir()
    (out / ".textsift.lock").write_text(f'{{"pid": {os.getpid()}}}\n')  # left by a kill
    with pytest.raises(OutputError, match=r"now: nobody"):
        check_held(out, os.getpid())  # names its run, but nobody holds it


PERMUTATIONS = """
from textsift.reading.corpus import load_sample
from textsift.evidence.permutation import permutation_pvalues
from textsift.text.vectorize import vectorize
s = load_sample("20ng").frame
X = vectorize(s["text"].tolist(), min_df=2)[0]
permutation_pvalues(X, s["label"].tolist(), ["chi2"], n_permutations=10**6, n_jobs=2)
"""


@pytest.mark.parametrize("command", [
    ["-c", "from textsift.cli import main; main()", "adabag", "--simulate", "--bootstraps",
     "2000", "--n-jobs", "2", "--out", "{out}"],
    ["-c", PERMUTATIONS]], ids=["adabag", "permutations"])
def test_the_workers_of_a_killed_command_end_with_it(tmp_path, command):
    """AdaBag's bootstraps and the permutations of score --evidence run in joblib's worker
    processes too (textsift._lock.parallel): ``kill -KILL`` of the command ends them within
    seconds (before: they finished their task, then waited for loky's 300 s idle timeout)."""
    args = [a.format(out=tmp_path / "out") for a in command]
    proc = subprocess.Popen([sys.executable, *args], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while len(workers := _children(proc.pid)) < 2:  # the pool has started its workers
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no worker started"
            time.sleep(0.05)
        time.sleep(1.0)  # each busy with a task
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    killed = time.monotonic()
    while any(map(_running, workers)):
        assert time.monotonic() - killed < 5, f"workers left running: {workers}"
        time.sleep(0.05)


def test_a_worker_whose_run_ended_while_it_started_ends_at_once():
    """A worker starting while its run is killed reaches end_with after its parent is gone
    (its parent is then no longer the run): it ends at once, with status 1, rather than wait
    for work that never comes (before, it took that for a Dask worker and lived on, which the
    test above caught under load). A process the run did not start, while the run lives,
    goes on (status 0)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    code = "import sys; from textsift._lock import end_with; end_with(int(sys.argv[1]))"
    assert subprocess.run([sys.executable, "-c", code, str(gone.pid)]).returncode == 1
    assert subprocess.run([sys.executable, "-c", code, str(os.getppid())]).returncode == 0
