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
