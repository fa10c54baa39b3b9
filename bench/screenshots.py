"""The documentation's pictures of the two pages, taken in headless Chromium:

    python bench/screenshots.py [--data ../shared/data] [--docs docs]

* ``docs/explore.png``: ``textsift explore`` on 20 Newsgroups train (``--strip-headers
  --stop-words english --min-df 2``), class sci.space, the term "orbit" clicked;
* ``docs/report.png``: the report of the experiment of ``textsift demo`` under 3-fold
  cross-validation (error bars over the folds), from the top down to its results tables.

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
from textsift.corpus import read_corpus
from textsift.counts import Counts
from textsift.experiment import parse_config, run_experiment
from textsift.report.explore import explore
from textsift.report.html import write_report
from textsift.vectorize import VectorizerOptions

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


def take(data: Path, work: Path, docs: Path) -> None:
    """Build both pages in ``work`` and write their pictures into ``docs``."""
    corpus = read_corpus(data / "20newsgroups/train.jsonl.gz")
    opts = VectorizerOptions(stop_words="english", strip_headers=True, min_df=2)
    counts = Counts.from_texts(corpus.texts, corpus.labels, opts)
    page = explore(counts, work / "explore.html", zip(corpus.texts, corpus.labels, strict=True),
                   opts=opts, title="20 Newsgroups (train)")
    cv = {**DEMO, "evaluation": {**DEMO["evaluation"], "protocol": "cv", "folds": 3}}
    cv["experiment"] = {**DEMO["experiment"], "name": "textsift demo, 3-fold cross-validation"}
    run_experiment(parse_config(cv, src="textsift demo, cv"), work / "demo")
    report = write_report(work / "demo")
    drv = driver()
    try:
        shoot(drv, page, docs / "explore.png", 1400,
              "return document.documentElement.scrollHeight", CHOOSE)
        shoot(drv, report, docs / "report.png", 1200,
              "return [...document.querySelectorAll('h2')].find((h) => "
              "h.textContent.startsWith('Results')).offsetTop")
    finally:
        drv.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    ap.add_argument("--docs", default=str(Path(__file__).parents[1] / "docs"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="screenshots-") as work:
        take(Path(args.data), Path(work), Path(args.docs))


if __name__ == "__main__":
    main()
