"""One writer per --out: every command that writes a folder (or the explore page) holds its
lock for the whole command; a second process is refused at once with one line naming the
holder's pid and start time (exit 2); a lock left by a killed run is taken over, and said.
The concurrent cases run two real processes: the first is stopped (SIGSTOP) while it holds
the lock, so that the second always meets it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift._lock import LOCK_NAME, hold, lock_path
from textsift.cli import app
from textsift.reading.corpus import load_sample, sample_path

CONFIG = """
[experiment]
name = "{name}"
n_jobs = 1

[corpus]
path = "corpus.jsonl"

[preprocessing]
stop_words = "english"
min_df = 2

[selection]
methods = ["ig", "chi2"]
sizes = {sizes}

[[learners]]
name = "nb"
"""


def _cli(*args) -> list[str]:
    return [sys.executable, "-c", "from textsift.cli import main; main()", *map(str, args)]


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    root = tmp_path_factory.mktemp("lock")
    sample = load_sample("20ng").frame
    sample[sample["label"].isin(sorted(sample["label"].unique())[:4])].to_json(
        root / "corpus.jsonl", orient="records", lines=True)  # 4 newsgroups, 560 posts
    paths = []
    for name, sizes in (("first", [20, 100, 300]), ("other", [50, 500])):
        path = root / f"{name}.toml"
        path.write_text(CONFIG.format(name=name, sizes=sizes))
        paths.append(path)
    return paths


def _wait_for_lock(out, proc) -> dict:
    """The lock file's record once ``proc`` has written it."""
    path = out / LOCK_NAME
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            info = json.loads(path.read_text())
            if info.get("pid") == proc.pid:
                return info
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    pytest.fail(f"the first run did not take the lock (exit code {proc.poll()})")


def _stamp(info: dict) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["started"]))


@pytest.mark.slow
def test_a_second_run_is_refused_while_the_first_holds_out(configs, tmp_path):
    first_toml, other_toml = configs
    out = tmp_path / "out"
    first = subprocess.Popen(_cli("run", first_toml, "--out", out, "--no-report"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        info = _wait_for_lock(out, first)
        os.kill(first.pid, signal.SIGSTOP)  # holds the lock, computes nothing meanwhile
        for toml in (first_toml, other_toml):  # the same experiment, and another one
            second = subprocess.run(_cli("run", toml, "--out", out, "--no-report"),
                                    capture_output=True, text=True, timeout=300)
            lines = second.stderr.splitlines()
            assert second.returncode == 2 and second.stdout == "", second.stderr
            assert [line.startswith("error: ") for line in lines] == [True], second.stderr
            assert (f"error: --out {out} is in use by another textsift run (pid {first.pid}, "
                    f"started {_stamp(info)}, ") in lines[0]
            assert lines[0].endswith("wait for it to finish, or choose another --out")
    finally:
        os.kill(first.pid, signal.SIGCONT)
    assert first.wait(timeout=600) == 0
    # the table is the first experiment's alone: 2 methods x 3 sizes x 2 measures
    results = pd.read_csv(out / "results.csv")
    assert len(results) == 12 and sorted(set(results["n_features"])) == [20, 100, 300]
    assert not (out / LOCK_NAME).exists()  # released, and removed


@pytest.mark.slow
def test_a_lock_left_by_a_killed_run_is_taken_over(configs, tmp_path):
    first_toml, _ = configs
    out = tmp_path / "out"
    first = subprocess.Popen(_cli("run", first_toml, "--out", out, "--no-report"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    info = _wait_for_lock(out, first)
    os.kill(first.pid, signal.SIGKILL)  # no clean-up: the lock file stays, the lock is free
    first.wait()
    assert json.loads((out / LOCK_NAME).read_text())["pid"] == first.pid
    again = subprocess.run(_cli("run", first_toml, "--out", out, "--resume", "--no-report"),
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stderr.split())
    assert (f"note: {out} was locked by a textsift run that has ended without releasing it "
            f"(pid {first.pid}, started {_stamp(info)}, ") in said
    assert "; taking the lock over" in said
    assert not (out / LOCK_NAME).exists()
    assert len(pd.read_csv(out / "results.csv")) == 12


HOLDER = """
import sys, time
from textsift._lock import hold
with hold(sys.argv[1]), hold(sys.argv[2], folder=False):
    print("held", flush=True)
    time.sleep(600)
"""


@pytest.fixture(scope="module")
def held(tmp_path_factory):
    """A process holding the lock of a folder and of a page in it."""
    root = tmp_path_factory.mktemp("held")
    out, page = root / "out", root / "out" / "page.html"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out), str(page)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    yield holder.pid, out, page
    holder.kill()
    holder.wait()


@pytest.mark.parametrize("command", [
    ["run", "{toml}", "--out", "{out}"],
    ["demo", "--out", "{out}"],
    ["explore", "{sample}", "--out", "{page}"],
    ["adabag", "--simulate", "--bootstraps", "2", "--out", "{out}"],
    ["ordinal-eval", "{reviews}", "--label-field", "rating", "--out", "{out}"],
    ["pca-lda", "--simulate", "--out", "{out}"],
    ["report", "{out}"],
])
def test_every_command_that_writes_holds_the_lock(held, configs, command):
    pid, out, page = held
    args = [a.format(toml=configs[0], out=out, page=page, sample=sample_path("20ng"),
                     reviews=sample_path("reviews")) for a in command]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and res.stdout == "", res.output
    what = {"report": "the folder", "explore": "--out"}.get(command[0], "--out")
    target = page if command[0] == "explore" else out
    line = res.stderr.splitlines()[-1]
    assert line.startswith(
        f"error: {what} {target} is in use by another textsift run (pid {pid}, started ")
    assert line.endswith(f"; wait for it to finish, or choose another "
                         f"{'folder' if command[0] == 'report' else '--out'}")
    assert sorted(p.name for p in out.iterdir()) == [".page.html.lock", LOCK_NAME]


def test_the_lock_is_reentrant_and_removed_with_the_folder_it_made(tmp_path):
    out = tmp_path / "a" / "b"
    with hold(out):
        with hold(out):  # the command line holds it, and the runner takes it again
            pass
        assert lock_path(out).exists()  # still held by the outer block
    assert not (tmp_path / "a").exists()  # made for the lock, and left empty: removed
    with hold(out):
        (out / "result.txt").write_text("kept")
    assert sorted(os.listdir(out)) == ["result.txt"]
