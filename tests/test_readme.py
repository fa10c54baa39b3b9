"""The README's library examples run as printed (the ones that need no cluster or data)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_block(section: str) -> str:
    text = README.read_text(encoding="utf-8")
    part = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", part, re.S).group(1)


@pytest.mark.parametrize("section", ["Library", "Ordinal feature selection (star ratings)"])
def test_readme_block_runs(section):
    namespace = {}
    exec(compile(python_block(section), f"README: {section}", "exec"), namespace)  # noqa: S102
    assert "pipe" in namespace
    if section == "Library":
        # the fitted pipeline keeps the 1,000 BNS terms it was asked for
        assert len(namespace["pipe"][:-1].get_feature_names_out()) == 1000


@pytest.mark.real_data
def test_readme_experiment_command_runs_from_the_repository_root(real_data, monkeypatch):
    """The README's `TEXTSIFT_DATA=... textsift run examples/....toml --out ...`, run from the
    repository root: the relative TEXTSIFT_DATA is read from there (not from examples/), the
    corpus is found and read. The printed data path is replaced by the real data's path
    relative to the root (the same string in a checkout beside shared/); the long run itself
    is the harness's own tests' business, so run_experiment is stood in for."""
    import os
    import shlex

    from typer.testing import CliRunner

    import textsift.experiment as experiment
    from textsift.cli import app
    from textsift.experiment.folds import read_documents

    text = README.read_text(encoding="utf-8")
    part = text.split("## Experiments\n", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in part.splitlines() if x.startswith("TEXTSIFT_DATA="))
    env, *argv = shlex.split(line.split("#")[0])
    printed = env.split("=", 1)[1]
    assert argv[:2] == ["textsift", "run"] and not os.path.isabs(printed)
    root = README.parent
    monkeypatch.chdir(root)
    monkeypatch.setenv("TEXTSIFT_DATA", os.path.relpath(real_data, root))
    seen = []

    def fake_run(exp, out, **kw):
        seen.append(exp)
        raise experiment.StoreError("stopped by the test after loading the experiment")

    monkeypatch.setattr(experiment, "run_experiment", fake_run)
    result = CliRunner().invoke(app, argv[1:])
    assert "stopped by the test" in result.output, result.output
    (exp,) = seen
    texts, labels, is_test = read_documents(exp)
    assert len(texts) == 11_314 + 7_532 and is_test.sum() == 7_532
