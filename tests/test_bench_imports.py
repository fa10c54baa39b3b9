"""Every name a bench or example script imports from textsift exists.

The bench scripts are not run by the test suite (they measure; ``bench/figures.py`` runs
them), so a module moved inside the package would break them unseen until the next
measurement: the one run of every figure lost ``bench/harness.py`` that way when the Unicode
tables moved to ``textsift.text.unicode``. Imports inside a ``try`` whose handler catches
``ImportError`` are a script's own fallbacks (``bench/stages.py`` runs against older
checkouts) and are not checked."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*ROOT.glob("bench/*.py"), *ROOT.glob("examples/*.py")])


def _guarded(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside a ``try`` that catches ImportError, and in its handlers."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                h.type is None or "ImportError" in ast.unparse(h.type)
                or "ModuleNotFoundError" in ast.unparse(h.type) for h in node.handlers):
            fallbacks = [stmt for h in node.handlers for stmt in h.body]
            out |= {id(n) for stmt in [*node.body, *fallbacks] for n in ast.walk(stmt)}
    return out


def textsift_imports(path: Path) -> list[tuple[str, str | None]]:
    """``(module, name)`` of each unguarded ``from textsift... import name`` and ``import
    textsift...`` (``name`` None) of ``path``."""
    tree = ast.parse(path.read_text())
    guarded = _guarded(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textsift":
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names if a.name.split(".")[0] == "textsift"]
    return out


def test_the_scripts_are_found():
    """The glob finds the scripts (a moved folder would make the test below vacuous)."""
    names = {p.name for p in SCRIPTS}
    assert {"figures.py", "harness.py", "count.py", "scores.py"} <= names


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_textsift_names_a_script_imports_exist(path):
    missing = []
    for module, name in textsift_imports(path):
        mod = importlib.import_module(module)
        if name is not None and not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
    assert not missing, f"{path.name} imports names textsift no longer has: {missing}"


def test_a_moved_name_is_caught(tmp_path):
    """The check fails on the import that broke the harness bench, and passes the same import
    inside a guarded ``try``."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from textsift.text.tokens import unicode_tables\n")
    assert textsift_imports(bad) == [("textsift.text.tokens", "unicode_tables")]
    assert not hasattr(importlib.import_module("textsift.text.tokens"), "unicode_tables")
    guarded = tmp_path / "guarded.py"
    guarded.write_text("try:\n    from textsift.text.tokens import unicode_tables\n"
                       "except ImportError:\n    pass\n")
    assert textsift_imports(guarded) == []
