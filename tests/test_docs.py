"""The documentation: every public name has a docstring, and the site builds.

Public names are those of ``textsift.__all__`` and of every public submodule's ``__all__`` (a
module without an underscore in its dotted name). Classes and functions need their own
docstring; a constant needs a ``#:`` comment where it is assigned (what Sphinx shows). The
docs pages' code blocks run through Sybil (``docs/conftest.py``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import textsift

ROOT = Path(__file__).resolve().parent.parent


sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from api_pages import public_modules  # noqa: E402  (the modules the reference documents)


def _attribute_docs() -> dict[str, str]:
    """``name -> #: comment`` of every module-level assignment in the package."""
    from sphinx.pycode import ModuleAnalyzer

    docs = {}
    modules = ["textsift"] + [m.name for m in pkgutil.walk_packages(textsift.__path__,
                                                                     "textsift.")]
    for module in modules:
        if not str(importlib.util.find_spec(module).origin).endswith(".py"):
            continue  # a compiled kernel (_count, _fisher): no source to read
        for (scope, name), lines in ModuleAnalyzer.for_module(module).find_attr_docs(
        ).items():
            if scope == "" and "".join(lines).strip():
                docs[name] = "".join(lines)
    return docs


PUBLIC = sorted({(m.__name__, n) for m in public_modules() for n in m.__all__})


def test_the_public_surface_is_what_the_reference_lists():
    assert ("textsift", "TermSelector") in PUBLIC
    assert ("textsift.lasso", "AdaBagClassifier") in PUBLIC
    assert len(PUBLIC) > 100


@pytest.mark.parametrize(("module", "name"), PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_every_public_name_has_a_docstring(module, name):
    obj = getattr(importlib.import_module(module), name)
    if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj):
        doc = obj.__doc__  # its own, not a base class's
    elif callable(obj) and hasattr(obj, "__wrapped__"):
        doc = obj.__wrapped__.__doc__
    else:
        doc = _ATTR_DOCS.get(name)
    assert doc and doc.strip(), f"{module}.{name} has no docstring"


_ATTR_DOCS = _attribute_docs()


def test_every_method_states_its_formula_and_paper():
    """The API reference renders each registered method's formula (LaTeX -> MathML) and
    source; a method without them, or a formula latex2mathml cannot read, fails here."""
    latex2mathml = pytest.importorskip("latex2mathml.converter")
    from textsift.scores import REGISTRY

    for name, method in REGISTRY.items():
        assert method.formula and method.reference, name
        mathml = latex2mathml.convert(method.formula)
        assert mathml.startswith("<math") and "merror" not in mathml, name


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The site as ``make docs`` builds it: Sphinx in strict mode (a warning -- a broken
    reference, a page outside every table of contents, a docstring Sphinx cannot parse --
    fails the build). Built once per CI run: ``.ci/run`` builds it with ``make docs`` (the
    same strict flags) and names it in ``TEXTSIFT_SITE`` for these tests, which then check
    that site instead of building a second one."""
    given = os.environ.get("TEXTSIFT_SITE")
    if given:
        assert (Path(given) / "index.html").is_file(), (
            f"TEXTSIFT_SITE={given} holds no built site: run `make docs` first")
        return Path(given)
    pytest.importorskip("sphinx")
    out = tmp_path_factory.mktemp("site")
    src = tmp_path_factory.mktemp("docs-src") / "docs"
    shutil.copytree(ROOT / "docs", src, ignore=shutil.ignore_patterns(
        "api", "_generated", "reproductions"))
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-n",
                          "-b", "html", str(src), str(out)], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=900)
    assert res.returncode == 0, res.stderr[-4000:]
    return out


@pytest.mark.slow
def test_the_site_builds_with_an_api_page_per_estimator_and_rendered_formulas(site):
    assert (site / "index.html").is_file()
    pages = {p.name: p for p in (site / "api" / "generated").glob("*.html")}
    for name in ("textsift.selection.selectors.TermSelector",
                 "textsift.selection.ordinal.OrdinalSelector",
                 "textsift.counting.counts.Counts", "textsift.lasso.estimator.AdaBagClassifier"):
        assert f"{name}.html" in pages, name
    scores = (site / "guide" / "scores.html").read_text(encoding="utf-8")
    assert scores.count("<math") > 20          # formulas rendered to MathML at build time
    # no maths script (MyST's "mathjax_ignore" class names are only class names)
    assert not re.search(r"<script[^>]*(mathjax|katex)", scores, re.IGNORECASE)
    api = (site / "api" / "textsift.scores.html").read_text(encoding="utf-8")
    from textsift.scores import REGISTRY

    assert api.count("<math") >= len(REGISTRY)  # every method's formula, rendered
    for name in REGISTRY:
        assert f'<span class="pre">{name}' in api, name
    cli = (site / "guide" / "cli.html").read_text(encoding="utf-8")
    for command in ("score", "run", "explore", "adabag", "ordinal-eval"):
        assert f"textsift {command}" in cli, command
    keys = (site / "guide" / "experiments.html").read_text(encoding="utf-8")
    from textsift.experiment.schema import SCHEMA

    for table, names in SCHEMA.items():
        for key in names:
            assert f"<code class=\"docutils literal notranslate\"><span class=\"pre\">{key}" \
                   f"</span></code>" in keys, (table, key)


@pytest.mark.slow
def test_a_page_opens_from_file_with_no_request_and_no_console_error(site, tmp_path):
    """One page in headless Chromium from file://: it loads, shows its formulas, logs no
    error and asks no network address for anything (fonts, scripts, analytics)."""
    from browser import chromium_or_skip

    driver = chromium_or_skip(tmp_path)
    try:
        driver.get((site / "guide" / "scores.html").as_uri())
        assert "Scores and policies" in driver.title
        entries = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        assert all(e.startswith(("file:", "data:")) for e in entries), entries
        assert driver.execute_script("return document.querySelectorAll('math').length") > 20
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
    finally:
        driver.quit()


def _shell_commands():
    """Every ``textsift ...`` command line of the shell blocks of the docs pages, the README and
    the examples' READMEs (continuation lines joined, comments dropped)."""
    pages = [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("examples/*/README.md")]
    out = []
    for page in sorted(pages):
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```(?:bash|sh|console)\n(.*?)```", text, re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                if words[:1] == ["textsift"]:
                    out.append(pytest.param(words[1:], id=f"{page.name}: {' '.join(words[:2])}"))
    return out


@pytest.mark.parametrize("argv", _shell_commands())
def test_every_documented_command_line_parses(argv):
    """The commands of the shell blocks run on the full corpora, so the suite does not run
    them; it parses each with the application's own parser: a renamed or removed option, a
    wrong choice or a missing argument in the docs fails here."""
    import typer

    from textsift.cli import app

    group = typer.main.get_command(app)
    name, *args = argv
    assert name in group.commands, f"no command {name!r}"
    group.commands[name].make_context(name, args)  # raises on any usage error
