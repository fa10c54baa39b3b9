"""``textsift explore``: one self-contained HTML page to see which words matter, by class, by
method, in context.

The page holds, for every method (:func:`.explore_data.page_methods`) and every class:

1. a **term map** (one class against the rest): each term placed by the fraction of the
   class's documents and of the rest's documents that contain it, on log axes (as scattertext
   does; with label sets a label is a class, and the rest are the documents without it),
   coloured by the chosen method's score, the top terms labelled where a label fits without
   covering another (the glue's collision pass, again after each pan or zoom);
   hovering names the term's counts and every method's score and rank;
2. **controls** for the method, the class (or rank), the ranking (the class's own column, or
   a globalisation policy over all classes) and the size ``k``;
3. a sortable **ranked table** of the top ``k`` terms with each other method's rank of them
   (in a class's own ranking by a method with p-values, also each term's p, q and log ratio
   with its interval, as ``textsift score --evidence`` prints them, and a ``q`` control
   that keeps, instead of the top ``k``, the terms whose q passes -- ``alpha`` fills it at
   first, as ``textsift score --class C --alpha`` selects: :mod:`.explore_evidence`),
   and a **method agreement** heat map (Jaccard overlap of every pair of top-``k`` sets), 30
   px a cell whatever the number of methods, each value in black or white, whichever
   contrasts more with its cell (WCAG 2: at least 4.58:1);
4. **terms in context**: clicking a term shows the share of each class's (rank's) documents
   that contain it beside the corpus's own distribution over the classes (counts on hover),
   and lists up to 20 snippets, half from the chosen class, half from the rest;
5. for **ratings**, the term's mean rank and variance, IDF and NC at its best rank (the
   numbers behind Var, Var*IDF and RR(NC*IDF), from :mod:`textsift.scores.ordinal`).

Plotting library: Bokeh, with its one script inline (1.3 MB, BSD-3-Clause like textsift).
``bench/explore_libs.py`` drew the same 7,500-term map and 17 x 17 heat map in each candidate
and opened it from ``file://`` in headless Chromium (best of 5, load average ~3.4 on 2
cores): Bokeh 1.42 MB, 291 ms; Plotly 5.17 MB, 838 ms (4.8 MB of plotly.js); Vega-Lite
1.35 MB, 206 ms -- but its inline bundle comes only with ``vl-convert-python``, a 33 MB
binary wheel, or from copying npm files into the package. Bokeh's data sources are the model
the page needs: the glue (``explore.js``, written by hand: controls, table, snippets) sets a
source's columns and the map, labels, colour scale, heat map and bars follow; hover and tap
call back into it. The controls and the table are plain HTML (sortable, easy to test).

The data -- top ``cap`` terms per method and view, their counts and snippets -- are embedded
as gzip-compressed JSON (base64), which the page inflates with the browser's own
``DecompressionStream``: about 3x smaller than the JSON itself. Nothing is fetched: the page
works from ``file://`` without a network.

**Many labels** (tags, headings: more than :data:`~.explore_labels.MANY`): the class is
chosen in a search box (the browser's suggestions among the labels' names), the page embeds
what the labels share (the policies' rankings, the names and sizes) and offers ``method``
alone unless ``methods`` are given, and each label's own ranking, counts and evidence lie
in shard files in a folder beside the page (:func:`labels_folder`), loaded as scripts when one of
their labels is chosen (:mod:`.explore_labels`): the page stays small whatever the number of
labels. There are no snippets, and the distribution of a term shows its share in the chosen
label and in the rest.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from .._io import atomic_write, check_out_dir
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..text.vectorize import VectorizerOptions
from .explore_data import CAP, SNIPPET_TOP, explore_data, page_parts
from .explore_evidence import CORRECTION, FAMILY
from .explore_labels import shard_script

__all__ = ["CAP", "CORPUS_BARS", "SNIPPET_TOP", "check_out", "explore", "explore_data",
           "labels_folder", "page_html"]

#: Pixels per heat-map cell: room for a two-digit value (".67") in 11px type.
AGREE_CELL = 30
#: With many labels, the corpus's distribution shows its this many largest labels.
CORPUS_BARS = 20


def _asset(name: str) -> str:
    return (resources.files("textsift.report") / "assets" / name).read_text(encoding="utf-8")


def _figures(data: dict) -> dict:
    """The Bokeh figures of the page, empty: the glue fills their sources."""
    dist, corpus = _class_bars(data)
    return {"map": _term_map(), "agree": _agreement([m["name"] for m in data["methods"]]),
            "dist": dist, "corpus": corpus}


def _term_map():
    """The term map: a point per term on log axes, coloured by its score, the top terms
    labelled; hover and tap call the glue."""
    from bokeh.core.properties import value
    from bokeh.models import (
        ColorBar,
        ColumnDataSource,
        CustomJS,
        HoverTool,
        LabelSet,
        LinearColorMapper,
        Range1d,
        TapTool,
    )
    from bokeh.palettes import Viridis256
    from bokeh.plotting import figure

    mapper = LinearColorMapper(palette=Viridis256, low=0, high=1, nan_color="#d0d0d0",
                               name="map_colors")
    points = ColumnDataSource(dict(x=[], y=[], s=[], id=[], term=[], a=[], b=[]),
                              name="map_points")
    # fixed ranges, set by the glue for each class (autoranging an empty log axis warns)
    x_range = Range1d(1e-4, 1.3, name="map_x")
    y_range = Range1d(1e-4, 1.3, name="map_y")
    fig = figure(x_axis_type="log", y_axis_type="log", width=720, height=540,
                 x_range=x_range, y_range=y_range, tools="pan,wheel_zoom,box_zoom,reset",
                 active_scroll="wheel_zoom", name="map", toolbar_location="above",
                 output_backend="canvas")
    fig.xaxis.axis_label = "share of the other documents (without the class) containing the term"
    fig.yaxis.axis_label = "share of the class's documents containing the term"
    dots = fig.scatter("x", "y", source=points, size=6, line_color=None, fill_alpha=0.75,
                       color={"field": "s", "transform": mapper})
    dots.nonselection_glyph = None
    dots.selection_glyph = None
    pick = ColumnDataSource(dict(x=[], y=[]), name="map_pick")
    fig.scatter("x", "y", source=pick, size=14, fill_color=None, line_color="#d62728",
                line_width=2.5)
    # each label's offset and anchor are chosen by the glue's collision pass (explore.js)
    labels = ColumnDataSource(dict(x=[], y=[], text=[], dx=[], dy=[], align=[], base=[]),
                              name="map_labels")
    fig.add_layout(LabelSet(x="x", y="y", text="text", source=labels, x_offset="dx",
                            y_offset="dy", text_align="align", text_baseline="base",
                            text_font_size=value("11px"), text_color="#222",
                            background_fill_color="white", background_fill_alpha=0.75,
                            name="map_label_set"))
    fig.add_layout(ColorBar(color_mapper=mapper, width=10, title="score"), "right")
    fig.add_tools(
        HoverTool(renderers=[dots], tooltips=[("term", "@term"), ("class docs", "@a"),
                                              ("rest docs", "@b")],
                  callback=CustomJS(code="window.textsift && window.textsift.hover(cb_data)")),
        TapTool(renderers=[dots]))
    points.selected.js_on_change("indices", CustomJS(
        code="window.textsift && window.textsift.tap(cb_obj)"))
    relabel = CustomJS(code="window.textsift && window.textsift.relabel()")
    for rng in (x_range, y_range):
        rng.js_on_change("start", relabel)
        rng.js_on_change("end", relabel)
    return fig


def _agreement(methods: list[str]):
    """The method agreement heat map: the cells' colours and their text colours are set by
    the glue (explore.js, WCAG contrast), the frame sized to the number of methods."""
    from bokeh.models import ColumnDataSource, FactorRange
    from bokeh.plotting import figure

    cells = ColumnDataSource(dict(x=[], y=[], v=[], txt=[], fill=[], ink=[]),
                             name="agree_cells")
    side = AGREE_CELL * len(methods)
    heat = figure(x_range=FactorRange(*methods), y_range=FactorRange(*reversed(methods)),
                  frame_width=side, frame_height=side, tools="hover", toolbar_location=None,
                  name="agree", tooltips=[("methods", "@x / @y"), ("Jaccard", "@v{0.00}")])
    heat.rect("x", "y", 1, 1, source=cells, line_color="white", fill_color="fill")
    heat.text("x", "y", text="txt", source=cells, text_align="center",
              text_baseline="middle", text_font_size="11px", text_color="ink")
    heat.xaxis.major_label_orientation = 0.9
    heat.grid.visible = False
    heat.axis.axis_line_color = None
    return heat


def _class_bars(data: dict):
    """The term's documents in each class (rank) as a share of that class's documents, and
    beside it the corpus's distribution over the classes (many labels: a term's share in the
    chosen label and in the rest, beside the corpus's :data:`CORPUS_BARS` largest labels)."""
    from bokeh.models import ColumnDataSource, FactorRange, NumeralTickFormatter, Span
    from bokeh.plotting import figure

    classes = [str(c) for c in data["classes"]]
    sizes = data["class_sizes"]
    if data.get("many"):
        largest = sorted(range(len(classes)), key=lambda j: -sizes[j])[:CORPUS_BARS]
        classes, sizes = ["this label", "the rest"], [sizes[j] for j in largest]
        corpus_classes = [str(data["classes"][j]) for j in largest]
    else:
        corpus_classes = classes
    rotate = 0.9 if len(classes) > 8 else 0
    bars = ColumnDataSource(dict(x=[], n=[], size=[], share=[]), name="term_bars")
    dist = figure(x_range=FactorRange(*classes), width=560, height=280, name="dist",
                  toolbar_location=None, tools="hover",
                  tooltips=[("", "@x"), ("documents", "@n of @size"),
                            ("share", "@share{0.0%}")])
    dist.vbar("x", top="share", width=0.8, source=bars, color="#4c72b0")
    dist.add_layout(Span(location=0, dimension="width", line_color="#d62728",
                         line_dash="dashed", line_width=1.5, name="term_rate"))
    corpus = ColumnDataSource(dict(x=corpus_classes, n=sizes,
                                   share=[n / max(data["n_docs"], 1) for n in sizes]),
                              name="corpus_bars")
    base = figure(x_range=FactorRange(*corpus_classes), width=440, height=280, name="corpus",
                  toolbar_location=None, tools="hover",
                  tooltips=[("", "@x"), ("documents", "@n"), ("share", "@share{0.0%}")])
    base.vbar("x", top="share", width=0.8, source=corpus, color="#999999")
    for f in (dist, base):
        f.yaxis.formatter = NumeralTickFormatter(format="0.[0]%")
        f.xaxis.major_label_orientation = rotate
        if rotate:  # room on the left for the first class's slanted name
            f.min_border_left = 110
        f.y_range.start = 0
        f.xgrid.visible = False
    return dist, base


