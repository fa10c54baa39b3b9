"""The scoring methods as the command line shows them, read without the scoring code.

``methods.json`` beside this module is a copy of what :data:`textsift.scores.REGISTRY` says of
each method -- kind, summary, policies, parameters and their choices, requirements, reference
-- which the command line reads at start-up instead of importing the scores (numpy and the
rest): ``textsift methods``, and the options ``textsift ordinal`` builds from the methods'
parameters, in a fraction of the time. The registry stays the one source: after adding or
changing a method, write the copy again with::

    python -c "from textsift.cli._catalog import write; write()"

``tests/test_cli_startup.py`` fails, saying so, while the two differ.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

PATH = Path(__file__).with_name("methods.json")


@cache
def methods() -> dict[str, dict]:
    """Each method's name -> its entry (:func:`from_registry`), sorted by name."""
    return json.loads(PATH.read_text(encoding="utf-8"))


def from_registry() -> dict[str, dict]:
    """The entries of every registered method, from the registry itself."""
    from ..scores import REGISTRY

    return {name: {"kind": m.kind, "summary": m.summary, "provisional": m.provisional,
                   "default_aggregate": m.default_aggregate, "aggregates": list(m.aggregates),
                   "params": {p: float(v) if isinstance(v, float) else v
                              for p, v in m.params.items()},
                   "choices": {p: list(v) for p, v in m.choices.items()},
                   "requires": list(m.requires), "reference": m.reference,
                   "absent": m.absent, "test": m.test, "signed": m.signed}
            for name, m in sorted(REGISTRY.items())}


def write() -> Path:
    """Write ``methods.json`` from the registry."""
    text = json.dumps(from_registry(), indent=1, ensure_ascii=False) + "\n"
    PATH.write_text(text, encoding="utf-8")
    return PATH


def ordinal_methods() -> list[str]:
    """The ordinal methods' names, sorted."""
    return [n for n, m in methods().items() if m["kind"] == "ordinal"]
