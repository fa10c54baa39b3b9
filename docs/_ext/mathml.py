"""Sphinx extension: formulas rendered to MathML when the site is built.

Sphinx's own HTML maths renderers load MathJax (from a CDN by default) or need LaTeX
(``imgmath``). This renderer converts each ``:math:`` role, ``.. math::`` block and MyST
``$...$`` / ``$$...$$`` to MathML with ``latex2mathml`` at build time, so the pages load no
script and no font for their formulas and work offline and from ``file://``; browsers render
MathML natively (Chromium since 109, Firefox, Safari). Written here because no maintained
Sphinx extension renders to MathML.
"""

from __future__ import annotations

from docutils import nodes
from latex2mathml.converter import convert


def _inline(self, node):
    self.body.append(convert(node.astext(), display="inline"))
    raise nodes.SkipNode


def _block(self, node):
    self.body.append(f'<div class="math-display">{convert(node.astext(), display="block")}</div>')
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (_inline, None), (_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
