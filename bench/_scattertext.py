"""scattertext for the benches, where it can be imported.

scattertext 0.2.2 declares spaCy, gensim and scipy < 1.14 as requirements, and its package
imports spaCy and gensim at the top (for parsing documents and embeddings). Its term scorers
use neither: they read a term-document matrix. So it is installed without its requirements
(``pip install --no-deps --target DIR scattertext six flashtext``, then ``PYTHONPATH=DIR``)
and, when spaCy or gensim is missing, imported with the two stood in by empty modules (every
attribute a placeholder class): the scorers then run as shipped.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

#: The packages stood in when missing.
STOOD_IN = ("spacy", "gensim")


class _Empty(types.ModuleType):
    """A module whose every attribute is a submodule (lower-case names) or a class."""

    __path__: list = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name[:1].islower():
            sub = _Empty(f"{self.__name__}.{name}")
            setattr(self, name, sub)
            return sub
        return type(name, (), {"__init__": lambda self, *a, **k: None})


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STOOD_IN:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Empty(spec.name)

    def exec_module(self, module):
        pass


def load() -> tuple[object | None, str]:
    """``(scattertext, how)``: the package (``None`` when it cannot be imported) and a line
    saying how it was imported or why not."""
    try:
        import scattertext
        return scattertext, f"scattertext {_version()} imported as installed"
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in STOOD_IN:
            return None, f"scattertext cannot be imported ({exc})"
        missing = exc.name
    for name in [m for m in sys.modules if m.startswith("scattertext")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _Finder())
    try:
        import scattertext
    except Exception as exc:  # noqa: BLE001 -- said, and the bench goes on without it
        return None, f"scattertext cannot be imported, even with spaCy and gensim stood in ({exc})"
    return scattertext, (f"scattertext {_version()} imported with spaCy and gensim stood in "
                         f"by empty modules ({missing} is not installed; its scorers use "
                         "neither)")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("scattertext")
    except PackageNotFoundError:
        return "(version unknown)"
