"""Time to score the seven ordinal methods (and the rank-balanced variants of four of them),
relative to the core's ``chi2`` on the same counts.

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/ordinal.py [--repeat 5]

The corpus is the largest ordinal one, Women's E-Commerce Clothing Reviews (23,486 reviews,
all rows, 1-5 stars), vectorized once and counted once; every method then starts from the
same :class:`~textsift.counting.counts.Counts`. Two timings per method, best of ``--repeat`` runs:

* ``score`` -- ``compute(counts, method)``, the (V, G) table;
* ``select 10%`` -- the table plus its ranking under the method's default policy, cut at 10%
  of the vocabulary (top-k for Var, Var*IDF, PRP and chi2's ``max``; the core round robin
  for the RR methods).

The anchor is ``chi2`` in the same run; the goal is at most 3x. The load average and the core
count are printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import time

from _common import add_data_option, best_of  # bench/ is the script's path

from textsift.counting.counts import Counts
from textsift.reading.corpus import read_corpus
from textsift.scores import compute, get_method
from textsift.selection.policies import n_from_ratio
from textsift.selection.ranking import ranking_of

METHODS = ["var", "rr_var", "var_idf", "rr_var_idf", "rr_igor", "rr_nc_idf", "prp"]
BALANCED = ["rr_var", "rr_var_idf", "rr_nc_idf", "prp"]  # also with balanced=True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    corpus = read_corpus(args.data / "womens_clothing_reviews/all.jsonl.gz", "text", "rating")
    t0 = time.perf_counter()
    counts = Counts.from_texts(corpus.texts, corpus.labels)
    t_count = time.perf_counter() - t0
    n = n_from_ratio(0.1, int(counts.seen.sum()))
    print(f"womens_clothing_reviews: {counts.n_docs} documents, {counts.n_terms} terms; "
          f"vectorize + count {t_count:.2f} s (shared by every method); 10% = {n} terms")

    def select(method, **params):
        table = compute(counts, method, **params)
        return ranking_of(table, get_method(method).default_aggregate, limit=n)

    anchor_score = best_of(lambda: compute(counts, "chi2"), args.repeat)
    anchor_select = best_of(lambda: select("chi2"), args.repeat)
    print(f"{'method':<12}{'score ms':>10}{'x chi2':>8}{'select 10% ms':>15}{'x chi2':>8}")
    print(f"{'chi2':<12}{1e3 * anchor_score:>10.2f}{1.0:>8.2f}{1e3 * anchor_select:>15.2f}"
          f"{1.0:>8.2f}")
    total_score = total_select = 0.0
    for m in METHODS:
        s = best_of(lambda m=m: compute(counts, m), args.repeat)
        r = best_of(lambda m=m: select(m), args.repeat)
        total_score += s
        total_select += r
        print(f"{get_method(m).label:<12}{1e3 * s:>10.2f}{s / anchor_score:>8.2f}"
              f"{1e3 * r:>15.2f}{r / anchor_select:>8.2f}")
    print(f"{'all seven':<12}{1e3 * total_score:>10.2f}{total_score / anchor_score:>8.2f}"
          f"{1e3 * total_select:>15.2f}{total_select / anchor_select:>8.2f}")
    worst = max(best_of(lambda m=m: compute(counts, m), args.repeat) for m in METHODS)
    for m in BALANCED:
        s = best_of(lambda m=m: compute(counts, m, balanced=True), args.repeat)
        r = best_of(lambda m=m: select(m, balanced=True), args.repeat)
        worst = max(worst, s)
        print(f"{m + ' bal.':<12}{1e3 * s:>10.2f}{s / anchor_score:>8.2f}"
              f"{1e3 * r:>15.2f}{r / anchor_select:>8.2f}")
    print(f"slowest single method / chi2 (score): {worst / anchor_score:.2f}x (goal <= 3x); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
