"""Progress of every step over 2 s, on a terminal (rich) and in a log (plain lines on
stderr, ``_progress.LogLines``); a permutation test that cannot end within a day refused before
the work, with its estimate (timed on one block, extrapolated)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import _progress, app
from textsift.errors import TextsiftError
from textsift.evidence.permutation import BLOCK, permutation_pvalues
from textsift.reading.corpus import sample_path


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    import time

    tick = _Clock()
    monkeypatch.setattr(time, "monotonic", tick)
    return tick


def _lines(capsys) -> list[str]:
    return capsys.readouterr().err.splitlines()


def test_a_log_shows_a_step_after_2_s_then_every_10_s_and_its_end(clock, capsys):
    """100 documents counted over 25 s: nothing in the first 2 s (a quick step says
    nothing), a line at 2 s, none until 10 s later, and the last one when it ends."""
    lines = _progress.LogLines("documents")
    for t, done in [(0, 0), (1.9, 10), (2.0, 20), (5, 30), (11.9, 40), (12.0, 50), (25, 100)]:
        clock.now = 100.0 + t
        lines("counting", done, 100)
    assert _lines(capsys) == [
        "counting: 20 of 100 documents (20%), 0:00:02 so far, about 0:00:08 left",
        "counting: 50 of 100 documents (50%), 0:00:12 so far, about 0:00:12 left",
        "counting: 100 of 100 documents (100%), 0:00:25 so far"]
    lines("counting", 100, 100)  # said once
    assert _lines(capsys) == []


def test_a_quick_step_says_nothing_in_a_log(clock, capsys):
    lines = _progress.LogLines()
    for t in (0, 0.5, 1.5):
        clock.now = 100.0 + t
        lines("counting", int(t * 10), 15)
    clock.now = 101.9
    lines("counting", 15, 15)
    lines.end("counting")
    assert _lines(capsys) == []


def test_a_step_without_a_count_shows_its_time_and_end(clock, capsys):
    lines = _progress.LogLines()
    for t in (0, 2.5, 13):
        clock.now = 100.0 + t
        lines("counting the corpus", None, None)
    lines.end("counting the corpus")
    assert _lines(capsys) == ["counting the corpus: 0:00:02 so far",
                              "counting the corpus: 0:00:13 so far",
                              "counting the corpus: done in 0:00:13"]


def test_too_many_permutations_are_refused_with_the_estimate():
    """max_seconds=1 and 10**12 permutations: 2 * 10**10 blocks of 50, each taking more than
    a nanosecond -- refused after the one timed block, with the estimate and the most that
    fit; without a limit nothing is refused (B = 120: 3 blocks)."""
    X = np.tile(np.eye(20, dtype=int), (2, 1))
    y = [0] * 20 + [1] * 20
    with pytest.raises(TextsiftError) as caught:
        permutation_pvalues(X, y, ["chi2"], 10**12, random_state=0, max_seconds=1)
    message = str(caught.value)
    found = re.fullmatch(r"1,000,000,000,000 permutations would take about (.+) here \(50 of "
                         r"them took (\d+\.\d\d) s, on 1 worker\(s\)\), more than the 0:00:01 "
                         r"allowed; use fewer \(about ([\d,]+) fit; 999 or 9,999 are usual\), "
                         r"or the method's own test \(drop --permutations / n_permutations\)",
                         message)
    assert found, message
    assert int(found[3].replace(",", "")) < 10**12
    assert permutation_pvalues(X, y, ["chi2"], 120, random_state=0,
                               max_seconds=3600)["chi2"].n_permutations == 120


def test_the_blocks_seeds_are_spawned_as_before():
    """The seeds are drawn lazily (two million blocks for 10**8 permutations): block k's
    seed is the k-th child of the SeedSequence, as spawn(n) gave them at once."""
    from textsift.evidence.permutation import _seeds

    lazy = _seeds(7)
    at_once = np.random.SeedSequence(7).spawn(2050)
    assert all(next(lazy).spawn_key == s.spawn_key == (k,) for k, s in enumerate(at_once))
    assert BLOCK == 50


def test_score_refuses_a_permutation_test_longer_than_a_day():
    """`--permutations 100000000000` (10**11: two billion blocks; one takes over 0.1 ms on
    any machine, so more than a day on two workers) is one error line with the estimate,
    after one block -- it ran for days without a word."""
    res = CliRunner().invoke(app, ["score", str(sample_path("20ng")), "--class", "sci.space",
                                   "--evidence", "--permutations", "100000000000", "--top",
                                   "3"])
    assert res.exit_code == 2, res.output
    errors = [line for line in res.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and errors[0].startswith(
        "error: 100,000,000,000 permutations would take about "), res.stderr
    assert "more than the 1 day, 0:00:00 allowed; use fewer (about " in errors[0]
    assert res.stdout == ""
