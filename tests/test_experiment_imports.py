"""No import circle in textsift.experiment: each module imports only modules before it in one
order (read from the source, deferred imports included), and each module imported first in
a fresh interpreter, then every other, works."""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import textsift.experiment

PACKAGE = Path(textsift.experiment.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _siblings(module: str) -> set[str]:
    """The experiment modules ``module`` imports, at the top or inside a function."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:  # from . import x
                out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                "textsift.experiment."):
            out.add(node.module.split(".")[2])
    return out & set(MODULES)


def test_the_experiment_modules_import_in_one_direction():
    graph = {m: _siblings(m) for m in MODULES}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        pytest.fail(f"import circle: {' -> '.join(exc.args[1])}")
    assert set(order) == set(MODULES)
    assert graph["schema"] == set() and "runner" not in set().union(*graph.values())


ORDERS = r"""
import importlib, sys
modules = sys.argv[1:]
for first in modules:
    for name in [n for n in sys.modules if n.startswith("textsift.experiment")]:
        del sys.modules[name]  # the experiment modules afresh; the libraries stay loaded
    for m in [first, *(m for m in modules if m != first)]:
        try:
            importlib.import_module(f"textsift.experiment.{m}")
        except ImportError as exc:
            sys.exit(f"importing {first} first: {m} failed: {exc}")
    importlib.import_module("textsift.experiment").run_experiment
"""


def test_each_module_imports_first_in_a_fresh_interpreter():
    """One interpreter, and for each module an import of it first and of every other after
    it, with the experiment package forgotten in between (a circle would fail in some
    order)."""
    proc = subprocess.run([sys.executable, "-c", ORDERS, *MODULES], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
