"""Sphinx extension: the API reference pages, written from the package itself.

Every public module of textsift (no underscore in its dotted name) gets a page that lists every
name of its ``__all__``: a name defined in that module is documented there (one page per object
through ``autosummary``); a name it re-exports from another public module links to the object's
own page. The pages are regenerated at every build, so the reference cannot drift from the code:
a name added to an ``__all__`` appears, and a docstring it lacks fails the test suite
(``tests/test_docs.py``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

#: Section of the reference index -> module prefixes, in the order the data flows.
SECTIONS = {
    "Reading, tokenising, counting": ["textsift", "textsift.reading", "textsift.labels",
                                      "textsift.text", "textsift.counting", "textsift.engines",
                                      "textsift.errors"],
    "Scores and evidence": ["textsift.scores", "textsift.evidence"],
    "Selection: policies, rankings, selectors": ["textsift.selection"],
    "Learners and measures": ["textsift.learners"],
    "AdaBag and the lasso": ["textsift.lasso"],
    "Experiments and reports": ["textsift.experiment", "textsift.report"],
    "Command line": ["textsift.cli"],
}


def public_modules(package: str = "textsift") -> list:
    """The package and its submodules without a private (``_``) part, imported."""
    root = importlib.import_module(package)
    mods = [root]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            mods.append(importlib.import_module(info.name))
    return [m for m in mods if getattr(m, "__all__", None)]


def home(module, name: str) -> str:
    """The public module whose page documents ``module.name``: of the module that defines the
    object and its parent packages, the deepest public one listing the name in ``__all__``
    (``textsift.scores`` for a function defined in ``textsift.scores._registry``)."""
    obj = getattr(module, name)
    owner = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
    if not owner or not owner.startswith("textsift"):
        return module.__name__
    parts = owner.split(".")
    for depth in range(len(parts), 0, -1):
        candidate = ".".join(parts[:depth])
        if any(p.startswith("_") for p in parts[1:depth]):
            continue
        if name in getattr(importlib.import_module(candidate), "__all__", ()):
            return candidate
    return module.__name__


def _page(module) -> str:
    title = f"``{module.__name__}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {module.__name__}", "   :no-members:",
             "", f".. currentmodule:: {module.__name__}", ""]
    own = [n for n in module.__all__ if home(module, n) == module.__name__]
    elsewhere = [n for n in module.__all__ if n not in own]
    if own:
        lines += [".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {n}" for n in own] + [""]
    if elsewhere:
        lines += ["Also available here:", ""]
        lines += [f"* :py:obj:`{n} <{home(module, n)}.{n}>`" for n in elsewhere] + [""]
    if module.__name__ == "textsift.scores":  # the registered methods: formula and paper
        for kind, title in [("nominal", "Nominal methods"), ("ordinal", "Ordinal methods")]:
            lines += [title, "-" * len(title), "",
                      f".. include:: ../_generated/methods_{kind}.rst", ""]
    return "\n".join(lines)


def _section_of(name: str) -> str:
    best, length = "Other", -1
    for section, prefixes in SECTIONS.items():
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > length:
                best, length = section, len(p)
    return best


def write_pages(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    modules = public_modules()
    by_section: dict[str, list[str]] = {}
    for m in modules:
        (out / f"{m.__name__}.rst").write_text(_page(m), encoding="utf-8")
        by_section.setdefault(_section_of(m.__name__), []).append(m.__name__)
    index = ["API reference", "=============", "",
             "Every public module and every name of its ``__all__``, generated from the code.", ""]
    for section in [*SECTIONS, "Other"]:
        if section in by_section:
            index += [section, "-" * len(section), "", ".. toctree::", "   :maxdepth: 1", ""]
            index += [f"   {name}" for name in by_section[section]] + [""]
    (out / "index.rst").write_text("\n".join(index), encoding="utf-8")


def _generate(app, config=None):
    write_pages(Path(app.srcdir) / "api")


def setup(app):
    app.connect("config-inited", _generate)  # before the source files are listed
    app.connect("missing-reference", _resolve_reexport)
    return {"parallel_read_safe": True}


def canonical_name(name: str) -> str | None:
    """The dotted name under which the object ``name`` (a module path, then attributes, as
    ``textsift.lasso.lasso_path`` or ``textsift.engines.stream.Counts.from_matrix``) is
    documented, or None when it is not a textsift object."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        first, rest = parts[i], parts[i + 1:]
        if not hasattr(module, first):
            return None
        owner = getattr(getattr(module, first), "__module__", None) or ""
        if first in getattr(module, "__all__", ()):
            base = module
        elif owner.startswith("textsift"):
            base = importlib.import_module(owner)
        else:
            return None
        return ".".join([home(base, first), first, *rest])
    return None


def _resolve_reexport(app, env, node, contnode):
    """A reference to a name where it is re-exported (``textsift.lasso.lasso_path``) or by a
    short name in its module's docstrings (``Counts`` in ``textsift.scores``) resolves to the
    page that documents the object (``textsift.lasso.path.lasso_path``)."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    context = node.get("py:module")
    candidates = [target] + ([f"{context}.{target}"] if context and not target.startswith(
        "textsift") else [])
    domain = env.get_domain("py")
    for name in candidates:
        if not name.startswith("textsift"):
            continue
        canonical = canonical_name(name)
        entry = domain.objects.get(canonical) if canonical else None
        if entry is not None:
            from sphinx.util.nodes import make_refnode

            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, canonical)
    return None
