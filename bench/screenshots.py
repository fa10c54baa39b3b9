"""The documentation's pictures of the two pages, taken in headless Chromium:

    python bench/screenshots.py [--data ../shared/data] [--docs docs] [--only NAME ...]

* ``docs/explore.png``: ``textsift explore`` on 20 Newsgroups train (``--strip-headers
  --stop-words english --min-df 2``), class sci.space, the term "orbit" clicked;
* ``docs/report.png``: the report of the experiment of ``textsift demo`` under 3-fold
  cross-validation (error bars over the folds), from the top down to its results tables;
* ``docs/explore_goemotions.png``: ``textsift explore`` on GoEmotions train (label lists,
  ``--min-df 2``), ``log_odds_dirichlet``, the label gratitude, the term "thanks" clicked.

``--only`` takes some of them (``explore``, ``report``, ``goemotions``).

Both are quantised to 256 colours (a third of the size, no visible change on these pages).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from textsift.cli.demo import DEMO
from textsift.counting.counts import Counts
from textsift.experiment import parse_config, run_experiment
from textsift.reading.corpus import read_corpus
from textsift.report.explore import explore
from textsift.report.html import write_report
from textsift.text.vectorize import VectorizerOptions

sys.path.insert(0, str(Path(__file__).parent))
from explore_libs import driver  # noqa: E402


def shoot(drv, page: Path, out: Path, width: int, height_js: str, before: str = "") -> None:
    """Open ``page``, run ``before``, size the window to ``width`` x the height ``height_js``
    returns, and write the screenshot to ``out``."""
    drv.set_window_size(width, 1000)
    drv.get(page.resolve().as_uri())
    t0 = time.time()
    while not drv.execute_script("return document.readyState === 'complete' && "
                                 "(!window.textsift || !!window.textsift.ready)"):
        if time.time() - t0 > 60:
            raise TimeoutError(f"{page} never became ready")
        time.sleep(0.05)
    drv.execute_script("document.documentElement.style.overflow = 'hidden';" + before)
    time.sleep(0.5)
    chrome = drv.execute_script("return window.outerHeight - window.innerHeight")
    drv.set_window_size(width, int(drv.execute_script(height_js)) + chrome)
    time.sleep(0.5)
    shot = Image.open(io.BytesIO(drv.get_screenshot_as_png())).convert("RGB")
    shot.quantize(256).save(out, optimize=True)
    print(f"{out}: {shot.size[0]} x {shot.size[1]}, {out.stat().st_size / 1e3:.0f} kB")


CHOOSE = """
const choose = (id, v) => { const e = document.getElementById(id); e.value = v;
  e.dispatchEvent(new Event("change")); };
choose("class", [...document.querySelectorAll("#class option")]
  .find((o) => o.textContent.startsWith("sci.space")).value);
document.querySelector('#ranked tbody tr[data-term="orbit"] td.term').click();
"""
CHOOSE_GRATITUDE = CHOOSE.replace("sci.space", "gratitude").replace('"orbit"', '"thanks"')


def _explore_page(path: Path, out: Path, title: str, opts: VectorizerOptions, **kw) -> Path:
    corpus = read_corpus(path, label_field=kw.pop("label_field", "label"))
    counts = Counts.from_texts(corpus.texts, corpus.labels, opts)
    return explore(counts, out, zip(corpus.texts, corpus.labels, strict=True), opts=opts,
                   title=title, **kw)


def take(data: Path, work: Path, docs: Path, only=("explore", "report", "goemotions")) -> None:
    """Build the pages in ``work`` and write the pictures ``only`` names into ``docs``."""
    drv = driver()
    try:
        if "explore" in only:
            opts = VectorizerOptions(stop_words="english", strip_headers=True, min_df=2)
            page = _explore_page(data / "20newsgroups/train.jsonl.gz", work / "explore.html",
                                 "20 Newsgroups (train)", opts)
            shoot(drv, page, docs / "explore.png", 1400,
                  "return document.documentElement.scrollHeight", CHOOSE)
        if "report" in only:
            cv = {**DEMO, "evaluation": {**DEMO["evaluation"], "protocol": "cv", "folds": 3}}
            cv["experiment"] = {**DEMO["experiment"],
                                "name": "textsift demo, 3-fold cross-validation"}
            run_experiment(parse_config(cv, src="textsift demo, cv"), work / "demo")
            shoot(drv, write_report(work / "demo"), docs / "report.png", 1200,
                  "return [...document.querySelectorAll('h2')].find((h) => "
                  "h.textContent.startsWith('Results')).offsetTop")
        if "goemotions" in only:
            page = _explore_page(data / "goemotions/train.jsonl.gz", work / "goemotions.html",
                                 "GoEmotions (train)", VectorizerOptions(min_df=2),
                                 label_field="labels", method="log_odds_dirichlet")
            shoot(drv, page, docs / "explore_goemotions.png", 1400,
                  "return document.documentElement.scrollHeight", CHOOSE_GRATITUDE)
    finally:
        drv.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    ap.add_argument("--docs", default=str(Path(__file__).parents[1] / "docs"))
    ap.add_argument("--only", nargs="+", choices=("explore", "report", "goemotions"),
                    default=("explore", "report", "goemotions"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="screenshots-") as work:
        take(Path(args.data), Path(work), Path(args.docs), args.only)


if __name__ == "__main__":
    main()