def page_html(data: dict) -> str:
    """The page for :func:`explore_data`'s ``data``: one HTML string, every script inline."""
    from bokeh.embed import json_item
    from bokeh.resources import Resources

    items = {name: json_item(fig, f"plot-{name}") for name, fig in _figures(data).items()}
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    payload = base64.b64encode(gzip.compress(raw.encode("utf-8"), 6, mtime=0)).decode("ascii")
    bokeh_js = Resources(mode="inline", components=["bokeh"]).render_js()
    parts = {"TITLE": html.escape(data["title"]), "CSS": _asset("explore.css"),
             "BOKEH": bokeh_js, "ITEMS": _script_json(items), "PAYLOAD": payload,
             "GLUE": _asset("explore.js")}
    # one pass over the template: what is put in is never searched for markers
    return re.sub(r"<!--TEXTSIFT:(\w+)-->", lambda m: parts[m.group(1)], _asset("explore.html"))


def _script_json(obj) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/")


def check_out(out) -> Path:
    """The page's path, checked: an HTML file name whose folder can be made."""
    out = Path(out)
    if out.is_dir():
        raise TextsiftError(f"--out {out} is a directory; give the page's file name, "
                            f"e.g. {out / 'explore.html'}")
    if out.suffix.lower() not in (".html", ".htm"):
        raise TextsiftError(f"--out {out}: the page is HTML; give a file name ending in .html")
    check_out_dir(out.parent, "--out's folder")
    return out


