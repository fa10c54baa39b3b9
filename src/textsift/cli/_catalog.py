"""The scoring methods as the command line shows them, read without the scoring code.

``methods.json`` beside this module is a copy of what :data:`textsift.scores.REGISTRY` says of
each method -- kind, summary, policies, parameters and their choices, requirements, reference
-- which the command line reads at start-up instead of importing the scores (numpy and the
rest): ``textsift methods``, and the options ``textsift ordinal`` builds from the methods'
parameters, in a fraction of the time. The registry stays the one source: the copy holds a
digest of the sources the registry is made from (``textsift/scores/*.py`` and
``textsift/_choices.py``), and a copy whose digest is not theirs (a method added or changed)
is not read: the registry is, and the copy is written again (:func:`refresh`; the test suite
refreshes it as it starts). Once the registry is loaded (numpy with it), it is read itself.
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path

PATH = Path(__file__).with_name("methods.json")


def methods() -> dict[str, dict]:
    """Each method's name -> its entry (:func:`from_registry`), sorted by name: the registry
    itself once it is loaded, else its copy (made again when stale)."""
    if "textsift.scores" in sys.modules:
        return from_registry()
    return _copy()


@cache
def _copy() -> dict[str, dict]:
    stored = json.loads(PATH.read_text(encoding="utf-8"))
    if stored.get("source") == source_digest():
        return stored["methods"]
    return refresh()


def source_digest() -> str:
    """SHA-256 (16 hex digits) of the sources the registry is made from."""
    root = Path(__file__).parents[1]
    digest = hashlib.sha256()
    for path in sorted([*root.joinpath("scores").glob("*.py"), root / "_choices.py"]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


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


def refresh() -> dict[str, dict]:
    """The registry's entries, written to ``methods.json`` with the digest of its sources if
    the copy there is not theirs (an installed package's read-only copy is left as it is)."""
    from .._io import atomic_write_text
    from ..errors import OutputError

    entries, digest = from_registry(), source_digest()
    text = json.dumps({"source": digest, "methods": entries}, indent=1,
                      ensure_ascii=False) + "\n"
    try:
        if not PATH.exists() or PATH.read_text(encoding="utf-8") != text:
            atomic_write_text(PATH, text)
    except (OSError, OutputError):  # not writable here: the registry serves
        pass
    return entries


def ordinal_methods() -> list[str]:
    """The ordinal methods' names, sorted."""
    return [n for n, m in methods().items() if m["kind"] == "ordinal"]
