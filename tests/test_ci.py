"""The test commands the README gives are the ones CI runs, and together they run every test
once: ``make test`` all but the slow ones, ``make test-slow`` those; the documentation site is
built once per CI run (``make docs``, before the slow tests, which check that site)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _recipe(makefile: str, target: str) -> str:
    return re.search(rf"^{re.escape(target)}:.*\n\t(.*)$", makefile, re.M).group(1)


def test_ci_runs_the_readmes_test_commands_and_builds_the_docs_once():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    quick_start = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.S).group(1)
    targets = re.findall(r"^make (test\S*)", quick_start, re.M)
    assert targets == ["test", "test-slow"]
    runs = [line.split("make ", 1)[1] for line in ci if "make " in line]
    assert runs == ["test", "docs", "test-slow"]  # the site once, before the tests that read it
    assert ci[-1] == 'TEXTSIFT_SITE="$PWD/site" make test-slow'
    assert _recipe(makefile, "test").endswith('-m "not slow"')
    assert _recipe(makefile, "test-slow").endswith("-m slow")
    docs = makefile.split("\ndocs:", 1)[1].split("\n\n", 1)[0]
    assert "sphinx -q -W --keep-going -n -b html docs site" in docs  # test_docs' own flags
