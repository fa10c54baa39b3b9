"""Sphinx configuration of the textsift documentation (``make docs``)."""

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent / "src"))  # document this checkout, not an installed copy

import textsift  # noqa: E402

project = "textsift"
copyright = "textsift developers, BSD-3-Clause"
release = version = textsift.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "mathml",
    "api_pages",
    "generated_pages",
]
html_math_renderer = "mathml"
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext", "_generated", "ordinal/*.csv", "reproductions.md"]
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
nitpicky = True

html_theme = "pydata_sphinx_theme"
html_theme_options = {"navigation_with_keys": False}
html_context = {"default_mode": "auto"}  # unset, the theme logs a console error
html_static_path = []
templates_path = ["_templates"]
exclude_patterns += ["_templates"]
# references into other projects are not resolved offline (no intersphinx inventories are
# fetched at build time); a broken reference to a textsift name still fails the build
nitpick_ignore_regex = [("py:.*", r"(sklearn|numpy|np|scipy|pandas|pd|dask|joblib|enum)(\..*)?")]


def _skip_foreign(app, what, name, obj, skip, options):
    """Document textsift's own members only: scikit-learn adds methods to every estimator
    (``set_fit_request``, ...) whose docstrings point into scikit-learn's glossary."""
    module = getattr(obj, "__module__", None) or ""
    if module and not module.startswith("textsift"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign)
