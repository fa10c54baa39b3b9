"""The package and its docs cite the papers and the API pages, never the project's internal
method specification, which does not ship: a user cannot open it. Neither its file name nor its
section marks ("§A.4", "§0.5.2") nor its status tags ("[A]" for an assumption of ours, "[V]",
"[R]", "[S]") may appear; a choice of ours is said in words ("our choice: ...")."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = "METHODS" + ".md"  # spelt in two parts, so that this file does not cite it either
TREES = ["README.md", "docs", "src", "examples", "bench", "tests"]

#: A section mark of the spec ("§A.4", "§ 0.7", "§0.5.2"; a paper's section is "Sec. 3.2"),
#: a bold status tag ("**[A]**", "**[V-num]**") or a bare one ("(§A.2 [A])"), but not an
#: index such as ``nlogn[A]`` or a Markdown link ``[A](...)``.
SPEC_MARK = re.compile(r"§\s*[0-9A-Z]+\.[0-9]"
                       r"|\*\*\[(?:A|V|R|S)[^\]]*\]\*\*"
                       r"|(?<![\w\[\]])\[(?:A|V|R|S|V-num)\](?!\()")

#: Pages the docs build writes (git-ignored) from files checked here: docs/reproductions/ is
#: docs/reproductions.md cut into sections, the others come from the package. Skipped, as is
#: pip's copy of the README (``*.egg-info``), so that the result does not depend on what was
#: built or installed before.
GENERATED = ("docs/api/", "docs/_generated/", "docs/reproductions/")
#: This file, whose examples of the marks are the marks (a test's golden value cites the paper,
#: the worked example or the identity it comes from).
SELF = Path(__file__).resolve()


def _files(where: str) -> list[Path]:
    base = ROOT / where
    if base.is_file():
        return [base]
    return sorted(p for p in base.rglob("*")
                  if p.is_file() and not {"_build", "__pycache__"} & set(p.parts)
                  and not any(part.endswith(".egg-info") for part in p.parts)  # pip's copy
                  and not str(p.relative_to(ROOT)).startswith(GENERATED) and p != SELF)


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # a figure or a compressed sample: no prose to check
        return None


@pytest.mark.parametrize("where", TREES)
def test_nothing_shipped_or_published_cites_the_internal_spec(where):
    citing = [str(p.relative_to(ROOT)) for p in _files(where)
              if SPEC.encode() in p.read_bytes()]
    assert citing == [], f"these cite {SPEC}; cite the paper and the API page instead"


@pytest.mark.parametrize("where", TREES)
def test_nothing_shipped_or_published_uses_the_spec_section_marks(where):
    marks = []
    for path in _files(where):
        name = path.relative_to(ROOT).as_posix()
        text = _text(path)
        for m in SPEC_MARK.finditer(text or ""):
            marks.append(f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    assert marks == [], ("a user cannot open the internal spec: cite the paper (author, year, "
                         "its own Sec./Eq./Table), the API page, or say 'our choice: ...':\n"
                         + "\n".join(marks))


@pytest.mark.parametrize("text, marked", [
    ("ties go to the lower rank (§A.4)", True),
    ("0 log 0 = 0 (§ 0.5.2)", True),
    ("globalised by max (§C.1/§C.2)", True),
    ("the variance (§A.2 [A])", True),
    ("equal priors **[A]**", True),
    ("values **[V-num]**", True),
    ("Baccianella, Esuli and Sebastiani 2009, Sec. 3.2", False),
    ("cells = nlogn[A] + nlogn[B]", False),
    ("see [A](https://example.org)", False),
])
def test_the_mark_pattern_reads_spec_marks_only(text, marked):
    assert bool(SPEC_MARK.search(text)) is marked
