"""Which plotting library should draw the explore page? Page size and load time of the same
two interactive charts in Bokeh, Plotly and Vega-Lite, each written as one self-contained HTML
file (every script inline) and opened from ``file://`` in headless Chromium.

    python bench/explore_libs.py [--points 7500] [--repeat 5]

The charts are the explore page's two biggest: a term map (``--points`` terms, log axes,
coloured by a score, a hover tooltip, a click handler) and a 17 x 17 method-agreement heat
map. Load time is ``performance.now()`` when the library says the charts are drawn (Bokeh's
``document_ready``, Plotly's ``newPlot`` promise, vega-embed's promise), best of ``--repeat``
fresh page loads. Vega-Lite needs ``vl-convert-python`` for its inline bundle (skipped
without it; it is not a textsift dependency). Prints ``uptime`` beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

READY = "window.__ready = performance.now();"
CLICK = "window.__clicked = (window.__clicked || 0) + 1;"


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    a = np.maximum(rng.lognormal(1.0, 1.5, n).round(), 1)
    b = np.maximum(rng.lognormal(2.0, 1.8, n).round(), 1)
    terms = [f"term{i}" for i in range(n)]
    score = np.log(a / b)
    agree = rng.uniform(0, 1, (17, 17))
    return terms, a, b, score, (agree + agree.T) / 2


def bokeh_page(n, path):
    from bokeh.embed import file_html
    from bokeh.layouts import row
    from bokeh.models import ColumnDataSource, CustomJS, HoverTool, LinearColorMapper, TapTool
    from bokeh.plotting import figure
    from bokeh.resources import INLINE

    terms, a, b, score, agree = data(n)
    src = ColumnDataSource(dict(term=terms, a=a, b=b, s=score))
    cmap = LinearColorMapper(palette="Viridis256", low=score.min(), high=score.max())
    p = figure(x_axis_type="log", y_axis_type="log", width=700, height=600,
               tools="pan,wheel_zoom,reset")
    r = p.scatter("b", "a", source=src, size=5, color={"field": "s", "transform": cmap})
    p.add_tools(HoverTool(renderers=[r], tooltips=[("term", "@term"), ("score", "@s")]),
                TapTool(renderers=[r]))
    src.selected.js_on_change("indices", CustomJS(code=CLICK))
    i, j = np.meshgrid(range(17), range(17))
    h = figure(width=400, height=400, x_range=(-0.5, 16.5), y_range=(-0.5, 16.5))
    cells = ColumnDataSource(dict(i=i.ravel(), j=j.ravel(), v=agree.ravel()))
    h.rect("i", "j", 1, 1, source=cells,
           color={"field": "v", "transform": LinearColorMapper(palette="Blues256", low=0,
                                                                high=1)})
    layout = row(p, h)
    from bokeh.document import Document

    doc = Document()
    doc.add_root(layout)
    doc.js_on_event("document_ready", CustomJS(code=READY))
    path.write_text(file_html(doc, INLINE, "bokeh"), encoding="utf-8")


def plotly_page(n, path, gl):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    terms, a, b, score, agree = data(n)
    fig = make_subplots(1, 2)
    kind = go.Scattergl if gl else go.Scatter
    fig.add_trace(kind(x=b, y=a, mode="markers", text=terms,
                       marker=dict(color=score, colorscale="Viridis", size=5)), 1, 1)
    fig.add_trace(go.Heatmap(z=agree, colorscale="Blues"), 1, 2)
    fig.update_xaxes(type="log", row=1, col=1)
    fig.update_yaxes(type="log", row=1, col=1)
    post = ("var gd = document.getElementById('{plot_id}');"
            f"gd.on('plotly_click', function() {{ {CLICK} }});"
            f"Plotly.Plots.resize(gd).then(function() {{ {READY} }});")
    path.write_text(fig.to_html(include_plotlyjs=True, full_html=True, post_script=post),
                    encoding="utf-8")


def vega_page(n, path):
    import vl_convert as vlc

    terms, a, b, score, agree = data(n)
    points = [dict(term=t, a=float(x), b=float(y), s=float(s))
              for t, x, y, s in zip(terms, a, b, score, strict=True)]
    cells = [dict(i=i, j=j, v=float(agree[i, j])) for i in range(17) for j in range(17)]
    spec = {"hconcat": [
        {"data": {"values": points}, "mark": {"type": "circle", "size": 20},
         "params": [{"name": "pick", "select": "point"}],
         "encoding": {"x": {"field": "b", "type": "quantitative", "scale": {"type": "log"}},
                      "y": {"field": "a", "type": "quantitative", "scale": {"type": "log"}},
                      "color": {"field": "s", "type": "quantitative"},
                      "tooltip": [{"field": "term"}, {"field": "s"}]},
         "width": 700, "height": 600},
        {"data": {"values": cells}, "mark": "rect",
         "encoding": {"x": {"field": "i", "type": "ordinal"},
                      "y": {"field": "j", "type": "ordinal"},
                      "color": {"field": "v", "type": "quantitative"}}}]}
    html = vlc.vegalite_to_html(spec, bundle=True, renderer="canvas")
    hook = ("vegaEmbed('#vega-chart', spec, opts).then(function(r) {"
            f"r.view.addEventListener('click', function() {{ {CLICK} }}); {READY} }})")
    html = html.replace("vegaEmbed('#vega-chart', spec, opts)", hook, 1)
    path.write_text(html, encoding="utf-8")


def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1400,1000",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}"):
        opts.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def load_ms(drv, path, repeat):
    best = float("inf")
    for _ in range(repeat):
        drv.get("about:blank")
        drv.get(path.resolve().as_uri())
        t0 = time.time()
        while drv.execute_script("return window.__ready || null") is None:
            if time.time() - t0 > 30:
                raise TimeoutError(f"{path.name} never became ready")
            time.sleep(0.02)
        best = min(best, drv.execute_script("return window.__ready"))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=7500)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="explore-libs-"))
    pages = {"bokeh": lambda p: bokeh_page(args.points, p),
             "plotly (scatter, SVG)": lambda p: plotly_page(args.points, p, gl=False),
             "plotly (scattergl)": lambda p: plotly_page(args.points, p, gl=True)}
    try:
        import vl_convert  # noqa: F401

        pages["vega-lite"] = lambda p: vega_page(args.points, p)
    except ImportError:
        print("vega-lite: skipped (pip install vl-convert-python for its inline bundle)")
    drv = driver()
    try:
        print(f"uptime: {os.getloadavg()}; {args.points} points, best of {args.repeat}")
        print(f"{'library':24s} {'page MB':>8s} {'load ms':>8s}")
        for name, build in pages.items():
            path = out / (name.split()[0] + ("gl" if "gl" in name else "") + ".html")
            build(path)
            ms = load_ms(drv, path, args.repeat)
            print(f"{name:24s} {path.stat().st_size / 1e6:8.2f} {ms:8.0f}")
        print(json.dumps({"pages": str(out)}))
    finally:
        drv.quit()


if __name__ == "__main__":
    main()
