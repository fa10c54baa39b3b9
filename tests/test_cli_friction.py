"""What a new user met in the first hour (issue 28's friction list), each a command that now
does what it says: ``methods`` lists the names the other commands take, ``ordinal`` has
``score``'s default, the help of a command with long lists of choices keeps its help
readable at 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys

from typer.testing import CliRunner

from textsift.cli import app
from textsift.reading.corpus import sample_path
from textsift.scores import REGISTRY

runner = CliRunner()


def test_methods_piped_lists_the_names_the_commands_take():
    res = runner.invoke(app, ["methods"])  # not a terminal: tab-separated values
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert rows[0] == ["name", "kind", "policy", "summary"]
    assert [r[0] for r in rows[1:]] == sorted(REGISTRY)  # "prp", not "prp (provisional)"
    prp = next(r for r in rows if r[0] == "prp")
    assert prp[3].startswith("provisional: ")


def test_ordinal_without_k_prints_the_best_terms_as_score_does():
    """``textsift ordinal FILE --label-field rating --top 15`` failed with "give exactly one
    of -k and --ratio"; like ``score``, it prints the ranking's best --top terms (20 unless
    told) and selects nothing."""
    data = str(sample_path("reviews"))
    res = runner.invoke(app, ["ordinal", data, "--label-field", "rating", "--top", "15"])
    assert res.exit_code == 0, res.output
    assert len(res.stdout.splitlines()) == 1 + 15 and "selected" not in res.stderr
    res = runner.invoke(app, ["ordinal", data, "--label-field", "rating"])
    assert len(res.stdout.splitlines()) == 1 + 20
    res = runner.invoke(app, ["ordinal", data, "--label-field", "rating", "-k", "30"])
    assert len(res.stdout.splitlines()) == 1 + 30 and "30 terms selected of" in res.stderr
    res = runner.invoke(app, ["ordinal", data, "--label-field", "rating", "-k", "3",
                              "--ratio", "0.1"])
    assert res.exit_code == 2 and res.stderr.startswith("error: give one of -k")


def test_adabag_help_keeps_its_option_help_readable_at_80_columns():
    """The names of an option with a long list of choices (--criterion
    <misclassification|balanced_error|...>, 67 characters) took the width, and every help
    was wrapped into a 9-character column (287 lines). The names' column is at most two
    fifths of the width now, a long list wrapping at its bars."""
    out = subprocess.run([sys.executable, "-c", "from textsift.cli import main; main()",
                          "adabag", "-h"], capture_output=True, text=True, check=True,
                         env={**os.environ, "COLUMNS": "80"}).stdout.splitlines()
    assert max(map(len, out)) <= 80 and len(out) < 150
    panels = [i for i, x in enumerate(out) if x.startswith("╭─ ") and "Arguments" not in x]
    assert len(panels) >= 2  # the command's options and the model's (AdaBag)
    for top in panels:
        panel = out[top + 1:top + 1 + next(i for i, x in enumerate(out[top + 1:])
                                          if x.startswith("╰"))]
        # the help column: where the first line's names end (two spaces, then its help);
        # the names take at most two fifths of 80 columns (32) and a gap of 2: <= 36
        help_at = next(i for i in range(4, 80)
                       if panel[0][i - 2:i] == "  " and panel[0][i] != " ")
        assert help_at <= 36, out[top]
        assert all(line[help_at - 2:help_at] == "  " for line in panel), out[top]
        assert sum(line[help_at] != " " for line in panel) >= 6  # the help, in one column
