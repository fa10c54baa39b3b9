"""The package and its docs cite the papers and the API pages, never the project's internal
method specification, which does not ship: a user cannot open it."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = "METHODS" + ".md"  # spelt in two parts, so that this file does not cite it either


@pytest.mark.parametrize("where", ["README.md", "docs", "src", "examples", "bench"])
def test_nothing_shipped_or_published_cites_the_internal_spec(where):
    base = ROOT / where
    files = [base] if base.is_file() else [p for p in base.rglob("*") if p.is_file()
                                           and not {"_build", "__pycache__"} & set(p.parts)]
    citing = [str(p.relative_to(ROOT)) for p in files
              if SPEC.encode() in p.read_bytes()]
    assert citing == [], f"these cite {SPEC}; cite the paper and the API page instead"
