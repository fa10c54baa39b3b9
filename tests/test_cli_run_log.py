"""``textsift run`` with stderr not a terminal (nohup, CI, a pipe): where a bar draws
nothing, a plain line per finished trial (per 5% of the trials in a run of more than 20), so
that a log shows how far the run is. Before, such a run wrote nothing for minutes."""

from __future__ import annotations

import re
import subprocess
import sys

from textsift.cli.experiment import _trial_lines

CONFIG = """
[experiment]
name = "logged"
n_jobs = 1

[corpus]
sample = "20ng"

[preprocessing]
min_df = 3

[selection]
methods = ["ig", "chi2"]
sizes = [30, 300]

[[learners]]
name = "nb"
"""


def test_a_run_under_nohup_logs_a_line_per_trial(tmp_path):
    (tmp_path / "logged.toml").write_text(CONFIG)
    with open(tmp_path / "nohup.out", "w") as log:  # what nohup does with stderr
        done = subprocess.run([sys.executable, "-c", "from textsift.cli import main; main()",
                               "run", "logged.toml", "--out", "out", "--no-report"],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=log, text=True,
                              timeout=600)
    assert done.returncode == 0
    lines = (tmp_path / "nohup.out").read_text().splitlines()
    trials = [line for line in lines if line.startswith("trials: ")]
    # a few trials (a ranking per method, the full vocabulary, the trivial predictor): a line
    # before the first trial and one after each, with its share of the trials
    n = int(trials[0].split()[3])  # "trials: 0 of N (0%), ..."
    assert 3 <= n <= 20 and len(trials) == n + 1
    assert [re.match(r"trials: (\d+) of (\d+) \((\d+)%\), \d+:\d\d:\d\d so far", line).groups()
            for line in trials] == [(str(k), str(n), str(round(100 * k / n))) for k in range(n + 1)]
    assert "left" in trials[1] and "left" not in trials[-1]  # nothing is left at the end
    assert not any("\x1b" in line or "━" in line for line in lines)  # no bar, no colour
    assert lines[-1].startswith(f"{n} of {n} trials run in ")


def test_a_long_run_logs_every_twentieth_of_its_trials(capsys):
    progress = _trial_lines()
    for done in range(0, 201):
        progress(done, 200)
    shown = [int(line.split()[1]) for line in capsys.readouterr().err.splitlines()]  # trials: k
    assert shown == list(range(0, 201, 10))  # 0, 5%, 10%, ... 100%: 21 lines of 200 trials


def test_an_error_after_the_corpus_is_read_is_the_one_line_on_stderr(tmp_path):
    """The corpus is read inside the progress display; an error there (every text empty)
    left a blank line before ``error:`` when stderr was not a terminal (the display's last
    line, drawn on closing). Now stderr is the error line alone."""
    (tmp_path / "empty.jsonl").write_text('{"text": "", "label": "a"}\n'
                                          '{"text": " ", "label": "b"}\n')
    (tmp_path / "empty.toml").write_text(CONFIG.replace('sample = "20ng"',
                                                        'path = "empty.jsonl"'))
    done = subprocess.run([sys.executable, "-c", "from textsift.cli import main; main()",
                           "run", "empty.toml", "--out", "out"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"error: {tmp_path / 'empty.jsonl'}: every text is empty (the text field 'text' is "
        "empty or white space in every record); choose the field that holds the text "
        "(--text-field, or text_field in an experiment's [corpus])"]
    assert not (tmp_path / "out").exists()
