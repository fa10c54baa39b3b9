"""The explore page on the real corpora: how long it takes to build, how large it is, and how
long headless Chromium takes to open it from ``file://``.

    python bench/explore.py [--data ../shared/data] [--repeat 3] [--cap 2000] [--snippet-top 100]

For 20 Newsgroups train (labels: newsgroups) and IMDb train (labels: pos/neg, then the 1-10
ratings, which add the ordinal methods) it prints the time of the count pass, of the page's
data (every method's rankings, then the snippet pass) and of writing the page; the page's
size; and its load time (``window.textsift.ready``: ms from navigation until the page is
drawn; the first load, and the best of ``--repeat``) with the stages inside it (data inflated
and parsed, Bokeh figures embedded). Goal: under 3 s for 20 Newsgroups. Prints the load
average beside them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from textsift.counting.counts import Counts
from textsift.reading.corpus import read_corpus
from textsift.report.explore import page_html
from textsift.report.explore_data import CAP, SNIPPET_TOP, explore_data

sys.path.insert(0, str(Path(__file__).parent))
from explore_libs import driver  # noqa: E402

CORPORA = [("20newsgroups/train.jsonl.gz", "label", "20 Newsgroups train"),
           ("imdb/train.jsonl.gz", "label", "IMDb train (pos/neg)"),
           ("imdb/train.jsonl.gz", "rating", "IMDb train (ratings)")]


def load(drv, path: Path, repeat: int) -> tuple[float, dict]:
    """The first load's time, and the stages of the fastest of ``repeat`` loads."""
    best, first = None, None
    for _ in range(repeat):
        drv.get("about:blank")
        drv.get(path.resolve().as_uri())
        t0 = time.time()
        while not drv.execute_script("return window.textsift && window.textsift.ready"):
            if time.time() - t0 > 60:
                raise TimeoutError(f"{path} never became ready")
            time.sleep(0.02)
        timing = drv.execute_script("return window.textsift.timing")
        first = timing["ready"] if first is None else first
        if best is None or timing["ready"] < best["ready"]:
            best = timing
    return first, best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cap", type=int, default=CAP)
    ap.add_argument("--snippet-top", type=int, default=SNIPPET_TOP)
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="explore-bench-"))
    drv = driver()
    try:
        for rel, field, name in CORPORA:
            t0 = time.perf_counter()
            corpus = read_corpus(Path(args.data) / rel, label_field=field)
            counts = Counts.from_texts(corpus.texts, corpus.labels)
            t1 = time.perf_counter()
            ranked = explore_data(counts, None, cap=args.cap, snippet_top=args.snippet_top)
            t2 = time.perf_counter()
            docs = zip(corpus.texts, corpus.labels, strict=True)
            data = explore_data(counts, docs, cap=args.cap, snippet_top=args.snippet_top,
                                title=name)
            t3 = time.perf_counter()
            page = out / f"{rel.split('/')[0]}-{field}.html"
            page.write_text(page_html(data), encoding="utf-8")
            t4 = time.perf_counter()
            first, timing = load(drv, page, args.repeat)
            print(f"{name}: {counts.n_docs:,} docs, {counts.n_terms:,} terms, "
                  f"{len(data['methods'])} methods, {len(data['terms']):,} terms embedded, "
                  f"{len(data['snippets']):,} with snippets")
            print(f"  build: count {t1 - t0:.1f} s, rankings {t2 - t1:.1f} s, rankings + "
                  f"snippets {t3 - t2:.1f} s, page {t4 - t3:.1f} s")
            print(f"  page {page.stat().st_size / 1e6:.1f} MB; loads in {timing['ready']:.0f} ms "
                  f"(first load {first:.0f}; script starts {timing['start']:.0f}, data "
                  f"{timing['data']:.0f}, plots {timing['plots']:.0f}); load average "
                  f"{os.getloadavg()[0]:.2f}")
            del ranked
    finally:
        drv.quit()
    print(f"pages in {out}")


if __name__ == "__main__":
    main()