def explore(counts: Counts, out, documents: Iterable[tuple[str, object]] | None = None, *,
            opts: VectorizerOptions | None = None, methods=None, method=None, k: int = 50,
            top: int = 20, cap: int = CAP, snippet_top: int = SNIPPET_TOP,
            title: str = "textsift explore", alpha: float | None = None,
            correction: str = CORRECTION, family: str = FAMILY, progress=None) -> Path:
    """Write the explore page for ``counts`` to ``out`` (atomically; nothing is written on
    bad input) and return its path.

    Parameters
    ----------
    counts : Counts
        The counts of the corpus.
    out : path
        The page to write (``.html``).
    documents : iterable of (text, label), optional
        The documents counted (read once), for the snippets.
    opts : VectorizerOptions, optional
        The vectorizer options they were counted with.
    methods : list of str, optional
        The methods to offer (default: every nominal one, and the ordinal ones when the labels
        are integer ratings).
    method : str, optional
        The one shown first (default chi2).
    k, top : int
        Initial size of the ranked table and agreement sets; terms labelled on the map.
    cap, snippet_top : int
        Terms embedded per method and view; terms per view with snippets.
    alpha : float, optional
        A significance level: a class's own ranking by a method with p-values starts with
        the terms whose q passes it, as ``textsift score --class C --alpha`` selects them
        (:func:`textsift.evidence.significant.significant_terms`); the other views keep ``k`` terms.
    correction, family : str
        How q is adjusted, over which tests (:mod:`textsift.evidence.corrections`; default
        Benjamini-Hochberg over each class's terms).
    progress : callable, optional
        Called with a short message as each stage starts.
    """
    out = check_out(out)
    data, label_shards = page_parts(counts, documents, opts=opts, methods=methods,
                                    method=method, k=k, top=top, cap=cap,
                                    snippet_top=snippet_top, title=title, alpha=alpha,
                                    correction=correction, family=family, progress=progress)
    if label_shards is not None:  # many labels: each label's data beside the page
        folder = labels_folder(out)
        if progress:
            progress(f"writing the labels' data ({folder.name}/)")
        folder.mkdir(exist_ok=True)
        for number, payload in label_shards:
            script = shard_script(number, payload).encode("utf-8")
            atomic_write(folder / f"shard-{number}.js", lambda fh, s=script: fh.write(s))
        data["many"]["folder"] = folder.name
    if progress:
        progress("writing the page")
    page = page_html(data).encode("utf-8")
    atomic_write(out, lambda fh: fh.write(page))
    return out


def labels_folder(out) -> Path:
    """The folder of a many-label page's shards: beside the page, named after it."""
    out = Path(out)
    return out.with_name(out.stem + "_labels")
