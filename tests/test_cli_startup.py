"""Start-up without the heavy libraries (timings are in bench/startup.py, never asserted here):
``import textsift`` loads none of scikit-learn's estimator machinery, scipy.stats or pandas,
and the answers that need no corpus -- ``--version``, ``methods``, any ``-h`` -- load no numpy
at all; a path that is not there is refused before they load; the command line's copy of
the method registry (cli/methods.json) is the registry's."""

import ast
import json
import subprocess
import sys

import pytest

from textsift.cli import _catalog

HEAVY = ("sklearn.base", "scipy.stats", "pandas")
NUMERIC = ("numpy", "scipy", "sklearn", "pandas", "polars", "pyarrow", "pydantic")


def _loaded_after(code: str, names: tuple[str, ...]) -> list[str]:
    """The modules among ``names`` that a fresh interpreter has loaded after ``code``."""
    probe = (f"{code}\nimport sys\nprint(__import__('json').dumps("
             f"[m for m in {names!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_import_textsift_loads_no_estimator_machinery_scipy_stats_or_pandas():
    assert _loaded_after("import textsift", HEAVY) == []
    # ... and a name is still there when asked for (PEP 562), loading what it needs
    assert _loaded_after("import textsift; textsift.TermSelector", ("sklearn.base",)) == [
        "sklearn.base"]


@pytest.mark.parametrize("argv", [["--version"], ["methods"], ["methods", "--format", "json"],
                                  ["-h"], ["score", "-h"], ["ordinal", "-h"], ["run", "-h"]])
def test_answers_without_a_corpus_load_no_numerical_library(argv):
    run = ("import sys, contextlib, io\nfrom textsift.cli import main\n"
           f"sys.argv = ['textsift', *{argv!r}]\n"
           "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
           "    main()")
    assert _loaded_after(run, NUMERIC) == []


def test_the_command_lines_method_catalogue_is_the_registry():
    """A fresh interpreter's catalogue (the copy, no numpy) is the registry's entries, and
    the copy carries the digest of the sources it was made from."""
    cold = ("import json, sys\nfrom textsift.cli import _catalog\n"
            "print(json.dumps([_catalog.methods(), 'numpy' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", cold], capture_output=True, text=True,
                         check=True).stdout
    entries, numpy_loaded = json.loads(out)
    assert entries == _catalog.from_registry() and not numpy_loaded
    assert json.loads(_catalog.PATH.read_text())["source"] == _catalog.source_digest()


def test_a_stale_catalogue_is_not_read_but_made_again(tmp_path, monkeypatch):
    """A copy whose digest is not its sources' (a method added since) gives way to the
    registry, and is written again: adding a method edits no copy by hand."""
    stale = tmp_path / "methods.json"
    stale.write_text(json.dumps({"source": "0" * 16, "methods": {"chi2": {}}}))
    monkeypatch.setattr(_catalog, "PATH", stale)
    _catalog._copy.cache_clear()  # the copy as a cold start reads it
    try:
        assert _catalog._copy() == _catalog.from_registry()
    finally:
        _catalog._copy.cache_clear()
    assert json.loads(stale.read_text())["source"] == _catalog.source_digest()


def test_the_command_lines_adabag_criteria_are_the_estimators():
    # the CLI offers the criteria from textsift._choices (no numpy at start-up)
    from textsift._choices import ADABAG_CRITERIA
    from textsift.lasso import CRITERIA

    assert ADABAG_CRITERIA == tuple(CRITERIA)


@pytest.mark.parametrize("argv, message", [
    (["run", "missing.toml", "--out", "x"],
     "error: missing.toml: no such file or directory; check the path"),
    (["score", "/nonexistent.jsonl"],
     "error: /nonexistent.jsonl: no such file or directory; check the path"),
    (["ordinal", "/nonexistent.jsonl", "--label-field", "rating"],
     "error: /nonexistent.jsonl: no such file or directory; check the path"),
    (["report", "{empty}"], "error: {empty} holds no experiment (no experiment.json); run "
                            "`textsift run CONFIG.toml --out DIR` first"),
])
def test_a_path_that_is_not_there_is_refused_before_the_numerical_libraries_load(
        argv, message, tmp_path):
    """What the user typed is checked first: `run missing.toml` took 3-9 s, `score
    /nonexistent.jsonl` 8 s and `report` on a folder without an experiment 22 s, importing
    scikit-learn, pandas or matplotlib before saying so."""
    argv = [a.format(empty=tmp_path) for a in argv]
    run = ("import sys, contextlib, io\nfrom textsift.cli import main\n"
           f"sys.argv = ['textsift', *{argv!r}]\nerr = io.StringIO()\n"
           "with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):\n"
           "    main()\nprint(repr(err.getvalue()))")
    probe = f"{run}\nprint(__import__('json').dumps([m for m in {NUMERIC[:-1]!r} if m in " \
            "sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.splitlines()
    assert ast.literal_eval(out[-2]).splitlines() == [message.format(empty=tmp_path)]
    assert json.loads(out[-1]) == []
